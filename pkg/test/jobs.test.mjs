// longcall/jobs against the reference job server (`longcall serve-jobs`, the release CLI) on
// loopback, on the Open API: a completed job settles with its payload; a cancel while queued is
// refunded; a cancel after generation started is 409, shown too late, then the job completes
// (never "cancelled"); a submit whose answer was lost goes again with the same key and the
// server holds one job; a host restarted from the store mid-watch continues with no second
// submit; created jobs are watched together through `jobs_wait` rounds; a 503 and a 429 on
// submit, `queue_full`, `nsfw` and another key's job; the README's Node examples, run twice
// (examples/job-host.mjs with one intent, examples/job-batch.mjs with one batch), find the same
// jobs and pay once for each; and the
// server's log of all of it passes `longcall check` with no MUST broken. What the server saw is
// read from its own counters (`GET /_counters`). Skipped with the reason when the CLI is not built.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Endpoint } from 'longcall';
import { JobHost, artifactUrl } from '../jobs/index.js';
import { PKG } from './support/paths.mjs';
import { CLI, serveJobs } from './support/serve-jobs.mjs';
import { closedPort } from './support/ports.mjs';

const CONFIG = { poll: { jitter: 'none', initialMs: 150, capMs: 300, minIntervalMs: 100 } };
const CREDITS = 100; // serve-jobs' default per key
const JOB = { model: 'demo-image', kind: 'image' };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

