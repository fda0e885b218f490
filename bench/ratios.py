#!/usr/bin/env python3
"""Turn one Google Benchmark JSON run of capaboost_bench into the ratios the project tracks.

Ratios come from a single run (timings on a shared 2-core machine drift between runs), each case's time
the median of its repetitions:
CapaBoost(d, r) against LoRA of rank d*r, CapaBoost-adapter(d, bn) against adapter of d*bn, and bf16
against fp32 (the LoRA step and the GEMM; absent where the CPU has no bf16 and those were skipped), steps
against their products at the sgemm rate, and each fused kernel (impl:1) against the operators it replaces.
Ratios above the target are flagged, not fatal: one noisy run must not fail `make bench`.
Usage: ratios.py results.json
       ratios.py --cuda results.json peft.json   (the GPU step against transformers + PEFT on the same GPU:
                                                  BM_RobertaBaseStepCuda and bench/peft_step_cuda.py's JSON)
"""
import json
import re
import statistics
import sys

PAIRS = [
    ("BM_CapaBoostLoRA/d:2/r:8/nm24:0", "BM_LoRA/r:16", "CapaBoost-LoRA d=2 r=8 (diff) / LoRA r=16"),
    ("BM_CapaBoostLoRA/d:2/r:8/nm24:1", "BM_LoRA/r:16", "CapaBoost-LoRA d=2 r=8 (2:4)  / LoRA r=16"),
    ("BM_CapaBoostLoRA/d:2/r:8/nm24:0", "BM_LoRA/r:8", "CapaBoost-LoRA d=2 r=8 (diff) / LoRA r=8"),
    ("BM_CapaBoostAdapter/d:2/bn:64", "BM_Adapter/bn:128", "CapaBoost-adapter d=2 bn=64 / adapter bn=128"),
    ("BM_CapaBoostAdapter/d:2/bn:64", "BM_Adapter/bn:64", "CapaBoost-adapter d=2 bn=64 / adapter bn=64"),
]
TARGET = 1.15  # the foundation issue's bound for CapaBoost(d, r) vs LoRA(d*r)
# bf16 against fp32, same step: issue #21's goal is at most half the fp32 step.
PRECISION_PAIRS = [
    ("BM_RobertaBaseLoraStep/full_last_layer:1/bf16:1/fused_attention:1", "BM_RobertaBaseLoraStep/full_last_layer:1/bf16:0/fused_attention:1",
     "RoBERTa-base LoRA step, bf16 / fp32 (full last layer)", 0.5),
    ("BM_RobertaBaseLoraStep/full_last_layer:0/bf16:1/fused_attention:1", "BM_RobertaBaseLoraStep/full_last_layer:0/bf16:0/fused_attention:1",
     "RoBERTa-base LoRA step, bf16 / fp32", 0.5),
    ("BM_Bf16GemmRobertaShape", "BM_SgemmRobertaShape", "GEMM 4096x768x768, bf16 / fp32", None),
]
# A step against the time its matrix products would take at the same run's GEMM rate (its step_GFLOP
# counter over the GEMM's GFLOP/s): issue #21 asks for at most 1.1x in fp32.
FLOOR_PAIRS = [
    ("BM_RobertaBaseLoraStep/full_last_layer:1/bf16:0/fused_attention:1", "BM_SgemmRobertaShape",
     "RoBERTa-base LoRA step (full last layer), fp32 / its products at the sgemm rate", 1.1),
    ("BM_RobertaBaseLoraStep/full_last_layer:1/bf16:1/fused_attention:1", "BM_Bf16GemmRobertaShape",
     "RoBERTa-base LoRA step (full last layer), bf16 / its products at the bf16 GEMM rate", None),
    # issue #43: the cpu profile's backbone (all-MiniLM-L6-v2's shape) within 1.25x of its products.
    ("BM_MiniLmLoraStep/full_last_layer:1/batch:32/fused_attention:1", "BM_SgemmMiniLmShape",
     "MiniLM (384 wide) LoRA step (full last layer), fp32 / its products at the sgemm rate", 1.25),
]

