#!/usr/bin/env python3
"""`make fuzz`: seeds each libFuzzer target's corpus, runs the target for a set time, prints a summary.

    run_fuzzers.py --build-dir build-fuzz --seconds 60 [--runs 1000000] [--shared ../shared]
                   [--cache ~/.cache/capaboost] [--results results] [--targets safetensors spec ...]

--runs stops a target after that many executions, --seconds in any case (the issue's bar: 10^6
executions or 30 minutes a target).

Seeds come from the repository's fixtures, from inputs made here the way the tests make theirs (a
safetensors file, spm_train models, small GLUE/SQuAD files) and, when present, from the offline data
in the shared folder and the backbone cache. They are written into <build-dir>/fuzz/corpus/<target>/,
never into the repository; the corpus stays there, so the next run starts from what this one found.
Crash artifacts go to <build-dir>/fuzz/artifacts/<target>/. Exits 1 when any target found a crash.
"""

import argparse
import glob
import gzip
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2]
FUZZ = Path(__file__).resolve().parent


def read(path):
    return Path(path).read_bytes()


def files(pattern):
    return sorted(glob.glob(str(pattern), recursive=True))


# --- seeds, one function per target: {name: bytes} -------------------------------------------------------

def safetensors_file(tensors, metadata=None):
    """A safetensors file as Hugging Face writes it: {name: (dtype, shape, data)}, header padded to 8."""
    header = {"__metadata__": dict(metadata or {}, format="pt")}
    data = b""
    for name in sorted(tensors):
        dtype, shape, payload = tensors[name]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(payload)]}
        data += payload
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def safetensors_seeds(args):
    every_dtype = {
        "f64": ("F64", [2], struct.pack("<2d", 1.5, -2.0)),
        "f32": ("F32", [2, 2], struct.pack("<4f", 0.5, 1.0, -1.0, 3.25)),
        "f16": ("F16", [3], bytes(6)),
        "bf16": ("BF16", [1, 2], bytes(4)),
        "i64": ("I64", [2], struct.pack("<2q", -5, 7)),
        "i32": ("I32", [1], struct.pack("<i", 2147483647)),
        "i16": ("I16", [2], struct.pack("<2h", -300, 300)),
        "i8": ("I8", [3], bytes([0x80, 0x7F, 3])),
        "u8": ("U8", [2], bytes([0, 255])),
        "bool": ("BOOL", [3], bytes([1, 0, 1])),
    }
    return {
        "every_dtype.safetensors": safetensors_file(every_dtype, {"producer": "capaboost fuzz seed"}),
        "scalar_and_empty.safetensors": safetensors_file(
            {"scalar": ("F32", [], struct.pack("<f", 2.5)), "empty": ("F32", [0, 3], b"")}),
        "no_tensors.safetensors": safetensors_file({}),
    }


def config_json_seeds(args):
    seeds = {f"golden_{Path(p).parent.name}.json": read(p)
             for p in files(args.shared / "golden/*/config.json")}
    seeds.update({f"cache_{Path(p).parent.name}.json": read(p)
                  for p in files(args.cache / "backbones/*/config.json")})
    tiny = {"model_type": "roberta", "vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 1,
            "num_attention_heads": 2, "intermediate_size": 32, "max_position_embeddings": 20,
            "type_vocab_size": 1, "hidden_act": "gelu", "id2label": {"0": "no", "1": "yes"}, "num_labels": 2}
    seeds["tiny_roberta.json"] = json.dumps(tiny, indent=2).encode()
    return seeds


def head_lines(path, count):
    with open(path, "rb") as f:
        return b"".join(line for _, line in zip(range(count), f))


def glue_tsv_seeds(args):
    seeds = {f"{Path(p).parent.name}_{Path(p).stem}.tsv": head_lines(p, 12)
             for p in files(args.shared / "data/*/*.tsv")}
    # The layouts of the GLUE release, for a machine without the data: CoLA's headerless train/dev,
    # a header with a BOM (MRPC), CRLF lines and a score column (STS-B), a last line without '\n'.
    seeds.update({
        "cola_like.tsv": b"gj04\t1\t\tOur friends won't buy this analysis.\ngj04\t0\t*\tThey drank the pub.",
        "sst2_like.tsv": b"sentence\tlabel\nit 's a charming journey . \t1\nunfunny \t0\n",
        "mrpc_like.tsv": "\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\r\n"
                         "1\t1\t2\tA \"b\" c.\tA c.\r\n".encode(),
        "stsb_like.tsv": b"index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\t"
                         b"sentence1\tsentence2\tscore\n"
                         b"0\tmain-captions\tMSRvid\t2012test\t0001\tnone\tnone\t"
                         b"A plane.\tAn air plane.\t5.000\n",
        "test_like.tsv": b"index\tsentence\n0\tit 's a charming journey .\n",
    })
    return seeds


