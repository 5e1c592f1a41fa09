// Loading under the page's control. Nothing is fetched or run when a browser entry is imported;
// `init(input)` takes a URL, a Response (or a promise of one), bytes or a compiled module; an
// export called before it throws `not_initialized`. The same small app (test/loading/app.js) is
// built three ways and opened in headless Chromium: a plain <script type="module"> with an import
// map, esbuild (ESM and IIFE, the .wasm copied and its URL passed to init), and a Vite build.
// The cancel-button example, bundled with esbuild and its .wasm moved, gets the URL from its page.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium, openPage } from './support/chromium.mjs';
import { serve } from './support/server.mjs';
import { PKG } from './support/paths.mjs';

const WASM = join(PKG, 'dist/longcall_bg.wasm');
const EXPECTED = {
  before: 'not_initialized',
  beforeLite: 'not_initialized',
  observe: 'skipped',
  button: 'too_late',
  outputs: ['status', 'button', 'wake_at'],
  freed: 'freed',
};

// Each case in a fresh Node process: a module instance that has not been initialised yet.
const viaWeb = (body) => {
  const script = `import { readFileSync } from 'node:fs';
import * as lc from ${JSON.stringify(join(PKG, 'web.js'))};
const bytes = readFileSync(${JSON.stringify(WASM)});
const codeOf = (fn) => { try { fn(); return 'no error'; } catch (e) { return e.code ?? String(e); } };
${body}`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};

describe('init in Node (web entry, fresh module each time)', () => {
  test('before init every export throws not_initialized; numbers-only ones return their bad value', () => {
    const out = viaWeb(`console.log(JSON.stringify([codeOf(() => lc.observe('job', 'queued', 'completed')),
      codeOf(() => new lc.Tracker('job')), codeOf(() => lc.Tracker.restore('{}')), lc.observeCode(2, 5, 2),
      codeOf(() => lc.fastOutputs())]));`);
    assert.deepEqual(out, ['not_initialized', 'not_initialized', 'not_initialized', 255, 'not_initialized']);
  });
  for (const [what, arg] of [
    ['bytes (Uint8Array)', 'bytes'],
    ['bytes (ArrayBuffer)', 'bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)'],
    ['a WebAssembly.Module', 'new WebAssembly.Module(bytes)'],
    ['a Response', "new Response(bytes, { headers: { 'content-type': 'application/wasm' } })"],
    [
      'a promise of a Response',
      "Promise.resolve(new Response(bytes, { headers: { 'content-type': 'application/wasm' } }))",
    ],
  ]) {
    test(`init(${what})`, () => {
      const out = viaWeb(`const p = lc.init(${arg}); const again = lc.init(); await p;
console.log(JSON.stringify([p === again, lc.observe('job', 'queued', 'completed')]));`);
      assert.deepEqual(out, [true, 'skipped']);
    });
  }
  test('initSync(bytes), and a failed load is a coded error that can be retried', () => {
    const out = viaWeb(`let failed; try { await lc.init(new Uint8Array([0, 1, 2])); } catch (e) { failed = e.code; }
lc.initSync(bytes); await lc.init();
console.log(JSON.stringify([failed, lc.observe('job', 'queued', 'completed')]));`);
    assert.deepEqual(out, ['not_initialized', 'skipped']);
  });
});