describe('longcall/jobs against longcall serve-jobs', { skip: !existsSync(CLI) && `no CLI at ${CLI}` }, () => {
  let server;
  let base;
  let DIR;
  let LOG; // every exchange, as serve-jobs saw it
  before(async () => {
    DIR = mkdtempSync(join(tmpdir(), 'longcall-jobs-'));
    LOG = join(DIR, 'jobs.jsonl');
    server = serveJobs(['--queue-wait-ms', '500', '--generation-ms', '400', '--max-seconds', '180', '--log', LOG]);
    base = await server.url;
  });
  after(() => {
    server?.child.kill();
    if (DIR) rmSync(DIR, { recursive: true, force: true });
  });

  const counters = async () => (await fetch(`${base}/_counters`)).json();
  /** A host for one API key; `fetch` wraps the real one when a test needs to. */
  const host = (key, options = {}) =>
    new JobHost({ baseUrl: base, headers: { authorization: `Bearer ${key}` }, config: CONFIG, ...options });
  /** Hooks that record what the page would show. */
  const seen = () => {
    const s = { buttons: [], statuses: [], events: [] };
    s.hooks = {
      onButton: (b) => s.buttons.push(b),
      onStatus: (st) => s.statuses.push(st),
      onEvent: (e) => s.events.push(e),
    };
    return s;
  };
  const prompt = (intent) => ({ ...JOB, arguments: { prompt: `a harbour at dawn (${intent})` } });

  test('a completed job settles with the payload the server sent', { timeout: 20_000 }, async () => {
    const s = seen();
    const job = await host('jobs-completed').submit('intent-completed', prompt('completed'), s.hooks);
    const end = await job.settled;
    assert.equal(end.type, 'settled');
    assert.equal(end.outcome, 'succeeded');
    assert.equal(end.status, 'completed');
    assert.match(end.result.result.artifacts[0].url, /^https:\/\//, JSON.stringify(end.result));
    // One reader for both dialects' shapes: the Open API's data object here, a wave's {artifacts}.
    assert.equal(artifactUrl(end.result), end.result.result.artifacts[0].url);
    assert.equal(artifactUrl(end.result.result), end.result.result.artifacts[0].url);
    assert.equal(artifactUrl({ artifacts: [] }), undefined);
    // A cancelled or failed job settles without a result: none, not a throw.
    assert.equal(artifactUrl(undefined), undefined);
    assert.equal(artifactUrl(null), undefined);
    assert.equal(end.result.request_id, job.id);
    assert.deepEqual(s.buttons.at(-1), 'not_applicable');
    // Pressing now is refused by the core, as a rejection: nothing is sent.
    await assert.rejects(
      job.cancel(),
      (e) => e.name === 'JobHostError' && e.code === 'cancel_refused' && e.cause?.code === 'cancel_refused',
    );
  });

  test('the same intent submitted after its job settled: the same job, with its result', {
    timeout: 20_000,
  }, async () => {
    const intent = 'intent-again';
    const first = await host('jobs-again').submit(intent, prompt('again'));
    const end = await first.settled;
    assert.equal(end.outcome, 'succeeded');
    const again = await host('jobs-again').submit(intent, prompt('again'));
    const second = await again.settled;
    assert.equal(again.id, first.id);
    assert.equal(second.outcome, 'succeeded');
    assert.deepEqual(second.result, end.result, 'the result is asked for the finished job (D-10)');
    assert.equal((await counters()).jobs_per_idempotency_key[intent], 1, 'paid once');
  });

  test('a cancel while queued is cancelled and refunded', { timeout: 20_000 }, async () => {
    const s = seen();
    const key = 'jobs-cancel-queued';
    const job = await host(key).submit('intent-cancel-queued', prompt('cancel queued'), s.hooks);
    assert.equal((await job.created).status, 'queued');
    assert.equal(await job.cancel(), 'cancelled', 'the press resolves once the cancel is answered');
    const end = await job.settled;
    assert.equal(end.outcome, 'cancelled');
    assert.equal(end.status, 'canceled');
    assert.deepEqual(s.buttons, ['available', 'requesting', 'cancelled']);
    const c = await counters();
    assert.equal(c.credits[key], CREDITS, 'the credit came back');
    assert.equal(c.jobs[job.id].status, 'canceled');
  });

  // It used to be refused (`no handle to cancel`) while the submit was unanswered.
  test('a cancel pressed while the submit is out waits for the job, then cancels it', { timeout: 20_000 }, async () => {
    const s = seen();
    const job = await host('jobs-cancel-early').submit('intent-cancel-early', prompt('cancel early'), s.hooks);
    const pressed = job.cancel();
    assert.equal(job.id, undefined, 'pressed before the submit was answered');
    assert.equal(await pressed, 'cancelled');
    assert.equal((await job.settled).outcome, 'cancelled');
  });

  test('a cancel after generation started: 409, too late, then completed', { timeout: 20_000 }, async () => {
    const s = seen();
    // The host's status polls wait from the start until the press was answered: the press
    // reaches the server after generation started while the host still last saw `queued` (the
    // submit's answer), as when the person presses between two polls.
    const held = Promise.withResolvers();
    const wrapped = async (url, init) => {
      if (String(url).endsWith('/status')) await held.promise;
      return fetch(url, init);
    };
    const job = await host('jobs-late', { fetch: wrapped }).submit('intent-late', prompt('late'), s.hooks);
    const { id } = await job.created;
    assert.equal(job.button, 'available', `still ${job.status}`);
    while (!(await counters()).jobs[id].started_at_ms) await sleep(50);
    assert.equal(await job.cancel(), 'too_late');
    assert.equal(job.button, 'too_late');
    held.resolve();
    const end = await job.settled;
    assert.equal(end.outcome, 'succeeded');
    assert.deepEqual(s.buttons.slice(0, 3), ['available', 'requesting', 'too_late']);
    assert.ok(!s.buttons.includes('cancelled'), s.buttons.join(' -> '));
    assert.ok(!s.statuses.includes('canceled'), s.statuses.join(' -> '));
    assert.equal((await counters()).credits['jobs-late'], CREDITS - 1, 'the job ran and was billed');
  });

  test('a lost submit answer is reconciled with the same key: one job', { timeout: 20_000 }, async () => {
    const s = seen();
    const sent = [];
    let lost = false;
    const wrapped = async (url, init) => {
      const r = await fetch(url, init);
      if (String(url).endsWith('/generate')) {
        sent.push(init.headers['Idempotency-Key']);
        if (!lost) {
          lost = true; // the server created the job; its answer never reached the host
          throw new TypeError('fetch failed');
        }
      }
      return r;
    };
    const intent = 'intent-lost-submit';
    const job = await host('jobs-lost', { fetch: wrapped }).submit(intent, prompt('lost'), s.hooks);
    const end = await job.settled;
    assert.equal(end.outcome, 'succeeded');
    assert.deepEqual(sent, [intent, intent], 'sent twice, with the intent key both times');
    assert.ok(
      s.events.some((e) => e.type === 'admission' && e.advice.advice === 'reconcile'),
      JSON.stringify(s.events),
    );
    assert.equal((await counters()).jobs_per_idempotency_key[intent], 1);
  });

  test('a host restarted from the store mid-watch: no second submit', { timeout: 20_000 }, async () => {
    const store = new Map();
    const intent = 'intent-restart';
    const first = await host('jobs-restart', { store }).submit(intent, prompt('restart'));
    const { id } = await first.created;
    first.close(); // the process ends here
    const held = first.button;
    assert.deepEqual(await first.settled, { type: 'stopped', reason: 'host_stopped' }, 'settled hears of the close');
    await assert.rejects(first.cancel(), { name: 'JobHostError', code: 'closed' });
    assert.ok(store.has(intent), 'the record stays in the store');
    const before = (await counters()).submits;
    const s = seen();
    const second = await host('jobs-restart', { store }).submit(intent, prompt('restart'), s.hooks);
    const end = await second.settled;
    assert.equal(end.outcome, 'succeeded');
    assert.equal(second.id, id);
    assert.equal(s.buttons[0], held, 'the restored job shows the button the core held');
    const c = await counters();
    assert.equal(c.submits, before, 'the restarted host sent no submit');
    assert.equal(c.jobs_per_idempotency_key[intent], 1);
    assert.equal(store.size, 0, 'the record goes once the job settled');
  });

  test('a store that refuses the record: the submit is not sent', { timeout: 20_000 }, async () => {
    const refusing = {
      get: () => undefined,
      set: () => Promise.reject(new Error('disk full')),
      delete: () => {},
    };
    const before = (await counters()).submits;
    const heard = [];
    const job = await host('jobs-store-refused', { store: refusing }).submit('intent-refused', prompt('refused'), {
      onStopped: (e) => heard.push(e),
    });
    const end = await job.settled;
    assert.deepEqual(heard, [end], 'onStopped hears it, as it hears every other stop');
    assert.equal(end.type, 'stopped');
    assert.equal(end.reason, 'host_stopped');
    assert.equal(end.error.message, 'disk full');
    await sleep(200);
    assert.equal((await counters()).submits, before, 'nothing left without its record');
  });

  test('a submit nobody answers stops; the same intent later finds one job', { timeout: 30_000 }, async () => {
    const store = new Map();
    const intent = 'intent-unanswered';
    // Nothing listens there: every try of the submit fails to connect.
    const dead = new JobHost({ baseUrl: `http://127.0.0.1:${await closedPort()}`, store, config: CONFIG });
    const first = await dead.submit(intent, prompt('unanswered'));
    const end = await first.settled;
    assert.equal(end.type, 'stopped');
    assert.equal(end.reason, 'create_unanswered');
    assert.ok(end.cause instanceof Error, 'what fetch threw is the cause');
    assert.equal(end.cause.message, 'fetch failed');
    assert.equal(end.cause.cause?.code, 'ECONNREFUSED');
    assert.equal(store.size, 0, 'nothing to resume: the application submits the intent again');
    const again = await host('jobs-unanswered', { store }).submit(intent, prompt('unanswered'));
    assert.equal((await again.settled).outcome, 'succeeded');
    assert.equal((await counters()).jobs_per_idempotency_key[intent], 1);
  });

  test('a stop before the submit was answered waits for it: the job it names is kept (E-62)', {
    timeout: 20_000,
  }, async () => {
    const store = new Map();
    const intent = 'intent-stop-early';
    const held = Promise.withResolvers();
    const wrapped = async (url, init) => {
      if (String(url).endsWith('/generate')) await held.promise;
      return fetch(url, init);
    };
    const first = await host('jobs-stop-early', { store, fetch: wrapped }).submit(intent, prompt('stop-early'));
    first.stop(); // the submit is on its way
    const early = await Promise.race([first.settled.then(() => 'settled'), sleep(150).then(() => 'waiting')]);
    assert.equal(early, 'waiting', "the stop waits for the submit's answer");
    held.resolve();
    assert.deepEqual(await first.settled, { type: 'stopped', reason: 'host_stopped' });
    const { id } = await first.created;
    assert.ok(id, 'the job the submit made is known');
    assert.ok(store.has(intent), 'the job goes on: its record stays');
    const again = await host('jobs-stop-early', { store }).resume(intent);
    assert.equal((await again.settled).outcome, 'succeeded');
    assert.equal(again.id, id);
    assert.equal((await counters()).jobs_per_idempotency_key[intent], 1, 'one job for the intent');
  });

  test('a cancel pressed while the submit was out survives a restart: the job is cancelled (E-65)', {
    timeout: 20_000,
  }, async () => {
    const store = new Map();
    const intent = 'intent-cancel-restart';
    // The first process's submit never reaches the server: the process dies with it out.
    const never = async (url, init) => {
      if (String(url).endsWith('/generate')) return new Promise(() => {});
      return fetch(url, init);
    };
    const first = await host('jobs-cancel-restart', { store, fetch: never }).submit(intent, prompt('cancel-restart'));
    const pressed = first.cancel();
    await sleep(20);
    assert.match(store.get(intent), /"cancel_asked":true/, 'the press is in the record');
    first.close(); // the process exits: its record stays
    assert.equal(await pressed, 'unavailable', 'this process never learned the job');
    const buttons = [];
    const again = await host('jobs-cancel-restart', { store }).resume(intent, { onButton: (s) => buttons.push(s) });
    const end = await again.settled;
    assert.equal(end.outcome, 'cancelled', 'pressed once the resumed submit named the job');
    assert.deepEqual(buttons, ['unavailable', 'requesting', 'cancelled'], 'never `available` after the press');
    const c = await counters();
    assert.equal(c.jobs_per_idempotency_key[intent], 1, 'one job for the intent');
    assert.equal(c.jobs[again.id].status, 'canceled');
    assert.equal(c.credits['jobs-cancel-restart'], CREDITS, 'not billed');
  });

  test('a record stopped before any job id (as earlier versions kept it) reads as no record', async () => {
    const ep = Endpoint.submitJob({ ...prompt('old'), idempotencyKey: 'intent-old' }, CONFIG, {
      jobDialect: 'open_api',
    });
    ep.pollEvents(); // the submit goes out...
    ep.stopWatching(Date.now()); // ...and watching is asked to stop before its answer
    // What earlier versions kept: watching stopped at once, with no job id.
    const old = ep.snapshot().replace('"stopped":null', '"stopped":"host_stopped"').replace(',"stop_asked":true', '');
    assert.notEqual(old, ep.snapshot());
    const store = new Map([['intent-old', old]]);
    ep.free();
    assert.equal(await host('jobs-old', { store }).resume('intent-old'), null);
    assert.equal(store.size, 0, 'the record that could never be watched is gone');
  });

  test('host.close() ends every loop on the host, keeps the records, refuses what comes after', {
    timeout: 20_000,
  }, async () => {
    const store = new Map();
    const first = host('jobs-host-close', { store });
    const a = await first.submit('intent-close-a', prompt('close-a'));
    const b = await first.submit('intent-close-b', prompt('close-b'));
    await Promise.all([a.created, b.created]);
    const before = (await counters()).submits;
    first.close();
    for (const job of [a, b]) assert.deepEqual(await job.settled, { type: 'stopped', reason: 'host_stopped' });
    assert.deepEqual([...store.keys()].sort(), ['intent-close-a', 'intent-close-b'], 'the records stay');
    await assert.rejects(first.submit('intent-close-c', prompt('close-c')), { name: 'JobHostError', code: 'closed' });
    assert.throws(() => first.watch('job_1'), { code: 'closed' });
    assert.throws(() => first.resume('intent-close-a'), { code: 'closed' });
    assert.throws(() => first.wait([]), { code: 'closed' });
    first.close(); // twice is nothing
    // A new host carries on from the store; nothing is submitted again.
    const second = host('jobs-host-close', { store });
    const ends = await Promise.all(
      ['intent-close-a', 'intent-close-b'].map(async (intent) => (await second.resume(intent))?.settled),
    );
    assert.deepEqual(
      ends.map((e) => e?.outcome),
      ['succeeded', 'succeeded'],
    );
    assert.equal((await counters()).submits, before);
    second.close();
  });

  test('watching stopped, then resumed: the job is watched again, not submitted', { timeout: 20_000 }, async () => {
    const store = new Map();
    const intent = 'intent-stopped';
    const first = await host('jobs-stopped', { store }).submit(intent, prompt('stopped'));
    const { id } = await first.created;
    first.stop();
    assert.deepEqual(await first.settled, { type: 'stopped', reason: 'host_stopped' });
    assert.ok(store.has(intent), 'the job goes on: its record stays');
    const before = (await counters()).submits;
    const second = await host('jobs-stopped', { store }).resume(intent);
    assert.equal((await second.settled).outcome, 'succeeded');
    assert.equal(second.id, id);
    assert.equal((await counters()).submits, before);
    assert.equal(store.size, 0);
  });

  test('an intent whose record is another job is refused, after watching again too; the same job continues (E-66)', {
    timeout: 20_000,
  }, async () => {
    const store = new Map();
    const intent = 'intent-reused';
    const job = { ...JOB, arguments: { prompt: 'a harbour', size: 2 } };
    const first = await host('jobs-reused', { store }).submit(intent, job);
    const { id } = await first.created;
    first.stop(); // watching stops, the job goes on: its record stays
    await first.settled;
    // Watched again on its id, then the process exits at the first status it reads: the record
    // is now the one the watching-again endpoint wrote.
    const rewatched = await host('jobs-reused', { store }).resume(intent, { onStatus: () => rewatched.close() });
    assert.deepEqual(await rewatched.settled, { type: 'stopped', reason: 'host_stopped' });
    const before = (await counters()).requests;
    const other = { ...JOB, arguments: { prompt: 'a lighthouse', size: 2 } };
    await assert.rejects(host('jobs-reused', { store }).submit(intent, other), (e) => {
      assert.equal(e.name, 'JobHostError');
      assert.equal(e.code, 'duplicate');
      assert.match(e.message, /this intent already names another job/);
      assert.equal(e.cause.code, 'duplicate', "the core's refusal is the cause");
      return true;
    });
    await assert.rejects(host('jobs-reused', { store }).submit(intent, { ...job, model: 'demo-video' }), {
      code: 'duplicate',
    });
    assert.equal((await counters()).requests, before, 'nothing was sent for a refused submit');
    assert.ok(store.has(intent), 'the record stays for the job it names');
    // The same job, its arguments written in another order: the record's job, continued, its
    // status told before its button as a live job's are.
    const heard = [];
    const again = await host('jobs-reused', { store }).submit(
      intent,
      { ...JOB, arguments: { size: 2, prompt: 'a harbour' } },
      { onStatus: () => heard.push('status'), onButton: () => heard.push('button') },
    );
    assert.deepEqual(heard.slice(0, 2), ['status', 'button']);
    assert.equal((await again.settled).outcome, 'succeeded');
    assert.equal(again.id, id);
    assert.equal((await counters()).jobs_per_idempotency_key[intent], 1, 'one job for the intent');
  });

  test('the same intent submitted twice at once: one Job, one submit, both sets of hooks', {
    timeout: 20_000,
  }, async () => {
    const key = 'jobs-twice';
    const h = host(key, { store: new Map() });
    const intent = 'intent-twice';
    const heard = [];
    const hooks = (who) => ({
      onButton: (state) => heard.push([who, 'button', state]),
      onSettled: (end) => heard.push([who, 'settled', end.outcome]),
    });
    const before = (await counters()).submits;
    // A double click, or a component mounted twice: both calls before either is answered.
    const [a, b] = await Promise.all([
      h.submit(intent, prompt('twice'), hooks('a')),
      h.submit(intent, prompt('twice'), hooks('b')),
    ]);
    assert.equal(a, b, 'the same Job');
    await assert.rejects(
      h.submit(intent, prompt('another')),
      { code: 'duplicate' },
      'another job under the live intent',
    );
    assert.equal((await a.settled).outcome, 'succeeded');
    assert.equal((await counters()).submits - before, 1, 'one submit went out');
    for (const who of ['a', 'b'])
      assert.ok(
        heard.some((x) => x[0] === who && x[1] === 'settled'),
        `${who} heard the ending`,
      );
    assert.deepEqual(
      heard.filter((x) => x[0] === 'b')[0],
      ['b', 'button', 'unavailable'],
      'b is told the button when it joins',
    );
    // Once it ended, the intent is no longer watched here: a submit finds the job through the key.
    const later = await h.submit(intent, prompt('twice'));
    assert.notEqual(later, a);
    assert.equal((await later.settled).outcome, 'succeeded');
    assert.equal(later.id, a.id);
  });

  test('created jobs watched together through jobs_wait rounds', { timeout: 30_000 }, async () => {
    const h = host('jobs-wave');
    const created = [];
    // One submit at a time, each job's own loop closed once it is created (from there the wave
    // watches it): serve-jobs (tiny_http 0.12) holds a burst of new connections beyond its four
    // idle threads until a kept-alive one closes, seconds later.
    for (let i = 0; i < 10; i++) {
      const job = await h.submit(`intent-wave-${i}`, prompt(`wave ${i}`));
      created.push(await job.created);
      job.close();
    }
    const polls = (await counters()).polls;
    const run = h.wait(created, { waitFor: 'all', timeoutSeconds: 10 });
    const { satisfied, settled, rounds } = await run.done;
    assert.ok(satisfied);
    assert.equal(settled.size, 10);
    for (const [, o] of settled) assert.equal(o.outcome, 'succeeded');
    assert.ok(rounds >= 1);
    assert.ok((await counters()).polls - polls <= 10 * rounds, 'one jobs_wait per round, not a poll per job');
  });

  test('jobs handed to a wave whole: the wave ends each as its own loop would, records included', {
    timeout: 30_000,
  }, async () => {
    const store = new Map();
    const h = host('jobs-wave-handed', { store });
    const told = [];
    const statuses = [];
    const unnamed = await h.submit('intent-handed-late', prompt('handed late'));
    assert.throws(() => h.wait([unnamed]), {
      name: 'JobHostError',
      code: 'invalid_input',
      message: /await job.created/,
    });
    unnamed.close();
    // One submit at a time (serve-jobs, tiny_http, holds a burst of new connections beyond its
    // idle threads), each handed over well before it ends.
    const jobs = [];
    for (let i = 0; i < 3; i++) {
      const job = await h.submit(`intent-handed-${i}`, prompt(`handed ${i}`), {
        onSettled: (end, j) => told.push([j.intent, end.outcome]),
        onStatus: (status, j) => statuses.push([j.intent, status, j.outcome]),
      });
      await job.created;
      jobs.push(job);
    }
    const polls = (await counters()).polls;
    const run = h.wait(jobs, { waitFor: 'all', timeoutSeconds: 10 });
    assert.throws(() => h.wait([jobs[0]]), { code: 'invalid_input', message: /a wave watches it already/ });
    const ends = await Promise.all(jobs.map((j) => j.settled));
    for (const end of ends) assert.equal(end.outcome, 'succeeded');
    const { satisfied, settled, rounds } = await run.done;
    assert.ok(satisfied);
    assert.equal(settled.size, 3);
    assert.deepEqual(
      told.sort(),
      [0, 1, 2].map((i) => [`intent-handed-${i}`, 'succeeded']),
    );
    for (const j of jobs) {
      assert.deepEqual([j.status, j.outcome], ['completed', 'succeeded'], 'what the wave saw, on the job');
      assert.deepEqual(
        statuses.filter(([intent]) => intent === j.intent).at(-1),
        [j.intent, 'completed', 'succeeded'],
        'the outcome is known when the last status is told, as with its own loop',
      );
    }
    assert.ok((await counters()).polls - polls <= 3 * rounds, "the jobs' own loops stopped polling");
    await sleep(20); // the records go once the hooks resolved
    assert.deepEqual([...store.keys()], ['intent-handed-late'], "every settled job's record is gone");
    const again = await h.wait([jobs[0]]).done;
    assert.deepEqual([again.satisfied, again.rounds], [true, 0], 'an ended job counts as settled, nothing sent');
    await assert.rejects(jobs[0].cancel(), { name: 'JobHostError', code: 'cancel_refused' }, 'as for an ended job');
  });

  test('a wave satisfied by one job gives the others back to their own loops', { timeout: 30_000 }, async () => {
    const store = new Map();
    const h = host('jobs-wave-any', { store });
    const first = await h.submit('intent-any-first', prompt('any first'));
    await first.created;
    await sleep(600); // the first job starts well before the second
    const told = [];
    const second = await h.submit('intent-any-second', prompt('any second'), {
      onStatus: (status) => told.push(status),
      onEvent: (e) => told.push(e.type),
    });
    await second.created;
    const run = h.wait([first, second], { waitFor: 'any', timeoutSeconds: 10 });
    const done = await run.done;
    assert.ok(done.satisfied);
    assert.deepEqual([...done.settled.keys()], [first.id]);
    assert.equal((await first.settled).outcome, 'succeeded');
    const end = await second.settled;
    assert.equal(end.outcome, 'succeeded', 'its own loop took it back and watched it to its end');
    assert.deepEqual([second.status, second.outcome], ['completed', 'succeeded']);
    // Told each status once, in order, across the hand-back (whose endpoint restarts a status
    // behind the wave), and no violation from an answer to the loop it left.
    const order = ['queued', 'processing', 'completed'];
    assert.ok(
      told.every((x, i) => order.includes(x) && (i === 0 || order.indexOf(x) > order.indexOf(told[i - 1]))),
      told.join(' '),
    );
    await sleep(20); // the records go once the hooks resolved
    assert.equal(store.size, 0, 'both records gone');
  });

  // From a user trial: a submit of a batch run again found jobs that had already finished, and
  // `wait` threw "it has ended" for them.
  test('a job that settled before the wave counts as settled in it, its ending as it was told', {
    timeout: 30_000,
  }, async () => {
    const h = host('jobs-wave-before');
    const early = await h.submit('intent-wave-early', prompt('wave early'));
    const told = await early.settled;
    assert.equal(told.outcome, 'succeeded');
    const late = await h.submit('intent-wave-late', prompt('wave late'));
    await late.created;
    const { satisfied, settled } = await h.wait([early, late], { waitFor: 'all', timeoutSeconds: 5 }).done;
    assert.ok(satisfied);
    assert.deepEqual(settled.get(early.id), told, 'the ending the job told, result included');
    assert.equal(settled.get(late.id)?.outcome, 'succeeded');
    assert.equal((await late.settled).outcome, 'succeeded');
  });

  test('a cancel pressed on a job in a wave: it leaves the wave and its own loop cancels it', {
    timeout: 20_000,
  }, async () => {
    const key = 'jobs-wave-cancel';
    const events = [];
    const job = await host(key).submit('intent-wave-cancel', prompt('wave cancel'), { onEvent: (e) => events.push(e) });
    assert.equal((await job.created).status, 'queued');
    const run = host(key).wait([job], { waitFor: 'all', timeoutSeconds: 10 });
    assert.equal(await job.cancel(), 'cancelled');
    assert.equal((await job.settled).outcome, 'cancelled');
    const done = await run.done;
    assert.deepEqual(done.stopped.get(job.id), { type: 'stopped', reason: 'host_stopped' }, 'the wave stopped waiting');
    assert.equal((await counters()).credits[key], CREDITS, 'not billed');
    await sleep(300); // an answer to a poll sent before the wave took the job over
    assert.deepEqual(
      events.filter((e) => e.type === 'violation'),
      [],
      'an answer to the loop it left is not the server breaking a rule',
    );
  });

  // Found by a user trial: a press from `onStatus('processing')` of a job in a wave was made on
  // the job's own, older endpoint (sent, answered 409), and taking the wave's last job out while
  // its outputs were being told freed the wave under them: an uncaught `freed` from the loop.
  test("a cancel pressed in a wave's onStatus: the wave's core refuses it, nothing is sent, the wave ends", {
    timeout: 20_000,
  }, async () => {
    const slow = serveJobs(['--queue-wait-ms', '300', '--generation-ms', '2500', '--max-seconds', '30']);
    try {
      const baseUrl = await slow.url;
      let cancelsSent = 0;
      const h = new JobHost({
        baseUrl,
        headers: { authorization: 'Bearer jobs-wave-hook' },
        config: CONFIG,
        fetch: (url, init) => {
          if (String(url).endsWith('/cancel')) cancelsSent++;
          return fetch(url, init);
        },
      });
      const pressed = [];
      const job = await h.submit('intent-wave-hook', prompt('wave hook'), {
        onStatus: (status, j) => {
          if (status === 'processing')
            pressed.push(
              j.cancel().then(
                (state) => ({ state }),
                (e) => ({ code: e.code }),
              ),
            );
        },
      });
      await job.created;
      const run = h.wait([job], { waitFor: 'all', timeoutSeconds: 1 });
      const done = await run.done;
      assert.ok(done.satisfied);
      assert.equal(done.settled.get(job.id)?.outcome, 'succeeded');
      assert.equal((await job.settled).outcome, 'succeeded');
      assert.ok(pressed.length >= 1, 'the wave told processing');
      assert.deepEqual(await pressed[0], { code: 'cancel_refused' });
      assert.equal(cancelsSent, 0, 'nothing sent for a job the wave saw start');
    } finally {
      slow.child.kill();
    }
  });

  // Rule B-12: serve-jobs refuses a whole jobs_wait `404 not_found` for one id it does not
  // know. The wave used to retry it until a deadline and end `stopped`; it now finds the id.
  test('a wave with an id the server does not know finds it lost and waits for the rest', {
    timeout: 30_000,
  }, async () => {
    const h = host('jobs-wave-unknown');
    const job = await h.submit('intent-wave-unknown', prompt('wave unknown'));
    const created = await job.created;
    job.close();
    const run = h.wait([created, { id: 'job_does_not_exist', status: 'queued' }], { waitFor: 'all' });
    const done = await run.done;
    assert.equal(done.satisfied, true);
    assert.equal(done.settled.get(created.id)?.outcome, 'succeeded');
    assert.equal(done.settled.get('job_does_not_exist')?.outcome, 'lost');
    assert.deepEqual([...done.stopped], []);
    assert.deepEqual(done.lastFailure, { httpStatus: 404, code: 'not_found' });
  });

  test('a 503 then a 429 on submit: sent again with the same key, not before Retry-After', {
    timeout: 20_000,
  }, async () => {
    const key = 'jobs-scripted';
    await fetch(`${base}/_script`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ answers: [{ status: 503 }, { status: 429, retry_after_s: 1 }] }),
    });
    const tries = [];
    const wrapped = async (url, init) => {
      if (String(url).endsWith('/generate')) tries.push({ at: Date.now(), key: init.headers['Idempotency-Key'] });
      return fetch(url, init);
    };
    const s = seen();
    const intent = 'intent-scripted';
    const job = await host(key, { fetch: wrapped }).submit(intent, prompt('scripted'), s.hooks);
    const end = await job.settled;
    assert.equal(end.outcome, 'succeeded');
    const advice = s.events.filter((e) => e.type === 'admission').map((e) => [e.httpStatus, e.advice.advice]);
    assert.deepEqual(advice, [
      [503, 'backoff'],
      [429, 'retry_after'],
    ]);
    assert.deepEqual(
      tries.map((t) => t.key),
      [intent, intent, intent],
    );
    assert.ok(tries[2].at - tries[1].at >= 1000, `the third try ${tries[2].at - tries[1].at} ms after the 429`);
    assert.equal((await counters()).jobs_per_idempotency_key[intent], 1);
  });

  test('queue_full: the queued jobs no longer wanted are cancelled, the submit goes again with its key', {
    timeout: 30_000,
  }, async () => {
    // A server of its own whose jobs stay queued: five fill a key's queue.
    const full = serveJobs(['--queue-wait-ms', '60000', '--queue-limit', '5', '--max-seconds', '60']);
    try {
      const api = await full.url;
      const key = 'jobs-queue-full';
      const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const fillers = [];
      const cancels = [];
      for (let i = 0; i < 5; i++) {
        const r = await fetch(`${api}/v1/image-router/generate`, {
          method: 'POST',
          headers: { ...auth, 'idempotency-key': `filler-${i}` },
          body: JSON.stringify({ model: 'demo-image', prompt: `filler ${i}` }),
        });
        fillers.push((await r.json()).data.request_id);
      }
      const s = seen();
      // on queue_full the person cancels the queued jobs they no longer want.
      s.hooks.onEvent = (e) => {
        s.events.push(e);
        if (e.type === 'admission' && e.advice.advice === 'queue_full')
          for (const id of fillers.splice(0))
            cancels.push(fetch(`${api}/v1/jobs/${id}/cancel`, { method: 'POST', headers: auth }));
      };
      const intent = 'intent-queue-full';
      const h = new JobHost({ baseUrl: api, headers: { authorization: `Bearer ${key}` }, config: CONFIG });
      const job = await h.submit(intent, prompt('queue full'), s.hooks);
      const created = await job.created;
      assert.equal(created.status, 'queued');
      const admission = s.events.find((e) => e.type === 'admission');
      assert.equal(admission.advice.advice, 'queue_full');
      assert.equal(admission.httpStatus, 429);
      job.cancel(); // not needed any more either: queued, so it is refunded
      assert.equal((await job.settled).outcome, 'cancelled');
      assert.deepEqual(
        (await Promise.all(cancels)).map((r) => r.status),
        [200, 200, 200, 200, 200],
      );
      const c = await (await fetch(`${api}/_counters`)).json();
      assert.equal(c.jobs_per_idempotency_key[intent], 1);
      assert.equal(c.credits[key], CREDITS, 'every queued job cancelled came back');
    } finally {
      full.child.kill();
    }
  });

  test('an nsfw job settles failed with the content policy as its reason', { timeout: 20_000 }, async () => {
    const job = await host('jobs-nsfw').submit('intent-nsfw', { model: 'demo-nsfw', kind: 'image', arguments: {} });
    const end = await job.settled;
    assert.equal(end.outcome, 'failed');
    assert.equal(end.error.code, 'content_policy');
    assert.equal(end.error.sume_status, 'nsfw');
  });

  test("another key's job is not found, as an unknown id: the call is lost", { timeout: 20_000 }, async () => {
    const mine = await host('jobs-owner').submit('intent-owned', prompt('owned'));
    const { id } = await mine.created;
    const theirs = host('jobs-stranger').watch(id);
    const end = await theirs.settled;
    assert.equal(end.outcome, 'lost');
    mine.close();
  });

  test("the README's Node example, run twice with one intent: one job, paid once", { timeout: 30_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'longcall-job-host-'));
    try {
      let progress = '';
      const run = async () => {
        const args = [join(PKG, 'examples/job-host.mjs'), base, 'jobs-example', 'intent-example'];
        const { stdout, stderr } = await promisify(execFile)(process.execPath, args, { cwd: dir });
        progress = stderr;
        return stdout.trim().split(' ');
      };
      const [id, outcome, result] = await run();
      assert.equal(outcome, 'succeeded');
      assert.match(progress, new RegExp(`^job ${id}: status completed$`, 'm'), 'progress as it happened');
      assert.match(JSON.parse(result).result.artifacts[0].url, /^https:\/\//);
      assert.deepEqual(JSON.parse(readFileSync(join(dir, 'jobs.json'), 'utf8')), {}, 'no record left');
      const [again, outcomeAgain] = await run();
      assert.equal(again, id, 'the same job');
      assert.equal(outcomeAgain, 'succeeded');
      const c = await counters();
      assert.equal(c.jobs_per_idempotency_key['intent-example'], 1);
      assert.equal(c.credits['jobs-example'], CREDITS - 1, 'paid once');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the README's batch example, run twice with one batch: one job per intent, one wave", {
    timeout: 40_000,
  }, async () => {
    const run = async () => {
      const args = [join(PKG, 'examples/job-batch.mjs'), base, 'jobs-batch', 'batch-example', '3'];
      const { stdout, stderr } = await promisify(execFile)(process.execPath, args);
      return {
        lines: stdout
          .trim()
          .split('\n')
          .map((l) => l.split(' ')),
        said: stderr,
      };
    };
    const first = await run();
    assert.deepEqual(
      first.lines.map(([intent, , outcome]) => [intent, outcome]),
      [1, 2, 3].map((i) => [`batch-example-${i}`, 'succeeded']),
    );
    assert.match(first.said, /^[1-9]\d* jobs_wait round\(s\) for 3 job\(s\)$/m, 'the jobs were waited for in a wave');
    const again = await run();
    assert.deepEqual(again.lines, first.lines, 'the same jobs, found by their keys');
    const c = await counters();
    for (let i = 1; i <= 3; i++) assert.equal(c.jobs_per_idempotency_key[`batch-example-${i}`], 1);
    assert.equal(c.credits['jobs-batch'], CREDITS - 3, 'each paid once');
  });

  test('every exchange above through longcall check: no MUST broken', { timeout: 60_000 }, async () => {
    let out;
    try {
      out = (await promisify(execFile)(CLI, ['check', '--json', LOG], { maxBuffer: 64 << 20 })).stdout;
    } catch (e) {
      out = e.stdout; // exit 1: a MUST finding; the report is still printed
    }
    const doc = JSON.parse(out);
    assert.deepEqual(doc.unreadable ?? [], []);
    const [file] = doc.files;
    assert.equal(file.model, 'job');
    assert.equal(file.format, 'job_log');
    // Not vacuous: the log holds every job the tests above submitted (each key is judged as a
    // client of its own, E-52, so the report's count is per key).
    const submitted = new Set(
      readFileSync(LOG, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .filter((l) => l.dir === 's2c' && typeof l.body?.data?.request_id === 'string')
        .map((l) => l.body.data.request_id),
    );
    assert.ok(submitted.size >= 15, `${submitted.size} jobs in the log`);
    assert.ok(file.handles >= 1);
    const must = file.findings.filter((f) => f.level === 'must');
    assert.deepEqual(must, [], JSON.stringify(must.slice(0, 3)));
  });
});