def squad_seeds(args):
    seeds = {}
    official = args.shared / "data/SQuAD/dev-v1.1.json"
    if official.exists():
        dev = json.loads(official.read_text())
        article = dev["data"][0]
        paragraphs = [dict(p, qas=p["qas"][:3]) for p in article["paragraphs"][:2]]
        seeds["dev_v1.1_head.json"] = json.dumps(
            {"version": dev["version"], "data": [dict(article, paragraphs=paragraphs)]}).encode()
    flat = args.shared / "data/SQuAD/sample-hf-v2-format.json"
    if flat.exists():
        sample = json.loads(flat.read_text())
        seeds["hf_v2_head.json"] = json.dumps(dict(sample, data=sample["data"][:4])).encode()
    # Both layouts, an unanswerable question with plausible answers, a numeric version (Hugging Face's).
    seeds["nested_v2.json"] = json.dumps({"version": "v2.0", "data": [{"title": "T", "paragraphs": [{
        "context": "Caf\u00e9 au lait in 1999.",
        "qas": [{"id": "a", "question": "When?", "answers": [{"text": "1999", "answer_start": 16}]},
                {"id": "b", "question": "Who?", "answers": [], "is_impossible": True,
                 "plausible_answers": [{"text": "Caf\u00e9", "answer_start": 0}]}]}]}]}).encode()
    seeds["flat_v2.json"] = json.dumps({"version": 2.0, "data": [
        {"id": "c", "title": "T", "question": "What?", "context": "A cat sat.",
         "answers": {"text": ["A cat"], "answer_start": [0]}},
        {"id": "d", "question": "Why?", "context": "No reason.",
         "answers": {"text": [], "answer_start": []}}]}).encode()
    return seeds


def run_record_seeds(args):
    seeds = {f"fixture_{Path(p).name}": read(p) for p in files(SOURCE / "tests/fixtures/**/runs/*.json")}
    smallest = sorted(files(args.results / "runs/*.json"), key=os.path.getsize)[:20]
    seeds.update({f"results_{Path(p).name}": read(p) for p in smallest})
    return seeds


