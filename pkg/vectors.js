// The public API of `longcall/vectors`, shared by its two entry points (vectors-node.js,
// vectors-web.js): `replay`, the core's scenario-vector runner (tests/vectors/, format in
// src/vector.rs), and `codeTables`, the core's code tables as its types name them, for
// conformance tools and tests. A module of its own, so pages that load `longcall` never
// download them. Nothing runs at import time (runtime.js).
import * as glue from './dist/longcall_vectors.js';
import { bind, isLongcallError } from './runtime.js';

const state = bind(glue, { entry: 'longcall/vectors', file: 'longcall_vectors_bg.wasm' });

/** Loads the vector runner's module (see `longcall`'s `init`). */
export function init(input) {
  return state.init(input ?? (import.meta.url ? new URL('./dist/longcall_vectors_bg.wasm', import.meta.url) : null));
}
export const initSync = state.initSync;
export { isLongcallError };

export const { replay, codeTables } = state.api;
