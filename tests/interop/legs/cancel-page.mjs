#!/usr/bin/env node
// Leg `cancel-page`: the cancel-button page (pkg/examples/cancel-page) in headless Debian
// Chromium through playwright-core. Presses cancel on a queued job, a processing job, a completed
// job and a 2026 MCP task, and asserts on the DOM (data-state attributes set from the core's
// button model). Screenshots: tests/interop/results/cancel-page/*.png; with
// LONGCALL_UPDATE_SCREENSHOTS=1 the representative one is copied to the committed
// tests/interop/screenshots/cancel-page.png (the README shows it), so plain runs leave the tree clean.
//
//   node tests/interop/legs/cancel-page.mjs          (after npm --prefix pkg run build)
//
// Leg protocol: one JSON line per scenario on stdout ({"leg","scenario","result","detail"}),
// logs on stderr, every wait bounded, exit 1 if any scenario failed.
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = resolve(HERE, '../..');
const OUT = join(HERE, 'results/cancel-page');
const SHOT = join(HERE, 'screenshots/cancel-page.png');
const LEG = 'cancel-page';
const CHROME = process.env.CHROME_BIN || '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

const log = (...a) => process.stderr.write(`[leg cancel-page] ${a.join(' ')}\n`);
let failed = false;
const emit = (scenario, result, detail) => {
  if (result === 'fail') failed = true;
  process.stdout.write(`${JSON.stringify({ leg: LEG, scenario, result, detail })}\n`);
};

if (!existsSync(join(ROOT, 'pkg/dist/longcall_bg.wasm'))) {
  emit('setup', 'fail', 'pkg/dist missing: run npm --prefix pkg run build');
  process.exit(1);
}
// playwright-core is a dev dependency of the package (pkg/package.json).
const require = createRequire(join(ROOT, 'pkg/package.json'));
const { chromium } = require('playwright-core');
const { servePage } = await import(pathToFileURL(join(ROOT, 'pkg/examples/cancel-page/serve.mjs')).href);

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
mkdirSync(dirname(SHOT), { recursive: true });

