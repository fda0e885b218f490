"""The GGUF oracle: llama.cpp's own Python package `gguf` (0.19.0, tests/oracle/requirements.txt) reads a
GGUF file and dequantises every tensor, for tests/lib/checkpoint/gguf_file_live_test.cpp.

Run with the oracle venv's interpreter (.venv/bin/python, made by `make oracle-env`):

    gguf_reference.py describe FILE.gguf OUT.json     what gguf.GGUFReader reads in FILE
    gguf_reference.py random DIR                      writes DIR/random.gguf with gguf.GGUFWriter (every
                                                      metadata value type; F32, F16, BF16, Q8_0, Q4_0, Q4_1
                                                      tensors from gguf.quants.quantize), then describes it
                                                      into DIR/random.json

OUT.json:
    {"gguf": "0.19.0", "version": 3, "alignment": 32, "data_offset": N,
     "metadata": [{"key": ..., "type": "uint32", "value": ...}, ...]   in file order,
     "tensors": [{"name", "type": "Q4_1", "shape": [PyTorch order], "offset" (from the data section),
                  "bytes", "sha256", "head"}, ...]                     in file order}

A value is a JSON number (integers), true/false, a string, or for float32/float64 the integer of its bits
(exact, and NaN-safe); an array is {"type": "array", "element_type": ..., "value": [...]}. A tensor's
sha256 is that of gguf.quants.dequantize's float32 values in C order (the PyTorch shape), its head the
bits of its first 8 values, for a readable failure.
"""
import hashlib
import json
import os
import sys

import numpy as np

import gguf
from gguf import GGMLQuantizationType as Q
from gguf import GGUFValueType as V


def scalar(value_type, part):
    if value_type == V.STRING:
        return bytes(part).decode("utf-8")
    if value_type == V.FLOAT32:
        return int(part.view(np.uint32)[0])
    if value_type == V.FLOAT64:
        return int(part.view(np.uint64)[0])
    if value_type == V.BOOL:
        return bool(part[0])
    return int(part[0])


def field_json(key, field):
    main = field.types[0]
    if main == V.ARRAY:
        # parts: key length, key, value type, element type, count, then the elements' parts.
        element_type = V(int(field.parts[3][0]))
        values = [scalar(element_type, field.parts[i]) for i in field.data]
        return {"key": key, "type": "array", "element_type": element_type.name.lower(), "value": values}
    return {"key": key, "type": main.name.lower(), "value": scalar(main, field.parts[field.data[0]])}


def tensor_json(reader, tensor):
    values = np.ascontiguousarray(gguf.quants.dequantize(tensor.data, tensor.tensor_type), dtype=np.float32)
    shape = [int(n) for n in reversed(tensor.shape.tolist())]
    assert list(values.shape) == shape or (values.size == 0 and values.size == int(np.prod(shape))), tensor.name
    return {"name": tensor.name, "type": tensor.tensor_type.name, "shape": shape,
            "offset": int(tensor.data_offset - reader.data_offset), "bytes": int(tensor.n_bytes),
            "sha256": hashlib.sha256(values.tobytes()).hexdigest(),
            "head": [int(bits) for bits in values.reshape(-1)[:8].view(np.uint32)]}


def describe(path, out):
    reader = gguf.GGUFReader(path)
    # The reader lists the header as pseudo-fields GGUF.version, GGUF.tensor_count, GGUF.kv_count.
    metadata = [field_json(key, field) for key, field in reader.fields.items() if not key.startswith("GGUF.")]
    description = {"gguf": gguf_version(), "version": int(reader.fields["GGUF.version"].parts[0][0]),
                   "alignment": int(reader.alignment), "data_offset": int(reader.data_offset),
                   "metadata": metadata, "tensors": [tensor_json(reader, t) for t in reader.tensors]}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(description, f)
    print(f"gguf_reference: {path}: {len(metadata)} keys, {len(reader.tensors)} tensors")


def gguf_version():
    from importlib.metadata import version
    return version("gguf")


def write_random(directory):
    """A file with every metadata value type and tensors of each type the suite dequantises: random
    normal values (scaled per tensor), an all-zero block and a constant block (scale 0) in the quantised
    ones, every one of the 65,536 F16 and BF16 bit patterns (infinities, NaNs and subnormals included),
    a 3-D tensor, and an alignment of 64."""
    rng = np.random.default_rng(66)
    path = os.path.join(directory, "random.gguf")
    writer = gguf.GGUFWriter(path, arch="llama")
    writer.add_custom_alignment(64)
    writer.add_uint8("test.uint8", 250)
    writer.add_int8("test.int8", -128)
    writer.add_uint16("test.uint16", 65535)
    writer.add_int16("test.int16", -32768)
    writer.add_uint32("test.uint32", 4294967295)
    writer.add_int32("test.int32", -2147483648)
    writer.add_float32("test.float32", 3.14159)
    writer.add_uint64("test.uint64", 2 ** 63 - 1)
    writer.add_int64("test.int64", -(2 ** 63))
    writer.add_float64("test.float64", -1e-310)  # subnormal
    writer.add_bool("test.bool", True)
    writer.add_bool("test.bool.false", False)
    writer.add_string("test.string", "h\u00e9llo \u4e16\u754c\n\t\"quoted\"")
    writer.add_array("test.strings", ["<s>", "\u0120the", "a b", "\U0001f600"])
    writer.add_key_value("test.uint8s", [0, 1, 255], V.ARRAY, sub_type=V.UINT8)
    writer.add_key_value("test.int16s", [-32768, 0, 32767], V.ARRAY, sub_type=V.INT16)
    writer.add_key_value("test.uint32s", [7, 4294967295], V.ARRAY, sub_type=V.UINT32)
    writer.add_key_value("test.int64s", [-(2 ** 63), 2 ** 63 - 1], V.ARRAY, sub_type=V.INT64)
    writer.add_key_value("test.uint64s", [0, 2 ** 63 - 1], V.ARRAY, sub_type=V.UINT64)
    writer.add_key_value("test.float32s", [0.1, -2.5, 1e-40], V.ARRAY, sub_type=V.FLOAT32)
    writer.add_key_value("test.float64s", [0.1, 1e300], V.ARRAY, sub_type=V.FLOAT64)
    writer.add_key_value("test.bools", [True, False, True], V.ARRAY, sub_type=V.BOOL)

    def normal(*shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    every_half = np.arange(65536, dtype=np.uint16)
    writer.add_tensor("f32", normal(5, 3))
    writer.add_tensor("f16", normal(3, 8).astype(np.float16))
    writer.add_tensor("f16.every_pattern", every_half.view(np.float16))
    writer.add_tensor("bf16", gguf.quants.quantize(normal(4, 16, scale=100.0), Q.BF16), raw_dtype=Q.BF16)
    writer.add_tensor("bf16.every_pattern", every_half.view(np.uint8), raw_dtype=Q.BF16)
    for name, qtype, shape in (("q8_0", Q.Q8_0, (10, 96)), ("q4_0", Q.Q4_0, (7, 64)),
                               ("q4_1", Q.Q4_1, (6, 3, 64))):
        values = normal(*shape, scale=0.05)
        flat = values.reshape(-1)
        flat[:32] = 0.0      # an all-zero block
        flat[32:64] = -0.75  # a constant block: scale 0 (Q4_1: only the minimum)
        writer.add_tensor(name, gguf.quants.quantize(values, qtype), raw_dtype=qtype)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    describe(path, os.path.join(directory, "random.json"))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "describe":
        describe(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "random":
        write_random(sys.argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
