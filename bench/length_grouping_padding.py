#!/usr/bin/env python3
"""How much padding length-grouped batching saves on the cpu profile's GLUE runs, measured with Hugging
Face's own code: the minilm tokenizer (transformers' fast BertTokenizer from the suite's checkpoint
folder), transformers' get_length_grouped_indices (what group_by_length uses) at its default mega-batch
(min(n / (4 x batch), 50) = 7 batches here: `mega_batch_mult: 0` in the suite) and at 50 batches (the
whole epoch as one group: the suite's default `mega_batch_mult: 50`), and the plain seeded shuffle, on a
random 1,000-example training subset per task, batch 32, max length 128, 2 epochs: what one Table 2 cpu
run trains on. Padded tokens are what the products see under dynamic padding (each batch padded to its
longest example); the real tokens are the same either way.

Usage (in the oracle venv): .venv/bin/python bench/length_grouping_padding.py [--data ../shared/data]
    [--model ~/.cache/capaboost/checkpoints/minilm]
"""
import argparse
import csv
import os
import random
import sys

import torch
from transformers import AutoTokenizer
from transformers.trainer_pt_utils import get_length_grouped_indices

# (file columns of the first and second sentence; None: single sentence), as the mirror lays them out.
TASKS = {
    "CoLA": (3, None, False),
    "SST-2": ("sentence", None, True),
    "MRPC": ("#1 String", "#2 String", True),
    "STS-B": ("sentence1", "sentence2", True),
    "RTE": ("sentence1", "sentence2", True),
}


def read_examples(path, first, second, header):
    with open(path, encoding="utf-8-sig") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    if header:
        names = rows[0]
        rows = rows[1:]
        first = names.index(first)
        second = names.index(second) if second is not None else None
    return [(r[first], r[second] if second is not None else None) for r in rows if len(r) > first]


def padded_tokens(batches, lengths):
    return sum(max(lengths[i] for i in batch) * len(batch) for batch in batches)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--model", default=os.path.expanduser("~/.cache/capaboost/checkpoints/minilm"))
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    print(f"{'task':6s} {'real':>8s} {'padded':>8s} {'grouped':>8s} {'grouped/padded':>15s} {'whole epoch/padded':>19s}")
    for task, (first, second, header) in TASKS.items():
        examples = read_examples(os.path.join(args.data, task, "train.tsv"), first, second, header)
        subset = random.Random(42).sample(examples, min(args.examples, len(examples)))
        lengths = [len(tokenizer(a, b, truncation=True, max_length=128)["input_ids"]) for a, b in subset]
        real = padded = grouped = whole = 0
        for epoch in range(args.epochs):
            generator = torch.Generator().manual_seed(42 + epoch)
            order = torch.randperm(len(lengths), generator=generator).tolist()
            plain = [order[i:i + args.batch_size] for i in range(0, len(order), args.batch_size)]
            generator = torch.Generator().manual_seed(42 + epoch)
            by_length = get_length_grouped_indices(lengths, args.batch_size, generator=generator)
            grouped_batches = [by_length[i:i + args.batch_size] for i in range(0, len(by_length), args.batch_size)]
            generator = torch.Generator().manual_seed(42 + epoch)
            by_epoch = get_length_grouped_indices(lengths, args.batch_size, mega_batch_mult=50, generator=generator)
            whole_batches = [by_epoch[i:i + args.batch_size] for i in range(0, len(by_epoch), args.batch_size)]
            real += sum(lengths)
            padded += padded_tokens(plain, lengths)
            grouped += padded_tokens(grouped_batches, lengths)
            whole += padded_tokens(whole_batches, lengths)
        print(f"{task:6s} {real:8d} {padded:8d} {grouped:8d} {grouped / padded:15.3f} {whole / padded:19.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
