// Shortens the names a wasm-bindgen module and its glue share: every import of the glue's module
// (`__wbg_keys_105f5c0857898f84`: a name and a hash, which compresses badly) and every export
// (`tracker_fastCancelAnswered`) become `_a`, `_b`, ... in the module's import and export
// sections and in the glue, the only code that sees them (`pkg/*.js` call the glue's classes and
// functions, whose names stay), and the imports' module name `./<out-name>_bg.js`, repeated in
// every import, becomes `g` (GLUE_MODULE, which check-wasm.mjs expects). wasm-opt cannot do it:
// it minifies such imports only together with all module names, `wbg` included.
//
// The glue is read as wasm-bindgen (pinned, see build.mjs) writes it: each import a key
// `name: function(` of the imports object, each export read as `wasm.name`. Anything else
// (a key not found exactly once, a `wasm.x` left that the module does not export) fails the
// build instead of shipping a glue that does not fit its module.
import { readFileSync, writeFileSync } from 'node:fs';

const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** The module name the glue's imports get (instead of `./<out-name>_bg.js`, once per import). */
export const GLUE_MODULE = 'g';

/** The `i`th short name: `_a` ... `_Z`, then `_aa`, `_ba`, ... */
function short(i) {
  let s = '_';
  do {
    s += LETTERS[i % LETTERS.length];
    i = Math.floor(i / LETTERS.length);
  } while (i);
  return s;
}

function uleb(n) {
  const out = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

/**
 * Rewrites `wasmPath` and `gluePath` in place; `importModule` is the module name the glue's
 * imports have (`./<out-name>_bg.js`). Returns how many names it shortened.
 */
export function minifyNames(wasmPath, gluePath, importModule) {
  const bytes = new Uint8Array(readFileSync(wasmPath));
  let glue = readFileSync(gluePath, 'utf8');
  let at = 0;
  const u = () => {
    let n = 0;
    let scale = 1;
    let b;
    do {
      b = bytes[at++];
      n += (b & 0x7f) * scale;
      scale *= 128;
    } while (b & 0x80);
    return n;
  };
  const text = () => {
    const n = u();
    at += n;
    return Buffer.from(bytes.subarray(at - n, at)).toString('utf8');
  };
  const limits = () => {
    const flags = bytes[at++];
    u();
    if (flags & 1) u();
  };
  const encode = (s) => {
    const b = Buffer.from(s, 'utf8');
    return [...uleb(b.length), ...b];
  };

  // Short names go by sorted name, not by position: builds of the same sources at other
  // optimisation levels list the same imports in another order, and must get the same glue.
  const module = new WebAssembly.Module(bytes);
  const sorted = (list) => list.map((d) => d.name).sort();
  const imports = sorted(WebAssembly.Module.imports(module).filter((d) => d.module === importModule));
  const exports = sorted(WebAssembly.Module.exports(module));
  const shortOf = (list, offset) => new Map(list.map((name, i) => [name, short(offset + i)]));
  const importShort = shortOf(imports, 0);
  const exportShort = shortOf(exports, imports.length);
  const count = imports.length + exports.length;
  const exported = new Set();
  const out = [bytes.subarray(0, 8)];
  at = 8;
  while (at < bytes.length) {
    const start = at;
    const id = bytes[at++];
    const size = u();
    const end = at + size;
    if (id !== 2 && id !== 7) {
      out.push(bytes.subarray(start, end));
      at = end;
      continue;
    }
    const count = u();
    const body = [...uleb(count)];
    for (let i = 0; i < count; i++) {
      if (id === 2) {
        // import: module, name, then what is imported (function, table, memory, global, tag)
        const module = text();
        const name = text();
        const desc = at;
        const kind = bytes[at++];
        if (kind === 0) u();
        else if (kind === 1) {
          at++;
          limits();
        } else if (kind === 2) limits();
        else if (kind === 3) at += 2;
        else if (kind === 4) {
          at++;
          u();
        } else throw new Error(`minify-names: ${wasmPath}: import kind ${kind}`);
        let renamed = name;
        let from = module;
        if (module === importModule) {
          from = GLUE_MODULE;
          renamed = importShort.get(name);
          const key = `\n        ${name}: function(`;
          const found = glue.split(key).length - 1;
          if (found !== 1) throw new Error(`minify-names: import ${name} is ${found} keys of ${gluePath}, not 1`);
          glue = glue.replace(key, `\n        ${renamed}: function(`);
        }
        body.push(...encode(from), ...encode(renamed), ...bytes.subarray(desc, at));
      } else {
        // export: name, kind, index
        const name = text();
        const desc = at;
        at++;
        u();
        const renamed = exportShort.get(name);
        exported.add(renamed);
        glue = glue.replace(new RegExp(`\\bwasm\\.${name}\\b`, 'g'), `wasm.${renamed}`);
        body.push(...encode(renamed), ...bytes.subarray(desc, at));
      }
    }
    if (at !== end) throw new Error(`minify-names: ${wasmPath}: section ${id} does not end where it says`);
    out.push(Uint8Array.from([id, ...uleb(body.length), ...body]));
  }
  const moduleKey = `\n        ${JSON.stringify(importModule)}: import0,`;
  if (glue.split(moduleKey).length !== 2)
    throw new Error(`minify-names: ${gluePath} does not name ${importModule} once`);
  glue = glue.replace(moduleKey, `\n        ${GLUE_MODULE}: import0,`);
  for (const [, name] of glue.matchAll(/\bwasm\.(\w+)/g)) {
    if (!exported.has(name)) throw new Error(`minify-names: ${gluePath} reads wasm.${name}, which is not exported`);
  }
  writeFileSync(wasmPath, Buffer.concat(out));
  writeFileSync(gluePath, glue);
  return count;
}
