// Pack-and-install smoke test of the real tarball: `npm pack`, install it offline into a fresh
// temporary project, import it from Node ESM, then load it in headless Chromium from a page with
// a plain <script type="module"> (served from that project). The tarball carries its docs: the
// README, the pages in docs/ and the rule book they cite (copied in by the prepack script), every
// relative link among them leading to a file and heading the tarball has.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { launchChromium, openPage } from './support/chromium.mjs';
import { serve } from './support/server.mjs';
import { PKG, ROOT } from './support/paths.mjs';

const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
let tmp, app, tarball, packed;

before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'longcall-pack-'));
  [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', tmp], PKG));
  tarball = join(tmp, packed.filename);
  app = join(tmp, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  npm(['install', tarball, '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], app);
});

after(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('tarball holds the package files and nothing else', () => {
  const files = packed.files.map((f) => f.path).sort();
  const listed = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).files;
  // A folder entry (`docs/`) stands for the files in it.
  const expanded = listed.flatMap((entry) =>
    entry.endsWith('/')
      ? readdirSync(join(PKG, entry), { recursive: true, withFileTypes: true })
          .filter((d) => d.isFile())
          .map((d) => posix.join(entry, posix.relative(join(PKG, entry), join(d.parentPath, d.name))))
      : [entry],
  );
  assert.deepEqual(files, [...expanded, 'package.json'].sort());
});

test('tarball holds the README, every page of docs/ and the rule book they cite', () => {
  const files = new Set(packed.files.map((f) => f.path));
  const pages = readdirSync(join(PKG, 'docs')).filter((f) => f.endsWith('.md') && f !== 'rules.md');
  assert.ok(pages.length >= 5, `${pages.length} pages`);
  for (const f of ['README.md', 'docs/rules.md', ...pages.map((p) => `docs/${p}`)]) assert.ok(files.has(f), f);
  // The repository's book as it is, not a copy that drifted.
  assert.equal(
    readFileSync(join(app, 'node_modules/longcall/docs/rules.md'), 'utf8'),
    readFileSync(join(ROOT, 'docs/rules.md'), 'utf8'),
  );
});

/** A heading's anchor as GitHub and npm make it: lower case, punctuation (backticks too) dropped, `-` for spaces. */
const slug = (heading) =>
  heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** Markdown `text` without its fenced blocks, where `#` starts no heading and `](` no link. */
const unfenced = (text) => text.replace(/^```[\s\S]*?^```/gm, '');
/** ... and without its code spans. */
const prose = (text) => unfenced(text).replace(/(`+)[\s\S]*?\1/g, 'code');

/** The anchors of a Markdown file's headings (a repeated heading gets -1, -2, ...). */
function anchors(text) {
  const seen = new Map();
  return new Set(
    [...unfenced(text).matchAll(/^#{1,6} +(.*)$/gm)].map((m) => {
      const base = slug(m[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      return n ? `${base}-${n}` : base;
    }),
  );
}

test('every relative link of a shipped .md file leads to a file and heading the tarball has', () => {
  const root = join(app, 'node_modules/longcall');
  const files = packed.files.map((f) => f.path);
  const has = (path) => files.includes(path) || files.some((f) => f.startsWith(`${path.replace(/\/$/, '')}/`));
  const broken = [];
  let links = 0;
  for (const md of files.filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(root, md), 'utf8');
    for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // a URL, not a file of the package
      links++;
      const [path, anchor] = target.split('#');
      const file = path ? posix.normalize(posix.join(posix.dirname(md), path)) : md;
      if (file.startsWith('..') || !has(file)) broken.push(`${md}: ${target}: no ${file} in the tarball`);
      else if (
        anchor !== undefined &&
        file.endsWith('.md') &&
        !anchors(readFileSync(join(root, file), 'utf8')).has(anchor)
      )
        broken.push(`${md}: ${target}: no heading #${anchor} in ${file}`);
    }
  }
  assert.ok(links >= 20, `${links} links`);
  assert.deepEqual(broken, []);
});

test('installed package works from Node ESM through longcall/lite', () => {
  writeFileSync(
    join(app, 'lite.mjs'),
    `import { observeCode, OBSERVATIONS, CancelButton } from 'longcall/lite';
const b = new CancelButton('job'); b.handleStatus('processing');
console.log(JSON.stringify([OBSERVATIONS[observeCode(2, 6, 5)], b.state]));`,
  );
  const out = execFileSync(process.execPath, ['lite.mjs'], { cwd: app, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), ['regression', 'too_late']);
});

