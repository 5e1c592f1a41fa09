// `longcall/store`, run for real: the one store contract against both stores (SQLite through
// node:sqlite, Node 22.13+; PostgreSQL started on loopback in a temporary directory by
// test/support/postgres.mjs), the watch list on either store through `openWatchList` and
// `pump`, three hosts claiming at once, a host killed with SIGKILL whose leases are taken over,
// and a host killed with SIGKILL mid-run against a job server (the core's `JobBook`) and
// restarted on its SQLite file.
import { after, before, describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { fork, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobBook } from 'longcall/server';
import { createTasksServer } from '../examples/mcp-tasks-server.mjs';
import { openWatchList, pgStore, pump, readJobAnswer, sqliteStore, StoreError, WatchList } from '../store/index.js';
import { kindOf } from './support/fleet-calls.mjs';
import { NODE22, PKG } from './support/paths.mjs';
import { startPostgres } from './support/postgres.mjs';

const hasSqlite = await import('node:sqlite').then(
  () => true,
  () => false,
);

/** A record as `saveCall` gives it; the text is opaque to a store. */
const saved = (call, version, { wake = null, done = false } = {}) => ({
  call,
  version,
  model: 'job',
  nextWakeAt: wake,
  done,
  text: `r${call}v${version}`,
});
const calls = (rows) => rows.map((r) => r.call);

/** The contract every store keeps. `open()` gives a fresh store on a fresh table. */
function contract(name, open) {
  describe(`${name} store`, () => {
    it('writes records forward only, loads and deletes them', async () => {
      const s = await open();
      assert.deepEqual(await s.load(), []);
      assert.deepEqual(await s.write([saved(1, 1, { wake: 100 })], []), []);
      assert.deepEqual(await s.load(), [
        {
          call: 1,
          version: 1,
          model: 'job',
          nextWakeAt: 100,
          done: false,
          text: 'r1v1',
          owner: null,
          leaseUntil: null,
        },
      ]);
      assert.deepEqual(await s.write([saved(1, 3, { done: true })], []), []);
      assert.deepEqual(await s.write([saved(1, 3, { done: true })], []), [], 'the same record again is no refusal');
      assert.deepEqual(await s.write([saved(1, 2, { wake: 5 })], []), [1], 'an older version is refused');
      const [row] = await s.load();
      assert.deepEqual([row.version, row.text, row.nextWakeAt, row.done], [3, 'r1v3', null, true], 'and not written');
      assert.deepEqual(await s.write([], [1]), []);
      assert.deepEqual(await s.load(), []);
      await s.close();
    });

    it('rejects bad input by name with a coded error', async () => {
      const s = await open();
      const coded = (re) => (e) => e instanceof StoreError && e.code === 'invalid_input' && re.test(e.message);
      await assert.rejects(s.write([{ ...saved(1, 1), call: -1 }], []), coded(/saved.call/));
      await assert.rejects(s.write([{ call: 1, version: 1 }], []), coded(/saved: expected/));
      await assert.rejects(s.write([], [2 ** 53]), coded(/removed/));
      await assert.rejects(s.write([saved(1, 1)], [], { owner: '', now: 0, leaseMs: 1 }), coded(/lease.owner/));
      await assert.rejects(s.claim({ owner: 'h', now: -1, leaseMs: 1 }), coded(/lease.now/));
      await assert.rejects(s.claim(undefined), coded(/lease/));
      assert.deepEqual(await s.load(), [], 'nothing written');
      await s.close();
    });

    it('gets one call by its id, whoever holds it; null for none', async () => {
      const s = await open();
      assert.equal(await s.get(7), null, 'a call the store never had is new');
      await s.write([saved(7, 1, { wake: 0 })], []);
      await s.claim({ owner: 'h1', now: 0, leaseMs: 100 });
      // Another host, which has not loaded call 7, sees it is held and by whom.
      const row = await s.get(7);
      assert.deepEqual([row.call, row.version, row.text, row.owner, row.leaseUntil], [7, 1, 'r7v1', 'h1', 100]);
      assert.deepEqual(row, (await s.list())[0], 'the same row list() gives');
      await s.write([], [7], { owner: 'h1', now: 10, leaseMs: 100 });
      assert.equal(await s.get(7), null, 'a removed call is gone');
      await assert.rejects(
        s.get(-1),
        (e) => e instanceof StoreError && e.code === 'invalid_input' && /call/.test(e.message),
      );
      await s.close();
      await assert.rejects(s.get(7), (e) => e instanceof StoreError && e.code === 'closed');
    });

    it('claims calls that need a host, earliest first, each once while leased', async () => {
      const s = await open();
      await s.write(
        [
          saved(1, 1, { wake: 300 }),
          saved(2, 1, { wake: 100 }),
          saved(3, 1, { wake: 10_000 }),
          saved(4, 1, { done: true }), // ended: reported again by whoever resumes it
          saved(5, 1), // waiting on the user: nothing due
        ],
        [],
      );
      const got = await s.claim({ owner: 'h1', now: 1000, leaseMs: 500 });
      assert.deepEqual(calls(got), [4, 2, 1]);
      assert.ok(got.every((r) => r.owner === 'h1' && r.leaseUntil === 1500));
      assert.deepEqual(await s.claim({ owner: 'h2', now: 1200, leaseMs: 500 }), [], 'a live lease is held once');
      // h1 stops renewing: every call it held is taken over, due or not.
      assert.deepEqual(calls(await s.claim({ owner: 'h2', now: 1500, leaseMs: 500, limit: 2 })), [4, 2]);
      assert.deepEqual(calls(await s.claim({ owner: 'h2', now: 1500, leaseMs: 500 })), [1]);
      await s.close();
    });

    it('fences writes: a host whose lease was taken over can neither write nor delete', async () => {
      const s = await open();
      await s.write([saved(7, 1, { wake: 0 })], []);
      await s.claim({ owner: 'h1', now: 0, leaseMs: 100 });
      const h1 = (now) => ({ owner: 'h1', now, leaseMs: 100 });
      const h2 = (now) => ({ owner: 'h2', now, leaseMs: 100 });
      assert.deepEqual(await s.write([saved(7, 2, { wake: 10 })], [], h1(50)), []);
      assert.deepEqual(await s.write([saved(7, 3)], []), [7], 'an unleased write may not touch a leased call');
      // h1 stalls past its lease; h2 takes the call over from the last record.
      const taken = await s.claim({ owner: 'h2', now: 150, leaseMs: 100 });
      assert.deepEqual(
        taken.map((r) => r.text),
        ['r7v2'],
      );
      assert.deepEqual(await s.write([saved(7, 3)], [], h1(160)), [7], 'the stalled host is fenced off');
      assert.deepEqual(await s.write([], [7], h1(160)), [7], 'and cannot delete the call');
      assert.deepEqual(await s.write([saved(7, 3)], [], h2(160)), []);
      assert.equal((await s.load())[0].text, 'r7v3');
      assert.deepEqual(await s.write([saved(7, 3)], [], h2(170)), [], 'the same record again is no refusal');
      // h1 gets the call back later, still holding its own version 3: stale, refused.
      assert.equal((await s.claim({ owner: 'h1', now: 300, leaseMs: 100 })).length, 1);
      assert.deepEqual(
        await s.write([{ ...saved(7, 3), text: 'h1 v3' }], [], h1(310)),
        [7],
        'a stale record is refused',
      );
      assert.equal((await s.load())[0].text, 'r7v3');
      // A new call written under a lease is created leased to the writer.
      assert.deepEqual(await s.write([saved(8, 1, { wake: 0 })], [], h1(320)), []);
      assert.deepEqual(
        await s.claim({ owner: 'h2', now: 350, leaseMs: 100 }),
        [],
        'h1 holds 7 until 400 and 8 until 420',
      );
      await s.close();
    });

    it('refuses a write with less than the margin of its lease left (R-10)', async () => {
      const s = await open();
      await s.write([saved(9, 1, { wake: 0 })], []);
      await s.claim({ owner: 'h1', now: 0, leaseMs: 1000 });
      const h1 = (now) => ({ owner: 'h1', now, leaseMs: 1000 });
      assert.equal(WatchList.leaseMarginMs(1000), 250, 'the core says how long before the end a holder stops');
      assert.deepEqual(await s.write([saved(9, 2)], [], h1(749)), []);
      assert.deepEqual(await s.write([saved(9, 3)], [], h1(750)), [9], 'too close to the lease end to act');
      assert.deepEqual(await s.write([], [9], h1(800)), [9], 'nor to delete');
      assert.equal((await s.load())[0].text, 'r9v2');
      assert.equal(await s.renew(h1(800)), 0, 'a lease in its margin is not renewed: it runs out');
      assert.deepEqual(await s.claim({ owner: 'h2', now: 999, leaseMs: 1000 }), []);
      assert.deepEqual(
        (await s.claim({ owner: 'h2', now: 1000, leaseMs: 1000 })).map((r) => r.text),
        ['r9v2'],
        'then it is claimed from the last record written',
      );
      assert.equal(await s.renew({ owner: 'h2', now: 1749, leaseMs: 1000 }), 1, 'renewed before its margin');
      assert.deepEqual(await s.write([saved(9, 3)], [], { owner: 'h2', now: 2000, leaseMs: 1000 }), []);
      await s.close();
    });

    it('a write that came back after the margin is written again before anything is released (R-10)', async () => {
      const s = await open();
      const list = await openWatchList(s, 0, { lease: { owner: 'h1', leaseMs: 1000 } });
      list.addNew(1, { model: 'job', request: {}, idempotencyKey: 'k1' });
      let clock = 0;
      let writes = 0;
      const slow = {
        async write(sv, rm, l) {
          writes++;
          const refused = await s.write(sv, rm, l);
          if (writes === 1) clock += 250; // the process stalled a whole margin during the write
          return refused;
        },
      };
      const outs = [];
      const lost = await pump(
        list,
        slow,
        (o) => outs.push([o.type, writes]),
        () => ({
          owner: 'h1',
          now: clock,
          leaseMs: 1000,
        }),
      );
      assert.deepEqual(lost, []);
      assert.deepEqual(outs, [['create', 2]], 'the create waits for a write made in time');
      await s.close();
    });

    it('an onOutput that throws loses no output: the rest are handed over, then the pump rejects', async () => {
      const s = await open();
      const list = await openWatchList(s, 0);
      for (const call of [1, 2, 3]) list.addNew(call, { model: 'job', request: {}, idempotencyKey: `k${call}` });
      const seen = [];
      const bug = new Error('a bug in the handler');
      const onOutput = (o) => {
        seen.push([o.type, o.call]);
        if (seen.length === 1) throw bug;
      };
      await assert.rejects(pump(list, s, onOutput), (e) => e === bug);
      assert.deepEqual(
        seen,
        [
          ['create', 1],
          ['create', 2],
          ['create', 3],
        ],
        'every submit handed over',
      );
      // Each call goes on: its answer is taken, and the next pump hands over what follows.
      list.handle(10, 2, { type: 'job_created', job: { id: 'j2', status: 'queued' } });
      const next = [];
      await pump(list, s, (o) => next.push(o.type));
      assert.ok(next.includes('call'), JSON.stringify(next));
      assert.ok(list.pollTimeout !== undefined, 'a poll is armed');
      list.free();
      await s.close();
    });

    it('a host restarted under its owner id takes its calls back at once; renew alone does not', async () => {
      const s = await open();
      const h1 = { owner: 'h1', leaseMs: 1000 };
      const first = await openWatchList(s, 0, { lease: h1 });
      first.addNew(1, { model: 'job', request: {}, idempotencyKey: 'k1' });
      await pump(first, s, () => {}, { ...h1, now: 0 });
      first.free(); // h1 dies, its lease live until 1000
      // Back under the same id: a renew extends a lease whose call it no longer has loaded,
      // and a claim takes no live lease, its own or not.
      assert.equal(await s.renew({ ...h1, now: 100 }), 1);
      assert.deepEqual(await s.claim({ ...h1, now: 200 }), []);
      const list = await openWatchList(s, 300, { lease: h1 });
      assert.equal(list.size, 1, 'opening ends the old leases of its id and claims the call back');
      const [row] = await s.list();
      assert.deepEqual([row.owner, row.leaseUntil], ['h1', 1300]);
      assert.deepEqual(await s.claim({ owner: 'h2', now: 400, leaseMs: 1000 }), [], 'and holds it again');
      list.free();
      await s.close();
    });

    it('closes once; a call after close is a coded error; unknown options are named', async () => {
      const s = await open();
      await s.close();
      await s.close();
      const closed = (e) => e instanceof StoreError && e.code === 'closed';
      await assert.rejects(s.load(), closed);
      await assert.rejects(s.write([saved(1, 1)], []), closed);
      await assert.rejects(s.claim({ owner: 'h', now: 0, leaseMs: 1 }), closed);
      await assert.rejects(s.renew({ owner: 'h', now: 0, leaseMs: 1 }), closed);
      const t = await open();
      const named = (re) => (e) => e instanceof StoreError && e.code === 'invalid_input' && re.test(e.message);
      await assert.rejects(
        openWatchList(t, 0, { owner: 'h', leaseMs: 1000 }),
        named(/^openWatchList: unknown option "owner" \(inside lease: \{ lease: \{ owner, leaseMs \} \}\)/),
      );
      await assert.rejects(openWatchList(t, /** @type {any} */ (new Date())), named(/^now: /));
      await assert.rejects(
        t.claim({ owner: 'h', now: 0, leaseMs: 1, limt: 5 }),
        named(/^claim: unknown option "limt"/),
      );
      await t.close();
    });

    it('renews live leases and releases', async () => {
      const s = await open();
      await s.write([saved(1, 1, { wake: 0 })], []);
      await s.claim({ owner: 'h1', now: 0, leaseMs: 100 });
      assert.equal(await s.renew({ owner: 'h1', now: 70, leaseMs: 100 }), 1);
      assert.deepEqual(await s.claim({ owner: 'h2', now: 150, leaseMs: 100 }), [], 'renewed until 170');
      assert.equal(await s.release([1], 'h2'), 0, 'only the owner releases');
      assert.equal(await s.release([1], 'h1'), 1);
      assert.deepEqual(calls(await s.claim({ owner: 'h2', now: 151, leaseMs: 100 })), [1]);
      assert.equal(await s.renew({ owner: 'h2', now: 226, leaseMs: 100 }), 0, 'in its margin (R-10)');
      await s.close();
    });

    it('runs a watch list: intent written before the create, a lost lease unloads the call', async () => {
      const s = await open();
      const h1 = { owner: 'h1', leaseMs: 1000 };
      const list = await openWatchList(s, 0, { lease: h1 });
      assert.equal(list.size, 0);
      list.addNew(1, { model: 'job', request: { prompt: 'a' }, idempotencyKey: 'k1' });
      const outs = [];
      let written = false;
      const lost = await pump(
        list,
        {
          async write(sv, rm, l) {
            const refused = await s.write(sv, rm, l);
            written = true;
            return refused;
          },
        },
        (o) => outs.push([o.type, o.call, o.resend, written]),
        { ...h1, now: 0 },
      );
      assert.deepEqual(lost, []);
      assert.deepEqual(outs, [['create', 1, false, true]], 'the create is released after its record is written');
      const [row] = await s.list();
      assert.deepEqual([row.call, row.owner, row.leaseUntil], [1, 'h1', 1000]);
      assert.match(row.text, /"k1"/, 'the record holds the idempotency key (R-1)');
      assert.deepEqual(await s.claim({ owner: 'h2', now: 500, leaseMs: 1000 }), []);
      // h1 stalls; h2 takes the call over and reconciles with the same key.
      const other = await openWatchList(s, 2000, { lease: { owner: 'h2', leaseMs: 1000 } });
      assert.equal(other.size, 1);
      const outs2 = [];
      await pump(other, s, (o) => outs2.push(o), { owner: 'h2', now: 2000, leaseMs: 1000 });
      assert.deepEqual(
        outs2.map((o) => [o.type, o.call, o.resend, o.intent.idempotencyKey]),
        [['create', 1, true, 'k1']],
      );
      // The stalled host gives the call up: its delete is refused, the record stays with h2.
      list.remove(1);
      assert.deepEqual(await pump(list, s, () => assert.fail('no output'), { ...h1, now: 2100 }), [1]);
      assert.equal(list.size, 0);
      assert.deepEqual(
        (await s.list()).map((r) => [r.call, r.owner]),
        [[1, 'h2']],
      );
      await s.close();
    });
  });
}

test('the watch list keeps the lifetimes of every class: free() twice, freed, unbound', () => {
  const list = new WatchList();
  const drain = list.drain;
  assert.throws(() => drain(), { code: 'unbound' });
  list.free();
  list.free();
  assert.throws(() => list.drain(), { code: 'freed' });
  assert.throws(() => list.size, { code: 'freed' });
  assert.throws(() => list.addNew(1, { model: 'job', request: {}, idempotencyKey: 'k' }), { code: 'freed' });
  assert.throws(
    () => WatchList.restore('not a snapshot'),
    (e) => typeof e.code === 'string' && e instanceof Error,
  );
});

test('readJobAnswer: Sume Open API answers as the inputs a watch list takes', () => {
  const read = (answer) => readJobAnswer(answer, 1000);
  const created = read({
    request: 'submit',
    status: 200,
    body: { data: { request_id: 'job_1', sume_status: 'queued' } },
  });
  assert.deepEqual(created, { type: 'job_created', job: { id: 'job_1', status: 'queued' } });
  // nsfw settles failed, with the reason in the error body (D-3, D-4).
  const nsfw = read({ request: 'status', handle: 'job_1', status: 200, body: { data: { sume_status: 'nsfw' } } });
  assert.deepEqual([nsfw.type, nsfw.job.status, nsfw.job.error.code], ['job_polled', 'failed', 'content_policy']);
  const late = read({
    request: 'cancel',
    handle: 'job_1',
    status: 409,
    body: { error: { code: 'job_generation_already_started', message: 'started', details: { cancelable: false } } },
  });
  assert.deepEqual(late, {
    type: 'cancel_answered',
    answer: { kind: 'job_error', httpStatus: 409, code: 'job_generation_already_started', cancelable: false },
  });
  const slow = read({
    request: 'status',
    handle: 'job_1',
    status: 429,
    headers: [['retry-after', '2']],
    body: { error: { code: 'rate_limit_exceeded', message: 'slow down' } },
  });
  assert.deepEqual(slow, {
    type: 'request_failed',
    request: 'get',
    failure: { kind: 'http', status: 429, code: 'rate_limit_exceeded', retryAfterMs: 2000 },
  });
  assert.deepEqual(read({ request: 'status', handle: 'job_1', status: 0 }).failure, { kind: 'transport' });
  // A submit the API refused is admission's to decide; one with no answer, or a proxy's page
  // instead, may have made the job: unanswered, sent again with its key.
  assert.throws(() => read({ request: 'submit', status: 402, body: { error: { code: 'insufficient_credits' } } }), {
    code: 'invalid_input',
    message: /^invalid input: request: the API refused the submit: it made no job/,
  });
  assert.deepEqual(read({ request: 'submit', status: 0 }), { type: 'create_unanswered' });
  assert.deepEqual(read({ request: 'submit', status: 502, body: null }), { type: 'create_unanswered' });
  assert.throws(() => read({ request: 'submit', status: 503, body: { error: { code: 'service_unavailable' } } }), {
    message: /refused the submit/,
  });
  assert.throws(() => read({ request: 'status', handle: 'job_1', status: 200, retry: 1 }), {
    code: 'malformed',
    message: /unknown key "retry"/,
  });
  // The inputs go into a watch list as they are: the 409 after a press shows too late.
  const list = new WatchList({ durable: false });
  list.addHandle(0, 1, 'job', 'job_1', { poll: { jitter: 'none' } });
  list.handle(5, 1, { type: 'job_polled', job: { id: 'job_1', status: 'queued' } });
  list.handle(10, 1, { type: 'cancel_pressed' });
  list.handle(20, 1, late);
  const outs = list
    .drain()
    .filter((o) => o.type === 'call')
    .map((o) => o.output);
  assert.ok(
    outs.some((o) => o.type === 'button' && o.state === 'too_late'),
    JSON.stringify(outs),
  );
  list.free();
});

test('calls added together draw their own jitter seeds and do not poll together; a given seed is kept', () => {
  const firstPoll = (config) => {
    const list = new WatchList({ durable: false });
    for (let c = 1; c <= 6; c++) {
      list.addNew(c, { model: 'job', request: {}, idempotencyKey: `k${c}` }, config);
      list.handle(0, c, { type: 'job_created', job: { id: `j${c}`, status: 'queued' } });
    }
    const wakes = [1, 2, 3, 4, 5, 6].map((c) => list.saveCall(c).nextWakeAt);
    list.free();
    return wakes;
  };
  const drawn = firstPoll(undefined);
  assert.ok(new Set(drawn).size > 1, `every call polls at ${drawn[0]}`);
  const given = firstPoll({ seed: 42 });
  assert.equal(new Set(given).size, 1, 'one seed given: one schedule');
  assert.deepEqual(firstPoll({ seed: 42 }), given, 'and it replays');
});

test('a misspelt key is told the key it slipped from, in every input of the watch list and store', async () => {
  assert.throws(() => new WatchList({ durabel: true }), {
    code: 'malformed',
    message: 'malformed argument: config: unknown key "durabel" (did you mean "durable"?)',
  });
  // A misspelt required member: the reader stops at the missing one, and says which key it was.
  const list = new WatchList({ durable: false });
  list.addHandle(0, 6, 'job', 'j');
  assert.throws(() => list.handle(5, 6, { type: 'job_created', job: { id: 'j', stauts: 'queued' } }), {
    code: 'malformed',
    message: 'malformed argument: input: job: missing field `status` (is "stauts" it, misspelt?)',
  });
  list.free();
  await assert.rejects(() => sqliteStore(), {
    code: 'invalid_input',
    message: "sqliteStore: path must be the database file's path (or ':memory:'), got undefined",
  });
  const store = await sqliteStore(':memory:');
  await assert.rejects(() => openWatchList(store, 1, { lease: { owner: 'a', leaseMS: 3000 } }), {
    code: 'invalid_input',
    message:
      'openWatchList: lease: unknown option "leaseMS" (did you mean "leaseMs"?); expected one of owner, leaseMs, limit',
  });
  await store.close();
});

test('the watch list speaks camelCase, names an unknown key and carries the intent as it is', () => {
  const malformed = (key) => (e) => e.code === 'malformed' && e.message.includes(key);
  assert.throws(() => new WatchList({ max_create_resends: 1 }), malformed('max_create_resends'));
  const list = new WatchList({ maxCreateResends: 1 });
  assert.throws(
    () => list.addNew(1, { model: 'job', request: {}, idempotency_key: 'k' }),
    malformed('idempotency_key'),
  );
  assert.equal(list.size, 0, 'nothing added');
  // The tracker configuration is read as every entry point reads it (pkg/config.js).
  const intent = { model: 'job', request: {}, idempotencyKey: 'k' };
  assert.throws(() => list.addNew(1, intent, { poll: { capMS: 1 } }), {
    code: 'invalid_config',
    message:
      'invalid configuration: poll.capMS: unknown key (did you mean "capMs"?); expected one of initialMs, multiplierPercent, capMs, jitter, minIntervalMs, maxPolls, followServerInterval',
  });
  assert.throws(() => list.addHandle(0, 2, 'job', 'job_2', { seed: 2 ** 53 }), { code: 'invalid_config' });
  assert.throws(() => list.adoptHandle(0, 1, 'job_1', 7), { code: 'malformed' });
  assert.equal(list.size, 0, 'nothing added');
  list.addNew(1, { model: 'job', request: { snake_key: 1 }, idempotencyKey: 'k' });
  assert.deepEqual(list.drain(), [{ type: 'persist', call: 1 }]);
  const saved = list.saveCall(1);
  assert.deepEqual(Object.keys(saved).sort(), ['call', 'done', 'model', 'nextWakeAt', 'text', 'version']);
  list.persisted(1, saved.version);
  const [create] = list.drain();
  assert.deepEqual(create.intent, { model: 'job', request: { snake_key: 1 }, idempotencyKey: 'k' });
  assert.throws(
    () => list.handle(0, 1, { type: 'job_created', job: { id: 'j', status: 'queued', extra_key: 1 } }),
    malformed('job.extra_key'),
  );
  list.free();
});

const dirs = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

if (hasSqlite) {
  let n = 0;
  const dir = mkdtempSync(join(tmpdir(), 'longcall-sqlite-'));
  dirs.push(dir);
  contract('sqlite', () => sqliteStore(join(dir, `s${n++}.db`)));
  it('sqlite store: an unknown option is named; a file that is no database names its path', async () => {
    await assert.rejects(
      sqliteStore(join(dir, 'x.db'), /** @type {any} */ ({ tabel: 'x' })),
      (e) =>
        e instanceof StoreError &&
        e.code === 'invalid_input' &&
        /unknown option "tabel" \(did you mean "table"\?\)/.test(e.message),
    );
    const notDb = join(dir, 'not-a-db.txt');
    writeFileSync(notDb, 'x'.repeat(4096));
    await assert.rejects(
      sqliteStore(notDb),
      (e) =>
        e instanceof StoreError &&
        e.code === 'cannot_open' &&
        e.message.includes(notDb) &&
        /not a database/.test(e.message),
    );
  });
  it('sqlite store: a file it cannot open is a coded error that names the path', async () => {
    const path = join(dir, 'no-such-folder', 'w.db');
    await assert.rejects(
      sqliteStore(path),
      (e) => e instanceof StoreError && e.code === 'cannot_open' && e.message.includes(path) && e.cause != null,
    );
  });
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

  it('three hosts claiming 300 due calls at once share them without overlap', async (t) => {
    const table = 'fleet';
    const seed = await pgStore({ connectionString: pgServer.url, table });
    await seed.write(
      Array.from({ length: 300 }, (_, i) => saved(i, 1, { wake: i })),
      [],
    );
    const hosts = await Promise.all(['a', 'b', 'c'].map(() => pgStore({ connectionString: pgServer.url, table })));
    const claimed = new Map();
    const t0 = performance.now();
    await Promise.all(
      hosts.map(async (h, i) => {
        for (;;) {
          const got = await h.claim({ owner: `h${i}`, now: 1000, leaseMs: 60_000, limit: 7 });
          if (got.length === 0) break;
          for (const r of got) {
            assert.equal(claimed.has(r.call), false, `${r.call} claimed twice`);
            claimed.set(r.call, i);
          }
        }
      }),
    );
    const ms = performance.now() - t0;
    assert.equal(claimed.size, 300);
    assert.equal(new Set(claimed.values()).size, 3, 'every host got work');
    // A figure, not an assertion: claims per second with 3 hosts, 7 calls per claim.
    t.diagnostic(`3 hosts claimed 300 calls in ${ms.toFixed(0)} ms: ${((300 / ms) * 1000).toFixed(0)} claims/s`);
    for (const h of [seed, ...hosts]) await h.close();
  });

  it('a host killed with SIGKILL loses its leases after the lease time; another continues', async () => {
    const table = 'killed';
    const s = await pgStore({ connectionString: pgServer.url, table });
    await s.write(
      Array.from({ length: 20 }, (_, i) => saved(i, i + 1, { wake: 0 })),
      [],
    );
    const child = fork(join(PKG, 'test', 'support', 'store-claimer.mjs'), [pgServer.url, table, 'victim'], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const claimedByVictim = await new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`claimer exited ${code} before claiming`)));
    });
    assert.equal(claimedByVictim, 20);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    assert.deepEqual(await s.claim({ owner: 'survivor', now: 1000, leaseMs: 1000 }), [], 'leases live until 6000');
    const taken = await s.claim({ owner: 'survivor', now: 6000, leaseMs: 1000, limit: 100 });
    assert.equal(taken.length, 20);
    assert.ok(
      taken.every((r) => r.text === `r${r.call}v${r.call + 1}`),
      'continues from the last record',
    );
    await s.close();
  });
});

