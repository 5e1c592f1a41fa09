// The .wasm of a Node entry, read from beside the package's JavaScript. A file that is not there
// is most often a server bundled for deployment (esbuild, webpack, ncc) that took the JavaScript
// and left the .wasm behind: `not_initialized`, saying where the file was looked for and how to
// put it there, rather than the bare ENOENT of `readFileSync`.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

/** @param {URL} url a `file:` URL beside the module that asks */
export function wasmBytes(url) {
  // A bundler or test runner that inlines the package (Vitest's `server.deps.inline`) rewrites
  // `new URL('./dist/…', import.meta.url)` to a path of its dev server.
  if (url.protocol !== 'file:') {
    const err = new Error(
      `the longcall module could not be loaded: its .wasm URL became ${url.href}, not a file: a bundler or test runner rewrote it (in Vitest, leave longcall out of server.deps.inline)`,
    );
    err.code = 'not_initialized';
    throw err;
  }
  try {
    return readFileSync(url);
  } catch (e) {
    if (e?.code !== 'ENOENT') throw e;
    const path = fileURLToPath(url);
    const err = new Error(
      `the longcall module could not be loaded: ${path} is not there. If longcall is bundled, leave it out of the bundle (esbuild --packages=external, webpack externals) or copy node_modules/longcall/dist/${basename(path)} to that path`,
      { cause: e },
    );
    err.code = 'not_initialized';
    throw err;
  }
}
