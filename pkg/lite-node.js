// `longcall/lite` for Node (exports condition "node"): instantiates the small module synchronously.
import { readFileSync } from 'node:fs';
import { initSync } from './dist/longcall_lite.js';

initSync({ module: readFileSync(new URL('./dist/longcall_lite_bg.wasm', import.meta.url)) });

export * from './lite.js';
