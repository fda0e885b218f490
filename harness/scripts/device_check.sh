#!/usr/bin/env bash
# The suite on a GPU (issue #44), in one call of the device tool, over a checkout plus the folder that
# harness/scripts/device_bundle.sh packed here (carry .device):
#
#   bash harness/scripts/device_check.sh [BUNDLE_DIR]     (writes under $OUT, else ./device-out)
#
#  1. the GPU tests (capaboost_tests "[device]": every backbone × method trains on CUDA; CPU and CUDA
#     outputs and gradients agree from the same seeds and masks; bf16 through CUDA's autocast), and the
#     rest of tests/lib/runtime/ on LibTorch 2.x;
#  2. experiments/device_check.yaml run with --device cpu and with --device cuda into two results
#     folders, their records compared (data order and masks must be the same; compare_device_records.py);
#  3. the RoBERTa-base LoRA and CapaBoost-LoRA steps (batch 32 × 128, fp32 and bf16; BM_RobertaBaseStepCuda)
#     and transformers + PEFT's LoRA step on the same GPU (bench/peft_step_cuda.py), and their ratios.
#
# Every step runs whatever the one before it gave; report.txt says each one's exit status and time, and
# holds the timings table of each round. Files under $OUT: report.txt, log.txt (every step's output),
# records.json, and bench-N.json and peft-N.json for each timing round N.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUNDLE=${1:-$SRC/.device}
OUT=${OUT:-$SRC/device-out}
THREADS=${THREADS:-$(nproc)}
mkdir -p "$OUT"
work=$(mktemp -d)
tar -xzf "$BUNDLE/bundle.tar.gz" -C "$work" || { echo "device_check: cannot unpack $BUNDLE/bundle.tar.gz" >&2; exit 1; }
source "$SRC/harness/scripts/device_env.sh"
device_env "$work"
bin="$work/bin"
cd "$SRC"

# step NAME SECONDS COMMAND…: runs it for at most SECONDS with its output appended to log.txt under a
# header; reports its exit status (124: stopped at the limit) and time. The limits keep the whole check
# inside one device call (10 minutes at most) with the machine's start.
step() {
  local name=$1 limit=$2 start=$SECONDS status
  shift 2
  printf '\n===== %s: %s\n' "$name" "$*" >> "$OUT/log.txt"
  timeout -k 5 "$limit" "$@" >> "$OUT/log.txt" 2>&1
  status=$?
  report "$(printf '%-14s exit %d  %4d s' "$name" "$status" $((SECONDS - start)))"
  return "$status"
}

report "torch: $(python3 -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda)' 2>&1)"
report "libraries not found: $(ldd "$bin"/* | grep 'not found' | sort -u | tr -s ' \t\n' ' ')"

step gpu-tests 90 "$bin/capaboost_tests" "[device]" --durations yes
step runtime-tests 60 "$bin/capaboost_tests" "~[device]"
step env 20 "$bin/capaboost" env
step run-cpu 90 "$bin/capaboost" --threads "$THREADS" run experiments/device_check.yaml --profile paper --device cpu \
  --results "$work/results-cpu"
step run-cuda 60 "$bin/capaboost" --threads "$THREADS" run experiments/device_check.yaml --profile paper --device cuda \
  --results "$work/results-cuda"
step compare 15 python3 harness/scripts/compare_device_records.py "$work/results-cpu" "$work/results-cuda" \
  --json "$OUT/records.json"
# The timings, TIMING_ROUNDS times (default 1) in turn: a difference between two rounds is the noise a
# ratio has to beat. The first round also profiles one step of each case (bench/profile_summary.py).
mkdir -p "$work/profiles"
for round in $(seq 1 "${TIMING_ROUNDS:-1}"); do
  profile_env=() peft_profile=()
  if [ "$round" = 1 ]; then
    profile_env=(CAPABOOST_PROFILE_DIR="$work/profiles")
    peft_profile=(--profile-dir "$work/profiles")
  fi
  step bench 90 env "${profile_env[@]}" "$bin/capaboost_bench" --benchmark_filter=BM_RobertaBaseStepCuda \
    --benchmark_out="$OUT/bench-$round.json" --benchmark_out_format=json
  step peft 90 python3 bench/peft_step_cuda.py --json "$OUT/peft-$round.json" "${peft_profile[@]}"
  report "timings, round $round:"
  python3 bench/ratios.py --cuda "$OUT/bench-$round.json" "$OUT/peft-$round.json" 2>&1 | tee -a "$OUT/report.txt"
done
for trace in "$work"/profiles/*.json; do step profile 20 python3 bench/profile_summary.py "$trace" 30; done
