#!/usr/bin/env bash
# Downloads GLUE tasks into a CapaBoost data root, in the layout the loaders read:
#   <root>/<TASK>/train.tsv, dev.tsv, test.tsv   (MNLI: dev_matched/dev_mismatched/test_matched/test_mismatched)
# The files are the official GLUE release zips from the URLs the GLUE site's download_glue_data.py and
# Hugging Face `datasets` use. Needs internet access (curl or wget) and unzip; on an offline machine it
# stops at the first download with a message saying so.
#
# MRPC is not shipped as a zip: GLUE builds it from Microsoft's msr_paraphrase_{train,test}.txt and a
# list of dev pair ids. By default the two text files come from the SentEval mirror, which is what
# download_glue_data.py and Hugging Face `datasets` (hence the ProPETL/CapaBoost reference code) use;
# that copy is word-tokenized ("brother , whom"). To build GLUE's MRPC from Microsoft's original,
# untokenized files instead, extract them from MSRParaphraseCorpus.msi (e.g. with cabextract) and set
# MRPC_DIR to the folder holding msr_paraphrase_train.txt and msr_paraphrase_test.txt.
set -euo pipefail

GLUE_TASKS=(CoLA SST-2 MRPC QQP STS-B MNLI QNLI RTE)
GLUE_BASE_URL="${GLUE_BASE_URL:-https://dl.fbaipublicfiles.com/glue/data}"
SENTEVAL_BASE_URL="${SENTEVAL_BASE_URL:-https://dl.fbaipublicfiles.com/senteval/senteval_data}"

usage() {
  cat <<EOF
usage: $(basename "$0") DATA_ROOT [TASK ...]

Downloads GLUE tasks into DATA_ROOT/<TASK>/ (default: all of ${GLUE_TASKS[*]}).
Task names are case-insensitive; '-' may be left out (sst2, stsb).

environment:
  GLUE_BASE_URL      where the task zips are   (default https://dl.fbaipublicfiles.com/glue/data)
  SENTEVAL_BASE_URL  where MRPC's text files are (default https://dl.fbaipublicfiles.com/senteval/senteval_data)
  MRPC_DIR           a folder with Microsoft's msr_paraphrase_train.txt and msr_paraphrase_test.txt
                     (and optionally dev_ids.tsv): build MRPC from them instead of downloading them
EOF
}

die() {
  echo "fetch_glue.sh: $*" >&2
  exit 1
}

# Canonical GLUE name of a task argument, or empty.
canonical_task() {
  local key
  key=$(printf '%s' "$1" | tr '[:upper:]' '[:lower:]' | tr -d '_-')
  for task in "${GLUE_TASKS[@]}"; do
    if [[ "$(printf '%s' "$task" | tr '[:upper:]' '[:lower:]' | tr -d '-')" == "$key" ]]; then
      printf '%s' "$task"
      return
    fi
  done
}

# The zip GLUE publishes for a task (MRPC has none).
zip_name() {
  case "$1" in
    QQP) echo "QQP-clean.zip" ;;
    QNLI) echo "QNLIv2.zip" ;;
    *) echo "$1.zip" ;;
  esac
}

# The files a complete task folder holds.
expected_files() {
  case "$1" in
    MNLI) echo "train.tsv dev_matched.tsv dev_mismatched.tsv test_matched.tsv test_mismatched.tsv" ;;
    *) echo "train.tsv dev.tsv test.tsv" ;;
  esac
}

download() {  # url destination
  local url=$1 destination=$2 status=0
  echo "  downloading $url"
  if command -v curl > /dev/null; then
    curl -fsSL --retry 2 --connect-timeout 20 -o "$destination" "$url" || status=$?
  elif command -v wget > /dev/null; then
    wget -q --tries=3 --timeout=20 -O "$destination" "$url" || status=$?
  else
    die "neither curl nor wget is installed; install one (e.g. apt-get install curl) and rerun"
  fi
  if [[ $status -ne 0 ]]; then
    rm -f "$destination"
    die "cannot download $url (exit status $status: no network access, a proxy, or the file moved).
This step needs internet access. On an offline machine, run this script where there is a connection
and copy the resulting <TASK>/ folders into $DATA_ROOT, or set GLUE_BASE_URL / SENTEVAL_BASE_URL to a mirror."
  fi
}