def spm_models(workdir):
    """Small SentencePiece models made by spm_train, as the tokenizer tests make theirs: unigram and BPE,
    identity normalisation, a user-defined symbol, byte fallback, and a tiny custom rule set (so the
    model carries a precompiled character map small enough to fuzz)."""
    text = workdir / "text.txt"
    lines = [line for line in (SOURCE / "README.md").read_text().splitlines() if line.strip()]
    text.write_text("\n".join(lines[:300]) + "\nna\u00efve caf\u00e9 \uff21\u2460 \u00bd\n")
    rules = workdir / "rules.tsv"
    rules.write_text("FF21\t41\n2460\t31\n00BD\t31 2044 32\n20 20\t20\n")
    variants = {
        "unigram_identity": ["--model_type=unigram", "--normalization_rule_name=identity"],
        "bpe_identity": ["--model_type=bpe", "--normalization_rule_name=identity",
                         "--user_defined_symbols=<mask>"],
        # Byte fallback adds 256 byte pieces, so it needs a larger vocabulary.
        "unigram_byte_fallback": ["--model_type=unigram", "--normalization_rule_name=identity",
                                  "--byte_fallback=true", "--vocab_size=400"],
        "unigram_rules": ["--model_type=unigram", f"--normalization_rule_tsv={rules}"],
        # DeBERTaV3's special pieces and ids (tests/lib/tokenizers/deberta_v2_tokenizer_test.cpp; identity
        # normalisation, as nmt_nfkc's character map is too large to fuzz): the target then
        # drives DebertaV2Tokenizer too.
        "deberta_v3_like": ["--model_type=unigram", "--normalization_rule_name=identity", "--pad_id=0",
                            "--pad_piece=[PAD]", "--bos_id=1", "--bos_piece=[CLS]", "--eos_id=2",
                            "--eos_piece=[SEP]", "--unk_id=3", "--unk_piece=[UNK]"],
    }
    models = {}
    for name, options in variants.items():
        prefix = workdir / name
        # A flag in `options` wins over the same flag before it (--vocab_size).
        result = subprocess.run(["spm_train", f"--input={text}", f"--model_prefix={prefix}",
                                 "--vocab_size=120", "--hard_vocab_limit=false", "--minloglevel=2", *options],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if result.returncode == 0:
            models[f"{name}.model"] = read(f"{prefix}.model")
        else:
            print(f"make fuzz: spm_train {name} failed: {result.stderr.strip()[-300:]}", file=sys.stderr)
    return models


def sentencepiece_seeds(args):
    seeds = {f"cache_{Path(p).parent.name}.model": read(p)
             for p in files(args.cache / "backbones/*/spm.model")}
    with tempfile.TemporaryDirectory() as workdir:
        seeds.update(spm_models(Path(workdir)))
    return seeds


def gpt2_byte_symbols():
    """The 256 printable stand-ins GPT-2's byte-level BPE uses for bytes (its bytes_to_unicode)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("\u00a1"), ord("\u00ac") + 1),
                 *range(ord("\u00ae"), ord("\u00ff") + 1)]
    others = [b for b in range(256) if b not in printable]
    return [chr(c) for c in printable] + [chr(256 + i) for i in range(len(others))]


def bpe_input(tokens, merges):
    """The bpe_tokenizer target's input: vocab.json (ids in list order), a NUL, merges.txt."""
    vocab = json.dumps({token: i for i, token in enumerate(tokens)}, ensure_ascii=False)
    lines = "".join(f"{left} {right}\n" for left, right in merges)
    return vocab.encode() + b"\0" + f"#version: 0.2\n{lines}".encode()


def bpe_tokenizer_seeds(args):
    specials = ["<s>", "<pad>", "</s>", "<unk>"]
    # RoBERTa's first merges, so "Hello world" merges beyond single bytes.
    merges = [("\u0120", "t"), ("h", "e"), ("\u0120t", "he"), ("\u0120", "w"), ("o", "r"), ("\u0120w", "or"),
              ("l", "d"), ("\u0120wor", "ld"), ("H", "e"), ("l", "l"), ("He", "ll"), ("Hell", "o")]
    tokens = specials + gpt2_byte_symbols() + ["".join(m) for m in merges] + ["<mask>"]
    seeds = {"tiny.bpe": bpe_input(tokens, merges)}
    roberta = args.shared / "data/tokenizers/roberta-base"
    if (roberta / "vocab.json").exists():
        # The real files cut to their first 150 merges: the vocabulary keeps the special tokens, the byte
        # symbols and what those merges make, in RoBERTa's id order.
        vocab = json.loads((roberta / "vocab.json").read_text())
        lines = (roberta / "merges.txt").read_text().splitlines()[1:151]
        head = [tuple(line.split(" ")) for line in lines]
        keep = set(specials + ["<mask>"] + gpt2_byte_symbols() + ["".join(m) for m in head])
        seeds["roberta_head.bpe"] = bpe_input(sorted((t for t in vocab if t in keep), key=vocab.get), head)
    return seeds


# --- image: small PNGs and JPEGs written here (no imaging library needed) --------------------------------

def png_chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def png_file(width, height, color_type, bit_depth, rows, palette=None, trns=None, interlace=0, extra=()):
    """A PNG of `rows` (per row, the samples packed as bytes for this colour type and depth): IHDR,
    `extra` chunks, PLTE/tRNS when given, IDAT (each scanline under filter 0, or with Adam7 the passes'
    scanlines, which needs whole-byte pixels), IEND."""
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, interlace)
    if interlace:
        channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color_type]
        pixel = channels * bit_depth // 8
        raw = b""
        for x0, y0, dx, dy in ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4),
                               (1, 0, 2, 2), (0, 1, 1, 2)):
            xs, ys = range(x0, width, dx), range(y0, height, dy)
            if not xs or not ys:
                continue
            for y in ys:
                raw += b"\0" + b"".join(rows[y][x * pixel:(x + 1) * pixel] for x in xs)
    else:
        raw = b"".join(b"\0" + row for row in rows)
    chunks = [png_chunk(b"IHDR", ihdr), *extra]
    if palette is not None:
        chunks.append(png_chunk(b"PLTE", palette))
    if trns is not None:
        chunks.append(png_chunk(b"tRNS", trns))
    chunks += [png_chunk(b"IDAT", zlib.compress(raw, 9)), png_chunk(b"IEND", b"")]
    return b"\x89PNG\r\n\x1a\n" + b"".join(chunks)


class BitWriter:
    """JPEG entropy-coded bits: most significant first, 0xFF bytes stuffed, the last byte padded with 1s."""

    def __init__(self):
        self.out, self.bits, self.count = bytearray(), 0, 0

    def write(self, value, length):
        for i in reversed(range(length)):
            self.bits = (self.bits << 1) | ((value >> i) & 1)
            self.count += 1
            if self.count == 8:
                self.out.append(self.bits)
                if self.bits == 0xFF:
                    self.out.append(0)
                self.bits, self.count = 0, 0

    def flush(self):
        if self.count:
            self.write((1 << (8 - self.count)) - 1, 8 - self.count)


