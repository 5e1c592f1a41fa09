// `longcall/server` for Node (exports condition "node"): instantiates the module synchronously.
import { readFileSync } from 'node:fs';
import { initSync } from './dist/longcall_server.js';

initSync({ module: readFileSync(new URL('./dist/longcall_server_bg.wasm', import.meta.url)) });

export * from './server.js';