# The step with the fused attention kernel (models/fused_attention.h) against the same step on the unfused
# products + softmax + dropout (the benchmarks ask for attentions to keep that path).
FUSION_PAIRS = [
    ("BM_MiniLmLoraStep/full_last_layer:1/batch:32/fused_attention:1",
     "BM_MiniLmLoraStep/full_last_layer:1/batch:32/fused_attention:0", "MiniLM LoRA step, fused / unfused attention"),
    ("BM_RobertaBaseLoraStep/full_last_layer:1/bf16:0/fused_attention:1",
     "BM_RobertaBaseLoraStep/full_last_layer:1/bf16:0/fused_attention:0",
     "RoBERTa-base LoRA step, fused / unfused attention"),
]

# What training k runs as one forward (k times the rows) could gain per run at most: k * t(B) / t(kB).
# Packing was removed (docs/performance.md, "Why the suite trains one run at a time") because this bound
# stayed below the 1.3x runs/hour it had to reach.
BATCHING_BOUNDS = [
    ("BM_MiniLmLoraStep/full_last_layer:0/batch:32/fused_attention:1", "BM_MiniLmLoraStep/full_last_layer:0/batch:512/fused_attention:1", 16,
     "MiniLM LoRA step, 16 x t(batch 32) / t(batch 512): the most 16 runs as one forward could gain per run"),
]


def main(path):
    with open(path) as f:
        run = json.load(f)
    # With --benchmark_repetitions every case has several iteration entries: each figure is their median.
    samples, gflop, rates = {}, {}, {}
    for bench in run["benchmarks"]:
        if bench.get("run_type", "iteration") != "iteration" or bench.get("error_occurred"):
            continue
        name = re.sub(r"/(min_time:[0-9.]+|iterations:[0-9]+|real_time)", "", bench["name"])
        samples.setdefault(name, []).append(bench["real_time"])
        if "GFLOP" in bench:
            rates.setdefault(name, []).append(bench["GFLOP"])
        if "step_GFLOP" in bench:
            gflop[name] = bench["step_GFLOP"]
    times = {name: statistics.median(values) for name, values in samples.items()}
    rate = {name: statistics.median(values) for name, values in rates.items()}
    for name, value in rate.items():
        print(f"{name}: {value:.1f} GFLOP/s")
    for boosted, baseline, label in PAIRS:
        if boosted not in times or baseline not in times:
            continue
        ratio = times[boosted] / times[baseline]
        against_rank_dr = baseline in ("BM_LoRA/r:16", "BM_Adapter/bn:128")
        flag = ""
        if against_rank_dr:
            flag = "  ok" if ratio <= TARGET else f"  ABOVE TARGET {TARGET}"
        print(f"{label}: {ratio:.3f}{flag}")
    for low, high, label, target in PRECISION_PAIRS:
        if low not in times or high not in times:
            continue
        ratio = times[low] / times[high]
        flag = "" if target is None else ("  ok" if ratio <= target else f"  ABOVE TARGET {target}")
        print(f"{label}: {ratio:.3f}{flag}")
    for step, gemm, label, target in FLOOR_PAIRS:
        if step not in times or step not in gflop or gemm not in rate:
            continue
        floor_ms = gflop[step] / rate[gemm] * 1e3
        ratio = times[step] / floor_ms
        flag = "" if target is None else ("  ok" if ratio <= target else f"  ABOVE TARGET {target}")
        print(f"{label}: {ratio:.3f} ({times[step]:.0f} ms against {floor_ms:.0f} ms for "
              f"{gflop[step]:.1f} GFLOP){flag}")
    for fused, unfused, label in FUSION_PAIRS:
        if fused in times and unfused in times:
            print(f"{label}: {times[fused] / times[unfused]:.3f} ({times[fused]:.0f} / {times[unfused]:.0f} ms)")
    for single, batched, k, label in BATCHING_BOUNDS:
        if single in times and batched in times:
            print(f"{label}: {k * times[single] / times[batched]:.3f}")
    # The fused kernels' benchmarks (bench/fused_kernels_bench.cpp): each case with impl:1 (the suite's
    # kernel) against the same case with impl:0 (the operators it replaces), in the benchmark's time unit.
    for name in sorted(times):
        if "/impl:1" in name and name.replace("/impl:1", "/impl:0") in times:
            unfused = times[name.replace("/impl:1", "/impl:0")]
            print(f"{name.replace('/impl:1', '')}, kernel / unfused: {times[name] / unfused:.3f} "
                  f"({times[name]:.0f} / {unfused:.0f})")
    # GGUF dequantisation (bench/gguf_dequantize_bench.cpp): blocks:1 against the float32 copy of the same
    # output (blocks:0), per matrix and thread count.
    for name in sorted(times):
        if name.startswith("BM_GgufDequantize/") and name.endswith("/blocks:1"):
            copy = name.replace("/blocks:1", "/blocks:0")
            if copy in times:
                print(f"{name.replace('/blocks:1', '')}, dequantise / float32 copy: {times[name] / times[copy]:.2f} "
                      f"({times[name]:.0f} / {times[copy]:.0f})")
    return 0


