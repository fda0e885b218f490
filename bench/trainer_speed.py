#!/usr/bin/env python3
"""One fine-tuning epoch three ways, in one session: the suite's trainer vs plain PyTorch loops.

Workload (issue #4): the first 1,000 CoLA training sentences, RoBERTa-base shape with random weights,
LoRA r=8 (alpha 16) on query and value, backbone frozen, classification head trained, batch 16, AdamW
(lr 5e-4, weight decay 0.1) with linear warm-up/decay and gradient clipping at 1.0.

  1. ours:     capaboost_bench --benchmark_filter=TrainerEpochCoLA1000 (dynamic padding); it also writes
               the epoch's token ids, batch by batch, so the PyTorch loops see the same batches;
  2. pad128:   the PyTorch model of bench/roberta_step.py, every batch padded to 128 tokens as the
               reference code does;
  3. dynamic:  the same PyTorch loop, each batch padded to its longest sentence.
Labels in the PyTorch loops are random (timing does not depend on them).

Run with Debian's python3-torch (the first python3 on PATH has no torch):
    $(command -v -p python3) bench/trainer_speed.py --bench build/bench/capaboost_bench [--rounds 1]
Prints seconds per epoch, real tokens/s and the ratios pad128/ours and dynamic/ours.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from roberta_step import PAD, Roberta  # noqa: E402  (the same HF-equivalent model as roberta_step.py)

BATCH, MAX_LEN, LR, WEIGHT_DECAY, WARMUP_RATIO, CLIP = 16, 128, 5e-4, 0.1, 0.06, 1.0


def run_ours(bench, ids_path):
    env = dict(os.environ, CAPABOOST_BENCH_IDS=ids_path)
    out = subprocess.run([bench, "--benchmark_filter=TrainerEpochCoLA1000", "--benchmark_format=json"],
                         env=env, check=True, capture_output=True, text=True).stdout
    case = json.loads(out)["benchmarks"][0]
    if case.get("error_occurred"):
        raise SystemExit(f"trainer benchmark failed: {case.get('error_message')}")
    return case["real_time"], case["train_tokens_per_s"]


def read_batches(ids_path):
    with open(ids_path) as f:
        rows = [[int(t) for t in line.split()] for line in f if line.strip()]
    return [rows[i:i + BATCH] for i in range(0, len(rows), BATCH)]


def pytorch_epoch(batches, pad_to_max):
    torch.manual_seed(42)
    model = Roberta()
    for name, p in model.named_parameters():
        p.requires_grad_(name.endswith(".A") or name.endswith(".B") or name.startswith("cls_"))
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=LR, weight_decay=WEIGHT_DECAY)
    total = len(batches)
    warmup = max(1, int(-(-total * WARMUP_RATIO // 1)))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: s / warmup if s < warmup else max(0.0, (total - s) / max(1, total - warmup)))
    model.train()
    tokens = 0
    start = time.perf_counter()
    for rows in batches:
        width = MAX_LEN if pad_to_max else max(len(r) for r in rows)
        ids = torch.full((len(rows), width), PAD, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, r in enumerate(rows):
            ids[i, :len(r)] = torch.tensor(r)
            mask[i, :len(r)] = 1
            tokens += len(r)
        labels = torch.randint(0, 2, (len(rows),))
        loss = F.cross_entropy(model(ids, mask), labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainable, CLIP)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad(set_to_none=True)
    seconds = time.perf_counter() - start
    return seconds, tokens / seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench", default="build/bench/capaboost_bench")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    ids_path = os.path.join(tempfile.mkdtemp(prefix="capaboost-trainer-speed-"), "ids.txt")
    results = {"ours": [], "pad128": [], "dynamic": []}
    for round_index in range(args.rounds):
        results["ours"].append(run_ours(args.bench, ids_path))
        batches = read_batches(ids_path)
        results["dynamic"].append(pytorch_epoch(batches, pad_to_max=False))
        results["pad128"].append(pytorch_epoch(batches, pad_to_max=True))
        print(f"round {round_index + 1}: " + ", ".join(f"{k} {v[-1][0]:.1f} s ({v[-1][1]:.0f} tok/s)"
                                                     for k, v in results.items()), flush=True)
    best = {k: min(v) for k, v in results.items()}
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, {len(batches)} batches of {BATCH}")
    for name, (seconds, rate) in best.items():
        print(f"{name:8s} {seconds:7.1f} s/epoch  {rate:8.0f} real tokens/s")
    print(f"pad128 / ours  = {best['pad128'][0] / best['ours'][0]:.2f}x  (goal >= 3)")
    print(f"dynamic / ours = {best['dynamic'][0] / best['ours'][0]:.2f}x  (goal >= 1)")


if __name__ == "__main__":
    main()
