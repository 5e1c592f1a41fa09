// Browser / bundler entry (exports conditions "browser" and "default"): nothing is fetched or run
// at import time (no top-level await). Call `await init()` (or `init(url | response | bytes |
// module)`) before `replay`; called earlier it throws `not_initialized`.
export * from './vectors.js';
