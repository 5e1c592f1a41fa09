// Loading under the page's control. Nothing is fetched or run when a browser entry is imported;
// `init(input)` takes a URL, a Response (or a promise of one), bytes or a compiled module; an
// export called before it throws `not_initialized`. The same small app (test/loading/app.js) is
// built three ways and opened in headless Chromium: a plain <script type="module"> with an import
// map, esbuild (ESM and IIFE, the .wasm copied and its URL passed to init; ESM with the .wasm
// imported from `longcall/wasm` and copied by esbuild's file loader), and Vite (with no
// configuration; with the .wasm imported as `longcall/wasm?url`).
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
  test('not_initialized names the entry point whose init() to call', () => {
    const [message] = viaWeb(`try { new lc.Endpoint(); } catch (e) { console.log(JSON.stringify([e.message])); }`);
    assert.equal(message, "the longcall module is not loaded yet: call (and await) init() from 'longcall' first");
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
  test('a URL that answers an HTML page (a dev server): the error says so, and how to fix it', () => {
    const [code, message, warned] = viaWeb(`const page = '<!doctype html><html><body>app</body></html>';
const warned = [];
console.warn = (...args) => warned.push(args.join(' '));
try { await lc.init(new Response(page, { headers: { 'content-type': 'text/html' } })); } catch (e) {
  console.log(JSON.stringify([e.code, e.message, warned]));
}`);
    assert.equal(code, 'not_initialized');
    // The console's warning before it names what came, not a slower compile that would work.
    assert.deepEqual(warned, ['longcall: .wasm served as text/html, not application/wasm; compiling its bytes']);
    assert.match(message, /the URL did not answer longcall_bg\.wasm: pass init\(\) its URL/);
    assert.match(message, /exclude longcall from optimizeDeps/);
  });
  test('a URL that answers 404: the error says so and names the import that copies the .wasm', () => {
    const [code, message, retried] = viaWeb(`let seen;
try { await lc.init(new Response('Not Found', { status: 404 })); } catch (e) { seen = [e.code, e.message]; }
await lc.init(bytes);
console.log(JSON.stringify([...seen, lc.observe('job', 'queued', 'completed')]));`);
    assert.equal(code, 'not_initialized');
    assert.match(
      message,
      /the URL did not answer longcall_bg\.wasm: pass init\(\) its URL, in a bundle from import wasmUrl from 'longcall\/wasm'.*: failed to fetch Wasm: 404/,
    );
    assert.equal(retried, 'skipped');
  });
  test('the .wasm of another entry point: named in the error, and never reported loaded', () => {
    // The full module under the small build's glue does not link (a LinkError).
    const script = `import { readFileSync } from 'node:fs';
import * as lite from ${JSON.stringify(join(PKG, 'lite-web.js'))};
try { await lite.init(readFileSync(${JSON.stringify(WASM)})); } catch (e) {
  console.log(JSON.stringify([e.code, e.cause instanceof WebAssembly.LinkError, e.message]));
}`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    const [code, linkError, message] = JSON.parse(r.stdout);
    assert.deepEqual([code, linkError], ['not_initialized', true]);
    assert.match(message, /^the longcall module could not be loaded \(is this longcall_lite_bg\.wasm\? /);
    // The small module under the full glue links, then fails; the glue keeps that instance, so a
    // later init with the right module is refused rather than reported loaded.
    const out = viaWeb(`const seen = [];
const lite = readFileSync(${JSON.stringify(join(PKG, 'dist/longcall_lite_bg.wasm'))});
for (const load of [() => lc.init(lite), async () => lc.initSync(bytes), () => lc.init(bytes)]) {
  try { await load(); seen.push('loaded'); } catch (e) { seen.push([e.code, e.message]); }
}
seen.push(codeOf(() => lc.observe('job', 'queued', 'completed')));
console.log(JSON.stringify(seen));`);
    assert.equal(out[0][0], 'not_initialized');
    assert.match(out[0][1], /^the longcall module could not be loaded \(is this longcall_bg\.wasm\? /);
    for (const [code, msg] of [out[1], out[2]]) {
      assert.equal(code, 'not_initialized');
      assert.match(msg, /an earlier init loaded a \.wasm that is not longcall_bg\.wasm/);
    }
    assert.equal(out[3], 'not_initialized');
  });
});

describe('bundling', () => {
  test('a page that imports only CancelButton from longcall/lite carries no code table it does not use', async () => {
    const { build } = await import('esbuild');
    const out = await build({
      stdin: {
        contents: "import { init, CancelButton } from './lite-web.js'; await init(); new CancelButton('job');",
        resolveDir: PKG,
      },
      bundle: true,
      minify: true,
      format: 'esm',
      write: false,
      logLevel: 'silent',
    });
    const js = out.outputFiles[0].text;
    assert.ok(js.includes('finished_first'), 'the button states it uses are kept');
    for (const unused of ['wait_condition_broken', 'job_generation_already_started', 'captions']) {
      assert.ok(!js.includes(unused), `${unused} (a table the page does not import) was bundled`);
    }
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

  // A plain <script type="module"> page with an import map, under a strict CSP whose script-src
  // allows the import map (an inline script) by its hash, and `extra`.
  async function openImportMapPage(extra) {
    const map =
      '{"imports": {"longcall": "./node_modules/longcall/web.js", "longcall/lite": "./node_modules/longcall/lite-web.js"}}';
    writeFileSync(
      join(tmp, 'importmap.html'),
      `<!doctype html><meta charset="utf-8"><title>loading</title>
<script type="importmap">${map}</script>
<script type="module" src="./app.js"></script>`,
    );
    const { createHash } = await import('node:crypto');
    const hash = `sha256-${createHash('sha256').update(map).digest('base64')}`;
    return open(tmp, '/importmap.html', {
      'content-security-policy': `default-src 'self'; script-src 'self' ${extra} '${hash}'`.replace('  ', ' '),
    });
  }

  test('plain <script type="module"> with an import map, under a strict CSP with wasm-unsafe-eval', async () => {
    assert.deepEqual(await openImportMapPage("'wasm-unsafe-eval'"), EXPECTED);
  });

  test('a strict CSP without wasm-unsafe-eval: init rejects, saying what to add', async () => {
    const seen = await openImportMapPage('');
    assert.equal(seen.before, 'not_initialized');
    assert.equal(seen.errorCode, 'not_initialized');
    assert.match(seen.error, /add 'wasm-unsafe-eval' to script-src/);
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

  // The .wasm files imported through the package's `longcall/wasm` and `longcall/lite/wasm`
  // entries: the bundler copies them and hands over their URLs, nothing is copied by hand.
  // (`suffix`: what the bundler wants on the import, `?url` for Vite.)
  function importWasmUrls(suffix) {
    writeFileSync(
      join(tmp, 'wasm-urls.js'),
      `import full from 'longcall/wasm${suffix}';
import lite from 'longcall/lite/wasm${suffix}';
globalThis.LONGCALL_WASM = { full: new URL(full, import.meta.url), lite: new URL(lite, import.meta.url) };`,
    );
    // Imports run in order: the URLs are set before app.js reads them.
    writeFileSync(join(tmp, 'main.js'), "import './wasm-urls.js';\nimport './app.js';\n");
  }

  test('esbuild with the file loader: the .wasm imported from longcall/wasm, copied by esbuild', async () => {
    importWasmUrls('');
    const out = join(tmp, 'esbuild-file-loader');
    execFileSync(
      join(PKG, 'node_modules/.bin/esbuild'),
      ['main.js', '--bundle', '--format=esm', '--loader:.wasm=file', `--outdir=${out}`, '--log-level=warning'],
      { cwd: tmp, stdio: 'pipe' },
    );
    writeFileSync(
      join(out, 'index.html'),
      '<!doctype html><meta charset="utf-8"><title>loading</title><script type="module" src="./main.js"></script>',
    );
    assert.deepEqual(await open(out, '/index.html'), EXPECTED);
  });

  test('Vite build importing longcall/wasm?url and longcall/lite/wasm?url', { timeout: 120_000 }, async () => {
    importWasmUrls('?url');
    const root = join(tmp, 'vite-url');
    mkdirSync(root, { recursive: true });
    for (const f of ['main.js', 'wasm-urls.js', 'app.js']) copyFileSync(join(tmp, f), join(root, f));
    writeFileSync(
      join(root, 'index.html'),
      '<!doctype html><meta charset="utf-8"><title>loading</title><script type="module" src="./main.js"></script>',
    );
    const { build } = await import('vite');
    await build({
      root,
      logLevel: 'warn',
      configFile: false,
      build: { outDir: join(root, 'dist'), emptyOutDir: true },
    });
    assert.deepEqual(await open(join(root, 'dist'), '/index.html'), EXPECTED);
  });

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