def jpeg_segment(marker, payload):
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


# Small made-up Huffman tables (not the JPEG standard's): DC categories 0-11 as 4-bit codes; AC symbols
# EOB (0x00), one coefficient of size 1 (0x01), ZRL (0xF0) and run 1 size 1 (0x11) as 3-bit codes.
DC_SYMBOLS = list(range(12))
AC_SYMBOLS = [0x00, 0x01, 0xF0, 0x11]


def huffman_table(table_class, table_id, length, symbols):
    counts = [0] * 16
    counts[length - 1] = len(symbols)
    return bytes([table_class << 4 | table_id]) + bytes(counts) + bytes(symbols)


def encode_block(writer, dc_diff, ac_ones):
    """One 8x8 block: the DC difference, then `ac_ones` coefficients of +1 or -1 (zigzag 1, 2, ...), EOB."""
    category = abs(dc_diff).bit_length()
    writer.write(DC_SYMBOLS.index(category), 4)
    if category:
        writer.write(dc_diff if dc_diff > 0 else dc_diff + (1 << category) - 1, category)
    for sign in ac_ones:
        writer.write(AC_SYMBOLS.index(0x01), 3)
        writer.write(1 if sign > 0 else 0, 1)
    writer.write(AC_SYMBOLS.index(0x00), 3)


