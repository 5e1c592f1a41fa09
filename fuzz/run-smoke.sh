#!/usr/bin/env bash
# Builds and runs every fuzz target for N seconds (default 20) on stable (-s none), as many at a
# time as the machine has cores (libFuzzer runs one process on one core; `FUZZ_JOBS` overrides).
# Fails on any crash. Usage: fuzz/run-smoke.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-20}"; shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list)
fi
jobs="${FUZZ_JOBS:-$(nproc)}"
[ -d corpus ] || ./seed-corpus.sh >/dev/null
cargo fuzz build -s none >&2
dict=()
[ -f dict/wire.dict ] && dict=(-dict=dict/wire.dict)
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

# One target: its verdict line in $logs/<target>.verdict, exit 1 on a crash.
run_one() {
  local t="$1" log="$logs/$1.log"
  mkdir -p "corpus/$t"
  if cargo fuzz run -s none "$t" "corpus/$t" -- -max_total_time="$secs" -rss_limit_mb=2048 -print_final_stats=1 "${dict[@]}" >"$log" 2>&1; then
    echo "$t: $(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1)" >"$logs/$t.verdict"
  else
    { echo "$t: CRASH"; grep -E 'panicked|ERROR|artifact_prefix|Test unit written' "$log" | head -5; } >"$logs/$t.verdict"
    return 1
  fi
}

fail=0
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || fail=1
    running=$((running - 1))
  fi
  run_one "$t" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || fail=1
  running=$((running - 1))
done
for t in "${targets[@]}"; do cat "$logs/$t.verdict"; done
exit $fail
