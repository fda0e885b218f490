#!/usr/bin/env bash
# The run records behind a curated folder, kept beside it so that another machine can re-render the folder
# or extend its sweep without re-running what was measured (records live in the ignored results/runs/ of
# the machine that ran them; a session on a new machine finds none).
#
#   records_archive.sh pack FOLDER RESULTS     FOLDER/records.tar.xz from RESULTS/runs/: the JSON record of
#                                              every key in FOLDER/run_keys.txt that has one, and its curves
#                                              (<key>.scalars.csv) when it kept them (tuned weights stay out:
#                                              up to 90 MB a run; so do the sites' singular values)
#   records_archive.sh restore RESULTS FOLDER…  every FOLDER/records.tar.xz into RESULTS/runs/, never over a
#                                              record already there; then `capaboost reindex` is needed
#
# The archive is byte-stable for the same records (sorted names, fixed owner and times), so re-curating an
# unchanged folder leaves git with nothing to commit.
set -euo pipefail

usage() {
  echo "usage: $0 pack FOLDER RESULTS | restore RESULTS FOLDER..." >&2
  exit 2
}

pack() {
  local folder=$1 results=$2
  local keys="$folder/run_keys.txt" runs="$results/runs"
  [[ -f $keys ]] || { echo "records_archive: $keys is missing; curate the folder first (make curate-…)" >&2; exit 1; }
  [[ -d $runs ]] || { echo "records_archive: $runs is missing; --results/RESULTS must name the folder the runs were recorded in" >&2; exit 1; }
  local names=() curves=() key matches
  while read -r key _; do
    [[ $key =~ ^[0-9a-f]{12}$ ]] || continue
    shopt -s nullglob
    matches=("$runs/$key"*.json)
    shopt -u nullglob
    # A key prefix of 12 hex digits names one record; two would be a collision worth hearing about.
    ((${#matches[@]} <= 1)) || { echo "records_archive: ${#matches[@]} records in $runs start with $key" >&2; exit 1; }
    ((${#matches[@]} == 1)) && names+=("$(basename "${matches[0]}")")
    # The curves go byte for byte: their digest is in the record.
    ((${#matches[@]} == 1)) && [[ -f ${matches[0]%.json}.scalars.csv ]] && curves+=("$(basename "${matches[0]%.json}").scalars.csv")
  done < "$keys"
  if ((${#names[@]} == 0)); then
    rm -f "$folder/records.tar.xz"
    echo "records_archive: none of $keys's runs has a record in $runs; no archive written"
    return
  fi
  # Records written before seals go in without the singular values of each site's update (details.training.
  # site_ranks.*.singular_values: three quarters of a fine-tuning record); ranks, effective ranks and every
  # metric stay, which is all a report reads. A sealed record (it has a "digest") is copied byte for byte:
  # its seal covers every byte, and a trimmed copy would be refused as edited. So is a record without them.
  local staging tmp
  staging=$(mktemp -d)
  local name
  for name in "${names[@]}"; do
    command -v -p python3 > /dev/null || { cp "$runs/$name" "$staging/$name"; continue; }
    "$(command -v -p python3)" - "$runs/$name" "$staging/$name" <<'PY'
import json, shutil, sys
source, target = sys.argv[1], sys.argv[2]
record = json.load(open(source))
sites = record.get("details", {}).get("training", {}).get("site_ranks", {})
if "digest" in record or not any("singular_values" in site for site in sites.values() if isinstance(site, dict)):
    shutil.copyfile(source, target)
else:
    for site in sites.values():
        if isinstance(site, dict):
            site.pop("singular_values", None)
    with open(target, "w") as out:
        json.dump(record, out, indent=1, ensure_ascii=False)
        out.write("\n")
PY
  done
  for name in "${curves[@]}"; do cp "$runs/$name" "$staging/$name"; done
  tmp=$(mktemp "$folder/records.tar.xz.tmp.XXXXXX")
  printf '%s\n' "${names[@]}" "${curves[@]}" | sort |
    tar -C "$staging" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - --files-from=- |
    xz -9 -T1 > "$tmp"
  rm -rf "$staging"
  chmod 644 "$tmp"  # mktemp's 0600 is for a scratch file, not a committed one
  mv "$tmp" "$folder/records.tar.xz"
  echo "records_archive: $folder/records.tar.xz holds ${#names[@]} records (${#curves[@]} with curves) of $(grep -cE '^[0-9a-f]{12}' "$keys") planned runs"
}

restore() {
  local results=$1
  shift
  mkdir -p "$results/runs"
  local folder archive before after
  for folder in "$@"; do
    archive="$folder/records.tar.xz"
    [[ -f $archive ]] || continue
    before=$(find "$results/runs" -maxdepth 1 -name '*.json' | wc -l)
    # --skip-old-files: a record this machine made (perhaps a rerun) wins over the archived one.
    xz -dc "$archive" | tar -C "$results/runs" --skip-old-files -xf - ||
      { echo "records_archive: $archive is not a readable tar.xz; restore it from git (git checkout -- $archive)" >&2; exit 1; }
    after=$(find "$results/runs" -maxdepth 1 -name '*.json' | wc -l)
    echo "records_archive: $archive: $((after - before)) records added to $results/runs"
  done
}

(($# >= 2)) || usage
case $1 in
  pack) (($# == 3)) || usage; pack "$2" "$3" ;;
  restore) shift; restore "$@" ;;
  *) usage ;;
esac
