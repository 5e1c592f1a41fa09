// longcall for Node (exports condition "node"): instantiates the module synchronously from the
// .wasm file next to the glue, so every export is ready at once (`init()` resolves at once too).
import { readFileSync } from 'node:fs';
import { initSync } from './api.js';

initSync(readFileSync(new URL('./dist/longcall_bg.wasm', import.meta.url)));

export * from './api.js';
