// Node side of the shared cases: finds test/shared/*.cases.mjs and registers them with node:test.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, SHARED } from './paths.mjs';

/** The case files, sorted: `[{ file: 'rules.cases.mjs', cases: { name: fn } }]`. */
export async function loadCaseFiles() {
  const files = (await readdir(SHARED)).filter((f) => f.endsWith('.cases.mjs')).sort();
  const out = [];
  for (const file of files) {
    const mod = await import(pathToFileURL(join(SHARED, file)).href);
    if (!mod.cases || typeof mod.cases !== 'object') throw new Error(`${file} exports no \`cases\` object`);
    out.push({ file, cases: mod.cases });
  }
  return out;
}

/** `readText` for Node: a file by its path from the repository root. */
export const readText = (path) => readFile(join(ROOT, path), 'utf8');
