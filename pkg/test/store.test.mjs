// The store contract, run against both stores for real: SQLite through node:sqlite (Node 22.13+)
// and PostgreSQL started on loopback in a temporary directory (test/support/postgres.mjs).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sqliteStore, pgStore, StoreError } from '../store/index.js';
import { startPostgres } from './support/postgres.mjs';

const hasSqlite = await import('node:sqlite').then(
  () => true,
  () => false,
);
const HERE = fileURLToPath(new URL('.', import.meta.url));

const rec = (n) => ({ v: 1, status: 'working', n });

/** The contract every store keeps. `open()` gives a fresh store on a fresh table. */
function contract(name, open) {
  describe(`${name} store`, () => {
    it('puts and gets a record; every write bumps the version', async () => {
      const s = await open();
      assert.equal(await s.get('a'), null);
      assert.equal(await s.put('a', { record: rec(1), dueAt: 100 }), true);
      assert.deepEqual(await s.get('a'), {
        call: 'a',
        record: rec(1),
        dueAt: 100,
        done: false,
        version: 1,
        owner: null,
        leaseUntil: null,
      });
      assert.equal(await s.put('a', { record: rec(2), dueAt: null, done: true }), true);
      const a = await s.get('a');
      assert.deepEqual([a.record.n, a.dueAt, a.done, a.version], [2, null, true, 2]);
      await s.close();
    });

    it('rejects bad input by name with a coded error', async () => {
      const s = await open();
      await assert.rejects(s.put('', { record: 1 }), (e) => e instanceof StoreError && e.code === 'invalid_input');
      await assert.rejects(
        s.put('a', { record: 1, due: 5 }),
        (e) => e.code === 'invalid_input' && /unknown key "due"/.test(e.message),
      );
      await assert.rejects(
        s.put('a', { record: 1, dueAt: -1 }),
        (e) => e.code === 'invalid_input' && /dueAt/.test(e.message),
      );
      await assert.rejects(s.claimDue({ owner: '', now: 0, leaseMs: 1 }), (e) => e.code === 'invalid_input');
      await s.close();
    });

    it('claims only due, unfinished, unleased calls, earliest first, and each once while leased', async () => {
      const s = await open();
      await s.put('late', { record: rec(1), dueAt: 300 });
      await s.put('early', { record: rec(2), dueAt: 100 });
      await s.put('future', { record: rec(3), dueAt: 10_000 });
      await s.put('settled', { record: rec(4), dueAt: 50, done: true });
      await s.put('waiting', { record: rec(5), dueAt: null });
      const got = await s.claimDue({ owner: 'h1', now: 1000, leaseMs: 500 });
      assert.deepEqual(
        got.map((r) => r.call),
        ['early', 'late'],
      );
      assert.ok(got.every((r) => r.owner === 'h1' && r.leaseUntil === 1500));
      assert.deepEqual(
        await s.claimDue({ owner: 'h2', now: 1200, leaseMs: 500 }),
        [],
        'a live lease is never handed out twice',
      );
      await s.close();
    });

    it('fences writes: a host whose lease ran out and was taken over cannot overwrite', async () => {
      const s = await open();
      await s.put('c', { record: rec(1), dueAt: 0 });
      await s.claimDue({ owner: 'h1', now: 0, leaseMs: 100 });
      assert.equal(await s.put('c', { record: rec(2), dueAt: 10 }, { owner: 'h1', now: 50 }), true);
      assert.equal(
        await s.put('c', { record: rec(9), dueAt: 10 }),
        false,
        'an unleased write may not touch a leased call',
      );
      // h1 stalls past its lease; h2 takes the call over.
      const taken = await s.claimDue({ owner: 'h2', now: 150, leaseMs: 100 });
      assert.deepEqual(
        taken.map((r) => [r.call, r.record.n]),
        [['c', 2]],
        'h2 continues from the last record',
      );
      assert.equal(
        await s.put('c', { record: rec(3), dueAt: 10 }, { owner: 'h1', now: 160 }),
        false,
        'the stalled host is fenced off',
      );
      assert.equal(await s.put('c', { record: rec(4), dueAt: 10 }, { owner: 'h2', now: 160 }), true);
      assert.equal((await s.get('c')).record.n, 4);
      await s.close();
    });

    it('renews live leases and releases', async () => {
      const s = await open();
      await s.put('r', { record: rec(1), dueAt: 0 });
      await s.claimDue({ owner: 'h1', now: 0, leaseMs: 100 });
      assert.equal(await s.renew({ owner: 'h1', now: 90, leaseMs: 100 }), 1);
      assert.deepEqual(await s.claimDue({ owner: 'h2', now: 150, leaseMs: 100 }), [], 'renewed until 190');
      assert.equal(await s.release('r', 'h2'), false, 'only the owner releases');
      assert.equal(await s.release('r', 'h1'), true);
      assert.deepEqual(
        (await s.claimDue({ owner: 'h2', now: 151, leaseMs: 100 })).map((r) => r.call),
        ['r'],
      );
      await s.close();
    });
  });
}