def jpeg_file(width, height, sampling, progressive=False, restart=0, app=b""):
    """A JPEG of `sampling` [(h, v) per component] whose blocks step their DC up and down and carry a
    few ±1 AC coefficients: baseline (one interleaved scan), or progressive (a DC scan of all the
    components, then an AC scan of the first that only ends its blocks). `restart` > 0 adds a DRI
    segment and RSTn markers every `restart` MCUs (baseline only)."""
    h_max, v_max = max(h for h, _ in sampling), max(v for _, v in sampling)
    mcus_x, mcus_y = -(-width // (8 * h_max)), -(-height // (8 * v_max))
    head = b"\xff\xd8" + app
    head += jpeg_segment(0xDB, b"\x00" + bytes([4] + [2] * 63))
    head += jpeg_segment(0xC4, huffman_table(0, 0, 4, DC_SYMBOLS) + huffman_table(1, 0, 3, AC_SYMBOLS))
    if restart:
        head += jpeg_segment(0xDD, struct.pack(">H", restart))
    components = b"".join(bytes([i + 1, h << 4 | v, 0]) for i, (h, v) in enumerate(sampling))
    head += jpeg_segment(0xC2 if progressive else 0xC0,
                         struct.pack(">BHHB", 8, height, width, len(sampling)) + components)

    def scan(ids, start, end):
        selectors = b"".join(bytes([i + 1, 0x00]) for i in ids)
        return jpeg_segment(0xDA, bytes([len(ids)]) + selectors + bytes([start, end, 0]))

    writer, body = BitWriter(), b""
    previous = [0] * len(sampling)
    for mcu in range(mcus_x * mcus_y):
        if restart and mcu and mcu % restart == 0:
            writer.flush()
            writer.out += bytes([0xFF, 0xD0 + (mcu // restart - 1) % 8])
            previous = [0] * len(sampling)
        for c, (h, v) in enumerate(sampling):
            for block in range(h * v):
                dc = (mcu * 3 + block * 5 + c * 7) % 9 - 4
                encode_block(writer, dc - previous[c], [] if progressive else [1, -1][: (mcu + block) % 3])
                previous[c] = dc
    writer.flush()
    body += scan(range(len(sampling)), 0, 0 if progressive else 63) + bytes(writer.out)
    if progressive:
        # The first component's AC bands, every block only an end-of-block (EOBRUN 1): one code each.
        h, v = sampling[0]
        blocks = -(-width * h // (8 * h_max)) * -(-height * v // (8 * v_max))
        ac = BitWriter()
        for _ in range(blocks):
            ac.write(AC_SYMBOLS.index(0x00), 3)
        ac.flush()
        body += scan([0], 1, 63) + bytes(ac.out)
    return head + body + b"\xff\xd9"


def image_seeds(args):
    gray = [bytes((x * 40 + y * 20) % 256 for x in range(5)) for y in range(3)]
    rgb = [bytes(v for x in range(4) for v in (x * 60, y * 80, 200)) for y in range(3)]
    rgba = [bytes(v for x in range(3) for v in (x * 80, 40, y * 120, 128 * x % 256)) for y in range(2)]
    gray_alpha16 = [bytes(v for x in range(2) for v in (x, 0x80, 0xFF, y * 0x40)) for y in range(2)]
    jfif = jpeg_segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
    adobe = jpeg_segment(0xEE, b"Adobe\x00\x64\x00\x00\x00\x00\x00")
    return {
        "gray8.png": png_file(5, 3, 0, 8, gray, extra=[png_chunk(b"gAMA", struct.pack(">I", 45455))]),
        "gray1.png": png_file(9, 2, 0, 1, [b"\xa5\x80", b"\x5a\x00"]),
        "rgb8.png": png_file(4, 3, 2, 8, rgb, extra=[png_chunk(b"tEXt", b"Comment\x00fuzz seed")]),
        "rgba8_interlaced.png": png_file(3, 2, 6, 8, rgba, interlace=1),
        "gray_alpha16.png": png_file(2, 2, 4, 16, gray_alpha16),
        "palette_trns.png": png_file(4, 2, 3, 2, [b"\x1b", b"\xe4"], palette=bytes(range(12)), trns=b"\x00\x80"),
        "rgb16_interlaced.png": png_file(9, 9, 2, 16, [bytes((x * 7 + y) % 256 for x in range(54)) for y in range(9)],
                                         interlace=1),
        "gray_baseline.jpg": jpeg_file(16, 8, [(1, 1)], app=jfif),
        "ycbcr_420.jpg": jpeg_file(24, 17, [(2, 2), (1, 1), (1, 1)], app=jfif),
        "ycbcr_restart.jpg": jpeg_file(32, 16, [(1, 1), (1, 1), (1, 1)], restart=2),
        "cmyk_adobe.jpg": jpeg_file(8, 8, [(1, 1)] * 4, app=adobe),
        "ycbcr_progressive.jpg": jpeg_file(16, 16, [(1, 1), (1, 1), (1, 1)], progressive=True),
    }


# --- idx: MNIST's format ---------------------------------------------------------------------------------

def idx_file(values, sizes):
    return bytes([0, 0, 8, len(sizes)]) + b"".join(struct.pack(">I", n) for n in sizes) + bytes(values)


def idx_seeds(args):
    seeds = {
        "labels.idx1": idx_file([3, 1, 4, 1, 5, 9], [6]),
        "images.idx3": idx_file([(i * 37) % 256 for i in range(2 * 3 * 4)], [2, 3, 4]),
        "rank4.idx4": idx_file(range(16), [2, 2, 2, 2]),
        "empty.idx2": idx_file([], [0, 7]),
        "labels.idx1.gz": gzip.compress(idx_file([0, 9, 2], [3]), mtime=0),
    }
    # The head of Debian's Fashion-MNIST (dataset-fashion-mnist): its first images and labels, the
    # header's count cut to match, plain and gzip-compressed.
    fashion = Path("/usr/share/datasets/fashion-mnist")
    for name, kept, unit in (("t10k-images-idx3-ubyte.gz", 2, 28 * 28), ("t10k-labels-idx1-ubyte.gz", 20, 1)):
        if (fashion / name).exists():
            with gzip.open(fashion / name) as f:
                header = f.read(4)
                dims = header[3]
                f.read(4 * dims)
                sizes = [kept] + ([28, 28] if dims == 3 else [])
                head = idx_file(f.read(kept * unit), sizes)
            seeds[f"fashion_{name[:-3]}_head"] = head
            seeds[f"fashion_{name[:-3]}_head.gz"] = gzip.compress(head, mtime=0)
    return seeds


# --- wordpiece: vocab.txt NUL tokenizer_config.json NUL tokenizer.json ------------------------------------

WORDPIECE_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "quick", "hello", "world", "un",
                    "##aff", "##able", "cafe", "caf", "##e", "!", ",", ".", "'", "s", "t", "don", "\u4e2d",
                    "\u6587", "a", "##a", "i", "##\u0307", "-"]


def wordpiece_input(tokens, config=None, tokenizer=None, newline="\n"):
    parts = [newline.join(tokens).encode() + newline.encode()]
    if config is not None or tokenizer is not None:
        parts.append(json.dumps(config, ensure_ascii=False).encode() if config is not None else b"")
    if tokenizer is not None:
        parts.append(json.dumps(tokenizer, ensure_ascii=False).encode())
    return b"\0".join(parts)


def wordpiece_tokenizer_json(tokens):
    special = [{"id": tokens.index(t), "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                "normalized": False, "special": True} for t in ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]]
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": special,
            "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                           "strip_accents": None, "lowercase": True},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": {"type": "TemplateProcessing"},
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
            "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                      "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(tokens)}}}


def wordpiece_seeds(args):
    tokens = WORDPIECE_TOKENS
    return {
        "vocab_only.wp": wordpiece_input(tokens),
        "vocab_crlf.wp": wordpiece_input(tokens, newline="\r\n"),
        "cased_config.wp": wordpiece_input(tokens, {"do_lower_case": False, "strip_accents": False,
                                                    "tokenize_chinese_chars": False, "mask_token":
                                                        {"content": "[MASK]", "lstrip": True}}),
        "tokenizer_json.wp": wordpiece_input(tokens, {"do_lower_case": True, "model_max_length": 512},
                                             wordpiece_tokenizer_json(tokens)),
        "renamed_specials.wp": wordpiece_input(["<pad>", "<unk>", "<s>", "</s>", "<mask>"] + tokens[5:],
                                               {"cls_token": "<s>", "sep_token": "</s>", "pad_token": "<pad>",
                                                "unk_token": "<unk>", "mask_token": "<mask>"}),
    }


# --- peft_adapter: adapter_config.json NUL adapter_model.safetensors --------------------------------------

def f32(values):
    return struct.pack(f"<{len(values)}f", *values)


def peft_adapter_input(config, tensors):
    return json.dumps(config).encode() + b"\0" + safetensors_file(tensors)


def peft_adapter_seeds(args):
    """Adapters for the target's tiny model: 4x4 sites attention.query and attention.value, a 4->2
    classifier head; PEFT names its tensors base_model.model.<name>."""
    def lora(sites, rank):
        tensors = {}
        for site in sites:
            prefix = f"base_model.model.attention.{site}"
            tensors[f"{prefix}.lora_A.weight"] = ("F32", [rank, 4], f32([0.1 * i for i in range(rank * 4)]))
            tensors[f"{prefix}.lora_B.weight"] = ("F32", [4, rank], f32([-0.05 * i for i in range(rank * 4)]))
        return tensors

    head = {"base_model.model.classifier.weight": ("F32", [2, 4], f32([0.5] * 8)),
            "base_model.model.classifier.bias": ("F32", [2], f32([0.0, 1.0]))}
    config = {"peft_type": "LORA", "task_type": "SEQ_CLS", "base_model_name_or_path": "tiny", "r": 2,
              "lora_alpha": 4, "lora_dropout": 0.1, "target_modules": ["query", "value"],
              "modules_to_save": ["classifier"], "bias": "none", "fan_in_fan_out": False, "inference_mode": True,
              "init_lora_weights": True, "use_rslora": False, "layers_to_transform": None,
              "rank_pattern": {}, "alpha_pattern": {}, "revision": None}
    regex = dict(config, target_modules=r"attention\.(query|value)", task_type="CAUSAL_LM", modules_to_save=None,
                 r=1, lora_alpha=0.5)
    return {
        "seq_cls.peft": peft_adapter_input(config, {**lora(["query", "value"], 2), **head}),
        "regex_no_head.peft": peft_adapter_input(regex, lora(["query", "value"], 1)),
        "query_only.peft": peft_adapter_input(
            {"peft_type": "LORA", "r": 3, "lora_alpha": 8, "target_modules": ["attention.query"]},
            lora(["query"], 3)),
    }


# --- gguf: llama.cpp's GGUF, written here field by field (the fuzz build has no `gguf` package) ------------

GGUF_UINT32, GGUF_FLOAT32, GGUF_BOOL, GGUF_STRING, GGUF_ARRAY = 4, 6, 7, 8, 9
GGUF_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}


def gguf_string(text):
    data = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(data)) + data


def gguf_value(value_type, value):
    """A metadata value of GGUF type code `value_type`; an array is (element type, [values])."""
    if value_type == GGUF_STRING:
        return gguf_string(value)
    if value_type == GGUF_ARRAY:
        element_type, items = value
        return struct.pack("<IQ", element_type, len(items)) + b"".join(gguf_value(element_type, v) for v in items)
    return struct.pack(GGUF_SCALARS[value_type], value)


def gguf_file(metadata, tensors, version=3, alignment=32):
    """A GGUF file: metadata [(key, type, value)], tensors [(name, ne, ggml type, data)], each tensor at
    the next multiple of `alignment` (which a general.alignment entry of `metadata` must declare)."""
    head = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(metadata))
    head += b"".join(gguf_string(key) + struct.pack("<I", t) + gguf_value(t, v) for key, t, v in metadata)
    data, offsets = b"", []
    for _, _, _, payload in tensors:
        data += b"\0" * (-len(data) % alignment)
        offsets.append(len(data))
        data += payload
    for (name, ne, ggml_type, _), offset in zip(tensors, offsets):
        head += gguf_string(name) + struct.pack(f"<I{len(ne)}QIQ", len(ne), *ne, ggml_type, offset)
    return head + b"\0" * (-len(head) % alignment) + data


