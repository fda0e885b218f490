#!/usr/bin/env python3
"""Independent check that a safetensors file is what Hugging Face's reader accepts and holds the expected
tensors. Pure json + struct + torch (there is no `safetensors` package on the test machine); written from
the format description, sharing no code with the C++ reader.

Usage: safetensors_reference_check.py FILE EXPECTED [--ignore NAME ...]
  FILE      the safetensors file to check
  EXPECTED  a torch.save / torch::pickle_save dict name -> tensor (.pt), or another safetensors file
            (parsed with the same rules, e.g. one written by transformers' save_pretrained)
  --ignore  names present in EXPECTED only that FILE may lack (e.g. a buffer we do not save)

Checks on FILE (the rules of the reference Rust implementation plus the layout its writer produces):
header length field within the file and at most 100 MB; header is UTF-8 JSON starting with '{', an
object; __metadata__, if present, maps strings to strings and says format "pt" (transformers refuses
to load other formats into PyTorch); every entry has a known dtype, a shape of non-negative ints and two
data_offsets; byte length = prod(shape) * dtype size; sorted by offset the tensors tile the data section
exactly from 0 to its end; the header length is a multiple of 8 and the names are stored in sorted
order (what the reference writer does). Then every tensor must equal EXPECTED's bit for bit, with the
same dtype and shape. Prints "OK <n> tensors" and exits 0, or prints the problems and exits 1.
"""
import json
import struct
import sys

import torch

DTYPES = {
    "F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
    "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8,
    "BOOL": torch.bool,
}
MAX_HEADER = 100_000_000


class FormatError(Exception):
    pass


def read_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        raise FormatError(f"{path}: {len(blob)} bytes, no room for the header length")
    (n,) = struct.unpack("<Q", blob[:8])
    if n > MAX_HEADER or 8 + n > len(blob):
        raise FormatError(f"{path}: header length {n} does not fit in {len(blob)} bytes")
    raw = blob[8:8 + n]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise FormatError(f"{path}: header is not UTF-8: {error}")
    if not text.startswith("{"):
        raise FormatError(f"{path}: header does not start with '{{'")
    pairs = json.loads(text, object_pairs_hook=lambda items: items)
    names = [k for k, _ in pairs]
    if len(set(names)) != len(names):
        raise FormatError(f"{path}: duplicate names in the header")
    header = dict(pairs)
    problems = []
    metadata = dict(header.pop("__metadata__", []))
    if any(not isinstance(k, str) or not isinstance(v, str) for k, v in metadata.items()):
        problems.append("__metadata__ must map strings to strings")
    if metadata.get("format") != "pt":
        problems.append(f"__metadata__ format is {metadata.get('format')!r}, transformers needs 'pt'")
    if n % 8 != 0:
        problems.append(f"header length {n} is not a multiple of 8 (the reference writer pads it)")
    tensor_names = [k for k in names if k != "__metadata__"]
    if tensor_names != sorted(tensor_names):
        problems.append("tensor names are not stored in sorted order")

    data = blob[8 + n:]
    entries = []
    for name, info in header.items():
        info = dict(info)
        dtype, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
        if dtype not in DTYPES:
            problems.append(f"{name}: unknown dtype {dtype!r}")
            continue
        if not isinstance(shape, list) or any(not isinstance(d, int) or d < 0 for d in shape):
            problems.append(f"{name}: bad shape {shape!r}")
            continue
        if not isinstance(offsets, list) or len(offsets) != 2 or offsets[0] > offsets[1]:
            problems.append(f"{name}: bad data_offsets {offsets!r}")
            continue
        numel = 1
        for d in shape:
            numel *= d
        size = numel * torch.tensor([], dtype=DTYPES[dtype]).element_size()
        if offsets[1] - offsets[0] != size:
            problems.append(f"{name}: {dtype} {shape} needs {size} bytes, offsets {offsets} hold "
                            f"{offsets[1] - offsets[0]}")
        entries.append((offsets[0], offsets[1], name, dtype, shape))
    covered = 0
    for begin, end, name, _, _ in sorted(entries):
        if begin != covered:
            problems.append(f"{name}: starts at {begin}, previous data ends at {covered}")
        covered = max(covered, end)
    if covered != len(data):
        problems.append(f"tensors cover {covered} bytes, the data section has {len(data)}")
    if problems:
        raise FormatError(f"{path}:\n  " + "\n  ".join(problems))

    tensors = {}
    for begin, end, name, dtype, shape in entries:
        chunk = bytearray(data[begin:end])
        if end == begin:
            tensors[name] = torch.empty(shape, dtype=DTYPES[dtype])
        else:
            tensors[name] = torch.frombuffer(chunk, dtype=DTYPES[dtype]).reshape(shape)
    return tensors


def same_bits(a, b):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.is_floating_point():  # compare bit patterns, so NaN and -0.0 count too
        view = {2: torch.int16, 4: torch.int32, 8: torch.int64}[a.element_size()]
        return torch.equal(a.contiguous().view(view), b.contiguous().view(view))
    return torch.equal(a, b)


def main(argv):
    args = [a for a in argv[1:]]
    ignore = set()
    while "--ignore" in args:
        i = args.index("--ignore")
        ignore.add(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__)
        return 2
    path, expected_path = args
    try:
        actual = read_safetensors(path)
        if expected_path.endswith(".safetensors"):
            expected = read_safetensors(expected_path)
        else:
            expected = dict(torch.load(expected_path))
    except FormatError as error:
        print(f"FORMAT ERROR {error}")
        return 1
    problems = []
    for name in sorted(set(expected) - set(actual) - ignore):
        problems.append(f"missing tensor {name}")
    for name in sorted(set(actual) - set(expected)):
        problems.append(f"unexpected tensor {name}")
    for name in sorted(set(actual) & set(expected)):
        a, e = actual[name], expected[name]
        if not same_bits(a, e):
            problems.append(f"{name}: got {a.dtype} {list(a.shape)}, expected {e.dtype} {list(e.shape)}"
                            " or different values")
    if problems:
        print("MISMATCH\n  " + "\n  ".join(problems))
        return 1
    print(f"OK {len(actual)} tensors")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