// The README's Node example without a job server: what a person sees when the arguments or the
// URL are wrong.
describe('examples/job-host.mjs, told wrong', () => {
  const EXAMPLE = join(PKG, 'examples/job-host.mjs');
  let dir;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'longcall-job-host-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('too few arguments: the usage line on stderr, exit 2', async () => {
    for (const args of [[], ['http://127.0.0.1:9', 'KEY']]) {
      const r = await promisify(execFile)(process.execPath, [EXAMPLE, ...args], { cwd: dir }).then(
        () => assert.fail('exited 0'),
        (e) => e,
      );
      assert.equal(r.code, 2);
      assert.equal(r.stderr, 'usage: node job-host.mjs BASE_URL API_KEY INTENT\n');
      assert.equal(r.stdout, '');
    }
  });

  test('a port nothing listens on: the unanswered submit is said at once, named by the intent', async () => {
    const port = await closedPort();
    const child = spawn(process.execPath, [EXAMPLE, `http://127.0.0.1:${port}`, 'KEY', 'intent-2'], { cwd: dir });
    try {
      let err = '';
      child.stderr.on('data', (d) => {
        err += d;
      });
      // The first try's failure is said before the core sends the submit again (about 1 s later).
      const deadline = Date.now() + 5000;
      while (!/same key\n/.test(err) && Date.now() < deadline) await sleep(50);
      assert.deepEqual(err.trim().split('\n'), [
        `intent intent-2: submitting to http://127.0.0.1:${port}`,
        `intent intent-2: no answer to the submit (fetch failed: connect ECONNREFUSED 127.0.0.1:${port}); it goes again with the same key`,
      ]);
    } finally {
      child.kill();
    }
  });

  test('a submit refused for good: the end line names the intent, exit 1', async () => {
    const srv = createHttpServer((_req, res) =>
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code: 'unauthorized', message: 'bad key' } })),
    );
    await new Promise((r) => srv.listen(0, '127.0.0.1', r));
    try {
      const args = [EXAMPLE, `http://127.0.0.1:${srv.address().port}`, 'KEY', 'intent-401'];
      // Asynchronous: the server above answers on this process's event loop.
      const r = await promisify(execFile)(process.execPath, args, { cwd: dir }).then(
        () => assert.fail('exited 0'),
        (e) => e,
      );
      assert.equal(r.code, 1);
      assert.match(r.stdout, /^intent-401 failed \{"code":"unauthorized"/);
      assert.match(r.stderr, /^intent intent-401: submit answered HTTP 401: permanent$/m);
    } finally {
      srv.close();
    }
  });
});

