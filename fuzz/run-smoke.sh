#!/usr/bin/env bash
# Builds and runs every fuzz target for N seconds (default 20) on stable (-s none).
# Fails on any crash. Usage: fuzz/run-smoke.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-20}"; shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list)
fi
[ -d corpus ] || ./seed-corpus.sh >/dev/null
cargo fuzz build -s none >&2
fail=0
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
  dict=()
  [ -f dict/wire.dict ] && dict=(-dict=dict/wire.dict)
  log="$(mktemp)"
  if cargo fuzz run -s none "$t" "corpus/$t" -- -max_total_time="$secs" -rss_limit_mb=2048 -print_final_stats=1 "${dict[@]}" >"$log" 2>&1; then
    echo "$t: $(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1)"
  else
    echo "$t: CRASH"; grep -E 'panicked|ERROR|artifact_prefix|Test unit written' "$log" | head -5
    fail=1
  fi
  rm -f "$log"
done
exit $fail