// ---- a host killed mid-run and restarted on its SQLite file ----------------------------------
//
// A host process (Node 22, for `node:sqlite`) watches 200 calls over HTTP on loopback: paid jobs
// on a job server (the core's `JobBook`) and MCP tasks of both revisions on the reference tasks
// server, a quarter of them asking the user for input, a fifth cancelled by a scripted user
// (test/support/store-host.mjs). It is killed with SIGKILL mid-run and started again on the same
// file. From the servers' own counters and the file: every call reported exactly once with the
// outcome the server holds, no `tools/call` twice and one job per idempotency key (only jobs
// without a stored handle submitted again), no poll closer to the last than its floor (across
// the kill and the restart), no prompt shown twice, every press's cancel delivered, no record
// left behind. Skipped (with the reason) when no Node 22 is found: run `bash
// tests/interop/install.sh`, or set LONGCALL_NODE22.

const CALLS = 200;
const JOB_CALLS = Array.from({ length: CALLS }, (_, c) => c).filter((c) => kindOf(c).model === 'job');
// The floors between two polls of one call (store-host.mjs's global minimum for a job, the
// tasks server's interval for a task), less what loopback transit can move an arrival by.
const FLOOR_MS = 100;
const TASK_FLOOR_MS = 200;
const TRANSIT_MS = 15;
const OWNER = { workspace: 'w', member: 'm' };
const RUN_MS = 1000; // how long a job runs once started (10 at a time: the 50 take 5 s)

