#!/usr/bin/env python3
"""Reference data of Hugging Face PEFT for the live PEFT parity tests (tests/lib/peft/*_live_test.cpp).

Usage:
  peft_reference.py layers OUT_DIR METHOD     METHOD: lora, adalora, prefix, llama-lora
      A random RoBERTa classifier (for llama-lora: a random Llama classifier with grouped-query attention,
      LoRA r 4 on all seven projections q_proj k_proj v_proj o_proj gate_proj up_proj down_proj, the head
      "score" trained as modules_to_save) (3 labels, dropout 0) saved with its tokenizer in OUT_DIR/base; PEFT's
      METHOD on it with every trainable tensor re-drawn (non-zero LoRA B and AdaLoRA E), in training
      mode: OUT_DIR/weights.safetensors holds the trainable tensors, OUT_DIR/io.safetensors the batch
      (input_ids, attention_mask, labels), logits, loss (cross-entropy) and grad.<name> of each
      trainable tensor. Names drop PEFT's wrapping: "<module>.lora_A" / "lora_B" / "lora_E" (the
      weights of "base_model.model.<module>.lora_A.default"), "classifier.<…>" for the head (PEFT trains
      a copy, classifier.modules_to_save.default), "prefix.embedding", "prefix.down.weight" /
      ".bias" and "prefix.up.weight" / ".bias" for prefix tuning's encoder (its embedding and
      transform.0 / transform.2).
  peft_reference.py init OUT_DIR DRAWS
      PEFT's initialisation of LoRA (r 8) on a 768 → 768 linear layer, DRAWS times, each from its own
      seed: OUT_DIR/init.safetensors holds lora_A (DRAWS, 8, 768) and lora_B (DRAWS, 768, 8).
  peft_reference.py export OUT_DIR BASE_DIR INPUTS ADAPTER_DIR [ADAPTER_DIR ...]
      Each adapter loaded as its users would, PeftModel.from_pretrained(
      AutoModelForSequenceClassification.from_pretrained(BASE_DIR), ADAPTER_DIR), on the input_ids and
      attention_mask of INPUTS (safetensors), in eval mode: OUT_DIR/export.safetensors holds
      "<i>.logits" and, after merge_and_unload(), "<i>.merged_logits" for the i-th adapter.
  peft_reference.py import OUT_DIR
      A random RoBERTa classifier saved in OUT_DIR/base, and two LoRA adapters made by PEFT on it with
      random non-zero weights and head, saved with save_pretrained into OUT_DIR/adapter-<i>: one on
      query and value by name (r 4), one selected by a regex (r 2, lora_dropout 0.1). OUT_DIR/io.safetensors
      holds 64 padded rows (input_ids, attention_mask) and "<i>.logits" of each adapter, in eval mode.
"""
import os
import re
import sys

import torch
import torch.nn.functional as F
from peft import AdaLoraConfig, LoraConfig, PeftModel, PrefixTuningConfig, get_peft_model
from transformers import AutoModelForSequenceClassification, RobertaForSequenceClassification
from transformers.models.roberta.modeling_roberta import create_position_ids_from_input_ids

from model_reference import roberta_config
from oracle_common import padded_rows, redraw_parameters, save_tensors, write_byte_level_bpe

PREFIX_ENCODER = {"embedding.weight": "prefix.embedding", "transform.0.weight": "prefix.down.weight",
                  "transform.0.bias": "prefix.down.bias", "transform.2.weight": "prefix.up.weight",
                  "transform.2.bias": "prefix.up.bias"}


def save_base(directory, generator, num_labels=3):
    """A random RoBERTa classifier without dropout, every parameter re-drawn, saved with a tokenizer."""
    vocab_size = write_byte_level_bpe(directory)
    config = roberta_config(vocab_size)
    config.num_labels = num_labels
    config.hidden_dropout_prob = config.attention_probs_dropout_prob = 0.0
    model = RobertaForSequenceClassification(config).eval()
    redraw_parameters(model, generator)
    model.save_pretrained(directory, safe_serialization=True)
    return vocab_size


