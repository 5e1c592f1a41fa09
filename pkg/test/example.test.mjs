// The cancel-button example (examples/cancel-button/, shipped in the tarball) is the README's
// browser snippet: the README block must equal the file, the file type-checks in strict
// TypeScript (checkJs), and it runs in headless Chromium at 390 px against the example's job API
// on loopback through every path: a queued job cancelled; a started job answered 409, shown as
// too late, then finished first (never "Cancelled"); a 502 HTML page, a dropped connection and a
// 409 with an unlisted code each leave the button out of "requesting".
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from './support/chromium.mjs';
import { PKG } from './support/paths.mjs';
import { serveExample } from '../examples/cancel-button/serve.mjs';

const FILE = 'examples/cancel-button/cancel-button.js';

test('the README snippet is examples/cancel-button/cancel-button.js, verbatim', () => {
  const readme = readFileSync(join(PKG, 'README.md'), 'utf8');
  const m = readme.match(/<!-- example: examples\/cancel-button\/cancel-button\.js -->\s*```js\n([\s\S]*?)```/);
  assert.ok(m, 'README.md has no example block');
  assert.equal(m[1], readFileSync(join(PKG, FILE), 'utf8'));
});

test('the example type-checks in strict TypeScript (checkJs)', () => {
  const r = spawnSync(join(PKG, 'node_modules/.bin/tsc'), ['-p', join(PKG, 'test/types/example.tsconfig.json')], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});

describe('the example page in Chromium at 390 px', () => {
  let server, browser;
  before(
    async () => {
      server = await serveExample();
      browser = await launchChromium();
    },
    { timeout: 60_000 },
  );
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function flow(job, { until, within = 15_000 }) {
    const page = await browser.newPage({ viewport: { width: 390, height: 800 } });
    const logs = [];
    page.on('pageerror', (e) => logs.push(String(e)));
    try {
      await page.goto(`${server.base}/examples/cancel-button/?job=${job}`);
      await page.waitForSelector('#cancel[data-state="available"]', { timeout: 10_000 });
      await page.evaluate(() => {
        const b = document.querySelector('#cancel');
        window.__states = [b.dataset.state];
        new MutationObserver(() => {
          if (window.__states.at(-1) !== b.dataset.state) window.__states.push(b.dataset.state);
        }).observe(b, { attributes: true, attributeFilter: ['data-state'] });
      });
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `the page is ${width} px wide at 390`);
      await page.click('#cancel');
      await page.waitForFunction(until, null, { timeout: within });
      return { states: await page.evaluate(() => window.__states), label: await page.textContent('#cancel'), logs };
    } finally {
      await page.close();
    }
  }

  test('a queued job is cancelled', { timeout: 30_000 }, async () => {
    const r = await flow('queued', { until: () => document.querySelector('#cancel').dataset.state === 'cancelled' });
    assert.deepEqual(r.states, ['available', 'requesting', 'cancelled'], r.logs.join('\n'));
    assert.equal(r.label, 'Cancelled');
  });

  test('a started job: 409, too late, then finished first, never cancelled', { timeout: 30_000 }, async () => {
    const r = await flow('late', { until: () => document.querySelector('#cancel').dataset.state === 'finished_first' });
    assert.deepEqual(r.states, ['available', 'requesting', 'too_late', 'finished_first'], r.logs.join('\n'));
  });

  for (const job of ['html502', 'drop', 'unlisted']) {
    test(`${job}: the button does not stay at "requesting"`, { timeout: 30_000 }, async () => {
      const r = await flow(job, { until: () => window.__states.length > 2 });
      assert.notEqual(r.states.at(-1), 'requesting', r.states.join(' -> '));
      assert.ok(!r.states.includes('cancelled'), r.states.join(' -> '));
      assert.deepEqual(r.logs, []);
    });
  }
});
