// The shared cases (test/shared/*.cases.mjs) in headless Chromium, through the package's
// "browser" entry: the repository root is served on 127.0.0.1, the page imports `longcall` via an
// import map built from package.json's exports map, runs every case, and hands back the results;
// each becomes one node:test test here.
import { after, before, describe, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { launchChromium, openPage } from './support/chromium.mjs';
import { serve } from './support/server.mjs';
import { loadCaseFiles } from './support/cases.mjs';
import { PKG, ROOT } from './support/paths.mjs';

const pkg = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8'));
const pkgUrl = `/${relative(ROOT, PKG)}`;
// Every entry point with a browser build, as the exports map names it.
const imports = Object.fromEntries(
  Object.entries(pkg.exports)
    .filter(([, conditions]) => typeof conditions === 'object' && conditions.browser)
    .map(([sub, { browser }]) => [sub.replace(/^\./, 'longcall'), `${pkgUrl}/${browser.replace(/^\.\//, '')}`]),
);
const runnerHtml = `<!doctype html><meta charset="utf-8"><title>loading</title>
<script type="importmap">${JSON.stringify({ imports })}</script>
<script type="module" src="${pkgUrl}/test/browser/runner.mjs"></script>`;

const files = await loadCaseFiles();
let server,
  browser,
  results = new Map(),
  setupError;
const logs = [];

before(
  async () => {
    server = await serve(ROOT, { '/__runner.html': { body: runnerHtml } });
    browser = await launchChromium();
    const page = await openPage(browser, `${server.base}/__runner.html`, logs);
    try {
      await page.waitForFunction(() => document.title === 'ready', null, { timeout: 30_000 });
    } catch (e) {
      setupError = new Error(`runner page never became ready: ${e.message}\n${logs.join('\n')}`);
      return;
    }
    const list = await page.evaluate(
      (names) => window.__longcall.run(names),
      files.map((f) => f.file),
    );
    for (const r of list) results.set(`${r.file}\0${r.name}`, r);
  },
  { timeout: 90_000 },
);

after(async () => {
  await browser?.close();
  await server?.close();
});

for (const { file, cases } of files) {
  describe(`chromium ${file}`, () => {
    test('(module loads in the page)', () => {
      if (setupError) throw setupError;
      const r = results.get(`${file}\0(import)`);
      if (r) throw new Error(r.error);
    });
    for (const name of Object.keys(cases)) {
      test(name, () => {
        if (setupError) throw setupError;
        const r = results.get(`${file}\0${name}`);
        if (!r) throw new Error(`not run in the page\n${logs.join('\n')}`);
        if (!r.ok) throw new Error(`in Chromium: ${r.error}`);
      });
    }
  });
}