describe('a page app built three ways, in Chromium', () => {
  let tmp, browser;
  const logs = [];
  before(
    async () => {
      tmp = mkdtempSync(join(tmpdir(), 'longcall-loading-'));
      mkdirSync(join(tmp, 'node_modules'));
      symlinkSync(PKG, join(tmp, 'node_modules/longcall'), 'dir');
      copyFileSync(join(PKG, 'test/loading/app.js'), join(tmp, 'app.js'));
      browser = await launchChromium();
    },
    { timeout: 60_000 },
  );
  after(async () => {
    await browser?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  async function open(root, path, headers) {
    const server = await serve(root, {}, headers);
    try {
      const page = await openPage(browser, `${server.base}${path}`, logs);
      await page
        .waitForFunction(() => document.title.startsWith('{'), null, { timeout: 30_000 })
        .catch((e) => {
          throw new Error(`${e.message}\n${logs.join('\n')}`);
        });
      return JSON.parse(await page.title());
    } finally {
      await server.close();
    }
  }

  test('plain <script type="module"> with an import map, under a strict CSP with wasm-unsafe-eval', async () => {
    writeFileSync(
      join(tmp, 'importmap.html'),
      `<!doctype html><meta charset="utf-8"><title>loading</title>
<script type="importmap">{"imports": {"longcall": "./node_modules/longcall/web.js", "longcall/lite": "./node_modules/longcall/lite-web.js"}}</script>
<script type="module" src="./app.js"></script>`,
    );
    const csp = {
      'content-security-policy': "default-src 'self'; script-src 'self' 'wasm-unsafe-eval' 'sha256-IMPORTMAP'",
    };
    // The import map is an inline script: allow exactly it by hash.
    const { createHash } = await import('node:crypto');
    const map =
      '{"imports": {"longcall": "./node_modules/longcall/web.js", "longcall/lite": "./node_modules/longcall/lite-web.js"}}';
    csp['content-security-policy'] = csp['content-security-policy'].replace(
      'sha256-IMPORTMAP',
      `sha256-${createHash('sha256').update(map).digest('base64')}`,
    );
    assert.deepEqual(await open(tmp, '/importmap.html', csp), EXPECTED);
  });

  for (const format of ['esm', 'iife']) {
    test(`esbuild (${format}), the .wasm files copied and passed to init`, async () => {
      const out = join(tmp, `esbuild-${format}`);
      mkdirSync(out, { recursive: true });
      execFileSync(
        join(PKG, 'node_modules/.bin/esbuild'),
        [
          'app.js',
          '--bundle',
          `--format=${format}`,
          '--platform=browser',
          '--minify',
          `--outfile=${join(out, 'app.js')}`,
          '--log-level=warning',
        ],
        { cwd: tmp, stdio: 'pipe' },
      );
      copyFileSync(WASM, join(out, 'longcall_bg.wasm'));
      copyFileSync(join(PKG, 'dist/longcall_lite_bg.wasm'), join(out, 'longcall_lite_bg.wasm'));
      writeFileSync(
        join(out, 'index.html'),
        `<!doctype html><meta charset="utf-8"><title>loading</title>
<script>globalThis.LONGCALL_WASM = { full: new URL('longcall_bg.wasm', location.href), lite: fetch('longcall_lite_bg.wasm') };</script>
<script ${format === 'esm' ? 'type="module" ' : ''}src="./app.js"></script>`,
      );
      assert.deepEqual(await open(out, '/index.html'), EXPECTED);
      if (format === 'iife') {
        // A classic-script bundle has no module URL: init() without one says to pass it.
        writeFileSync(
          join(out, 'bare.html'),
          '<!doctype html><meta charset="utf-8"><title>loading</title><script src="./app.js"></script>',
        );
        const bare = await open(out, '/bare.html');
        assert.match(bare.error, /no module URL to find longcall_bg\.wasm: pass its URL/);
      }
    });
  }

  test('the cancel-button example bundled with esbuild: the .wasm moved, named by its meta tag', async () => {
    const out = join(tmp, 'example-esbuild');
    mkdirSync(join(out, 'assets'), { recursive: true });
    // Bundled from inside the app, as an app would copy it: `longcall` resolves to node_modules.
    copyFileSync(join(PKG, 'examples/cancel-button/cancel-button.js'), join(tmp, 'cancel-button.js'));
    execFileSync(
      join(PKG, 'node_modules/.bin/esbuild'),
      [
        'cancel-button.js',
        '--bundle',
        '--format=esm',
        '--platform=browser',
        `--outfile=${join(out, 'cancel-button.js')}`,
        '--log-level=warning',
      ],
      { cwd: tmp, stdio: 'pipe' },
    );
    // Not next to the bundle, where init() with no argument would look.
    copyFileSync(WASM, join(out, 'assets/longcall_bg.wasm'));
    const page = readFileSync(join(PKG, 'examples/cancel-button/index.html'), 'utf8');
    const bundled = page
      .replace(/<script type="importmap">.*<\/script>\n/, '')
      .replace('<title>', '<meta name="longcall-wasm" content="assets/longcall_bg.wasm">\n<title>');
    assert.notEqual(bundled, page);
    writeFileSync(join(out, 'index.html'), bundled);
    // The job API on the page's origin: a queued job, which can be cancelled.
    const queued = {
      type: 'application/json',
      body: JSON.stringify({ data: { request_id: 'q1', sume_status: 'queued' } }),
    };
    const server = await serve(out, { '/v1/jobs/q1': queued, '/v1/jobs/q1/status': queued });
    try {
      const page = await openPage(browser, `${server.base}/index.html?job=q1`, logs);
      await page.waitForSelector('#cancel[data-state="available"]', { timeout: 10_000 }).catch(async (e) => {
        throw new Error(`${e.message}\nnote: ${await page.textContent('#note')}\n${logs.join('\n')}`);
      });
      await page.close();
    } finally {
      await server.close();
    }
  });

  test('Vite build (no configuration: Vite emits the .wasm assets itself)', { timeout: 120_000 }, async () => {
    writeFileSync(
      join(tmp, 'index.html'),
      `<!doctype html><meta charset="utf-8"><title>loading</title>
<script type="module" src="./app.js"></script>`,
    );
    const { build } = await import('vite');
    await build({
      root: tmp,
      logLevel: 'warn',
      configFile: false,
      build: { outDir: join(tmp, 'vite-dist'), emptyOutDir: true },
    });
    assert.deepEqual(await open(join(tmp, 'vite-dist'), '/index.html'), EXPECTED);
  });
});
