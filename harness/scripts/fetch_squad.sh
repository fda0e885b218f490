#!/usr/bin/env bash
# Downloads the official SQuAD files into a CapaBoost data root, where the question-answering tasks read
# them:  <root>/SQuAD/train-v1.1.json, dev-v1.1.json, train-v2.0.json, dev-v2.0.json
# From the SQuAD explorer site (Rajpurkar et al.; CC BY-SA 4.0), each checked against the MD5 that
# torchtext publishes for it. Needs internet access (curl or wget); on an offline machine it stops at the
# first download with a message saying so.
set -euo pipefail

SQUAD_BASE_URL="${SQUAD_BASE_URL:-https://rajpurkar.github.io/SQuAD-explorer/dataset}"
declare -A MD5=(
  [train-v1.1.json]=981b29407e0affa3b1b156f72073b945
  [dev-v1.1.json]=3e85deb501d4e538b6bc56f786231552
  [train-v2.0.json]=62108c273c268d70893182d5cf8df740
  [dev-v2.0.json]=246adae8b7002f8679c027697b0b7cf8
)

usage() {
  cat <<USAGE
usage: $(basename "$0") DATA_ROOT [v1.1|v2.0 ...]

Downloads SQuAD's official train and dev files into DATA_ROOT/SQuAD/ (default: both versions).
environment:
  SQUAD_BASE_URL  where the files are (default https://rajpurkar.github.io/SQuAD-explorer/dataset)
USAGE
}

die() {
  echo "fetch_squad.sh: $*" >&2
  exit 1
}

fetch() {
  local url=$1 out=$2
  if command -v curl >/dev/null; then
    curl -fL --retry 2 -o "$out.part" "$url" || { rm -f "$out.part"; die "could not download $url (no internet access here?)"; }
  elif command -v wget >/dev/null; then
    wget -q -O "$out.part" "$url" || { rm -f "$out.part"; die "could not download $url (no internet access here?)"; }
  else
    die "needs curl or wget"
  fi
  mv "$out.part" "$out"
}

[[ $# -ge 1 && "$1" != "-h" && "$1" != "--help" ]] || { usage; [[ $# -ge 1 ]] && exit 0; exit 2; }
root=$1
shift
versions=("$@")
[[ ${#versions[@]} -gt 0 ]] || versions=(v1.1 v2.0)
mkdir -p "$root/SQuAD"
for version in "${versions[@]}"; do
  case "$version" in
    v1.1 | 1.1) files=(train-v1.1.json dev-v1.1.json) ;;
    v2.0 | 2.0) files=(train-v2.0.json dev-v2.0.json) ;;
    *) die "unknown version '$version' (v1.1 or v2.0)" ;;
  esac
  for file in "${files[@]}"; do
    out="$root/SQuAD/$file"
    if [[ -f "$out" ]] && [[ "$(md5sum "$out" | cut -d' ' -f1)" == "${MD5[$file]}" ]]; then
      echo "$out: present"
      continue
    fi
    fetch "$SQUAD_BASE_URL/$file" "$out"
    actual=$(md5sum "$out" | cut -d' ' -f1)
    [[ "$actual" == "${MD5[$file]}" ]] || die "$out has MD5 $actual, expected ${MD5[$file]}: a corrupt or changed download"
    echo "$out: downloaded"
  done
done
