#!/usr/bin/env bash
# Sweeps on the lent GPU machine, in one call of the device tool: runs each SPEC's PROFILE with
# --device cuda from an unpacked bundle and returns the run records (JSON only; the tuned states stay
# there), so that a profile sized for two cores (e.g. `cpu`) finishes in minutes.
#
#   bash harness/scripts/device_sweep.sh WORK_DIR SPEC:JOBS [SPEC:JOBS ...]
#
# WORK_DIR holds what the machine needs besides this checkout: bin/capaboost (built against the same
# LibTorch as the machine's torch wheel; `make device-bundle`), lib/ (the Debian libraries it loads),
# data/ (the GLUE mirror's folders) and checkpoints/ (named backbones, e.g. checkpoints/minilm).
# The specs run at the same time, each with JOBS workers sharing the GPU, until DEADLINE seconds
# (default 480) have passed; a run still going then is lost and the rest are kept (records are
# written one run at a time). Environment: PROFILE (default cpu), DEADLINE.
# Files under $OUT (else ./device-out): report.txt (each spec's exit status, time and record count),
# log-<spec>.txt (each sweep's output), records.tar.gz (results/runs/*.json of every finished run).
# Merge them here with `tar -xzf records.tar.gz -C results && capaboost reindex`.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${1:?usage: device_sweep.sh WORK_DIR SPEC:JOBS [SPEC:JOBS ...]}
shift
OUT=${OUT:-$SRC/device-out}
PROFILE=${PROFILE:-cpu}
DEADLINE=${DEADLINE:-480}
RESULTS="$WORK/results"
mkdir -p "$OUT" "$RESULTS"
source "$SRC/harness/scripts/device_env.sh"
device_env "$WORK"
cd "$SRC"

report "profile $PROFILE, deadline $DEADLINE s, $(nproc) cores"

start=$SECONDS
pids=() names=()
for item in "$@"; do
  spec=${item%%:*} jobs=${item##*:}
  name=$(basename "$spec" .yaml)
  timeout -k 5 "$DEADLINE" "$WORK/bin/capaboost" run "$spec" --profile "$PROFILE" --device cuda --jobs "$jobs" \
    --results "$RESULTS" > "$OUT/log-$name.txt" 2>&1 &
  pids+=($!) names+=("$name")
done
# Samples the GPU's load while the sweeps run: how busy one GPU is with several workers on it.
(while sleep 20; do nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader; done) \
  > "$OUT/gpu-load.txt" 2>&1 &
sampler=$!
for i in "${!pids[@]}"; do
  wait "${pids[$i]}"
  report "$(printf '%-28s exit %d  %4d s' "${names[$i]}" $? $((SECONDS - start)))"
done
kill "$sampler" 2>/dev/null
for item in "$@"; do
  spec=${item%%:*}
  report "$("$WORK/bin/capaboost" status "$spec" --profile "$PROFILE" --results "$RESULTS" 2>&1 | grep -E "\(profile '|^recorded on")"
done
(cd "$RESULTS" && find runs -name '*.json' | tar -czf "$OUT/records.tar.gz" -T -)
report "records returned: $(tar -tzf "$OUT/records.tar.gz" | wc -l)"