def half(value):
    return struct.pack("<e", value)


def gguf_seeds(args):
    nibbles = bytes((i % 16) | ((15 - i % 16) << 4) for i in range(16))
    q8_0 = half(0.5) + bytes(range(0, 256, 8))
    q4_0 = half(0.25) + nibbles
    q4_1 = half(0.5) + half(-1.0) + nibbles
    every_value = [("general.architecture", GGUF_STRING, "llama"), ("u8", 0, 200), ("i8", 1, -5), ("u16", 2, 60000),
                   ("i16", 3, -300), ("u32", 4, 7), ("i32", 5, -7), ("f32", 6, 0.5), ("bool", 7, True),
                   ("u64", 10, 2 ** 40), ("i64", 11, -(2 ** 40)), ("f64", 12, 1e-300),
                   ("strings", GGUF_ARRAY, (GGUF_STRING, ["<s>", "\u0120the"])),
                   ("ints", GGUF_ARRAY, (5, [1, -3])), ("floats", GGUF_ARRAY, (GGUF_FLOAT32, [0.5, -2.0])),
                   ("nested", GGUF_ARRAY, (GGUF_ARRAY, [(1, [-1, 2])]))]
    every_type = [("f32", [3], 0, struct.pack("<3f", 1.0, -2.0, 0.5)), ("f16", [2, 2], 1, half(1.0) * 4),
                  ("bf16", [2], 30, b"\x80\x3f\x40\xc0"), ("q8_0", [32, 2], 8, q8_0 * 2), ("q4_0", [32], 2, q4_0),
                  ("q4_1", [32, 1, 2], 3, q4_1 * 2), ("q6_k", [256], 14, bytes(210)), ("scalar", [], 0, b"\0\0\x80\x3f"),
                  ("empty", [0, 4], 1, b"")]
    llama = [("general.architecture", GGUF_STRING, "llama"), ("llama.block_count", GGUF_UINT32, 1),
             ("llama.embedding_length", GGUF_UINT32, 64), ("llama.attention.head_count", GGUF_UINT32, 2),
             ("llama.rope.freq_base", GGUF_FLOAT32, 100000.0), ("tokenizer.ggml.model", GGUF_STRING, "gpt2"),
             ("tokenizer.ggml.tokens", GGUF_ARRAY, (GGUF_STRING, ["<|endoftext|>", "a", "b", "ab"])),
             ("tokenizer.ggml.token_type", GGUF_ARRAY, (5, [3, 1, 1, 1])),
             ("tokenizer.ggml.merges", GGUF_ARRAY, (GGUF_STRING, ["a b"])),
             ("tokenizer.ggml.add_bos_token", GGUF_BOOL, False),
             ("tokenizer.chat_template", GGUF_STRING, "{% for m in messages %}{{ m['content'] }}{% endfor %}")]
    llama_tensors = [("token_embd.weight", [64, 4], 8, q8_0 * 8), ("blk.0.attn_q.weight", [64, 2], 3, q4_1 * 4),
                     ("output_norm.weight", [64], 0, struct.pack("<64f", *[1.0] * 64))]
    return {
        "every_type.gguf": gguf_file(every_value, every_type),
        "llama_like.gguf": gguf_file(llama, llama_tensors),
        "v2_aligned64.gguf": gguf_file([("general.alignment", GGUF_UINT32, 64)], every_type[:5], version=2,
                                       alignment=64),
        "no_tensors.gguf": gguf_file([("general.name", GGUF_STRING, "empty")], []),
    }


