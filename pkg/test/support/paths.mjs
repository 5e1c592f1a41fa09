// Paths every Node-side test shares.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const ROOT = resolve(PKG, '..');
export const SHARED = resolve(PKG, 'test/shared');
