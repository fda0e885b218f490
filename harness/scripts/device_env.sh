# Sourced by the device-machine scripts (device_check.sh, device_sweep.sh) after they set OUT:
#   device_env WORK_DIR   — runs the bundle unpacked in WORK_DIR (bin/, lib/, data/, and checkpoints/ when
#                           it has one) against the machine's own torch libraries;
#   report TEXT…          — prints a line and appends it to $OUT/report.txt.
device_env() {
  local work=$1 torch_lib
  torch_lib=${TORCH_LIB:-$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')}
  # The image's LibTorch first (the binaries were linked against the same version's wheel), then the
  # Debian libraries the bundle carries.
  export LD_LIBRARY_PATH="$torch_lib:$work/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export CAPABOOST_DATA_DIR="$work/data" CAPABOOST_CACHE="$work/cache" CAPABOOST_SKIP_BLAS_CHECK=1
  if [ -d "$work/checkpoints" ]; then export CAPABOOST_CHECKPOINTS="$work/checkpoints"; fi
  report "device: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1)"
}

report() { echo "$*" | tee -a "$OUT/report.txt"; }
