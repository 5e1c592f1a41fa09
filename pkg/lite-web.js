// `longcall/lite` for browsers and bundlers: fetches and instantiates the small module.
import init from './dist/longcall_lite.js';

await init({ module_or_path: new URL('./dist/longcall_lite_bg.wasm', import.meta.url) });

export * from './lite.js';
