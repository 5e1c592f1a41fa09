// Size report of what a browser downloads: the .wasm and the JS glue (generated glue + entry +
// api). Prints raw / gzip -9 / brotli (max quality) in bytes and exits 1 when wasm + glue gzip
// exceeds the budget. Budget: LONGCALL_GZIP_BUDGET bytes (default 45 KB = 45000).
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BUDGET = Number(process.env.LONGCALL_GZIP_BUDGET ?? 45_000);
const FILES = {
  wasm: ['dist/longcall_bg.wasm'],
  glue: ['dist/longcall.js', 'web.js', 'api.js'],
};

function measure(path) {
  const bytes = readFileSync(join(PKG, path));
  return {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }).length,
  };
}

const rows = [];
const totals = {};
for (const [kind, paths] of Object.entries(FILES)) {
  const sum = { raw: 0, gzip: 0, brotli: 0 };
  for (const p of paths) {
    if (!existsSync(join(PKG, p))) {
      console.error(`size: ${p} missing; run \`npm --prefix pkg run build\` first`);
      process.exit(1);
    }
    const m = measure(p);
    rows.push([p, m]);
    for (const k of Object.keys(sum)) sum[k] += m[k];
  }
  totals[kind] = sum;
}
const all = { raw: 0, gzip: 0, brotli: 0 };
for (const t of Object.values(totals)) for (const k of Object.keys(all)) all[k] += t[k];

const pad = (s, n) => String(s).padStart(n);
console.log(`${'file'.padEnd(26)} ${pad('raw', 8)} ${pad('gzip', 8)} ${pad('brotli', 8)}`);
for (const [p, m] of rows) console.log(`${p.padEnd(26)} ${pad(m.raw, 8)} ${pad(m.gzip, 8)} ${pad(m.brotli, 8)}`);
for (const [kind, m] of Object.entries(totals)) console.log(`${('total ' + kind).padEnd(26)} ${pad(m.raw, 8)} ${pad(m.gzip, 8)} ${pad(m.brotli, 8)}`);
console.log(`${'total wasm + glue'.padEnd(26)} ${pad(all.raw, 8)} ${pad(all.gzip, 8)} ${pad(all.brotli, 8)}`);
const verdict = all.gzip <= BUDGET ? 'ok' : 'OVER BUDGET';
const trio = (m) => `${m.raw}/${m.gzip}/${m.brotli}`;
console.log(`size: raw/gzip/brotli bytes: wasm ${trio(totals.wasm)}, glue ${trio(totals.glue)}, wasm+glue ${trio(all)}; gzip budget ${BUDGET}: ${verdict}`);
if (all.gzip > BUDGET) process.exit(1);
