#!/usr/bin/env python3
"""Writes model.safetensors beside a checkpoint's pytorch_model.bin, for checkpoints published without one
(e.g. microsoft/deberta-v3-base). The suite reads safetensors only: a pickle can run code when loaded.

Needs only Debian's python3-torch (the safetensors package is not packaged):
    $(command -v -p python3) harness/scripts/convert_pytorch_checkpoint.py CHECKPOINT_DIR

Tensor names are kept exactly (they are what transformers' from_pretrained reads); tensors that share
storage are written once each, as separate copies, as safetensors requires.
"""
import json
import struct
import sys
from pathlib import Path

import torch

DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.float64: "F64",
          torch.int64: "I64", torch.int32: "I32", torch.uint8: "U8", torch.bool: "BOOL"}


def main(directory: Path) -> None:
    source, target = directory / "pytorch_model.bin", directory / "model.safetensors"
    if not source.exists():
        sys.exit(f"{source} does not exist: download the checkpoint's pytorch_model.bin first")
    # weights_only refuses pickled code; a state dict is tensors and names only.
    state = torch.load(source, map_location="cpu", weights_only=True)
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, tensor in state.items():
        if tensor.dtype not in DTYPES:
            sys.exit(f"{source}: tensor {name} has dtype {tensor.dtype}, which the suite does not read")
        data = tensor.contiguous().numpy().tobytes() if tensor.dtype != torch.bfloat16 else \
            tensor.contiguous().view(torch.int16).numpy().tobytes()
        header[name] = {"dtype": DTYPES[tensor.dtype], "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    encoded = json.dumps(header, separators=(",", ":")).encode()
    encoded += b" " * (-len(encoded) % 8)  # the format pads the header to 8 bytes
    partial = target.with_suffix(".safetensors.partial")
    with open(partial, "wb") as out:
        out.write(struct.pack("<Q", len(encoded)))
        out.write(encoded)
        for blob in blobs:
            out.write(blob)
    partial.replace(target)  # never leave a truncated model.safetensors behind
    print(f"wrote {target}: {len(state)} tensors, {offset / 2**20:.1f} MiB")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(Path(sys.argv[1]))