# Writes MRPC's train/dev/test.tsv into $1 from msr_paraphrase_{train,test}.txt and dev_ids.tsv in $2,
# the way GLUE does: rows of the train file whose (#1 ID, #2 ID) pair is in dev_ids go to dev.tsv, the
# others to train.tsv (both keep the original header line, BOM included); test.tsv drops the label and
# numbers the rows from 0 under its own header. Surrounding whitespace of each row is trimmed.
build_mrpc() {
  local out=$1 raw=$2
  awk -F'\t' -v OFS='\t' -v train="$out/train.tsv" -v dev="$out/dev.tsv" '
    FNR == NR { sub(/\r$/, ""); dev_pair[$1 "\t" $2] = 1; next }
    FNR == 1 { sub(/\r$/, ""); print > train; print > dev; next }
    {
      sub(/^[ \t\r]+/, ""); sub(/[ \t\r]+$/, "")
      if (NF != 5) { printf "fetch_glue.sh: %s:%d has %d fields, expected 5\n", FILENAME, FNR, NF > "/dev/stderr"; exit 1 }
      print > (($2 "\t" $3) in dev_pair ? dev : train)
    }' "$raw/dev_ids.tsv" "$raw/msr_paraphrase_train.txt"
  awk -F'\t' -v OFS='\t' '
    FNR == 1 { print "index", "#1 ID", "#2 ID", "#1 String", "#2 String"; next }
    {
      sub(/^[ \t\r]+/, ""); sub(/[ \t\r]+$/, "")
      if (NF != 5) { printf "fetch_glue.sh: %s:%d has %d fields, expected 5\n", FILENAME, FNR, NF > "/dev/stderr"; exit 1 }
      print FNR - 2, $2, $3, $4, $5
    }' "$raw/msr_paraphrase_test.txt" > "$out/test.tsv"
}

fetch_mrpc() {  # work_dir
  local work=$1 raw="$1/mrpc-raw"
  mkdir -p "$raw" "$work/MRPC"
  if [[ -n "${MRPC_DIR:-}" ]]; then
    echo "  using Microsoft's files from MRPC_DIR=$MRPC_DIR"
    for name in msr_paraphrase_train.txt msr_paraphrase_test.txt; do
      [[ -f "$MRPC_DIR/$name" ]] || die "MRPC_DIR=$MRPC_DIR has no $name; extract it from MSRParaphraseCorpus.msi"
      cp "$MRPC_DIR/$name" "$raw/$name"
    done
  else
    download "$SENTEVAL_BASE_URL/msr_paraphrase_train.txt" "$raw/msr_paraphrase_train.txt"
    download "$SENTEVAL_BASE_URL/msr_paraphrase_test.txt" "$raw/msr_paraphrase_test.txt"
  fi
  if [[ -n "${MRPC_DIR:-}" && -f "$MRPC_DIR/dev_ids.tsv" ]]; then
    cp "$MRPC_DIR/dev_ids.tsv" "$raw/dev_ids.tsv"
  else
    download "$GLUE_BASE_URL/mrpc_dev_ids.tsv" "$raw/dev_ids.tsv"
  fi
  build_mrpc "$work/MRPC" "$raw"
  cp "$raw/dev_ids.tsv" "$raw/msr_paraphrase_train.txt" "$raw/msr_paraphrase_test.txt" "$work/MRPC/"
}

fetch_zip() {  # task work_dir
  local task=$1 work=$2 zip
  zip=$(zip_name "$task")
  download "$GLUE_BASE_URL/$zip" "$work/$zip"
  unzip -q -o "$work/$zip" -d "$work" || die "$zip is not a valid zip archive (an interrupted download?); rerun"
  rm -f "$work/$zip"
}

[[ $# -ge 1 && "$1" != "-h" && "$1" != "--help" ]] || {
  usage
  [[ $# -ge 1 ]] && exit 0 || exit 2
}
DATA_ROOT=$1
shift
requested=("$@")
[[ ${#requested[@]} -gt 0 ]] || requested=("${GLUE_TASKS[@]}")
tasks=()
for name in "${requested[@]}"; do
  task=$(canonical_task "$name")
  [[ -n "$task" ]] || die "unknown task '$name'; choose from ${GLUE_TASKS[*]}"
  tasks+=("$task")
done
command -v unzip > /dev/null || die "unzip is not installed; install it (e.g. apt-get install unzip) and rerun"

mkdir -p "$DATA_ROOT"
work=$(mktemp -d "$DATA_ROOT/.fetch_glue.XXXXXX")
trap 'rm -rf "$work"' EXIT

for task in "${tasks[@]}"; do
  echo "$task:"
  if [[ "$task" == MRPC ]]; then
    fetch_mrpc "$work"
  else
    fetch_zip "$task" "$work"
  fi
  for file in $(expected_files "$task"); do
    [[ -s "$work/$task/$file" ]] || die "$task: $file is missing or empty after unpacking; the archive layout changed?"
  done
  # Replace the task folder only once the new one is complete.
  rm -rf "${DATA_ROOT:?}/$task"
  mv "$work/$task" "$DATA_ROOT/$task"
  for file in $(expected_files "$task"); do
    printf '  %-20s %8d lines\n' "$file" "$(wc -l < "$DATA_ROOT/$task/$file")"
  done
done
echo "done: ${tasks[*]} in $DATA_ROOT"
