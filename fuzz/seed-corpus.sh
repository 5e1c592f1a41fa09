#!/usr/bin/env bash
# Seed corpus for every target: tiny structured seeds, raw snapshot texts for the snapshot
# target (prefixed with the Case::Raw discriminant), and, when present, the scenario vectors in
# tests/vectors and the transcripts in tests/traces (raw JSON for the codecs target).
set -euo pipefail
cd "$(dirname "$0")"
root=..
for t in $(cargo fuzz list 2>/dev/null || echo lifecycle tracker lockstep batch_wave snapshot); do mkdir -p "corpus/$t"; done
# Structured targets: a few byte patterns (arbitrary decodes any bytes).
for i in 0 1 2; do
  printf "\\x0$i\\x00\\x05\\x00\\x01\\x02\\x03\\x02" > "corpus/lifecycle/seed-$i"
  printf "\\x0$i%0.s" {1..64} > "corpus/tracker/seed-$i"
  printf "\\x0$i%0.s" {1..64} > "corpus/lockstep/seed-$i"
done
printf 'job_a\x00job_b\x00job_a' > corpus/batch_wave/seed-0
# snapshot: Case::Raw is the 4th of 4 variants -> discriminant bytes ff ff ff ff.
raw() { { printf '\xff\xff\xff\xff'; printf '%s' "$2"; } > "corpus/snapshot/$1"; }
raw poll-schedule '{"kind":"poll_schedule","v":1,"state":{"policy":{"initial_ms":1000,"multiplier_percent":200,"cap_ms":30000,"jitter":"full","min_interval_ms":500,"max_polls":null},"rng":{"state":7},"attempt":0,"backoff_ms":1000,"previous_ms":1000,"polls":0,"deadline":null,"ttl_deadline":null,"server_interval_ms":null,"not_before":null}}'
raw button '{"kind":"cancel_button","v":1,"state":{"model":"job","state":"available","last_status":"queued","pressed":false}}'
raw wrong-version '{"kind":"tracker","v":2,"state":{}}'
n=0
if [ -d "$root/tests/vectors" ]; then
  for f in "$root"/tests/vectors/*.json; do [ -e "$f" ] || continue; n=$((n+1)); raw "vector-$n" "$(cat "$f")"; done
fi
# codecs: every message of every transcript (and its result/params/error alone, so each reader
# sees its own shape), prefixed with the selector byte (0 = default limits).
mkdir -p corpus/codecs
if [ -d "$root/tests/traces" ] && command -v python3 >/dev/null; then
  python3 - "$root/tests/traces" corpus/codecs <<'PY'
import hashlib, json, pathlib, sys
src, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
n = 0
for f in sorted(src.rglob("*.jsonl")):
    for line in f.read_text().splitlines():
        try:
            msg = json.loads(line).get("msg")
        except Exception:
            continue
        if msg is None:
            continue
        parts = [msg] + [msg[k] for k in ("result", "params", "error") if isinstance(msg, dict) and k in msg]
        for p in parts:
            b = b"\x00" + json.dumps(p, separators=(",", ":")).encode()
            (out / hashlib.sha1(b).hexdigest()).write_bytes(b)
            n += 1
print(f"codecs: {n} seeds from traces")
PY
fi
echo "seeded: $(find corpus -type f | wc -l) files"
