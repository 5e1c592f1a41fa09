#!/usr/bin/env bash
# A recorded campaign: each target, one at a time, for RUNS executions (default 10 million).
# Appends one line per target to campaign.log: target, runs, seconds, exec/s, corpus files, result.
# Usage: fuzz/campaign.sh [RUNS] [TARGET...]
set -uo pipefail
cd "$(dirname "$0")"
runs="${1:-10000000}"; shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && mapfile -t targets < <(cargo fuzz list)
[ -d corpus ] || ./seed-corpus.sh >/dev/null
cargo fuzz build -s none >&2
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
  start=$(date +%s)
  log="campaign-$t.txt"
  if cargo fuzz run -s none "$t" "corpus/$t" -- -runs="$runs" -max_len="${MAX_LEN:-256}" -rss_limit_mb=2048 \
       -dict=dict/wire.dict -print_final_stats=1 ${MAX_TIME:+-max_total_time=$MAX_TIME} >"$log" 2>&1; then res=ok; else res=CRASH; fi
  secs=$(( $(date +%s) - start ))
  done_line=$(grep -E '^Done [0-9]+ runs' "$log" | tail -1)
  n=$(echo "$done_line" | awk '{print $2}')
  rate=$(awk -v n="${n:-0}" -v s="$secs" 'BEGIN{ if (s>0) printf "%d", n/s; else print 0 }')
  files=$(find "corpus/$t" -type f | wc -l)
  echo "$t runs=${n:-?} secs=$secs exec_per_s=$rate corpus=$files result=$res" | tee -a campaign.log
done
