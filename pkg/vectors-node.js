// longcall/vectors for Node (exports condition "node"): instantiates the module synchronously from
// the .wasm file next to the glue, so `replay` is ready at once (`init()` resolves at once too).
import { wasmBytes } from './node-wasm.js';
import { initSync } from './vectors.js';

initSync(wasmBytes(new URL('./dist/longcall_vectors_bg.wasm', import.meta.url)));

export * from './vectors.js';
