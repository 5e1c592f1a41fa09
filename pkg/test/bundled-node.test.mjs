// A Node server bundled for deployment: esbuild takes longcall's JavaScript into one file and
// leaves the .wasm behind. Run from elsewhere, the import fails with `not_initialized`, naming the
// path it looked at and what to copy there; once copied, the bundle runs. Also the other way
// the message names: longcall left out of the bundle.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { wasmBytes } from '../node-wasm.js';
import { PKG } from './support/paths.mjs';

let tmp;
before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'longcall-bundled-'));
  mkdirSync(join(tmp, 'node_modules'));
  symlinkSync(PKG, join(tmp, 'node_modules/longcall'), 'dir');
  writeFileSync(
    join(tmp, 'server.js'),
    "import { Tracker } from 'longcall';\nconst t = new Tracker('job');\nconsole.log(t.handleInput(0, { type: 'job_created', job: { id: 'j1', status: 'queued' } }).map((o) => o.type).join(','));\n",
  );
});
after(() => rmSync(tmp, { recursive: true, force: true }));

const bundle = (outfile, extra = {}) =>
  buildSync({
    absWorkingDir: tmp,
    entryPoints: ['server.js'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'silent',
    ...extra,
  });
const run = (file) => spawnSync(process.execPath, [file], { cwd: tmp, encoding: 'utf8' });

test('a bundled server without its .wasm says where to put it; with it, runs', () => {
  bundle(join(tmp, 'deploy/server.mjs'));
  const missing = join(tmp, 'deploy/dist/longcall_node_bg.wasm');
  const failed = run(join(tmp, 'deploy/server.mjs'));
  assert.notEqual(failed.status, 0);
  assert.match(failed.stderr, /code: 'not_initialized'/);
  assert.ok(failed.stderr.includes(`${missing} is not there`), failed.stderr);
  assert.match(failed.stderr, /copy node_modules\/longcall\/dist\/longcall_node_bg\.wasm to that path/);
  mkdirSync(join(tmp, 'deploy/dist'));
  copyFileSync(join(PKG, 'dist/longcall_node_bg.wasm'), missing);
  const ran = run(join(tmp, 'deploy/server.mjs'));
  assert.equal(ran.status, 0, ran.stderr);
  assert.match(ran.stdout, /status/);
});

test('a bundle that leaves longcall out loads it from node_modules', () => {
  bundle(join(tmp, 'external.mjs'), { packages: 'external' });
  const ran = run(join(tmp, 'external.mjs'));
  assert.equal(ran.status, 0, ran.stderr);
  assert.match(ran.stdout, /status/);
});

test('a .wasm URL a bundler rewrote to no file is not_initialized, saying so', () => {
  assert.throws(
    () => wasmBytes(new URL('http://localhost:5173/node_modules/longcall/dist/longcall_node_bg.wasm')),
    (e) => e.code === 'not_initialized' && /became http:\/\/localhost:5173\/.*not a file/.test(e.message),
  );
  assert.throws(
    () => wasmBytes(new URL('file:///nowhere/dist/longcall_node_bg.wasm')),
    (e) => e.code === 'not_initialized' && e.message.includes('/nowhere/dist/longcall_node_bg.wasm is not there'),
  );
});
