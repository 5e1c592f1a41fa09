#!/usr/bin/env bash
# THE test command (README): runs every test. Assumes scripts/install-tools.sh ran.
# Usage: bash scripts/test.sh                     all steps
#        bash scripts/test.sh js-build js-test    only the named steps
#
# Adding a step: write a function `step_<name>` below and add <name> to STEPS (order matters).
# Each step is timed; the script stops at the first failing step and prints a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
LOCKED=()
if [ -n "${CI:-}" ]; then LOCKED=(--locked); fi

step_fmt()        { cargo fmt --all --check; }
step_clippy() {
  cargo clippy "${LOCKED[@]}" --workspace --all-targets -- -D warnings
  # The five npm modules are feature subsets of bindings/wasm: each must build clean on its own.
  for f in client full server watch vectors; do
    cargo clippy "${LOCKED[@]}" -p longcall-wasm --no-default-features --features "$f" --target wasm32-unknown-unknown -- -D warnings
  done
  # The core's API docs build without broken links.
  RUSTDOCFLAGS="-D warnings" cargo doc "${LOCKED[@]}" --no-deps -p longcall
}
step_cargo-test() { cargo test "${LOCKED[@]}" --workspace; }
step_core-wasm()  { cargo build "${LOCKED[@]}" -p longcall --target wasm32-unknown-unknown; }
# The release CLI and job host are built here too (the store's fleet test runs `longcall
# serve-jobs`, the interop step reuses both), beside the package: its wasm builds link one at a
# time on one core, so they get a target directory of their own (nothing else uses the `wasm`
# profile) and cargo's lock does not make the two wait for each other.
step_js-build() {
  CARGO_TARGET_DIR="$PWD/target/pkg" npm --prefix pkg run build &
  local pkg=$!
  cargo build "${LOCKED[@]}" -q -p longcall-cli -p longcall-job-host --release
  wait "$pkg"
}
# Biome (pkg/biome.json, tests/interop/biome.json) checks formatting and lint of the package's
# and the interop legs' JavaScript; then the package's tests run on Node 22 and 24 (LTS releases
# from npm, scripts/install-node.sh). Node 20 reached end of life in April 2026.
step_js-test() {
  npm --prefix pkg run lint
  bash scripts/install-node.sh
  local v
  for v in 22 24; do
    echo "---- npm --prefix pkg test on $(tools/node/node_modules/node$v/bin/node --version)" >&2
    PATH="$PWD/tools/node/node_modules/node$v/bin:$PATH" npm --prefix pkg test
  done
}
step_fuzz()       { bash fuzz/run-smoke.sh "${FUZZ_SECONDS:-20}"; }
# The legs and the peers they spawn run on Node 22 LTS from npm (tests/interop/run's default;
# Node 20 is past its end of life); INTEROP_NODE=24 runs them on Node 24.
step_interop()    { bash tests/interop/run; }

STEPS=(fmt clippy cargo-test core-wasm js-build js-test fuzz interop)
if [ $# -gt 0 ]; then STEPS=("$@"); fi

# Each step's output is also kept in $LOGS/<name>.log; the closing lines repeat the runners'
# summaries (cargo's `test result:`, node's `# tests/# pass/# fail`, size and wasm checks).
LOGS="${TEST_LOGS:-target/test-logs}"
mkdir -p "$LOGS"
rm -f "$LOGS"/*.log
recap() {
  local n
  echo "---- test runner summaries ----"
  for n in "${STEPS[@]}"; do
    [ -f "$LOGS/$n.log" ] || continue
    grep -E '^(test result:|# (tests|suites|pass|fail|cancelled|skipped) [0-9]+|size: |check-wasm: |build: |interop: |[a-z_]+: (Done [0-9]+ runs|CRASH))' "$LOGS/$n.log" || true
  done
}

T0=$SECONDS
SUMMARY=()
for name in "${STEPS[@]}"; do
  if ! declare -F "step_$name" >/dev/null; then echo "test.sh: no step '$name'" >&2; exit 2; fi
  echo "==> [$name]" >&2
  s=$SECONDS rc=0
  set +e # (not `|| rc=$?`: that would switch errexit off inside multi-command steps)
  ( set -e; "step_$name" ) 2>&1 | tee "$LOGS/$name.log"
  rc=${PIPESTATUS[0]}
  set -e
  SUMMARY+=("$(printf '%-12s %4ss  %s' "$name" "$((SECONDS - s))" "$([ $rc = 0 ] && echo ok || echo "FAILED (exit $rc)")")")
  echo "[time] $((SECONDS - s))s  $name" >&2
  if [ $rc != 0 ]; then
    recap
    printf '%s\n' "---- test.sh: step '$name' FAILED ----" "${SUMMARY[@]}"
    exit $rc
  fi
done
recap
printf '%s\n' "---- test.sh: all ${#STEPS[@]} steps passed in $((SECONDS - T0))s ----" "${SUMMARY[@]}"
