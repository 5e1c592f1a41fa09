// Node entry point (exports condition "node"): instantiates the module synchronously from the
// .wasm file next to the glue, so `import { observe } from 'longcall'` is ready at once.
import { readFileSync } from 'node:fs';
import { initSync } from './dist/longcall.js';

initSync({ module: readFileSync(new URL('./dist/longcall_bg.wasm', import.meta.url)) });

export * from './api.js';