test('JobHost refuses an option or hook it does not know, by name, before anything is sent', async () => {
  let fetched = 0;
  const fetch = async () => {
    fetched++;
    throw new Error('not reached');
  };
  assert.throws(() => new JobHost({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', fetch }), {
    name: 'JobHostError',
    code: 'invalid_input',
    message:
      'JobHost: unknown option "apiKey" (send it as a header: headers: {authorization: `Bearer ${key}`}); expected one of baseUrl, headers, dialect, store, fetch, config, wire, now, timeoutMs',
  });
  const host = new JobHost({ baseUrl: 'http://127.0.0.1:9', fetch, store: new Map() });
  await assert.rejects(host.submit('intent-1', { model: 'm', kind: 'image', arguments: {} }, { onSettle: () => {} }), {
    code: 'invalid_input',
    message: /^submit: hooks: unknown option "onSettle" \(did you mean "onSettled"\?\)/,
  });
  assert.throws(() => host.watch('job_1', { onstatus: () => {} }), { code: 'invalid_input' });
  await assert.rejects(host.submit('intent-1', { model: 'm', kind: 'image', args: { prompt: 'p' } }), {
    name: 'JobHostError',
    code: 'invalid_input',
    message: 'submit: job: unknown option "args" (did you mean "arguments"?); expected one of model, kind, arguments',
  });
  await assert.rejects(host.submit('intent-1', { model: 'm', kind: 'image', idempotencyKey: 'k' }), {
    message: /^submit: job: unknown option "idempotencyKey" \(the intent is the key: submit\(intent, job\)\)/,
  });
  assert.equal(fetched, 0);
});

test('every refusal of JobHost and Job is a JobHostError, the core refusals passed on with their codes', async () => {
  let fetched = 0;
  const fetch = async () => {
    fetched++;
    throw new Error('not reached');
  };
  const refused = (code, message) => ({ name: 'JobHostError', code, message });
  // A tracker configuration in the core's spelling, and a value of the wrong type.
  assert.throws(
    () => new JobHost({ baseUrl: 'http://127.0.0.1:9', fetch, config: { poll: { initial_ms: 5 } } }),
    refused('invalid_config', /initial_ms/),
  );
  assert.throws(
    () => new JobHost({ baseUrl: 'http://127.0.0.1:9', fetch, config: { poll: { capMs: '5000' } } }),
    refused('malformed', /capMs/),
  );
  const store = new Map([['broken', '{"not": "a record"}']]);
  const host = new JobHost({ baseUrl: 'http://127.0.0.1:9', fetch, store });
  await assert.rejects(
    host.submit('intent-1', { model: 'm', kind: 'picture', arguments: {} }),
    refused('invalid_input', /picture/),
  );
  await assert.rejects(host.resume('broken'), refused('snapshot_invalid', /./));
  // A deadline written as a duration has passed long ago.
  assert.throws(
    () => host.wait([{ id: 'job_1', status: 'queued' }], { deadline: 60_000 }),
    refused('invalid_input', /deadline/),
  );
  const job = await host.submit('intent-2', { ...JOB, arguments: {} });
  assert.equal('start' in job, false, 'a Job has only its documented members');
  job.close();
  assert.equal(fetched > 0, true);
});

test('each header goes out once, whatever its case: the body keeps its Content-Type', async () => {
  for (const headers of [
    { authorization: 'Bearer k' },
    { 'Content-Type': 'application/json', authorization: 'Bearer k' },
    // Given the way fetch takes them: a Headers (read as an object, it has no entries), a Map, pairs.
    new Headers({ authorization: 'Bearer k' }),
    new Map([['authorization', 'Bearer k']]),
    [['authorization', 'Bearer k']],
    // An iterator can be read only once: the host reads it where it is given.
    new Map([['authorization', 'Bearer k']]).entries(),
  ]) {
    /** @type {Headers[]} */
    const seen = [];
    const fetch = async (_url, init) => {
      seen.push(new Headers(init.headers));
      return new Response(JSON.stringify({ data: { request_id: 'job_1', sume_status: 'completed' } }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    };
    const host = new JobHost({ baseUrl: 'http://127.0.0.1:9', dialect: 'open_api', headers, fetch });
    const job = await host.submit('intent-h', { model: 'm', kind: 'image', arguments: { prompt: 'p' } });
    job.close();
    host.close?.();
    const submit = seen[0];
    assert.equal(submit.get('content-type'), 'application/json', 'one value, not "application/json, application/json"');
    assert.equal(submit.get('authorization'), 'Bearer k');
    assert.equal(submit.get('idempotency-key'), 'intent-h');
  }
});

test('headers that are no headers are refused when given, not dropped at the first request', () => {
  for (const [headers, got] of [
    ['Bearer k', 'string'],
    [[['authorization']], 'other entries'],
    [new Set(['authorization']), 'other entries'],
  ])
    assert.throws(() => new JobHost({ baseUrl: 'http://127.0.0.1:9', headers }), {
      name: 'JobHostError',
      code: 'invalid_input',
      message: `JobHost: headers must be an object of names and values, a Headers, a Map or [name, value] pairs, got ${got}`,
    });
});

test('a cancel pressed from inside a hook: hooks see the core order, and cancel() the answer', async () => {
  const body = (status) => JSON.stringify({ data: { request_id: 'job_1', sume_status: status } });
  let cancelled = false;
  const fetch = async (url, init) => {
    const path = new URL(url).pathname;
    if (path.endsWith('/cancel')) cancelled = true;
    const status = init.method === 'POST' && !path.endsWith('/cancel') ? 'queued' : cancelled ? 'canceled' : 'queued';
    return new Response(body(status), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const host = new JobHost({ baseUrl: 'http://127.0.0.1:9', dialect: 'open_api', fetch });
  const buttons = [];
  /** @type {Promise<string> | undefined} */
  let pressed;
  const job = await host.submit(
    'intent-hook',
    { model: 'm', kind: 'image', arguments: {} },
    {
      onStatus: (status, j) => {
        if (status === 'queued' && !pressed) pressed = j.cancel();
      },
      onButton: (state) => buttons.push(state),
    },
  );
  const end = await job.settled;
  assert.equal(await pressed, 'cancelled', 'resolved by the answer, not by a button event older than the press');
  assert.equal(end.outcome, 'cancelled');
  assert.deepEqual(buttons, ['available', 'requesting', 'cancelled']);
});

test('a host set up wrong (a now that gives a Date) stops the job with the error, never an unhandled rejection', async () => {
  const fetch = async () =>
    new Response(JSON.stringify({ data: { request_id: 'job_1', sume_status: 'queued' } }), { status: 200 });
  let calls = 0;
  const now = () => (calls++ === 0 ? Date.now() : new Date());
  const store = new Map();
  const host = new JobHost({ baseUrl: 'http://127.0.0.1:9', dialect: 'open_api', fetch, store, now });
  const job = await host.submit('intent-now', { model: 'm', kind: 'image', arguments: {} });
  const end = await job.settled;
  assert.equal(end.type, 'stopped');
  assert.equal(end.reason, 'host_stopped');
  assert.equal(end.error.code, 'invalid_input');
  assert.match(end.error.message, /now: expected a number, got object/);
  assert.ok(store.has('intent-now'), 'the record is kept: the job can be resumed');
});

test('jobs submitted together poll apart: each call gets a jitter seed of its own unless one is given', async () => {
  let n = 0;
  const fetch = async () =>
    new Response(JSON.stringify({ data: { request_id: `job_${++n}`, sume_status: 'queued' } }), { status: 200 });
  /** The seed and the first drawn wait of each job a host submits at once. */
  const schedules = async (config) => {
    const store = new Map();
    const host = new JobHost({ baseUrl: 'http://127.0.0.1:9', dialect: 'open_api', fetch, store, config });
    const jobs = await Promise.all(
      ['a', 'b', 'c'].map((i) => host.submit(i, { model: 'm', kind: 'image', arguments: {} })),
    );
    await Promise.all(jobs.map((j) => j.created));
    for (const j of jobs) j.stop();
    return ['a', 'b', 'c'].map((i) => {
      const { state } = JSON.parse(store.get(i));
      return [state.config.tracker.seed, state.tracker.schedule.previous_ms];
    });
  };
  const drawn = await schedules(null);
  assert.equal(new Set(drawn.map(([seed]) => seed)).size, 3, 'three seeds');
  assert.equal(new Set(drawn.map(([, wait]) => wait)).size, 3, `three first waits: ${drawn}`);
  // A seed the caller gives is kept: the same schedule, replayable.
  const given = await schedules({ seed: 42 });
  assert.deepEqual(
    given.map(([seed]) => seed),
    [42, 42, 42],
  );
  assert.equal(new Set(given.map(([, wait]) => wait)).size, 1);
});

test('the record is deleted only after an async onSettled has the ending; a rejected one keeps it', async () => {
  // A job that is completed at once: the submit, then its result.
  const fetch = async (url) => {
    const body = String(url).endsWith('/result')
      ? {
          data: {
            request_id: 'job_1',
            sume_status: 'completed',
            result: { artifacts: [{ url: 'https://a.invalid/0.png' }] },
          },
        }
      : { data: { request_id: 'job_1', sume_status: 'completed' } };
    return new Response(JSON.stringify(body), { status: 200 });
  };
  const store = new Map();
  const host = new JobHost({ baseUrl: 'http://127.0.0.1:9', dialect: 'open_api', fetch, store });
  const seenWithRecord = [];
  const job = await host.submit('saved', JOB, {
    onSettled: async (end) => {
      await sleep(20); // the application's own write of the outcome
      seenWithRecord.push([end.outcome, store.has('saved')]);
    },
  });
  const end = await job.settled;
  assert.equal(end.outcome, 'succeeded');
  assert.deepEqual(seenWithRecord, [['succeeded', true]], 'the record was still there while the hook saved');
  assert.equal(store.has('saved'), false, 'and gone once it had');
  // A hook that fails to save: the record stays, and the next submit of the intent reports the
  // ending again from it, with nothing sent.
  const failing = await host.submit('unsaved', JOB, { onSettled: () => Promise.reject(new Error('disk full')) });
  await failing.settled;
  assert.ok(store.has('unsaved'), 'kept for a restart');
  let sent = 0;
  const again = new JobHost({
    baseUrl: 'http://127.0.0.1:9',
    dialect: 'open_api',
    fetch: async (...a) => (sent++, fetch(...a)),
    store,
  });
  const told = [];
  const resumed = await again.submit('unsaved', JOB, { onSettled: (e) => told.push(e.outcome) });
  assert.equal((await resumed.settled).outcome, 'succeeded');
  assert.deepEqual(told, ['succeeded']);
  assert.equal(sent, 0);
  assert.equal(store.has('unsaved'), false);
});

test('a deadline given as a duration is refused before the paid submit goes out (E-60)', async () => {
  let fetched = 0;
  const fetch = async () => {
    fetched++;
    throw new Error('not reached');
  };
  const store = new Map();
  const host = new JobHost({ baseUrl: 'http://127.0.0.1:9', fetch, store, config: { deadlineMs: 60_000 } });
  await assert.rejects(host.submit('intent-d', { model: 'm', kind: 'image', arguments: {} }), {
    code: 'invalid_config',
    message: /^invalid configuration: deadlineMs: 60000 has passed \(now is \d+\): it is an absolute time/,
  });
  assert.equal(fetched, 0);
  assert.equal(store.size, 0);
});

test('JobHost refuses at construction: a baseUrl that is not a URL, a store without its three methods, bad config and wire options', () => {
  assert.throws(() => new JobHost({ baseUrl: 'not a url' }), {
    name: 'JobHostError',
    code: 'invalid_input',
    message:
      'JobHost: baseUrl "not a url" is not an http(s) URL nor a path from the page\'s root (e.g. "https://api.example.com", "/api")',
  });
  // In a page: a path from the root is the page's origin; a relative one would follow the page's
  // own path, so it is refused, an empty one too.
  const page = Object.getOwnPropertyDescriptor(globalThis, 'location');
  globalThis.location = /** @type {any} */ ({ href: 'http://127.0.0.1:8080/app/page.html' });
  try {
    assert.equal(new JobHost({ baseUrl: '/api' }).base, '/api');
    for (const baseUrl of ['api', '', './api'])
      assert.throws(() => new JobHost({ baseUrl }), {
        code: 'invalid_input',
        message: /nor a path from the page's root/,
      });
  } finally {
    if (page) Object.defineProperty(globalThis, 'location', page);
    else delete globalThis.location;
  }
  // A host and port without a scheme parses as a URL of the scheme "localhost:": refused too.
  assert.throws(() => new JobHost({ baseUrl: 'localhost:3000' }), {
    code: 'invalid_input',
    message: /baseUrl "localhost:3000" is not an http\(s\) URL/,
  });
  const { delete: _gone, ...noDelete } = { get() {}, set() {}, delete() {} };
  assert.throws(() => new JobHost({ baseUrl: 'http://127.0.0.1:3000', store: noDelete }), {
    code: 'invalid_input',
    message: 'JobHost: store needs get, set and delete (sync or async); it has no delete',
  });
  assert.throws(() => new JobHost({ baseUrl: 'http://127.0.0.1:3000', dialect: 'openapi' }), {
    code: 'invalid_input',
    message: 'JobHost: dialect "openapi" is not one of mcp_tools, open_api',
  });
  // The tracker configuration and wire options are the core's to check, at construction.
  assert.throws(() => new JobHost({ baseUrl: 'http://127.0.0.1:3000', config: { poll: { intialMs: 5 } } }), {
    code: 'invalid_config',
    message: /^invalid configuration: poll\.intialMs: unknown key/,
  });
  assert.throws(() => new JobHost({ baseUrl: 'http://127.0.0.1:3000', wire: { maxByte: 5 } }), {
    code: 'malformed',
    message: /unknown field `maxByte`/,
  });
  // Routes are for the mcp_tools dialect; the Open API's are its own.
  const routes = { get: ['GET', '/custom/{id}'] };
  assert.throws(() => new JobHost({ baseUrl: 'http://127.0.0.1:3000', wire: { jobRoutes: routes } }), {
    code: 'invalid_config',
    message:
      'invalid configuration: jobRoutes: only the dialect of the MCP job tools takes routes; the Open API has its own',
  });
  assert.ok(new JobHost({ baseUrl: 'http://127.0.0.1:3000', dialect: 'mcp_tools', wire: { jobRoutes: routes } }));
  // A Map is a store; no store at all is fine too (nothing is kept).
  assert.ok(new JobHost({ baseUrl: 'http://127.0.0.1:3000', store: new Map() }));
  assert.ok(new JobHost({ baseUrl: 'http://127.0.0.1:3000/v1/' }));
});

test("wait's options are checked by name, and its deadline as a time", () => {
  const host = new JobHost({ baseUrl: 'http://127.0.0.1:9', now: () => 10_000 });
  // A deadline is a time: a duration (or a time already passed) is refused by the core's wave
  // (B-6) before any round.
  assert.throws(() => host.wait([{ id: 'j', status: 'queued' }], { deadline: 1_500 }), {
    code: 'invalid_input',
    message:
      'invalid input: deadline: 1500 has passed (now is 10000): it is an absolute time, now + how long to wait, not a duration',
  });
  assert.throws(() => host.wait([{ id: 'j', status: 'queued' }], { waitfor: 'all' }), {
    code: 'invalid_input',
    message:
      'wait: unknown option "waitfor" (did you mean "waitFor"?); expected one of deadline, path, onJob, waitFor, timeoutSeconds, includeResults, minRoundIntervalMs, seed, backoff',
  });
});

for (const waitFor of ['all', 'any'])
  test(`a wave (waitFor ${waitFor}) whose rounds all fail says so and ends at its deadline`, async () => {
    await waveOf404s(waitFor);
  });

// An `any` wave used to stay unsatisfied once every job was given up, due at once for ever: `done`
// never resolved and the host spun on zero-delay timers.
async function waveOf404s(waitFor) {
  const srv = createHttpServer((req, res) => {
    req.resume();
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise((ok) => srv.listen(0, '127.0.0.1', ok));
  try {
    const host = new JobHost({ baseUrl: `http://127.0.0.1:${srv.address().port}` });
    const run = host.wait([{ id: 'job_1', status: 'queued' }], {
      waitFor,
      deadline: Date.now() + 1500,
      minRoundIntervalMs: 100,
    });
    // Should it spin again, free the wave so the spin ends and the test fails rather than hangs.
    let timer;
    const done = await Promise.race([
      run.done,
      new Promise((_, fail) => {
        timer = setTimeout(() => {
          run.stop();
          fail(new Error(`the ${waitFor} wave did not end at its deadline`));
        }, 5_000);
      }),
    ]);
    clearTimeout(timer);
    assert.deepEqual([...done.settled.keys()], []);
    // Satisfied, since a job past the deadline counts as ended; `stopped` says none finished.
    assert.equal(done.satisfied, true);
    assert.deepEqual([...done.stopped], [['job_1', { type: 'stopped', reason: 'deadline' }]]);
    // Every round answered failed, but for one still out when the deadline ended the wave.
    assert.ok(done.failedRounds >= 1 && done.rounds - done.failedRounds <= 1, JSON.stringify(done));
    assert.deepEqual(done.lastFailure, { httpStatus: 404 });
  } finally {
    srv.close();
  }
}

test('a wave with no deadline ends when stopped; a refused round names the API error code', async () => {
  const srv = createHttpServer((req, res) => {
    req.resume();
    res
      .writeHead(503, { 'content-type': 'application/json' })
      .end('{"error":{"code":"service_unavailable","message":"try later","retryable":true}}');
  });
  await new Promise((ok) => srv.listen(0, '127.0.0.1', ok));
  try {
    const host = new JobHost({ baseUrl: `http://127.0.0.1:${srv.address().port}` });
    const run = host.wait(
      [
        { id: 'job_1', status: 'queued' },
        { id: 'job_typo', status: 'queued' },
      ],
      { waitFor: 'all', minRoundIntervalMs: 50 },
    );
    await sleep(300);
    run.stop();
    const done = await run.done;
    assert.deepEqual(
      [...done.stopped],
      [
        ['job_1', { type: 'stopped', reason: 'host_stopped' }],
        ['job_typo', { type: 'stopped', reason: 'host_stopped' }],
      ],
    );
    assert.ok(done.failedRounds >= 1, JSON.stringify(done));
    assert.deepEqual(done.lastFailure, { httpStatus: 503, code: 'service_unavailable' });
    run.stop(); // after the end: nothing
  } finally {
    srv.close();
  }
});

test('a wave of no jobs sends nothing and ends at once, unsatisfied', async () => {
  let calls = 0;
  const host = new JobHost({
    baseUrl: 'http://jobs.invalid',
    fetch: async () => {
      calls++;
      return Response.json({ jobs: [] });
    },
  });
  const done = await host.wait([]).done;
  assert.equal(done.satisfied, false);
  assert.equal(done.rounds, 0);
  assert.equal(done.settled.size + done.stopped.size, 0);
  assert.equal(calls, 0);
});

// Rule E-63: a watch whose polls fail used to say nothing at all (the button sat on its last
// state while the host retried for ever); each failure is said, and so is the first answer after.
test('arguments that are not JSON are refused before the paid submit goes out', async () => {
  let sent = 0;
  const fetch = async () => {
    sent++;
    return Response.json({ data: { request_id: 'job_1', sume_status: 'queued' } });
  };
  const host = new JobHost({ baseUrl: 'http://jobs.invalid', fetch });
  for (const [args, said] of [
    [new Map([['prompt', 'a harbour']]), 'submit: job.arguments: a Map is not JSON'],
    [{ prompt: 'a harbour', seed: () => 1 }, 'submit: job.arguments.seed: a function is not JSON'],
    [{ frames: [1, Number.NaN] }, 'submit: job.arguments.frames[1]: NaN is not JSON'],
    [{ at: new Date(0) }, 'submit: job.arguments.at: a Date is not JSON'],
  ]) {
    await assert.rejects(host.submit('intent-args', { model: 'demo-image', kind: 'image', arguments: args }), (e) => {
      assert.equal(e.code, 'malformed');
      assert.ok(e.message.startsWith(said), e.message);
      return true;
    });
  }
  assert.equal(sent, 0, 'nothing was sent');
});

test('a submit refused for good by a page that is no JSON settles with the status that refused it', async () => {
  // A baseUrl with one path segment too many: the server's own 404 page, text.
  const fetch = async () => new Response('Not Found', { status: 404, headers: { 'content-type': 'text/plain' } });
  const host = new JobHost({ baseUrl: 'http://jobs.invalid/v1', fetch });
  const job = await host.submit('intent-404', { model: 'demo-image', kind: 'image', arguments: { prompt: 'a cat' } });
  const end = await job.settled;
  assert.deepEqual(end, { type: 'settled', outcome: 'failed', status: null, httpStatus: 404 });
});

test('a watch says each failed poll, with what fetch threw, and the first answer after', async () => {
  const answers = [
    () => {
      throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
    },
    () =>
      new Response('{"error":{"code":"service_unavailable","message":"down"}}', {
        status: 503,
        headers: { 'content-type': 'application/json' },
      }),
    () => Response.json({ id: 'job_1', status: 'processing' }),
    () => Response.json({ id: 'job_1', status: 'completed', result: { artifacts: [] } }),
  ];
  let polls = 0;
  const fetch = async () => answers[Math.min(polls++, answers.length - 1)]();
  const host = new JobHost({
    baseUrl: 'http://jobs.invalid',
    dialect: 'mcp_tools',
    fetch,
    config: { poll: { initialMs: 20, capMs: 40, minIntervalMs: 10, jitter: 'none' } },
  });
  const seen = [];
  const job = host.watch('job_1', {
    onRequestFailed: (f) => seen.push(['failed', f.request, f.failure, f.cause?.message, f.message]),
    onRecovered: () => seen.push(['recovered']),
    onStatus: (status) => seen.push(['status', status]),
  });
  const end = await job.settled;
  assert.equal(end.outcome, 'succeeded');
  assert.deepEqual(seen, [
    [
      'failed',
      'get',
      { kind: 'transport' },
      'fetch failed',
      'the status poll of job job_1 got no answer: fetch failed: connect ECONNREFUSED 127.0.0.1:9; asking again',
    ],
    [
      'failed',
      'get',
      { kind: 'http', status: 503, code: 'service_unavailable', retryAfterMs: null },
      undefined,
      'the status poll of job job_1 answered HTTP 503 (service_unavailable); asking again',
    ],
    ['recovered'],
    ['status', 'processing'],
    ['status', 'completed'],
  ]);
});

// Rule B-11: the wave reads each jobs_wait answer as it arrived. A 429's Retry-After used to be
// dropped here (the next call came after the short backoff), and a 200 that is not the answer
// said only "200".
test('a wave honours a 429 Retry-After on jobs_wait and says why a 2xx answer was unusable', async () => {
  const calls = [];
  const answers = [
    () =>
      new Response('{"error":{"code":"rate_limit_exceeded","message":"slow down"}}', {
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '1' },
      }),
    () => new Response('<html>bad gateway</html>', { status: 200, headers: { 'content-type': 'text/html' } }),
    () => Response.json({ jobs: [{ id: 'job_1', status: 'completed', result: { artifacts: [] } }] }),
  ];
  const fetch = async (url, init) => {
    calls.push({ at: Date.now(), url: String(url), body: JSON.parse(init.body) });
    return answers[Math.min(calls.length, answers.length) - 1]();
  };
  const host = new JobHost({ baseUrl: 'http://jobs.invalid', fetch });
  const run = host.wait([{ id: 'job_1', status: 'queued' }], {
    minRoundIntervalMs: 10,
    backoff: { initialMs: 50, jitter: 'none' },
  });
  const done = await run.done;
  assert.equal(calls.length, 3, JSON.stringify(calls));
  assert.deepEqual(calls[0].body.job_ids, ['job_1']);
  assert.ok(calls[1].at - calls[0].at >= 1000, `second call ${calls[1].at - calls[0].at} ms after the 429`);
  assert.ok(calls[2].at - calls[1].at < 1000, 'the unusable 200 backs off by the policy, not by the old Retry-After');
  assert.equal(done.satisfied, true);
  assert.equal(done.settled.get('job_1')?.outcome, 'succeeded');
  assert.equal(done.failedRounds, 2);
  assert.equal(done.lastFailure.httpStatus, 200);
  assert.match(done.lastFailure.reason, /JSON/);
});

test("a Retry-After beyond setTimeout's limit: one capped timer, never a spin", async () => {
  const polls = [];
  const fetch = async (url) => {
    polls.push(String(url));
    // 30 days: past setTimeout's 2^31-1 ms, which would fire at once, again and again.
    return new Response('{"error":{"code":"rate_limit_exceeded"}}', {
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '2592000' },
    });
  };
  const delays = [];
  const real = globalThis.setTimeout;
  globalThis.setTimeout = (fn, ms, ...rest) => {
    delays.push(ms);
    return real(fn, ms, ...rest);
  };
  let job;
  try {
    job = new JobHost({ baseUrl: 'http://127.0.0.1:9', fetch }).watch('job_1');
    await sleep(300);
  } finally {
    globalThis.setTimeout = real;
    job?.stop();
  }
  assert.equal(polls.length, 1, 'polled once, then waits for the Retry-After');
  assert.ok(delays.length <= 5, `${delays.length} timers armed in 300 ms: a spin arms hundreds`);
  assert.equal(Math.max(...delays), 2 ** 31 - 1);
  assert.equal((await job.settled).type, 'stopped');
});

test('a resumed job, and one refreshed, poll as soon as the floor allows, not where the backoff put it (P-15)', async (t) => {
  // A job that stays queued; every status poll is noted, and the next one awaited.
  let polled = () => {};
  const polls = [];
  const fetch = async (_url, init) => {
    if (init?.method === 'GET') {
      polls.push(Date.now());
      polled();
    }
    return new Response(JSON.stringify({ data: { request_id: 'job_look', sume_status: 'queued' } }), { status: 200 });
  };
  const nextPoll = (ms) => Promise.race([new Promise((ok) => (polled = () => ok(true))), sleep(ms).then(() => false)]);
  // The backoff's next look is a minute away; the floor is 50 ms.
  const config = { poll: { jitter: 'none', initialMs: 60_000, capMs: 60_000, minIntervalMs: 50 } };
  const store = new Map();
  const options = { baseUrl: 'http://127.0.0.1:9', dialect: 'open_api', fetch, store, config };
  const first = await new JobHost(options).submit('look', JOB);
  await first.created;
  first.close(); // the page goes away with the next poll a minute ahead
  assert.equal(polls.length, 0);
  const statuses = [];
  const resumed = await new JobHost(options).resume('look', { onStatus: (s) => statuses.push(s) });
  t.after(() => resumed.close()); // a failed assertion must not leave its minute-long timer
  assert.ok(await nextPoll(10_000), 'the resumed job polled at once, not a minute later');
  assert.deepEqual(statuses, ['queued']);
  await sleep(20); // the answer is read: the next look is a minute away again
  // A person coming back brings it to the floor after that poll, no nearer.
  resumed.refresh();
  assert.ok(await nextPoll(10_000), 'refreshed: polled');
  assert.ok(polls[1] - polls[0] >= 50, `never below the floor: ${polls[1] - polls[0]} ms`);
  assert.ok(!(await nextPoll(300)), 'then the backoff again');
  resumed.close();
  resumed.refresh(); // closed: nothing
  assert.ok(!(await nextPoll(200)));
  assert.equal(polls.length, 2);
});

// Rule A-10: the first try made the job but its answer was a 502 page; the retry, same key, is
// refused while the first is in progress. That refusal says nothing of the first try: the job
// stops create_unanswered, the refusal with it, never settled failed (which reads "nothing was
// made, nothing billed" and lets the person pay again under a new intent).
test('a refusal of a retry after a try that may have made the job is create_unanswered, not failed', async () => {
  const submits = [];
  const fetch = async (_url, init) => {
    submits.push(init.headers['Idempotency-Key'] ?? init.headers['idempotency-key']);
    return submits.length === 1
      ? new Response('<h1>Bad gateway</h1>', { status: 502, headers: { 'content-type': 'text/html' } })
      : Response.json({ error: { code: 'idempotency_key_in_use', message: 'in progress' } }, { status: 409 });
  };
  const host = new JobHost({
    baseUrl: 'http://jobs.invalid',
    fetch,
    store: new Map(),
    config: { poll: { initialMs: 10, capMs: 20, minIntervalMs: 10, jitter: 'none' } },
  });
  const job = await host.submit('intent-a10', { ...JOB, arguments: { prompt: 'a harbour' } });
  const end = await job.settled;
  assert.equal(end.type, 'stopped');
  assert.equal(end.reason, 'create_unanswered');
  assert.deepEqual(end.failure, { kind: 'http', status: 409, code: 'idempotency_key_in_use', retryAfterMs: null });
  assert.equal(submits.length, 2);
  assert.equal(submits[0], submits[1], 'one key for both tries');
});

// A status answer whose body trickles in for ever used to hold the watch with no poll and no
// word; within timeoutMs it is no answer, said, and the next poll settles the job.
test('a request whose answer never ends is no answer after timeoutMs; watching goes on', async () => {
  let gets = 0;
  const server = createHttpServer((_req, res) => {
    gets++;
    res.writeHead(200, { 'content-type': 'application/json' });
    if (gets === 1) {
      res.write('{"id":"job_1",'); // and nothing more
      return;
    }
    res.end(JSON.stringify({ id: 'job_1', status: 'completed', result: { artifacts: [] } }));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    const host = new JobHost({
      baseUrl: `http://127.0.0.1:${server.address().port}`,
      dialect: 'mcp_tools',
      timeoutMs: 300,
      config: { poll: { initialMs: 20, capMs: 40, minIntervalMs: 10, jitter: 'none' } },
    });
    const failed = [];
    const job = host.watch('job_1', { onRequestFailed: (f) => failed.push([f.request, f.failure.kind]) });
    const end = await job.settled;
    assert.equal(end.outcome, 'succeeded');
    assert.deepEqual(failed, [['get', 'transport']]);
    assert.equal(gets, 2);
    assert.throws(() => new JobHost({ baseUrl: 'http://x.invalid', timeoutMs: '30s' }), {
      code: 'invalid_input',
      message: /timeoutMs must be a whole number of milliseconds/,
    });
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