const hardStop = setTimeout(() => {
  log('hard timeout (150 s)');
  process.exit(1);
}, 150_000);
const page$ = await servePage({ log });
let browser;
const logs = [];
try {
  browser = await chromium.launch({ executablePath: CHROME, headless: true, args: ARGS, timeout: 60_000 });
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  page.on('console', (m) => logs.push(`console.${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`pageerror: ${e.stack || e}`));
  // Jobs take 4 s each, 2 at a time: jobs 1-2 process first, 3-6 wait queued for >= 4 s.
  await page.goto(`${page$.url}?work=4000&seconds=8`);
  await page.waitForSelector('#wave[data-ready="1"]', { timeout: 30_000 });

  const row = (id) => page.locator(`tr[data-job="${id}"]`);
  const attr = (sel, name) => page.locator(sel).getAttribute(name);
  const waitAttr = (sel, name, values, timeout = 15_000) =>
    page.waitForFunction(([s, n, v]) => v.includes(document.querySelector(s)?.getAttribute(n)), [sel, name, values], {
      timeout,
    });

  async function scenario(name, fn) {
    try {
      const detail = await fn();
      emit(name, 'pass', detail);
    } catch (e) {
      log(`${name}: ${e.stack || e}`);
      await page.screenshot({ path: join(OUT, `${name}-failure.png`) }).catch(() => {});
      emit(
        name,
        'fail',
        String(e.message || e)
          .split('\n')[0]
          .slice(0, 300),
      );
    }
  }
  const expect = (cond, msg) => {
    if (!cond) throw new Error(msg);
  };

  await scenario('job-queued-cancel', async () => {
    const sel = 'tr[data-job="job-6"]';
    await waitAttr(`${sel} button.cancel`, 'data-state', ['available']);
    expect((await attr(sel, 'data-state')) === 'queued', 'job-6 is not queued');
    await row('job-6').locator('button.cancel').click();
    await waitAttr(`${sel} button.cancel`, 'data-state', ['cancelled']);
    await waitAttr(sel, 'data-state', ['canceled']);
    const sent = await attr(sel, 'data-cancel-sent');
    expect(sent === '1', `expected one jobs_cancel on the wire, got ${sent}`);
    return `queued job-6: pressed → ${await attr(`${sel} button.cancel`, 'data-history')}; status canceled; 1 jobs_cancel sent`;
  });

  await scenario('job-processing-cancel', async () => {
    const sel = 'tr[data-job="job-1"]';
    await waitAttr(sel, 'data-state', ['processing']);
    // The core shows a started job as too_late before any press; pressing it anyway (force: the
    // button is aria-disabled) is refused by the core, or, from a stale `queued` view, answered
    // 409 job_generation_already_started by the book. Either way: still running.
    await row('job-1').locator('button.cancel').click({ force: true });
    await waitAttr(`${sel} button.cancel`, 'data-state', ['too_late']);
    expect(
      (await row('job-1').locator('button.cancel').textContent()) === 'Still running',
      'label is not "Still running"',
    );
    await page.screenshot({ path: join(OUT, 'processing-too-late.png') });
    await waitAttr(sel, 'data-state', ['completed'], 20_000);
    const history = await attr(`${sel} button.cancel`, 'data-history');
    const final = await attr(`${sel} button.cancel`, 'data-state');
    expect(
      !history.split(',').includes('cancelled') && final !== 'cancelled',
      `processing job showed cancelled: ${history}`,
    );
    expect((await attr(sel, 'data-outcome')) === 'succeeded', 'outcome is not succeeded');
    const sent = await attr(sel, 'data-cancel-sent');
    const refused = await attr(sel, 'data-refused');
    return `processing job-1: ${history}; press ${sent !== '0' ? 'sent, answered 409' : `refused by the core (${refused})`}; status completed (ran and billed), never cancelled`;
  });

  await scenario('job-completed-cancel', async () => {
    const sel = 'tr[data-job="job-2"]';
    await waitAttr(sel, 'data-state', ['completed'], 20_000);
    await waitAttr(`${sel} button.cancel`, 'data-state', ['not_applicable']);
    const before = await attr(sel, 'data-cancel-sent');
    await row('job-2').locator('button.cancel').click({ force: true });
    await waitAttr(sel, 'data-refused', ['1']);
    const after = await attr(sel, 'data-cancel-sent');
    expect(before === '0' && after === '0', `a cancel went on the wire (${before} → ${after})`);
    expect(
      (await attr(`${sel} button.cancel`, 'data-state')) === 'not_applicable',
      'state changed after a refused press',
    );
    return 'completed job-2: not_applicable; press refused by the core (cancel_refused), 0 jobs_cancel sent';
  });

  await scenario('task-2026-cancel', async () => {
    await page.locator('#start').click();
    await waitAttr('#task', 'data-state', ['working']);
    await waitAttr('#task-cancel', 'data-state', ['available']);
    await page.locator('#task-cancel').click();
    await waitAttr('#task', 'data-state', ['completed', 'failed', 'cancelled'], 20_000);
    await waitAttr('#task-cancel', 'data-state', ['cancelled', 'finished_first'], 10_000);
    const history = await attr('#task-cancel', 'data-history');
    expect(history.split(',').includes('acknowledged_pending'), `no acknowledged_pending in ${history}`);
    const status = await attr('#task', 'data-state');
    return `slow_compute task: ${history}; server reported ${status} (outcome ${await attr('#task', 'data-outcome')})`;
  });

  await scenario('wave-settles', async () => {
    await page.waitForSelector('#wave[data-done="1"]', { timeout: 30_000 });
    const states = await page
      .locator('tr[data-job]')
      .evaluateAll((trs) => trs.map((t) => `${t.dataset.job}=${t.dataset.state}`));
    expect(states.filter((s) => s.endsWith('=canceled')).length === 1, `expected exactly one canceled job: ${states}`);
    await page.screenshot({ path: join(OUT, 'final.png') });
    return states.join(' ');
  });

  if (process.env.LONGCALL_UPDATE_SCREENSHOTS === '1' && existsSync(join(OUT, 'processing-too-late.png'))) {
    copyFileSync(join(OUT, 'processing-too-late.png'), SHOT);
  }
  const errors = logs.filter((l) => l.startsWith('pageerror'));
  if (errors.length) emit('page-errors', 'fail', errors.join(' | ').slice(0, 300));
} catch (e) {
  log(e.stack || e);
  log(logs.join('\n'));
  emit(
    'setup',
    'fail',
    String(e.message || e)
      .split('\n')[0]
      .slice(0, 300),
  );
} finally {
  await browser?.close().catch(() => {});
  await page$.close();
  clearTimeout(hardStop);
}
if (failed) log(logs.join('\n'));
process.exit(failed ? 1 : 0);
