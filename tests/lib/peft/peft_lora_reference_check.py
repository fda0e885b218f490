#!/usr/bin/env python3
"""Independent check of a PEFT LoRA export: reads adapter_config.json and adapter_model.safetensors the
way PEFT does (tensors by PEFT's names) and applies the update by hand, W' = W + (lora_alpha / r) B A,
as PEFT's LoRA merge computes it. Pure json + struct + torch (no safetensors or peft package here); it
shares no code with the C++ writer.

Usage: peft_lora_reference_check.py ADAPTER_DIR BASE EXPECTED
  ADAPTER_DIR  holds adapter_config.json and adapter_model.safetensors
  BASE         safetensors with each target module's base weight as "<module>.weight"
  EXPECTED     safetensors with what the suite's trained model computes: "<module>.weight" (W + its
               own delta_weight()) and the head's tensors by their model names ("classifier.dense.weight")

Prints "OK <modules> modules, <head> head tensors" and exits 0, or the problems and exits 1.
"""
import json
import os
import struct
import sys

import torch

DTYPES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}
PREFIX = "base_model.model."


def read_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    header.pop("__metadata__", None)
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        raw = bytearray(blob[8 + n + begin:8 + n + end])
        tensors[name] = torch.frombuffer(raw, dtype=DTYPES[entry["dtype"]]).reshape(entry["shape"]).clone()
    return tensors


def main():
    adapter_dir, base_path, expected_path = sys.argv[1:4]
    with open(os.path.join(adapter_dir, "adapter_config.json")) as f:
        config = json.load(f)
    adapter = read_safetensors(os.path.join(adapter_dir, "adapter_model.safetensors"))
    base = read_safetensors(base_path)
    expected = read_safetensors(expected_path)
    problems = []
    if config.get("peft_type") != "LORA":
        problems.append(f"peft_type is {config.get('peft_type')!r}")
    if config.get("task_type") != "SEQ_CLS":
        problems.append(f"task_type is {config.get('task_type')!r}")
    if config.get("bias") != "none" or config.get("use_rslora") or config.get("fan_in_fan_out"):
        problems.append("bias, use_rslora or fan_in_fan_out would change PEFT's computation")
    r, alpha = config["r"], config["lora_alpha"]
    scale = alpha / r  # PEFT's LoraLayer.scaling without rsLoRA
    modules = config["target_modules"]
    for module in modules:
        a = adapter.get(f"{PREFIX}{module}.lora_A.weight")
        b = adapter.get(f"{PREFIX}{module}.lora_B.weight")
        if a is None or b is None:
            problems.append(f"{module}: lora_A or lora_B missing")
            continue
        if a.shape[0] != r or b.shape[1] != r:
            problems.append(f"{module}: factors {tuple(a.shape)}, {tuple(b.shape)} do not have rank r={r}")
            continue
        merged = base[f"{module}.weight"].double() + scale * (b.double() @ a.double())
        want = expected[f"{module}.weight"].double()
        err = (merged - want).abs().max().item()
        if err > 1e-5 * max(1.0, want.abs().max().item()):
            problems.append(f"{module}: merged weight differs from the suite's by {err:.3g}")
    head = [name for name in expected if not name.endswith(".weight") or name[:-7] not in modules]
    for module in config.get("modules_to_save") or []:
        names = [name for name in head if name.startswith(module + ".")]
        if not names:
            problems.append(f"modules_to_save {module!r}: the suite's head has no such tensors")
        for name in names:
            got = adapter.get(PREFIX + name)
            if got is None or not torch.equal(got, expected[name]):
                problems.append(f"head tensor {name}: missing or different under {PREFIX + name}")
    known = {f"{PREFIX}{m}.lora_{x}.weight" for m in modules for x in "AB"} | {PREFIX + h for h in head}
    extra = sorted(set(adapter) - known)
    if extra:
        problems.append(f"tensors PEFT would not load: {extra}")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"OK {len(modules)} modules, {len(head)} head tensors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