def save_llama_base(directory, generator, num_labels=3):
    """A random Llama classifier (6 query heads over 2 key-value heads), every parameter re-drawn, saved
    with a byte-level BPE tokenizer (the suite loads a checkpoint with the tokenizer beside it; this one's
    ids only need to fall inside the vocabulary, and its pad id 1 is the model's)."""
    from transformers import LlamaConfig, LlamaForSequenceClassification

    from llama_reference import redraw

    vocab_size = write_byte_level_bpe(directory)
    config = LlamaConfig(vocab_size=vocab_size, hidden_size=48, intermediate_size=80, num_hidden_layers=2,
                         num_attention_heads=6, num_key_value_heads=2, max_position_embeddings=64, rms_norm_eps=1e-5,
                         pad_token_id=1, bos_token_id=0, eos_token_id=2, num_labels=num_labels,
                         attn_implementation="eager")
    model = LlamaForSequenceClassification(config).eval()
    redraw(model, generator)
    model.save_pretrained(directory, safe_serialization=True)
    return vocab_size


LLAMA_PROJECTIONS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def batch(generator, vocab_size, lengths):
    ids, mask, _ = padded_rows(lengths, 4, vocab_size - 1, generator, first=0, last=2, pad=1)
    return ids, mask


def neutral_name(peft_name):
    """A trainable tensor's name without PEFT's wrapping (see the usage above)."""
    name = peft_name
    for wrapper in ("base_model.model.", "base_model."):  # LoRA-style tuners, prompt learning
        if name.startswith(wrapper):
            name = name[len(wrapper):]
            break
    if name.startswith("prompt_encoder.default."):
        return PREFIX_ENCODER[name[len("prompt_encoder.default."):]]
    name = name.replace(".modules_to_save.default.", ".")
    return re.sub(r"\.(lora_[ABE])\.default(\.weight)?$", r".\1", name)


def peft_config(method):
    common = dict(task_type="SEQ_CLS")
    if method == "lora":
        return LoraConfig(r=4, lora_alpha=8, lora_dropout=0.0, target_modules=["query", "value"], **common)
    if method == "adalora":
        return AdaLoraConfig(init_r=4, target_r=2, lora_alpha=8, lora_dropout=0.0, target_modules=["query", "value"],
                             total_step=10, **common)
    if method == "llama-lora":
        return LoraConfig(r=4, lora_alpha=8, lora_dropout=0.0, target_modules=LLAMA_PROJECTIONS, **common)
    if method == "prefix":
        return PrefixTuningConfig(num_virtual_tokens=5, prefix_projection=True, encoder_hidden_size=16, **common)
    sys.exit(f"unknown method {method!r}; choose lora, adalora, prefix or llama-lora")


def record_step(out_dir, model, generator, vocab_size, neutral_name, extra_inputs=lambda ids: {}):
    """Re-draws every trainable tensor of `model` (0.2 N(0, 1), so LoRA's B and AdaLoRA's E are non-zero),
    takes one training-mode step on a padded batch with three-class labels and saves OUT_DIR/weights.safetensors
    and OUT_DIR/io.safetensors as `layers` describes, by `neutral_name`s; returns those names, sorted.
    `extra_inputs(ids)` adds keyword inputs of the forward pass."""
    trainable = {name: p for name, p in model.named_parameters() if p.requires_grad}
    with torch.no_grad():
        for parameter in trainable.values():
            parameter.copy_(0.2 * torch.randn(parameter.shape, generator=generator))
    model.train()
    ids, mask = batch(generator, vocab_size, [12, 9, 5, 3])
    labels = torch.randint(0, 3, (ids.shape[0],), generator=generator)
    logits = model(input_ids=ids, attention_mask=mask, **extra_inputs(ids)).logits
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    io = {"input_ids": ids, "attention_mask": mask, "labels": labels, "logits": logits, "loss": loss.reshape(1)}
    for name, parameter in trainable.items():
        io["grad." + neutral_name(name)] = parameter.grad
    save_tensors(os.path.join(out_dir, "weights.safetensors"), {neutral_name(n): p for n, p in trainable.items()})
    save_tensors(os.path.join(out_dir, "io.safetensors"), io)
    return sorted(neutral_name(n) for n in trainable)


