// longcall for Node (exports condition "node"): instantiates the module synchronously from the
// .wasm file next to the glue, so every export is ready at once (`init()` resolves at once too).
// It is the build compiled for speed (scripts/build.mjs, `longcall_node`): the same sources and
// glue as the browser's `dist/longcall_bg.wasm`, which is compiled for size.
import { wasmBytes } from './node-wasm.js';
import { initSync } from './api.js';

initSync(wasmBytes(new URL('./dist/longcall_node_bg.wasm', import.meta.url)));

export * from './api.js';
