#!/usr/bin/env python3
"""Reference data of AdapterHub's `adapters` (the maintained adapter-transformers, which the paper builds
on; pinned in requirements.txt) for the live adapter parity test (tests/lib/peft/adapters_parity_live_test.cpp).

Usage:
  adapters_reference.py OUT_DIR CONFIG      CONFIG: pfeiffer (SeqBnConfig), houlsby (DoubleSeqBnConfig)
      peft_reference.py's random RoBERTa classifier (hidden 32, 3 labels, dropout 0) saved in OUT_DIR/base;
      the adapter CONFIG added with bottleneck 8 (reduction factor 4) and made the trained one with
      train_adapter; every trainable tensor re-drawn; in training mode. OUT_DIR/weights.safetensors holds
      the trainable tensors, OUT_DIR/io.safetensors the batch (input_ids, attention_mask, labels), logits,
      loss (cross-entropy) and grad.<name> of each trainable tensor, as peft_reference.py's `layers` does.
      Names drop the library's wrapping: "<block>.adapter.down" / "down_bias" / "up" / "up_bias" for
      "<block>.adapters.<name>.adapter_down.0.weight" / ".bias" and "adapter_up.weight" / ".bias"
      (<block>: the residual block, e.g. roberta.encoder.layer.0.output); the head's keep their own.
"""
import os
import re
import sys

import adapters
import torch
from adapters import DoubleSeqBnConfig, SeqBnConfig
from transformers import AutoModelForSequenceClassification

from peft_reference import record_step, save_base

ADAPTER_TENSORS = [(re.compile(r"^(.*)\.adapters\.[^.]+\.adapter_down\.0\.weight$"), "down"),
                   (re.compile(r"^(.*)\.adapters\.[^.]+\.adapter_down\.0\.bias$"), "down_bias"),
                   (re.compile(r"^(.*)\.adapters\.[^.]+\.adapter_up\.weight$"), "up"),
                   (re.compile(r"^(.*)\.adapters\.[^.]+\.adapter_up\.bias$"), "up_bias")]


def neutral_name(name):
    """A trainable tensor's name without the library's wrapping (see the usage above); exits on any other
    trainable tensor, so a configuration that trains more (gating, adapter LayerNorms) is noticed."""
    for pattern, tensor in ADAPTER_TENSORS:
        match = pattern.match(name)
        if match:
            return f"{match.group(1)}.adapter.{tensor}"
    if name.startswith("classifier."):
        return name
    sys.exit(f"adapters_reference: unexpected trainable tensor {name}")


def adapter_config(name):
    if name == "pfeiffer":
        return SeqBnConfig(reduction_factor=4, non_linearity="relu")
    if name == "houlsby":
        return DoubleSeqBnConfig(reduction_factor=4, non_linearity="swish")
    sys.exit(f"unknown adapter configuration {name!r}; choose pfeiffer or houlsby")


def reference(out_dir, config_name):
    generator = torch.Generator().manual_seed(13)
    base_dir = os.path.join(out_dir, "base")
    vocab_size = save_base(base_dir, generator)
    model = AutoModelForSequenceClassification.from_pretrained(base_dir)
    adapters.init(model)
    model.add_adapter("capaboost", config=adapter_config(config_name))
    model.train_adapter("capaboost")
    names = record_step(out_dir, model, generator, vocab_size, neutral_name)
    print(f"adapters_reference {config_name} (adapters {adapters.__version__}): {len(names)} trainable tensors: "
          + ", ".join(names))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    reference(sys.argv[1], sys.argv[2])


if __name__ == "__main__":
    main()