/** The job API on loopback: submit (idempotency key), get, cancel; a worker finishes jobs. */
function jobServer() {
  const book = new JobBook({ concurrencyPerWorkspace: 10, queueLimitPerWorkspace: 1000, costPerJob: 0 });
  const counters = { submits: 0, created: 0, gets: 0, keys: new Map(), polls: new Map(), cancels: new Set() };
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
    req.on('data', (c) => {
      body += c;
    });
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
        return a.ok ? send(202, a.value) : send(a.error.httpStatus, { error: a.error });
      }
      const c = /^\/jobs\/([^/]+)\/cancel$/.exec(req.url ?? '');
      if (req.method === 'POST' && c) {
        counters.cancels.add(c[1]);
        const a = book.cancel(now, OWNER, c[1], JSON.parse(body || '{}').idempotency_key ?? null);
        return a.ok ? send(200, a.value) : send(a.error.httpStatus, { error: a.error });
      }
      const m = /^\/jobs\/([^/]+)$/.exec(req.url ?? '');
      if (req.method === 'GET' && m) {
        counters.gets++;
        counters.polls.set(m[1], [...(counters.polls.get(m[1]) ?? []), performance.now()]);
        const a = book.get(OWNER, m[1]);
        return a.ok ? send(200, a.value) : send(a.error.httpStatus, { error: a.error });
      }
      send(404, { error: { code: 'not_found' } });
    });
  });
  return { book, counters, server, worker };
}

