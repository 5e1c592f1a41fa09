// Browser / bundler entry (exports conditions "browser" and "default"): nothing is fetched or run
// at import time (no top-level await). Call `await init()` (or `init(url | response | bytes |
// module)`) before the first call; an export called earlier throws `not_initialized`.
export * from './server.js';
