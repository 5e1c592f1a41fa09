// `longcall/lite/wasm` under Node (exports condition "node"): the .wasm's file URL as a string. A bundler
// resolves the import to the copied file's URL; Node would load a .wasm as a module and fail,
// and its entry points are ready without one.
export default new URL('../dist/longcall_lite_bg.wasm', import.meta.url).href;
