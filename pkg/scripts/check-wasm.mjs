// Checks the built module's imports and exports (quinn-proto's CI rule): nothing may be imported
// from module "env" (that would mean an unresolved symbol, e.g. from C code or a std shim), and
// every import must come from the wasm-bindgen glue.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const path = join(PKG, 'dist/longcall_bg.wasm');
let bytes;
try { bytes = readFileSync(path); } catch {
  console.error(`check-wasm: ${path} missing; run \`npm --prefix pkg run build\` first`);
  process.exit(1);
}
const mod = new WebAssembly.Module(bytes);
const imports = WebAssembly.Module.imports(mod);
const byModule = {};
for (const i of imports) (byModule[i.module] ??= []).push(i.name);
const env = byModule.env ?? [];
const foreign = Object.keys(byModule).filter((m) => m !== './longcall_bg.js' && m !== 'wbg');
console.log(`check-wasm: ${imports.length} imports from ${JSON.stringify(Object.keys(byModule))}, ${WebAssembly.Module.exports(mod).length} exports`);
if (env.length) {
  console.error(`check-wasm: FAIL: imports from "env": ${env.join(', ')}`);
  process.exit(1);
}
if (foreign.length) {
  console.error(`check-wasm: FAIL: imports from unexpected modules: ${foreign.join(', ')}`);
  process.exit(1);
}
console.log('check-wasm: ok (nothing imported from "env")');
