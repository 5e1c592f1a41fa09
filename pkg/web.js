// Browser / default entry point: fetches and instantiates the module with top-level await.
// The `new URL(..., import.meta.url)` form lets bundlers find and copy the .wasm file.
import init from './dist/longcall.js';

await init({ module_or_path: new URL('./dist/longcall_bg.wasm', import.meta.url) });

export * from './api.js';