const dirs = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

if (hasSqlite) {
  let n = 0;
  const dir = mkdtempSync(join(tmpdir(), 'longcall-sqlite-'));
  dirs.push(dir);
  contract('sqlite', () => sqliteStore(join(dir, `s${n++}.db`)));
} else {
  it('sqlite store: reports that node:sqlite is missing with a coded error', async () => {
    await assert.rejects(sqliteStore(':memory:'), (e) => e.code === 'unsupported');
  });
}

describe('postgres', () => {
  let pgServer;
  let n = 0;
  before(async () => {
    pgServer = await startPostgres();
  });
  after(async () => {
    await pgServer?.stop();
  });
  contract('postgres', () => pgStore({ connectionString: pgServer.url, table: `t${n++}` }));

  it('three hosts claiming 300 due calls at once share them without overlap', async () => {
    const table = 'fleet';
    const seed = await pgStore({ connectionString: pgServer.url, table });
    for (let i = 0; i < 300; i++) await seed.put(`c${i}`, { record: rec(i), dueAt: i });
    const hosts = await Promise.all(['a', 'b', 'c'].map(() => pgStore({ connectionString: pgServer.url, table })));
    const claimed = new Map();
    await Promise.all(
      hosts.map(async (h, i) => {
        for (;;) {
          const got = await h.claimDue({ owner: `h${i}`, now: 1000, leaseMs: 60_000, limit: 7 });
          if (got.length === 0) break;
          for (const r of got) {
            assert.equal(claimed.has(r.call), false, `${r.call} claimed twice`);
            claimed.set(r.call, i);
          }
        }
      }),
    );
    assert.equal(claimed.size, 300);
    assert.equal(new Set(claimed.values()).size, 3, 'every host got work');
    for (const h of [seed, ...hosts]) await h.close();
  });

  it('a host killed with SIGKILL loses its leases after the lease time; another continues', async () => {
    const table = 'killed';
    const s = await pgStore({ connectionString: pgServer.url, table });
    for (let i = 0; i < 20; i++) await s.put(`k${i}`, { record: rec(i), dueAt: 0 });
    const child = fork(join(HERE, 'support', 'store-claimer.mjs'), [pgServer.url, table, 'victim'], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const claimedByVictim = await new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`claimer exited ${code} before claiming`)));
    });
    assert.equal(claimedByVictim, 20);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    assert.deepEqual(
      await s.claimDue({ owner: 'survivor', now: 1000, leaseMs: 1000 }),
      [],
      'leases live until 1000 + 5000',
    );
    const taken = await s.claimDue({ owner: 'survivor', now: 6000, leaseMs: 1000, limit: 100 });
    assert.equal(taken.length, 20);
    assert.ok(
      taken.every((r) => r.version === 1 && r.record.n === Number(r.call.slice(1))),
      'continues from the last record',
    );
    await s.close();
  });
});
