// Checks the built module's imports and exports (quinn-proto's CI rule): nothing may be imported
// from module "env" (that would mean an unresolved symbol, e.g. from C code or a std shim), and
// every import must come from the wasm-bindgen glue. The Node build of `longcall` (compiled for
// speed, driven by the same glue) must import and export exactly what `longcall` does.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GLUE_MODULE } from './minify-names.mjs';

const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '..');
let failed = false;
const shapes = {};
for (const name of [
  'longcall',
  'longcall_node',
  'longcall_lite',
  'longcall_server',
  'longcall_watch',
  'longcall_vectors',
]) {
  const path = join(PKG, `dist/${name}_bg.wasm`);
  let bytes;
  try {
    bytes = readFileSync(path);
  } catch {
    console.error(`check-wasm: ${path} missing; run \`npm --prefix pkg run build\` first`);
    process.exit(1);
  }
  const mod = new WebAssembly.Module(bytes);
  const imports = WebAssembly.Module.imports(mod);
  const byModule = {};
  for (const i of imports) (byModule[i.module] ??= []).push(i.name);
  const env = byModule.env ?? [];
  const foreign = Object.keys(byModule).filter((m) => m !== GLUE_MODULE && m !== 'wbg');
  console.log(
    `check-wasm: ${name}: ${imports.length} imports from ${JSON.stringify(Object.keys(byModule))}, ${WebAssembly.Module.exports(mod).length} exports`,
  );
  const list = (l) => l.map((d) => `${d.module ?? ''}.${d.name}:${d.kind}`).sort();
  shapes[name] = JSON.stringify([list(imports), list(WebAssembly.Module.exports(mod))]);
  if (name === 'longcall_node' && shapes.longcall_node !== shapes.longcall) {
    console.error(
      'check-wasm: FAIL: longcall_node does not import and export what longcall does (one glue drives both)',
    );
    failed = true;
  }
  if (env.length) {
    console.error(`check-wasm: FAIL: ${name} imports from "env": ${env.join(', ')}`);
    failed = true;
  }
  if (foreign.length) {
    console.error(`check-wasm: FAIL: ${name} imports from unexpected modules: ${foreign.join(', ')}`);
    failed = true;
  }
}
if (failed) process.exit(1);
console.log('check-wasm: ok (nothing imported from "env")');
