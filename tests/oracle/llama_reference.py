#!/usr/bin/env python3
"""Reference outputs of transformers' Llama models for tests/lib/models/llama_parity_live_test.cpp.

Usage: llama_reference.py OUT_DIR

Builds small random Llama configurations (grouped-query and multi-head attention, tied and untied
output embeddings, biases on and off, a head width other than hidden/heads), re-draws every parameter,
saves each with save_pretrained(safe_serialization=True) into OUT_DIR/<case>/ and writes
OUT_DIR/<case>/io.safetensors:

  input_ids, attention_mask, position_ids    right-padded rows of different lengths, the positions the
                                              suite uses by default (each real token's index among its
                                              row's real tokens), passed to transformers explicitly
  left.input_ids, left.attention_mask,       the same rows padded on the left
  left.position_ids
  labels                                      next-token labels (-100 on padding) / class ids
  logits, loss, hidden_states.<i>             float32, eval mode; (B, T, V) for the language model,
                                              (B, num_labels) for the classifier
  left.logits                                 the left-padded rows' logits
  logits_f64                                  the same weights after model.double()

and OUT_DIR/cases.json: [{name, head ("causal_lm" | "sequence_classification"), num_labels, layers}].
"""
import os
import sys

import torch
import transformers

from oracle_common import save_tensors, write_json

LENGTHS = [13, 9, 5, 2]
VOCAB = 96
PAD = 0


def redraw(model, generator):
    """RMSNorm scales 1 + N(0, 0.1²), biases N(0, 0.1²), every other tensor N(0, 0.15²)."""
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            noise = torch.randn(parameter.shape, generator=generator, dtype=torch.float64).to(parameter.dtype)
            if name.endswith("norm.weight"):
                parameter.copy_(1 + 0.1 * noise)
            elif name.endswith("bias"):
                parameter.copy_(0.1 * noise)
            else:
                parameter.copy_(0.15 * noise)


def rows(generator, left):
    """Random ids in [1, VOCAB) (never the pad id 0), padded with PAD; positions count real tokens."""
    width = max(LENGTHS)
    ids = torch.full((len(LENGTHS), width), PAD, dtype=torch.int64)
    mask = torch.zeros_like(ids)
    for row, length in enumerate(LENGTHS):
        start = width - length if left else 0
        ids[row, start:start + length] = torch.randint(1, VOCAB, (length,), generator=generator)
        mask[row, start:start + length] = 1
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    return ids, mask, positions


CASES = {
    # SmolLM2's arrangement in miniature: 3 query heads per key-value head, tied output embedding.
    "gqa_tied_lm": dict(head="causal_lm", config=dict(hidden_size=48, intermediate_size=80, num_hidden_layers=2,
                                                     num_attention_heads=6, num_key_value_heads=2,
                                                     tie_word_embeddings=True, rope_theta=100000.0)),
    # Multi-head attention, biases everywhere, a separate lm_head, head width 16 ≠ 32 / 4.
    "mha_bias_lm": dict(head="causal_lm", config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                                     num_attention_heads=4, num_key_value_heads=4, head_dim=16,
                                                     attention_bias=True, mlp_bias=True, tie_word_embeddings=False)),
    "gqa_classifier": dict(head="sequence_classification", num_labels=3,
                           config=dict(hidden_size=48, intermediate_size=80, num_hidden_layers=2,
                                       num_attention_heads=6, num_key_value_heads=3, tie_word_embeddings=True)),
}


def main():
    out_dir = sys.argv[1]
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1234)
    manifest = []
    for name, case in CASES.items():
        config = transformers.LlamaConfig(vocab_size=VOCAB, max_position_embeddings=64, rms_norm_eps=1e-5,
                                          pad_token_id=PAD, bos_token_id=1, eos_token_id=2,
                                          num_labels=case.get("num_labels", 2), attn_implementation="eager",
                                          **case["config"])
        if case["head"] == "causal_lm":
            model = transformers.LlamaForCausalLM(config)
        else:
            model = transformers.LlamaForSequenceClassification(config)
        redraw(model, generator)
        model.eval()
        directory = os.path.join(out_dir, name)
        model.save_pretrained(directory, safe_serialization=True)

        ids, mask, positions = rows(generator, left=False)
        left_ids, left_mask, left_positions = rows(generator, left=True)
        if case["head"] == "causal_lm":
            labels = ids.masked_fill(mask == 0, -100)
        else:
            labels = torch.randint(0, case["num_labels"], (len(LENGTHS),), generator=generator)
        tensors = {"input_ids": ids, "attention_mask": mask, "position_ids": positions, "labels": labels,
                   "left.input_ids": left_ids, "left.attention_mask": left_mask, "left.position_ids": left_positions}
        with torch.no_grad():
            out = model(input_ids=ids, attention_mask=mask, position_ids=positions, labels=labels,
                        output_hidden_states=True)
            tensors["logits"] = out.logits
            tensors["loss"] = out.loss.reshape(1)
            for i, hidden in enumerate(out.hidden_states):
                tensors[f"hidden_states.{i}"] = hidden
            tensors["left.logits"] = model(input_ids=left_ids, attention_mask=left_mask,
                                           position_ids=left_positions).logits
            model.double()
            tensors["logits_f64"] = model(input_ids=ids, attention_mask=mask, position_ids=positions).logits
        save_tensors(os.path.join(directory, "io.safetensors"), tensors)
        manifest.append({"name": name, "head": case["head"], "num_labels": case.get("num_labels", 2),
                         "layers": config.num_hidden_layers})
    write_json(os.path.join(out_dir, "cases.json"), {"cases": manifest, "transformers": transformers.__version__})


if __name__ == "__main__":
    main()