def layers(out_dir, method):
    generator = torch.Generator().manual_seed(7)
    base_dir = os.path.join(out_dir, "base")
    vocab_size = (save_llama_base if method == "llama-lora" else save_base)(base_dir, generator)
    model = get_peft_model(AutoModelForSequenceClassification.from_pretrained(base_dir), peft_config(method))

    def extra_inputs(ids):
        if method != "prefix":
            return {}
        # PEFT counts the prefix as past tokens: it shifts the real tokens' positions by its length (its
        # _adjust_prompt_learning_kwargs adds num_virtual_tokens to given position_ids; without them,
        # RoBERTa's embeddings add past_key_values_length). The suite's prefix, as adapter-transformers'
        # that ProPETL used, leaves positions as they are without a prefix: given positions minus the
        # prefix length make PEFT compute with those.
        virtual = model.active_peft_config.num_virtual_tokens
        return {"position_ids": create_position_ids_from_input_ids(ids, 1) - virtual}

    names = record_step(out_dir, model, generator, vocab_size, neutral_name, extra_inputs)
    print(f"peft_reference layers {method}: {len(names)} trainable tensors: " + ", ".join(names))


class OneLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.query = torch.nn.Linear(768, 768)


def init(out_dir, draws):
    a, b = [], []
    for seed in range(draws):
        torch.manual_seed(seed)
        model = get_peft_model(OneLinear(), LoraConfig(r=8, lora_alpha=16, target_modules=["query"]))
        layer = model.base_model.model.query
        a.append(layer.lora_A["default"].weight.detach().clone())
        b.append(layer.lora_B["default"].weight.detach().clone())
    save_tensors(os.path.join(out_dir, "init.safetensors"), {"lora_A": torch.stack(a), "lora_B": torch.stack(b)})


@torch.no_grad()
def export(out_dir, base_dir, inputs_path, adapter_dirs):
    from safetensors.torch import load_file

    inputs = load_file(inputs_path)
    feed = dict(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"])
    results = {}
    for i, adapter_dir in enumerate(adapter_dirs):
        base = AutoModelForSequenceClassification.from_pretrained(base_dir)
        model = PeftModel.from_pretrained(base, adapter_dir).eval()
        results[f"{i}.logits"] = model(**feed).logits
        merged = model.merge_and_unload().eval()
        results[f"{i}.merged_logits"] = merged(**feed).logits
    save_tensors(os.path.join(out_dir, "export.safetensors"), results)


def import_adapters(out_dir):
    generator = torch.Generator().manual_seed(11)
    base_dir = os.path.join(out_dir, "base")
    vocab_size = save_base(base_dir, generator)
    lengths = [3 + (5 * i) % 20 for i in range(64)]
    ids, mask = batch(generator, vocab_size, lengths)
    configs = [
        LoraConfig(task_type="SEQ_CLS", r=4, lora_alpha=8, target_modules=["query", "value"]),
        LoraConfig(task_type="SEQ_CLS", r=2, lora_alpha=5, lora_dropout=0.1,
                   target_modules=r".*layer\.1\.attention\.self\.(query|value)"),
    ]
    io = {"input_ids": ids, "attention_mask": mask}
    for i, config in enumerate(configs):
        model = get_peft_model(AutoModelForSequenceClassification.from_pretrained(base_dir), config)
        with torch.no_grad():
            for parameter in model.parameters():
                if parameter.requires_grad:
                    parameter.copy_(0.2 * torch.randn(parameter.shape, generator=generator))
        model.eval()
        model.save_pretrained(os.path.join(out_dir, f"adapter-{i}"))
        with torch.no_grad():
            io[f"{i}.logits"] = model(input_ids=ids, attention_mask=mask).logits
    save_tensors(os.path.join(out_dir, "io.safetensors"), io)


def main():
    command, arguments = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if command == "layers" and len(arguments) == 2:
        layers(*arguments)
    elif command == "init" and len(arguments) == 2:
        init(arguments[0], int(arguments[1]))
    elif command == "export" and len(arguments) >= 4:
        export(arguments[0], arguments[1], arguments[2], arguments[3:])
    elif command == "import" and len(arguments) == 1:
        import_adapters(arguments[0])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
