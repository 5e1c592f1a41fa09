#!/usr/bin/env bash
# One-off tool installs for a fresh Debian 12 machine (rustup stable, Node 22 and 24, npm), from the
# registries only (Debian, crates.io, npm). Idempotent: skips what is already there, so CI can run
# it every time. What each tool is for: the comments at each step below.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

T0=$SECONDS
TIMES=()
step() {
  local s=$SECONDS rc=0
  echo "==> $*" >&2
  "$@" || rc=$?
  TIMES+=("$(printf '%4ss  %s%s' "$((SECONDS - s))" "$*" "$([ $rc = 0 ] || echo "  (exit $rc)")")")
  echo "[time] $((SECONDS - s))s  $*" >&2
  return $rc
}
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# 1. Headless browser from Debian. NOT Debian's binaryen: its wasm-opt 108 writes modules that
#    crash at load; wasm-opt comes from npm binaryen (pkg/package.json) instead.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  step as_root apt-get update -q
  step as_root apt-get install -y -q chromium chromium-driver
else
  echo "chromium + chromedriver: present" >&2
fi

# 1b. PostgreSQL server binaries from Debian for the fleet-store tests (each test starts its own
#     throwaway cluster on 127.0.0.1; nothing is started here).
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  step as_root apt-get update -q
  step as_root apt-get install -y -q postgresql
else
  echo "postgresql server: present" >&2
fi

# 2. Rust wasm target (a no-op when present).
step rustup target add wasm32-unknown-unknown

# 3. wasm-bindgen CLI at exactly the wasm-bindgen version in Cargo.lock. `--locked` fails on
#    this machine's index (webpki-roots 1.0.11 missing), so fall back to a normal resolve.
WBG=$(cargo pkgid -p wasm-bindgen | sed 's/.*[@#]//')
if wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $WBG"; then
  echo "wasm-bindgen-cli $WBG: present" >&2
else
  step cargo install wasm-bindgen-cli --version "$WBG" --locked \
    || step cargo install wasm-bindgen-cli --version "$WBG"
fi

# 4. cargo-fuzz (runs on stable with `-s none`).
if command -v cargo-fuzz >/dev/null; then
  echo "cargo-fuzz: present" >&2
else
  step cargo install cargo-fuzz --locked || step cargo install cargo-fuzz
fi

# 5. npm dev tools, exact versions from pkg/package-lock.json: binaryen (wasm-opt), playwright-core
#    (drives /usr/bin/chromium; never downloads a browser), typescript (checks
#    index.d.ts), xstate (benchmark baseline).
step npm --prefix pkg ci --no-audit --no-fund

# 6. Node 22 and 24 from npm (tools/node), for the package's tests on each supported release.
step bash scripts/install-node.sh

# 7. Interop harness (tests/interop): @modelcontextprotocol/sdk 1.32.2, conformance 0.2.0-alpha.12,
#    Node 22 from npm, and a venv with fastmcp-tasks 4.1.4, all pinned exactly; idempotent.
step bash tests/interop/install.sh

echo "---- install-tools timings ----" >&2
printf '%s\n' "${TIMES[@]}" >&2
echo "[time] install-tools total $((SECONDS - T0))s" >&2
