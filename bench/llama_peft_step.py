#!/usr/bin/env python3
"""transformers + PEFT's side of bench/llama_step_bench.cpp: one LoRA fine-tuning step at SmolLM2-135M's
shape (LlamaForSequenceClassification, 30 layers x 576, 9/3 heads, FFN 1536, vocabulary 49152, random
weights, eager attention), batch 16 x 128, LoRA r=8 alpha=16 dropout 0 on all seven projections, the
head trained (PEFT's SEQ_CLS modules_to_save), AdamW, train mode.

Run with the oracle venv (Debian's torch 1.13, the same as our LibTorch):
    .venv/bin/python bench/llama_peft_step.py [--steps 5] [--threads 2]
Prints one JSON line: {"ms_per_step": median over the timed steps after one warm-up, ...}.
"""
import argparse
import json
import statistics
import time

import torch
from peft import LoraConfig, get_peft_model
from transformers import LlamaConfig, LlamaForSequenceClassification

BATCH, TOKENS = 16, 128
PROJECTIONS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=49152, hidden_size=576, intermediate_size=1536, num_hidden_layers=30,
                         num_attention_heads=9, num_key_value_heads=3, rms_norm_eps=1e-5, rope_theta=100000.0,
                         tie_word_embeddings=True, pad_token_id=2, num_labels=2, attn_implementation="eager")
    model = get_peft_model(LlamaForSequenceClassification(config),
                           LoraConfig(task_type="SEQ_CLS", r=8, lora_alpha=16, lora_dropout=0.0,
                                      target_modules=PROJECTIONS))
    model.train()
    ids = torch.randint(3, config.vocab_size, (BATCH, TOKENS))
    mask = torch.ones_like(ids)
    labels = torch.randint(0, 2, (BATCH,))
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4, weight_decay=0.0)

    def step():
        model(input_ids=ids, attention_mask=mask, labels=labels).loss.backward()
        optimizer.step()
        optimizer.zero_grad()

    step()  # warm-up
    times = []
    for _ in range(args.steps):
        start = time.perf_counter()
        step()
        times.append((time.perf_counter() - start) * 1000)
    print(json.dumps({"name": "hf_peft_smollm2_lora_step", "ms_per_step": statistics.median(times), "steps": times,
                      "threads": args.threads, "torch": torch.__version__}))


if __name__ == "__main__":
    main()
