// Size report of what a browser downloads for each entry point: the .wasm and the JS glue
// (generated glue + entry + API modules). Prints raw / gzip -9 / brotli (max quality) in bytes
// and exits 1 when an entry's wasm + glue gzip exceeds its budget:
//   longcall/lite  LONGCALL_LITE_GZIP_BUDGET (default 48500; was 45000, the package's budget,
//                    before the tracker carried payloads, MRTR and born-terminal tasks)
//   longcall         LONGCALL_GZIP_BUDGET (default 262000, with CallEndpoint: a regression gate for the full
//                    structured surface, which is over the 45 KB budget; see pkg/README.md "Size")
//   longcall/server  LONGCALL_SERVER_GZIP_BUDGET (default 185000: a regression gate; servers only)
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRIES = [
  {
    entry: 'longcall/lite',
    budget: Number(process.env.LONGCALL_LITE_GZIP_BUDGET ?? 48_500),
    wasm: ['dist/longcall_lite_bg.wasm'],
    glue: ['dist/longcall_lite.js', 'lite-web.js', 'lite.js', 'codes.js'],
  },
  {
    entry: 'longcall',
    budget: Number(process.env.LONGCALL_GZIP_BUDGET ?? 262_000),
    wasm: ['dist/longcall_bg.wasm'],
    glue: ['dist/longcall.js', 'web.js', 'api.js', 'codes.js'],
  },
  {
    entry: 'longcall/server',
    budget: Number(process.env.LONGCALL_SERVER_GZIP_BUDGET ?? 185_000),
    wasm: ['dist/longcall_server_bg.wasm'],
    glue: ['dist/longcall_server.js', 'server-web.js', 'server.js'],
  },
];

function measure(path) {
  const full = join(PKG, path);
  if (!existsSync(full)) {
    console.error(`size: ${path} missing; run \`npm --prefix pkg run build\` first`);
    process.exit(1);
  }
  const bytes = readFileSync(full);
  return {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }).length,
  };
}

const add = (a, b) => ({ raw: a.raw + b.raw, gzip: a.gzip + b.gzip, brotli: a.brotli + b.brotli });
const zero = { raw: 0, gzip: 0, brotli: 0 };
const pad = (s, n) => String(s).padStart(n);
const line = (name, m) => console.log(`${name.padEnd(30)} ${pad(m.raw, 8)} ${pad(m.gzip, 8)} ${pad(m.brotli, 8)}`);
const trio = (m) => `${m.raw}/${m.gzip}/${m.brotli}`;

let over = false;
console.log(`${'file'.padEnd(30)} ${pad('raw', 8)} ${pad('gzip', 8)} ${pad('brotli', 8)}`);
for (const e of ENTRIES) {
  let wasm = zero;
  let glue = zero;
  for (const p of e.wasm) { const m = measure(p); line(p, m); wasm = add(wasm, m); }
  for (const p of e.glue) { const m = measure(p); line(p, m); glue = add(glue, m); }
  const all = add(wasm, glue);
  line(`= ${e.entry}`, all);
  const verdict = all.gzip <= e.budget ? 'ok' : 'OVER BUDGET';
  over ||= all.gzip > e.budget;
  console.log(`size: ${e.entry}: raw/gzip/brotli bytes: wasm ${trio(wasm)}, glue ${trio(glue)}, wasm+glue ${trio(all)}; gzip budget ${e.budget}: ${verdict}`);
}
if (over) process.exit(1);