def spec_seeds(args):
    paths = files(SOURCE / "experiments/*.yaml") + files(SOURCE / "tests/fixtures/specs/**/*.yaml")
    return {str(Path(p).relative_to(SOURCE)).replace("/", "_"): read(p) for p in paths}


# --- targets ----------------------------------------------------------------------------------------------

# name: (largest input, dictionary, seed function). The largest inputs fit the seeds that matter: a
# config, a spec, a small model; spm models with byte fallback and a rule set are the largest.
TARGETS = {
    "safetensors": (4096, "json.dict", safetensors_seeds),
    "config_json": (4096, "json.dict", config_json_seeds),
    "glue_tsv": (4096, None, glue_tsv_seeds),
    "squad": (8192, "json.dict", squad_seeds),
    "run_record": (8192, "json.dict", run_record_seeds),
    "sentencepiece": (20000, "sentencepiece.dict", sentencepiece_seeds),
    "bpe_tokenizer": (16384, "json.dict", bpe_tokenizer_seeds),
    "spec": (8192, "yaml.dict", spec_seeds),
    "image": (8192, "image.dict", image_seeds),
    "idx": (4096, None, idx_seeds),
    "wordpiece": (8192, "wordpiece.dict", wordpiece_seeds),
    "peft_adapter": (4096, "peft.dict", peft_adapter_seeds),
    "gguf": (4096, "gguf.dict", gguf_seeds),
}

