// longcall/server for Node (exports condition "node"): instantiates the module synchronously from the
// .wasm file next to the glue, so every export is ready at once (`init()` resolves at once too).
import { wasmBytes } from './node-wasm.js';
import { initSync } from './server.js';

initSync(wasmBytes(new URL('./dist/longcall_server_bg.wasm', import.meta.url)));

export * from './server.js';
