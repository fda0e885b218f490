#!/usr/bin/env python3
"""`make fuzz`: seeds each libFuzzer target's corpus, runs the target for a set time, prints a summary.

    run_fuzzers.py --build-dir build-fuzz --seconds 60 [--shared ../shared] [--cache ~/.cache/capaboost]
                   [--results results] [--targets safetensors spec ...]

Seeds come from the repository's fixtures, from inputs made here the way the tests make theirs (a
safetensors file, spm_train models, small GLUE/SQuAD files) and, when present, from the offline data
in the shared folder and the backbone cache. They are written into <build-dir>/fuzz/corpus/<target>/,
never into the repository; the corpus stays there, so the next run starts from what this one found.
Crash artifacts go to <build-dir>/fuzz/artifacts/<target>/. Exits 1 when any target found a crash.
"""

import argparse
import glob
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
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
    if dictionary:
        command.append(f"-dict={FUZZ / dictionary}")
    log_path = fuzz_dir / f"{target}.log"
    print(f"make fuzz: {target}: {kept} seeds ({too_large} over {max_len} bytes left out), "
          f"{args.seconds} s, log {log_path}", flush=True)
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
    parser.add_argument("--shared", type=Path, default=SOURCE.parent / "shared")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache/capaboost")
    parser.add_argument("--results", type=Path, default=SOURCE / "results")
    parser.add_argument("--targets", nargs="+", default=list(TARGETS), choices=list(TARGETS))
    args = parser.parse_args()

    results = [run(target, args) for target in args.targets]
    print(f"\nmake fuzz summary ({args.seconds} s per target; "
          "cov: coverage edges, ft: features, corpus: units)")
    print(f"{'target':<14}{'execs':>11}{'execs/s':>9}{'cov':>7}{'ft':>8}{'corpus':>8}  crashes")
    for r in results:
        crashes = ", ".join(r["crashes"]) or ("none" if not r["failed"] else f"fuzzer failed, see {r['log']}")
        print(f"{r['target']:<14}{r['execs'] or 0:>11}{r['per_second'] or 0:>9}{r['cov'] or 0:>7}"
              f"{r['ft'] or 0:>8}{r['corpus'] or 0:>8}  {crashes}")
    return 1 if any(r["failed"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
