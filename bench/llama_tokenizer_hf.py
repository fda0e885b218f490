#!/usr/bin/env python3
"""SmolLM2's tokenizer, ours against Hugging Face's fast tokenizer, in one run: encoding the 2,067
distinct SQuAD v1.1 dev contexts on one thread, ids only and with character offsets.

Theirs: transformers loading the GGUF file (AutoTokenizer.from_pretrained(dir, gguf_file=...), a
LlamaTokenizerFast), tokenizer(contexts) and tokenizer(contexts, return_offsets_mapping=True), one batch
call each with TOKENIZERS_PARALLELISM=false (so its Rust loop runs on one thread, as ours does): what a
user calls, the Python lists it returns included; and its Rust core alone,
backend_tokenizer.encode_batch(contexts) (ids and offsets, left as Rust Encodings). Each from a fresh
tokenizer (cold: an empty BPE cache) and the median of --repetitions later calls (warm).
Ours: build/bench/capaboost_bench's BM_SmolLm2EncodeSquadContexts{Warm,Cold}, run right after in a child
process with CAPABOOST_LLAMA_VOCABULARY pointing at the vocabulary this script writes from the same
tokenizer (until the suite reads GGUF files itself), medians of its repetitions.

Run with the oracle venv's interpreter, from the repository root, after building capaboost_bench:
  .venv/bin/python bench/llama_tokenizer_hf.py [--bench build/bench/capaboost_bench] [--repetitions 5]
"""
import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ["TOKENIZERS_PARALLELISM"] = "false"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))
from llama_tokenizer_reference import load_gguf_tokenizer, vocabulary  # noqa: E402


def squad_contexts(data_dir):
    with open(os.path.join(data_dir, "SQuAD", "dev-v1.1.json"), encoding="utf-8") as f:
        articles = json.load(f)["data"]
    contexts = []
    for article in articles:
        for paragraph in article["paragraphs"]:
            if not contexts or contexts[-1] != paragraph["context"]:
                contexts.append(paragraph["context"])
    return contexts


def time_theirs(encode, repetitions):
    """(cold seconds, warm median seconds) of encode() over all contexts, starting from a fresh tokenizer."""
    times = []
    for _ in range(repetitions + 1):
        start = time.perf_counter()
        encode()
        times.append(time.perf_counter() - start)
    return times[0], statistics.median(times[1:])


def time_ours(bench, vocabulary_path, data_dir, repetitions):
    """{benchmark name: median real seconds} of the SmolLM2 cases of capaboost_bench."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "bench.json")
        env = dict(os.environ, CAPABOOST_LLAMA_VOCABULARY=vocabulary_path, CAPABOOST_DATA_DIR=data_dir)
        subprocess.run([bench, "--benchmark_filter=BM_SmolLm2EncodeSquadContexts",
                        f"--benchmark_repetitions={repetitions}", "--benchmark_out=" + out,
                        "--benchmark_out_format=json"], env=env, check=True, stdout=subprocess.DEVNULL)
        with open(out, encoding="utf-8") as f:
            rows = json.load(f)["benchmarks"]
    medians = {}
    for row in rows:
        if row.get("aggregate_name") == "median":
            assert row["time_unit"] == "ms", row
            medians[row["run_name"].removesuffix("/real_time")] = row["real_time"] / 1000
    return medians


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", default=os.path.join(ROOT, "build", "bench", "capaboost_bench"))
    parser.add_argument("--gguf", default=os.path.expanduser(
        "~/.cache/capaboost/checkpoints/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"))
    parser.add_argument("--data-dir", default=os.environ.get("CAPABOOST_DATA_DIR", os.path.join(ROOT, "..", "shared", "data")))
    parser.add_argument("--repetitions", type=int, default=5)
    args = parser.parse_args()

    contexts = squad_contexts(args.data_dir)
    tokenizer, metadata = load_gguf_tokenizer(args.gguf)
    theirs = {
        "ids": time_theirs(lambda t=copy.deepcopy(tokenizer): t(contexts), args.repetitions),
        "ids + offsets": time_theirs(lambda t=copy.deepcopy(tokenizer): t(contexts, return_offsets_mapping=True),
                                     args.repetitions),
        "Rust core": time_theirs(lambda t=copy.deepcopy(tokenizer).backend_tokenizer: t.encode_batch(contexts),
                                 args.repetitions),
    }
    with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8", delete=False) as f:
        json.dump(vocabulary(tokenizer, metadata), f)
        vocabulary_path = f.name
    try:
        ours = time_ours(args.bench, vocabulary_path, args.data_dir, args.repetitions)
    finally:
        os.unlink(vocabulary_path)

    print(f"{len(contexts)} SQuAD v1.1 dev contexts, one thread; seconds per pass over all of them (medians)")
    print(f"{'case':<30}{'ours':>9}{'HF':>9}{'ours/HF':>9}  HF is")
    rows = [("ids", 0, "ids", "tokenizer(contexts)"),
            ("ids + offsets", 1, "ids + offsets", "tokenizer(contexts, return_offsets_mapping=True)"),
            ("ids + offsets", 1, "Rust core", "backend_tokenizer.encode_batch(contexts)")]
    for label, offsets, hf_case, hf_call in rows:
        for cache, index in (("warm", 1), ("cold", 0)):
            mine = ours[f"BM_SmolLm2EncodeSquadContexts{cache.capitalize()}/with_offsets:{offsets}"]
            hf = theirs[hf_case][index]
            print(f"{label + ', ' + cache + ' cache':<30}{mine:>9.4f}{hf:>9.4f}{mine / hf:>9.2f}  {hf_call}")


if __name__ == "__main__":
    main()
