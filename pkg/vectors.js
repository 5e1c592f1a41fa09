// The public API of `longcall/vectors`, shared by its two entry points (vectors-node.js,
// vectors-web.js): `replay`, the core's scenario-vector runner (tests/vectors/, format in
// src/vector.rs), for conformance tools and tests. A module of its own, so pages that load
// `longcall` never download it. Nothing runs at import time (runtime.js).
import * as glue from './dist/longcall_vectors.js';
import { bind, isLongcallError } from './runtime.js';

const state = bind(glue, { entry: 'longcall/vectors', file: 'longcall_vectors_bg.wasm' });

/** Loads the vector runner's module (see `longcall`'s `init`). */
export function init(input) {
  return state.init(input ?? (import.meta.url ? new URL('./dist/longcall_vectors_bg.wasm', import.meta.url) : null));
}
export const initSync = state.initSync;
export { isLongcallError };

export const { replay } = state.api;
