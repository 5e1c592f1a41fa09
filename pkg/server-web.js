// `longcall/server` for browsers and bundlers: fetches and instantiates the module.
import init from './dist/longcall_server.js';

await init({ module_or_path: new URL('./dist/longcall_server_bg.wasm', import.meta.url) });

export * from './server.js';
