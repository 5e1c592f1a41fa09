// Runs the shared case files inside the page, against the package's browser entry (`longcall`
// resolves through the import map the test server writes from package.json's exports map).
import * as lc from 'longcall';
import { init as initLite } from 'longcall/lite';
import { init as initServer } from 'longcall/server';
import { init as initVectors } from 'longcall/vectors';
import { assert } from '../../test/shared/assert.mjs';

// The browser entries load nothing until asked.
await Promise.all([lc.init(), initLite(), initServer(), initVectors()]);

async function readText(path) {
  const res = await fetch(`/${path}`);
  if (!res.ok) throw new Error(`GET /${path}: ${res.status}`);
  return res.text();
}

async function run(files) {
  const results = [];
  for (const file of files) {
    let mod;
    try {
      mod = await import(`../../test/shared/${file}`);
    } catch (e) {
      results.push({ file, name: '(import)', ok: false, error: String(e?.stack || e) });
      continue;
    }
    for (const [name, fn] of Object.entries(mod.cases ?? {})) {
      try {
        await fn({ lc, assert, host: 'chromium', readText });
        results.push({ file, name, ok: true });
      } catch (e) {
        results.push({ file, name, ok: false, error: String(e?.stack || e) });
      }
    }
  }
  return results;
}

window.__longcall = { run };
document.title = 'ready';