test('installed package: the .wasm imports give file URLs in Node', () => {
  writeFileSync(
    join(app, 'wasm.mjs'),
    `import { existsSync } from 'node:fs';
import full from 'longcall/wasm';
import lite from 'longcall/lite/wasm';
import server from 'longcall/server/wasm';
import vectors from 'longcall/vectors/wasm';
import { init, CancelButton } from 'longcall/lite';
await init(new URL(lite, import.meta.url));
const urls = [full, lite, server, vectors].map((u) => new URL(u));
console.log(JSON.stringify([...urls.map((u) => [u.protocol, u.pathname.split('/').pop(), existsSync(u)]), new CancelButton('job').state]));`,
  );
  const out = execFileSync(process.execPath, ['wasm.mjs'], { cwd: app, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), [
    ['file:', 'longcall_bg.wasm', true],
    ['file:', 'longcall_lite_bg.wasm', true],
    ['file:', 'longcall_server_bg.wasm', true],
    ['file:', 'longcall_vectors_bg.wasm', true],
    'unavailable',
  ]);
});

test('installed package: longcall/mcp resolves and loads in Node', () => {
  writeFileSync(
    join(app, 'mcp.mjs'),
    `import { callTool, httpSender, sdkSender, resume, watchTask } from 'longcall/mcp';
console.log(JSON.stringify([typeof callTool, typeof httpSender, typeof sdkSender, typeof resume, typeof watchTask, httpSender({ url: 'http://127.0.0.1:1/mcp' }).model]));`,
  );
  const out = execFileSync(process.execPath, ['mcp.mjs'], { cwd: app, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), ['function', 'function', 'function', 'function', 'function', 'task-2026']);
});

test('installed package: longcall/jobs resolves and loads in Node', () => {
  writeFileSync(
    join(app, 'jobs.mjs'),
    `import { JobHost } from 'longcall/jobs';
const h = new JobHost({ baseUrl: 'http://127.0.0.1:1/' });
console.log(JSON.stringify([typeof JobHost, h.url('/v1/jobs/j/status')]));`,
  );
  const out = execFileSync(process.execPath, ['jobs.mjs'], { cwd: app, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), ['function', 'http://127.0.0.1:1/v1/jobs/j/status']);
});

test('installed package: longcall/vectors replays a bundled vector in Node', () => {
  writeFileSync(
    join(app, 'vectors.mjs'),
    `import { replay } from 'longcall/vectors';
const v = { name: 'poll', model: 'job', config: { poll: { jitter: 'none' } }, steps: [{ at: 0, input: { type: 'job_created', job: { id: 'j', status: 'queued' } }, expect: [{ type: 'status', status: 'queued' }, { type: 'button', state: 'available' }, { type: 'wake_at', at: 1000 }] }] };
const r = replay(v);
console.log(JSON.stringify([r.name, r.passed]));`,
  );
  const out = execFileSync(process.execPath, ['vectors.mjs'], { cwd: app, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), ['poll', true]);
});

test('installed package works from Node ESM', () => {
  writeFileSync(
    join(app, 'main.mjs'),
    `import { observe, observeCode, OBSERVATIONS } from 'longcall';
console.log(JSON.stringify([observe('job', 'queued', 'completed'), OBSERVATIONS[observeCode(2, 6, 5)]]));`,
  );
  const out = execFileSync(process.execPath, ['main.mjs'], { cwd: app, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), ['skipped', 'regression']);
});

test('installed package loads in Chromium from <script type="module">', async () => {
  const installed = JSON.parse(readFileSync(join(app, 'node_modules/longcall/package.json'), 'utf8'));
  const entry = `./node_modules/longcall/${installed.exports['.'].browser.replace(/^\.\//, '')}`;
  writeFileSync(
    join(app, 'index.html'),
    `<!doctype html><meta charset="utf-8"><title>loading</title>
<script type="importmap">{"imports": {"longcall": "${entry}"}}</script>
<script type="module">
  import { init, observe, statuses } from 'longcall';
  await init();
  document.title = JSON.stringify([observe('task-2026', 'working', 'completed'), statuses('job').length]);
</script>`,
  );
  const server = await serve(app);
  const browser = await launchChromium();
  const logs = [];
  try {
    const page = await openPage(browser, `${server.base}/index.html`, logs);
    await page
      .waitForFunction(() => document.title !== 'loading', null, { timeout: 30_000 })
      .catch((e) => {
        throw new Error(`${e.message}\n${logs.join('\n')}`);
      });
    assert.deepEqual(JSON.parse(await page.title()), ['advance', 7], logs.join('\n'));
  } finally {
    await browser.close();
    await server.close();
  }
});