function host(base, file, mcpUrl) {
  const child = spawn(
    NODE22,
    ['--no-warnings', join(PKG, 'test/support/store-host.mjs'), base, file, String(CALLS), mcpUrl],
    { cwd: PKG, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const exited = new Promise((res) => child.on('exit', (code, signal) => res({ code, signal })));
  return { child, exited };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The closest two times of one handle, and which handle. */
function closest(byHandle) {
  let min = Number.POSITIVE_INFINITY;
  let at = null;
  for (const [handle, times] of byHandle) {
    for (let i = 1; i < times.length; i++) {
      if (times[i] - times[i - 1] < min) {
        min = times[i] - times[i - 1];
        at = handle;
      }
    }
  }
  return { min, at };
}

test('a host killed with SIGKILL mid-run and restarted on its SQLite file loses nothing', {
  skip: !existsSync(NODE22) && `no Node 22 at ${NODE22}`,
}, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'longcall-store-'));
  const file = join(dir, 'watches.db');
  const { book, counters, server, worker } = jobServer();
  const tasks = createTasksServer({ serve2025: true });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  const mcpUrl = await tasks.listen(0);
  try {
    // Killed mid-run: once the host polled half of its tasks and a tenth of its jobs finished
    // (so most creates are answered and recorded; some are not), or, on a slow machine, once half
    // its jobs finished; long before the end either way.
    const first = host(base, file, mcpUrl);
    const t0 = Date.now();
    const completed = () => book.count(OWNER.workspace, 'completed');
    const midRun = () =>
      (tasks.counters.polls.size >= (CALLS - JOB_CALLS.length) / 2 && completed() >= JOB_CALLS.length / 10) ||
      completed() >= JOB_CALLS.length / 2;
    while (!midRun() && Date.now() - t0 < 20_000) await sleep(2);
    first.child.kill('SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');
    const doneAtKill = completed();
    assert.ok(doneAtKill > 0 && doneAtKill < JOB_CALLS.length, `killed mid-run (${doneAtKill} jobs done)`);
    const getsAtKill = counters.gets;
    const submitsAtKill = counters.submits;
    // What the file holds at the kill: jobs with a handle must never be submitted again; jobs
    // with only an intent, or never recorded, go again with their key (the one legal re-send).
    // An MCP call with only an intent is never created again.
    const atKill = await readFile(file);
    const handleOf = (r) => JSON.parse(r.record).state.entry.tracker.handle;
    const isJob = (call) => kindOf(Number(call)).model === 'job';
    const reportedAtKill = new Set(atKill.reported.map((r) => r.call));
    const jobsWithHandle = atKill.records.filter(
      (r) => isJob(r.call) && handleOf(r) && !reportedAtKill.has(r.call),
    ).length;
    const intentOnly = new Set(atKill.records.filter((r) => !isJob(r.call) && !handleOf(r)).map((r) => r.call));
    assert.ok(jobsWithHandle > 0, 'the store held handles at the kill');
    const resend = JOB_CALLS.filter((c) => !reportedAtKill.has(c)).length - jobsWithHandle;

    const second = host(base, file, mcpUrl);
    let limit;
    const done = await Promise.race([
      second.exited,
      new Promise((r) => {
        limit = setTimeout(() => r({ timeout: true }), 60_000);
      }),
    ]);
    clearTimeout(limit); // an armed 60 s timer would hold the test process open
    if (done.timeout) second.child.kill('SIGKILL');
    assert.deepEqual(done, { code: 0, signal: null }, 'the restarted host finishes');

    const end = await readFile(file);
    // Every call reported once, with the outcome its server holds.
    assert.equal(end.reported.length, CALLS, 'every call reported');
    const expectedJob = { completed: 'succeeded', canceled: 'cancelled' };
    const expectedTask = { completed: 'succeeded', cancelled: 'cancelled' };
    const outcomes = {};
    for (const r of end.reported) {
      const model = kindOf(r.call).model;
      outcomes[`${model} ${r.outcome}`] = (outcomes[`${model} ${r.outcome}`] ?? 0) + 1;
      if (r.outcome === 'create_unanswered') {
        assert.ok(intentOnly.has(r.call), `call ${r.call}: unanswered only with its intent alone in the file`);
        continue;
      }
      const want =
        model === 'job'
          ? expectedJob[book.peek(r.handle)?.job.status]
          : expectedTask[(model === 'task-2025' ? tasks.registry2025 : tasks.registry).peek(r.handle)?.status];
      assert.equal(r.outcome, want, `call ${r.call}: the outcome the server holds`);
    }
    // One job per idempotency key: re-sends with the same key got the same job back.
    assert.equal(counters.created, JOB_CALLS.length);
    assert.equal(book.size, JOB_CALLS.length);
    for (const call of JOB_CALLS) assert.ok(counters.keys.get(`key-${call}`) >= 1, `key-${call} submitted`);
    assert.equal(counters.keys.get(null), undefined, 'no submit without a key');
    assert.ok(counters.gets > getsAtKill, 'the restarted host polled');
    assert.equal(counters.submits - submitsAtKill, resend, 'only jobs without a stored handle were submitted again');
    // No tools/call twice (the tasks server's own count, by the call each names).
    const toolCalls = new Map();
    for (const c of tasks.counters.toolCalls) {
      const name = c.arguments.label ?? c.arguments.filename;
      toolCalls.set(name, (toolCalls.get(name) ?? 0) + 1);
    }
    assert.ok(
      [...toolCalls.values()].every((n) => n === 1),
      'no tools/call sent twice',
    );
    // No poll closer than its floor, across the kill and the restart.
    const jobGap = closest(counters.polls);
    assert.ok(jobGap.min >= FLOOR_MS - TRANSIT_MS, `closest two polls of one job: ${jobGap.min.toFixed(1)} ms`);
    const taskGap = closest(tasks.counters.polls);
    assert.ok(
      taskGap.min >= TASK_FLOOR_MS - TRANSIT_MS,
      `closest two polls of one task: ${taskGap.min} ms (${tasks.counters.polls.get(taskGap.at)})`,
    );
    // No prompt shown twice; every press's cancel reached its server.
    const asks = end.asks.map((a) => `${a.call}/${a.key}`);
    assert.ok(asks.length > 0, 'tasks asked for input');
    assert.equal(new Set(asks).size, asks.length, 'no input key asked of the user twice');
    const handles = new Map(end.reported.map((r) => [r.call, r.handle]));
    assert.ok(end.presses.length > 0, 'the user pressed cancel');
    for (const { call } of end.presses) {
      const h = handles.get(call);
      assert.ok(
        counters.cancels.has(h) || tasks.counters.cancels.has(h),
        `call ${call}: its cancel reached the server`,
      );
    }
    assert.equal(end.watches, 0, 'no record left behind');
    t.diagnostic(
      `sqlite host: ${CALLS} calls, killed with ${doneAtKill} jobs done; ${resend} same-key re-sends, ` +
        `closest polls of one job ${jobGap.min.toFixed(0)} ms, of one task ${taskGap.min} ms, ${asks.length} prompts, ` +
        `${end.presses.length} presses, outcomes ${JSON.stringify(outcomes)}`,
    );
  } finally {
    clearInterval(worker);
    server.close();
    await tasks.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The file as the host left it, read through Node 22 (the test runner may be older). */
function readFile(file) {
  return runNode22(`import { DatabaseSync } from 'node:sqlite';
    const db = new DatabaseSync(${JSON.stringify(file)});
    const all = (sql) => { try { return db.prepare(sql).all(); } catch { return []; } };
    console.log(JSON.stringify({
      records: all('SELECT call, record FROM longcall_watches'),
      reported: all('SELECT call, outcome, handle FROM reports ORDER BY call'),
      asks: all('SELECT call, key FROM asks'),
      presses: all('SELECT call FROM presses'),
      watches: all('SELECT count(*) AS n FROM longcall_watches')[0]?.n ?? 0,
    }));`);
}

async function runNode22(code) {
  const child = spawn(NODE22, ['--no-warnings', '--input-type=module', '-e', code], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c) => {
    out += c;
  });
  await new Promise((r) => child.on('exit', r));
  return JSON.parse(out);
}
