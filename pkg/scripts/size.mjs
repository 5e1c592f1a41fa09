// Size report of what a page downloads for each entry point: the .wasm, and the JavaScript as a
// bundler ships it (the browser entry bundled and minified with esbuild, as an app's build
// does). Prints raw / gzip -9 / brotli (max quality) in bytes, each entry's distance to its
// target, and exits 1 when an entry's wasm + JS gzip exceeds its regression gate:
//   entry            target (the package's goal)   gate (fails npm test above it)
//   longcall/lite    30,000                          LONGCALL_LITE_GZIP_GATE (default 30,000)
//   longcall         100,000                         LONGCALL_GZIP_GATE (default 203,700)
//   longcall/server  reported only                   LONGCALL_SERVER_GZIP_GATE (default 138,800)
// The gates sit just above today's figures so a regression fails; the targets are where the
// package must get to (pkg/docs/size.md says how far off each is and the next lever).
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRIES = [
  {
    entry: 'longcall/lite',
    js: 'lite-web.js',
    wasm: 'dist/longcall_lite_bg.wasm',
    target: 30_000,
    gate: Number(process.env.LONGCALL_LITE_GZIP_GATE ?? 30_000),
  },
  {
    entry: 'longcall',
    js: 'web.js',
    wasm: 'dist/longcall_bg.wasm',
    target: 100_000,
    gate: Number(process.env.LONGCALL_GZIP_GATE ?? 204_000),
  },
  {
    entry: 'longcall/server',
    js: 'server-web.js',
    wasm: 'dist/longcall_server_bg.wasm',
    target: null,
    gate: Number(process.env.LONGCALL_SERVER_GZIP_GATE ?? 138_900),
  },
];

function measure(bytes) {
  return {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }).length,
  };
}

function bundle(entry) {
  const out = buildSync({
    entryPoints: [join(PKG, entry)],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  return Buffer.from(out.outputFiles[0].contents);
}

const add = (a, b) => ({ raw: a.raw + b.raw, gzip: a.gzip + b.gzip, brotli: a.brotli + b.brotli });
const pad = (s, n) => String(s).padStart(n);
const line = (name, m) => console.log(`${name.padEnd(40)} ${pad(m.raw, 8)} ${pad(m.gzip, 8)} ${pad(m.brotli, 8)}`);
const trio = (m) => `${m.raw}/${m.gzip}/${m.brotli}`;

let over = false;
console.log(`${'file'.padEnd(40)} ${pad('raw', 8)} ${pad('gzip', 8)} ${pad('brotli', 8)}`);
for (const e of ENTRIES) {
  const path = join(PKG, e.wasm);
  if (!existsSync(path)) {
    console.error(`size: ${e.wasm} missing; run \`npm --prefix pkg run build\` first`);
    process.exit(1);
  }
  const wasm = measure(readFileSync(path));
  const js = measure(bundle(e.js));
  const all = add(wasm, js);
  line(e.wasm, wasm);
  line(`${e.js} (esbuild --bundle --minify)`, js);
  line(`= ${e.entry}`, all);
  const target =
    e.target === null
      ? 'no target'
      : all.gzip <= e.target
        ? `target ${e.target}: met`
        : `target ${e.target}: missed by ${all.gzip - e.target}`;
  const verdict = all.gzip <= e.gate ? 'ok' : 'OVER THE GATE';
  over ||= all.gzip > e.gate;
  console.log(
    `size: ${e.entry}: raw/gzip/brotli bytes: wasm ${trio(wasm)}, js ${trio(js)}, wasm+js ${trio(all)}; ${target}; gate ${e.gate}: ${verdict}`,
  );
}
// Not downloaded by pages, so not gated: the module `longcall`'s Node entry reads from disk
// (compiled for speed; see scripts/build.mjs).
const node = join(PKG, 'dist/longcall_node_bg.wasm');
if (existsSync(node))
  console.log(
    `size: longcall in Node (not downloaded): raw/gzip/brotli bytes: wasm ${trio(measure(readFileSync(node)))}`,
  );
if (over) process.exit(1);