# issue #44's goals on a GPU: our LoRA step at most PyTorch eager + PEFT's, CapaBoost-LoRA at most 1.05x LoRA.
CUDA_TARGET_VS_PYTORCH = 1.0
CUDA_TARGET_CAPABOOST = 1.05


def cuda_main(bench_path, peft_path):
    with open(bench_path) as f:
        run = json.load(f)
    with open(peft_path) as f:
        peft = json.load(f)
    ours = {}  # (capaboost, precision) -> median ms over the repetitions
    for bench in run["benchmarks"]:
        if bench.get("aggregate_name") != "median" or bench.get("error_occurred"):
            continue
        match = re.search(r"capaboost:(\d)/bf16:(\d)", bench["name"])
        if match:
            ours[(match.group(1) == "1", "bf16" if match.group(2) == "1" else "fp32")] = bench["real_time"]
    theirs = {(case["attention"], case["precision"]): case["ms_per_step"] for case in peft["cases"]}
    print(f"GPU: {peft['device']}; torch {peft['torch']}, transformers {peft['transformers']}, peft {peft['peft']}")
    print("RoBERTa-base step, batch 32 x 128, ms (median):")
    for precision in ("fp32", "bf16"):
        lora, boosted = ours.get((False, precision)), ours.get((True, precision))
        eager, sdpa = theirs.get(("eager", precision)), theirs.get(("sdpa", precision))
        cells = [f"ours LoRA {lora:.1f}" if lora else "ours LoRA -",
                 f"ours CapaBoost-LoRA {boosted:.1f}" if boosted else "ours CapaBoost-LoRA -",
                 f"PEFT eager {eager:.1f}" if eager else "PEFT eager -",
                 f"PEFT sdpa {sdpa:.1f}" if sdpa else "PEFT sdpa -"]
        print(f"  {precision}: " + ", ".join(cells))
        if lora and boosted:
            ratio = boosted / lora
            flag = "  ok" if ratio <= CUDA_TARGET_CAPABOOST else f"  ABOVE TARGET {CUDA_TARGET_CAPABOOST}"
            print(f"  {precision}: CapaBoost-LoRA / LoRA (ours): {ratio:.3f}{flag}")
        for name, baseline in (("eager", eager), ("sdpa", sdpa)):
            if lora and baseline:
                ratio = lora / baseline
                flag = "  ok" if ratio <= CUDA_TARGET_VS_PYTORCH else f"  ABOVE TARGET {CUDA_TARGET_VS_PYTORCH}"
                print(f"  {precision}: ours LoRA / transformers+PEFT ({name} attention): {ratio:.3f}{flag}")
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "--cuda":
        sys.exit(cuda_main(sys.argv[2], sys.argv[3]))
    sys.exit(main(sys.argv[1]))
