// longcall/vectors for Node (exports condition "node"): instantiates the module synchronously from
// the .wasm file next to the glue, so `replay` is ready at once (`init()` resolves at once too).
import { readFileSync } from 'node:fs';
import { initSync } from './vectors.js';

initSync(readFileSync(new URL('./dist/longcall_vectors_bg.wasm', import.meta.url)));

export * from './vectors.js';
