#!/usr/bin/env python3
"""PyTorch counterpart of bench/roberta_bench.cpp: the same RoBERTa-base-shaped step, in milliseconds.

A self-contained re-implementation of Hugging Face's RobertaForSequenceClassification (transformers
4.30.2 code paths: post-LayerNorm blocks, erf-GELU, additive finfo.min attention mask, dense -> tanh ->
out_proj head), random weights, with a small LoRA linear (r=8, alpha=16) on query and value of every
layer, the backbone frozen (the classification head trains, as in the paper), AdamW.
No transformers/peft import: this measures what plain PyTorch does with HF's computation.

Run with Debian's python3-torch (the first python3 on PATH has no torch):
    $(command -v -p python3) bench/roberta_step.py [--steps 5] [--threads 2]
Prints ms per forward (eval, no_grad) and per training step (train mode, dropout 0.1, forward + loss +
backward + AdamW step), median over the timed repetitions after warm-up.
"""
import argparse
import math
import statistics
import time

import torch
from torch import nn
import torch.nn.functional as F

VOCAB, HIDDEN, LAYERS, HEADS, FFN, MAX_POS, PAD = 50265, 768, 12, 12, 3072, 514, 1
BATCH, SEQ, LABELS, RANK, ALPHA, DROPOUT = 16, 128, 2, 8, 16.0, 0.1


class LoraLinear(nn.Module):
    """y = x W^T + b + (alpha/r) (x A^T) B^T; W, b frozen; A Kaiming-uniform, B zero (as PEFT)."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float):
        super().__init__()
        self.base = base
        self.A = nn.Parameter(torch.empty(rank, base.in_features))
        self.B = nn.Parameter(torch.zeros(base.out_features, rank))
        nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))
        self.scale = alpha / rank

    def forward(self, x):
        return self.base(x) + F.linear(F.linear(x, self.A), self.B) * self.scale


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.query = LoraLinear(nn.Linear(HIDDEN, HIDDEN), RANK, ALPHA)
        self.key = nn.Linear(HIDDEN, HIDDEN)
        self.value = LoraLinear(nn.Linear(HIDDEN, HIDDEN), RANK, ALPHA)
        self.attn_out = nn.Linear(HIDDEN, HIDDEN)
        self.attn_norm = nn.LayerNorm(HIDDEN, eps=1e-5)
        self.inter = nn.Linear(HIDDEN, FFN)
        self.out = nn.Linear(FFN, HIDDEN)
        self.out_norm = nn.LayerNorm(HIDDEN, eps=1e-5)
        self.drop = nn.Dropout(DROPOUT)

    def heads(self, x):  # (B, T, C) -> (B, H, T, d), as HF's transpose_for_scores
        return x.view(x.size(0), x.size(1), HEADS, HIDDEN // HEADS).permute(0, 2, 1, 3)

    def forward(self, h, mask):
        q, k, v = self.heads(self.query(h)), self.heads(self.key(h)), self.heads(self.value(h))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(HIDDEN // HEADS) + mask
        probs = self.drop(F.softmax(scores, dim=-1))
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous().view(h.shape)
        a = self.attn_norm(self.drop(self.attn_out(ctx)) + h)
        return self.out_norm(self.drop(self.out(F.gelu(self.inter(a)))) + a)


class Roberta(nn.Module):
    def __init__(self):
        super().__init__()
        self.word = nn.Embedding(VOCAB, HIDDEN, padding_idx=PAD)
        self.pos = nn.Embedding(MAX_POS, HIDDEN, padding_idx=PAD)
        self.tok = nn.Embedding(1, HIDDEN)
        self.norm = nn.LayerNorm(HIDDEN, eps=1e-5)
        self.drop = nn.Dropout(DROPOUT)
        self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))
        self.cls_dense = nn.Linear(HIDDEN, HIDDEN)
        self.cls_out = nn.Linear(HIDDEN, LABELS)

    def forward(self, ids, attention_mask):
        not_pad = ids.ne(PAD).int()
        positions = (torch.cumsum(not_pad, dim=1).type_as(not_pad) * not_pad).long() + PAD
        h = self.word(ids) + self.tok(torch.zeros_like(ids)) + self.pos(positions)
        h = self.drop(self.norm(h))
        mask = (1.0 - attention_mask[:, None, None, :].to(h.dtype)) * torch.finfo(h.dtype).min
        for layer in self.layers:
            h = layer(h, mask)
        x = self.drop(torch.tanh(self.cls_dense(self.drop(h[:, 0, :]))))
        return self.cls_out(x)


def median_ms(fn, warmup, steps):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), times


def time_forward_and_step(logits_of, model, labels, optimizer, trainable, args):
    """Prints the median ms of an eval forward (no_grad) and of a training step (loss, backward, optimizer)."""
    def forward():
        model.eval()
        with torch.no_grad():
            logits_of()

    def step():
        model.train()
        loss = F.cross_entropy(logits_of(), labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    fwd, fwd_all = median_ms(forward, args.warmup, args.steps)
    stp, stp_all = median_ms(step, args.warmup, args.steps)
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, "
          f"trainable params {sum(p.numel() for p in trainable)}")
    print(f"forward_ms {fwd:.1f}  (runs: {', '.join(f'{t:.0f}' for t in fwd_all)})")
    print(f"step_ms {stp:.1f}  (runs: {', '.join(f'{t:.0f}' for t in stp_all)})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    model = Roberta()
    for name, p in model.named_parameters():
        p.requires_grad_(name.endswith(".A") or name.endswith(".B") or name.startswith("cls_"))
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=1e-4, weight_decay=0.1)
    ids = torch.randint(3, VOCAB, (BATCH, SEQ))
    ids[:, 0], ids[:, -1] = 0, 2
    attention_mask = torch.ones(BATCH, SEQ, dtype=torch.long)
    labels = torch.randint(0, LABELS, (BATCH,))

    time_forward_and_step(lambda: model(ids, attention_mask), model, labels, optimizer, trainable, args)


if __name__ == "__main__":
    main()
