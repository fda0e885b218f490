#!/usr/bin/env python3
"""The speed bar on a GPU: transformers + PEFT's LoRA training step at bench/roberta_bench.cpp's
BM_RobertaBaseStepCuda shape, on the same GPU, in milliseconds.

RobertaForSequenceClassification at roberta-base's shape (transformers' RobertaConfig defaults: 12 × 768,
vocabulary 50265), random weights, PEFT's LoRA r=8, alpha 16, on query and value (no LoRA dropout, as
ours), the classification head trained, AdamW (lr 1e-4, weight decay 0.1), batch 32 × 128 tokens,
dropout 0.1 in train mode. fp32, and bf16 through torch.autocast as the suite's bf16 runs. Both of
transformers' attention implementations: "eager" computes attention as the suite does (two batched
products and a softmax), "sdpa" (transformers' default) calls PyTorch's fused attention kernels.

Run where torch, transformers and peft import and a GPU is visible (harness/scripts/device_check.sh):
    python3 bench/peft_step_cuda.py [--steps 30] [--json out.json] [--device cpu --cases eager:fp32 --steps 1]
Prints one line per case: median ms per step over --steps timed steps after 3 warm-up steps, timed
with CUDA events around each step.
"""
import argparse
import json
import statistics
import time

import torch
import peft
import transformers
from transformers import RobertaConfig, RobertaForSequenceClassification
from peft import LoraConfig, TaskType, get_peft_model

BATCH, SEQ, VOCAB = 32, 128, 50265


def time_step(attention: str, bf16: bool, steps: int, device: str, profile_dir: str = None) -> float:
    torch.manual_seed(0)
    config = RobertaConfig(num_labels=2, attn_implementation=attention)
    model = RobertaForSequenceClassification(config)
    if getattr(model.config, "_attn_implementation", None) != attention and hasattr(model, "set_attn_implementation"):
        model.set_attn_implementation(attention)  # transformers versions that ignore the config's kwarg
    used = getattr(model.config, "_attn_implementation", None)
    if used != attention:
        raise RuntimeError(f"transformers {transformers.__version__} built attention '{used}', not '{attention}'")
    model = get_peft_model(model, LoraConfig(task_type=TaskType.SEQ_CLS, r=8, lora_alpha=16, lora_dropout=0.0,
                                             target_modules=["query", "value"]))
    model.to(device).train()
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4, weight_decay=0.1)
    input_ids = torch.randint(3, VOCAB, (BATCH, SEQ), device=device)
    attention_mask = torch.ones(BATCH, SEQ, dtype=torch.long, device=device)
    labels = torch.randint(0, 2, (BATCH,), device=device)

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device, dtype=torch.bfloat16, enabled=bf16):
            logits = model(input_ids=input_ids, attention_mask=attention_mask).logits
        loss = torch.nn.functional.cross_entropy(logits.float(), labels)
        loss.backward()
        optimizer.step()

    for _ in range(3):
        step()
    if profile_dir:  # one more step's host-side ops, for bench/profile_summary.py
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profiler:
            step()
            if device == "cuda":
                torch.cuda.synchronize()
        profiler.export_chrome_trace(f"{profile_dir}/peft_step_{attention}_{'bf16' if bf16 else 'fp32'}.json")
    times = []
    for _ in range(steps):
        if device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            step()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        else:  # --device cpu: a dry run of the script where no GPU is
            begin = time.perf_counter()
            step()
            times.append((time.perf_counter() - begin) * 1e3)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--device", default="cuda", help="cuda; cpu only to check the script where no GPU is")
    parser.add_argument("--profile-dir", help="write one profiled step per case here (Chrome trace)")
    parser.add_argument("--cases", default="eager:fp32,eager:bf16,sdpa:fp32,sdpa:bf16",
                        help="attention:precision pairs, comma-separated")
    args = parser.parse_args()
    name = torch.cuda.get_device_name(0) if args.device == "cuda" else "cpu"
    results = {"device": name, "torch": torch.__version__,
               "transformers": transformers.__version__, "peft": peft.__version__, "cases": []}
    for case in args.cases.split(","):
        attention, precision = case.split(":")
        try:
            ms = time_step(attention, precision == "bf16", args.steps, args.device, args.profile_dir)
        except (RuntimeError, ValueError) as error:  # one case failing leaves the others timed
            print(f"transformers+PEFT LoRA r=8  attention={attention:5s} {precision}  FAILED: {error}", flush=True)
            continue
        results["cases"].append({"attention": attention, "precision": precision, "ms_per_step": ms})
        print(f"transformers+PEFT LoRA r=8  attention={attention:5s} {precision}  {ms:8.2f} ms/step", flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1)


if __name__ == "__main__":
    main()