ARTIFACT_PREFIXES = ("crash-", "leak-", "timeout-", "oom-")


def seed(corpus, seeds, max_len):
    corpus.mkdir(parents=True, exist_ok=True)
    kept = 0
    for name, data in seeds.items():
        if len(data) <= max_len:
            (corpus / f"seed-{name}").write_bytes(data)
            kept += 1
    return kept, len(seeds) - kept


def last_int(pattern, text):
    found = re.findall(pattern, text)
    return int(found[-1]) if found else None


def run(target, args):
    max_len, dictionary, seeds_of = TARGETS[target]
    fuzz_dir = args.build_dir / "fuzz"
    corpus, artifacts = fuzz_dir / "corpus" / target, fuzz_dir / "artifacts" / target
    artifacts.mkdir(parents=True, exist_ok=True)
    kept, too_large = seed(corpus, seeds_of(args), max_len)
    before = set(os.listdir(artifacts))
    command = [str(args.build_dir / "tests/fuzz" / f"{target}_fuzz"), str(corpus),
               f"-max_total_time={args.seconds}", f"-max_len={max_len}", "-timeout=10", "-rss_limit_mb=4096",
               "-print_final_stats=1", f"-artifact_prefix={artifacts}/"]
    if args.runs:
        command.append(f"-runs={args.runs}")
    if dictionary:
        command.append(f"-dict={FUZZ / dictionary}")
    log_path = fuzz_dir / f"{target}.log"
    print(f"make fuzz: {target}: {kept} seeds ({too_large} over {max_len} bytes left out), "
          f"{args.seconds} s{f' or {args.runs} runs' if args.runs else ''}, log {log_path}", flush=True)
    # A UBSan report (fatal: -fno-sanitize-recover) is of little use without the stack that led to it.
    env = dict(os.environ, UBSAN_OPTIONS=os.environ.get("UBSAN_OPTIONS", "print_stacktrace=1"))
    with open(log_path, "w") as log:
        returncode = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, env=env).returncode
    text = log_path.read_text(errors="replace")
    found = sorted(f for f in set(os.listdir(artifacts)) - before if f.startswith(ARTIFACT_PREFIXES))
    return {
        "target": target,
        "execs": last_int(r"stat::number_of_executed_units:\s+(\d+)", text),
        "per_second": last_int(r"stat::average_exec_per_sec:\s+(\d+)", text),
        "cov": last_int(r" cov: (\d+)", text),
        "ft": last_int(r" ft: (\d+)", text),
        "corpus": last_int(r" corp: (\d+)/", text),
        "crashes": [str(artifacts / f) for f in found],
        "failed": returncode != 0 or bool(found),
        "log": log_path,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", type=Path, required=True)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--runs", type=int, default=0, help="stop a target after this many executions")
    parser.add_argument("--shared", type=Path, default=SOURCE.parent / "shared")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache/capaboost")
    parser.add_argument("--results", type=Path, default=SOURCE / "results")
    parser.add_argument("--targets", nargs="+", default=list(TARGETS), choices=list(TARGETS))
    args = parser.parse_args()

    results = [run(target, args) for target in args.targets]
    print(f"\nmake fuzz summary ({args.seconds} s per target; "
          "cov: coverage edges, ft: features, corpus: units)")
    print(f"{'target':<14}{'execs':>11}{'execs/s':>9}{'cov':>7}{'ft':>8}{'corpus':>8}  10^6  crashes")
    for r in results:
        crashes = ", ".join(r["crashes"]) or ("none" if not r["failed"] else f"fuzzer failed, see {r['log']}")
        reached = "yes" if (r["execs"] or 0) >= 1_000_000 else "no"
        print(f"{r['target']:<14}{r['execs'] or 0:>11}{r['per_second'] or 0:>9}{r['cov'] or 0:>7}"
              f"{r['ft'] or 0:>8}{r['corpus'] or 0:>8}  {reached:<4}  {crashes}")
    return 1 if any(r["failed"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
