// The rest of the public API (rule functions, CancelButton, Tracker, fast path, replay) and the
// no-panic rule for every export: junk (undefined, wrong types, NaN, huge numbers, cyclic
// objects, BigInt, Symbol) gives an Error with a `code`, and the instance keeps working.
import { replay } from 'longcall/vectors';
const cyclic = () => {
  const o = { type: 'task_created' };
  o.task = o;
  return o;
};
const deep = () => {
  let o = {};
  const root = o;
  for (let i = 0; i < 5000; i++) {
    o.a = {};
    o = o.a;
  }
  return root;
};
const JUNK = () => [
  undefined,
  null,
  0,
  -1,
  NaN,
  Infinity,
  1e300,
  2 ** 64,
  true,
  '',
  'x',
  {},
  [],
  [1],
  { type: 'nope' },
  cyclic(),
  deep(),
  () => 1,
  10n,
  Symbol('s'),
  '{"v":1',
  'x'.repeat(1000),
];

function mustCode(assert, fn, what) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof Error, `${what}: threw a non-Error ${String(e)}`);
    assert.ok(
      typeof e.code === 'string' && /^[a-z_]+$/.test(e.code),
      `${what}: threw without a code: ${e.name}: ${e.message}`,
    );
    return e.code;
  }
  return null;
}

const job = (id = 'job_1', status = 'queued') => ({ type: 'job_created', job: { id, status } });

export const cases = {
  'a snapshot survives JSON.parse and JSON.stringify, as a store that keeps JSON values does'({ lc, assert }) {
    const t = new lc.Tracker('job', { seed: 12_345 });
    t.handleInput(0, { type: 'job_created', job: { id: 'job_1', status: 'queued' } });
    t.handleTimeout(t.pollTimeout);
    const text = t.snapshot();
    // The jitter generator's state runs past 2^53: a number there would come back rounded.
    assert.ok(/"state":"\d{17,20}"/.test(text), text);
    const restored = lc.Tracker.restore(JSON.stringify(JSON.parse(text)));
    assert.equal(restored.snapshot(), text);
    t.free();
    restored.free();
  },
  'a server asking for a wait of ages: the wake-up is the latest time a number holds, and can be passed back'({
    lc,
    assert,
  }) {
    const t = new lc.Tracker('task-2026', null);
    const out = t.handleInput(1_000, {
      type: 'task_created',
      task: { taskId: 't', status: 'working', pollIntervalMs: Number.MAX_SAFE_INTEGER },
    });
    assert.deepEqual(out.at(-1), { type: 'wake_at', at: Number.MAX_SAFE_INTEGER });
    assert.equal(t.pollTimeout, Number.MAX_SAFE_INTEGER);
    assert.equal(t.handleTimeout(t.pollTimeout)[0].type, 'send');
    t.free();
  },
  'seed, outcome, window, cancel answers'({ lc, assert }) {
    assert.equal(lc.seed('task-2025', 'completed'), 'violation');
    assert.equal(lc.seed('job', 'queued'), 'normal');
    assert.deepEqual(lc.classifyOutcome('task-2026', 'completed', { result: true, error: false }), {
      outcome: 'tool_error',
      violation: null,
    });
    assert.equal(
      lc.classifyOutcome('task-2026', 'failed', { result: false, error: false }).violation !== undefined,
      true,
    );
    assert.equal(lc.needsResultFetch('task-2025', 'completed'), true);
    assert.equal(lc.needsResultFetch('task-2026', 'completed'), false);
    assert.equal(lc.cancelWindow('job', 'running'), 'started');
    assert.equal(lc.cancelWindow('task-2026', 'input_required'), 'open');
    assert.equal(lc.WINDOWS[lc.cancelWindowCode(2, 5)], 'open');
    assert.equal(lc.cancelWindowCode(2, 0), lc.BAD_CODE, 'working is not a job status');
    assert.equal(lc.cancelWindowCode(NaN, 5), lc.BAD_CODE);
    assert.equal(
      lc.classifyCancelAnswer('job', { kind: 'job_error', httpStatus: 409, code: 'job_generation_already_started' }),
      'too_late',
    );
    assert.equal(lc.classifyCancelAnswer('task-2026', { kind: 'ack' }), 'acknowledged');
    assert.throws(() => lc.classifyOutcome('job', 'queued', { result: null, error: false }), { code: 'invalid_input' });
  },

  'admission, batch, poll plan, mapping, ownership, tables'({ lc, assert }) {
    assert.deepEqual(
      lc.classifySubmit({ kind: 'answer', httpStatus: 429, errorCode: 'rate_limit_exceeded', retryAfterMs: 30000 }),
      { advice: 'retry_after', notBeforeMs: 30000 },
    );
    assert.deepEqual(lc.classifySubmit({ kind: 'local_timeout' }), { advice: 'reconcile' });
    assert.deepEqual(lc.mcpCreateLost(), { advice: 'reconcile' });
    const ids = Array.from({ length: 45 }, (_, i) => `job_${i}`);
    const plan = lc.planWaits({ ids: [...ids, 'job_3'], terminal: ['job_0'], waitFor: 'any' });
    assert.deepEqual(
      plan.calls.map((c) => c.job_ids.length),
      [20, 20, 4],
    );
    assert.deepEqual(plan.duplicates, ['job_3']);
    assert.deepEqual(plan.alreadyTerminal, ['job_0']);
    assert.equal(plan.waitFor, 'any');
    assert.throws(() => lc.planWaits({ ids: ['a'], wait_for: 'any' }), { code: 'malformed' });
    assert.equal(plan.calls[0].wait_for, 'any', 'each call is the jobs_wait body as the wire spells it');
    assert.throws(() => lc.planWaits({ ids: [''] }), { code: 'invalid_input' });
    assert.deepEqual(lc.pollPlan({ policy: { jitter: 'none' }, count: 6 }), [1000, 3000, 7000, 15000, 31000, 61000]);
    assert.throws(() => lc.pollPlan({ policy: { multiplierPercent: 50 }, count: 1 }), { code: 'invalid_config' });
    assert.throws(() => lc.pollPlan({ count: 1e6 }), { code: 'invalid_input' });
    assert.equal(lc.taskStatusFor('canceled'), 'cancelled');
    assert.deepEqual(lc.jobStatusesFor('failed'), ['failed', 'expired']);
    assert.ok(lc.mappingConcepts().some((r) => r.task === 'input_required' && r.job === null));
    assert.equal(lc.jobAccess({ workspace: 'w', member: 'a' }, { workspace: 'w', member: 'b' }), 'hidden');
    assert.equal(lc.taskAccess('p', 'p'), 'owner');
    assert.ok(lc.errorCodes().includes('cancel_refused'));
    assert.ok(lc.violationRules().some((r) => r.rule === 'terminal_conflict' && r.level === 'must'));
  },

  'CancelButton: job too late, snapshot/restore'({ lc, assert }) {
    const b = new lc.CancelButton('job');
    assert.equal(b.state, 'unavailable');
    assert.equal(b.handleStatus('queued'), 'available');
    b.press();
    assert.equal(b.state, 'requesting');
    assert.equal(b.handleVerdict('too_late'), 'too_late');
    assert.throws(() => b.press(), { code: 'cancel_refused' });
    // A status name where a verdict is wanted: refused, saying where the names are.
    assert.throws(() => b.handleVerdict('canceled'), {
      code: 'invalid_input',
      message: 'invalid input: verdict: not a cancel verdict name (CANCEL_VERDICTS lists them)',
    });
    assert.ok(!lc.CANCEL_VERDICTS.includes('canceled') && lc.CANCEL_VERDICTS.includes('cancelled'));
    const c = lc.CancelButton.restore(b.snapshot());
    assert.equal(c.handleStatus('completed'), 'finished_first');
    assert.equal(b.state, 'too_late', 'the original is unchanged');
    assert.throws(() => lc.CancelButton.restore('{"kind":"tracker","v":1,"state":{}}'), { code: 'snapshot_invalid' });
    assert.throws(() => lc.CancelButton.restore('{"kind":"cancel_button","v":9,"state":{}}'), {
      code: 'snapshot_version',
    });
  },

  'Tracker: one batch per call, getters, record, snapshot'({ lc, assert }) {
    const t = new lc.Tracker('job', { poll: { jitter: 'none' }, seed: 1 });
    assert.equal(t.id, undefined);
    const out = t.handleInput(0, job());
    assert.deepEqual(out, [
      { type: 'status', status: 'queued' },
      { type: 'button', state: 'available' },
      { type: 'wake_at', at: 1000 },
    ]);
    assert.equal(t.id, 'job_1');
    assert.equal(t.status, 'queued');
    assert.equal(t.button, 'available');
    assert.equal(t.pollTimeout, 1000);
    assert.equal(t.isDone, false);
    assert.deepEqual(t.handleTimeout(1000), [
      { type: 'send', request: { kind: 'get', handle: 'job_1' } },
      { type: 'idle' },
    ]);
    const big = 2 ** 53 - 1;
    const u = new lc.Tracker('task-2026', null);
    const o = u.handleInput(big - 10, {
      type: 'task_created',
      task: { taskId: 't', status: 'working', pollIntervalMs: 5 },
    });
    assert.equal(typeof o.at(-1).at, 'number', 'times are plain numbers, never BigInt');
    assert.equal(lc.Tracker.restore(u.snapshot()).snapshot(), u.snapshot());
    assert.equal(t.runRecord().pollsSent, 1);
  },

  'numbers-only path gives the same outputs as the structured path'({ lc, assert }) {
    const cfg = { poll: { jitter: 'none' }, seed: 1 };
    const a = new lc.Tracker('job', cfg),
      b = new lc.Tracker('job', cfg);
    const same = (n, structured, what) => assert.deepEqual(lc.decodeFast(b, n), structured, what);
    same(b.fastCreated('job_1', 0, 5, NaN), a.handleInput(0, job()), 'created');
    same(b.fastTimeout(1000), a.handleTimeout(1000), 'timeout');
    same(
      b.fastPolled(1100, 5, NaN, 0),
      a.handleInput(1100, { type: 'job_polled', job: { id: 'job_1', status: 'queued' } }),
      'polled',
    );
    same(b.fastCancelPressed(1200), a.handleInput(1200, { type: 'cancel_pressed' }), 'press');
    same(
      b.fastCancelAnswered(1300, 4, 409, 0),
      a.handleInput(1300, {
        type: 'cancel_answered',
        answer: { kind: 'job_error', httpStatus: 409, code: 'job_generation_already_started' },
      }),
      '409',
    );
    assert.equal(b.fastCancelPressed(1301), -1);
    assert.equal(b.lastError, 'cancel_refused');
    assert.throws(() => a.handleInput(1301, { type: 'cancel_pressed' }), { code: 'cancel_refused' });
    same(b.fastTimeout(3100), a.handleTimeout(3100), 'timeout 2');
    same(
      b.fastPolled(3200, 6, NaN, 0),
      a.handleInput(3200, { type: 'job_polled', job: { id: 'job_1', status: 'processing' } }),
      'processing',
    );
    same(b.fastTimeout(7200), a.handleTimeout(7200), 'timeout 3');
    same(
      b.fastPolled(7300, 2, NaN, 0),
      a.handleInput(7300, { type: 'job_polled', job: { id: 'job_1', status: 'completed' } }),
      'completed',
    );
    assert.equal(b.lastError, '');
    assert.deepEqual(b.runRecord(), a.runRecord());
  },

  'handleInput: plain common inputs (the short way) and the general path agree, errors too'({ lc, assert }) {
    // structured.js hands plain objects of a few shapes to the module without JSON; an object
    // with a null prototype always takes the general path. Both must give the same outputs and
    // errors, for well-formed inputs and for near misses of every shape.
    const general = (v) =>
      v !== null && typeof v === 'object' && !Array.isArray(v)
        ? Object.assign(Object.create(null), Object.fromEntries(Object.entries(v).map(([k, x]) => [k, general(x)])))
        : v;
    const task = (t) => ({ type: 'task_polled', task: { taskId: 't-1', status: 'working', ...t } });
    const answer = (a) => ({ type: 'cancel_answered', answer: a });
    const nest = (depth) => {
      let v = 0;
      for (let i = 0; i < depth; i++) v = [v];
      return v;
    };
    const lives = {
      'task-2026': [
        { type: 'task_created', task: { taskId: 't-1', status: 'working', pollIntervalMs: 2000 } },
        task({ pollIntervalMs: 5000 }),
        task({ status: 'input_required', inputRequests: [] }),
        task({ status: 'input_required', inputRequests: [{ key: 'j', request: nest(124) }] }),
        task({ status: 'input_required', inputRequests: [{ key: 'j', request: nest(123) }] }),
        task({ status: 'input_required', inputRequests: [{ key: 'j', request: nest(122) }] }),
        task({ status: 'input_required', inputRequests: [{ key: 'i', request: undefined }] }),
        task({ status: 'input_required', inputRequests: [{ key: 'i', request: null, extra: 1 }] }),
        task({ status: 'input_required', inputRequests: [{ key: 5, request: null }] }),
        task({ status: 'input_required', inputRequests: {} }),
        task({ status: 'input_required', inputRequests: [{ key: 'k', request: { q: 1 } }] }),
        // Keys and payloads past ASCII and the BMP, the short way and the general one alike.
        task({
          status: 'input_required',
          inputRequests: [{ key: 'ké😀:1', request: { q: '😀-é', n: [1, '2:3'] } }],
        }),
        { type: 'input_answered', key: 'ké😀:1', response: { a: '😀' } },
        { type: 'input_answered', key: 'x', response: { ok: true } },
        { type: 'input_answered', key: 'k', response: undefined },
        { type: 'input_answered', key: 'k', response: 10n },
        { type: 'input_answered', key: 7, response: 1 },
        { type: 'input_answered', key: 'k', response: nest(127) },
        { type: 'input_answered', key: 'k', response: nest(126) },
        { type: 'input_answered', key: 'k', response: { ok: true, n: 1.5e300, s: 'é\u0000' } },
        { type: 'input_answered', key: 'k', response: null },
        task({ pollIntervalMs: null }),
        task({ pollIntervalMs: undefined }),
        task({ pollIntervalMs: 1.5 }),
        task({ pollIntervalMs: -1 }),
        task({ pollIntervalMs: 2 ** 60 }),
        task({ pollIntervalMs: '5' }),
        task({ taskId: 't-2' }),
        task({ taskId: 7 }),
        task({ taskId: 'bad\ud800' }),
        task({ status: 'queued' }),
        task({ status: 'nope' }),
        task({ status: 'canceled' }),
        task({ capMs: 1 }),
        task({ task_id: 't-1' }),
        { type: 'task_polled', task: { taskId: 't-1' } },
        { type: 'task_polled', task: null },
        { type: 'task_polled', task: [] },
        { type: 'task_polled', job: { id: 't-1', status: 'working' } },
        { type: 'task_polled', task: { taskId: 't-1', status: 'working' }, extra: 1 },
        { type: 'task_notified', task: { taskId: 't-1', status: 'working' } },
        { type: 'job_polled', task: { taskId: 't-1', status: 'working' } },
        { type: 'cancel_pressed', task: { taskId: 't-1', status: 'working' } },
        { type: 'nope' },
        { type: 7 },
        { type: 'update_acked' },
        { type: 'stop_watching', why: 1 },
        { type: 'cancel_pressed' },
        { type: 'cancel_pressed' },
        task({ result: { isError: false, value: nest(125) } }),
        task({ result: { isError: false, value: nest(124) } }),
        task({ result: { isError: 'no', value: 1 } }),
        task({ result: { isError: true } }),
        task({ result: { isError: true, value: 1, x: 1 } }),
        task({ result: null }),
        task({ status: 'completed', result: { isError: false, value: { ok: 1, structured_content: [1.5] } } }),
        task({ status: 'cancelled' }),
        task({ status: 'completed' }),
        { type: 'stop_watching' },
      ],
      job: [
        { type: 'job_polled', job: { id: 'job_1', status: 'queued' } },
        { type: 'job_created', job: { id: 'job_1', status: 'queued' } },
        answer({ kind: 'job_error', httpStatus: 409, code: 'job_generation_already_started' }),
        { type: 'cancel_pressed' },
        answer({ kind: 'job_error', httpStatus: 409, code: 'job_generation_already_started', cancelable: null }),
        answer({ kind: 'job_error', httpStatus: 409, code: 'job_generation_already_started', cancelable: 1 }),
        answer({ kind: 'job_error', httpStatus: 70000, code: 'not_found' }),
        answer({ kind: 'job_error', httpStatus: 404, code: 'nope' }),
        answer({ kind: 'job_error', httpStatus: 404, code: 'none' }),
        answer({ kind: 'job_error', httpStatus: 404, code: '' }),
        answer({ kind: 'job_error', httpStatus: 404 }),
        answer({ kind: 'job_error', httpStatus: 409, code: 'job_not_cancelable', cancelable: false }),
        answer({ kind: 'job_error', httpStatus: 409, code: 'job_not_cancelable', status: 'queued' }),
        answer({ kind: 'ack', cancelable: null }),
        answer({ kind: 'ack', code: 5 }),
        answer({ kind: 'rpc_error', code: -32602 }),
        answer({ kind: 'rpc_error', code: 2 ** 60 }),
        answer({ kind: 'rpc_error', code: '5' }),
        answer({ kind: 'task', status: 'working' }),
        answer({ kind: 'job', status: 'queued' }),
        answer({ kind: 'job', status: null }),
        answer({ kind: 'job' }),
        answer({ kind: 'no_answer' }),
        answer({ kind: 'nope' }),
        answer({ kind: 'job', status: 'canceled', extra: 1 }),
        { type: 'cancel_answered', answer: null },
        { type: 'cancel_pressed' },
        answer({ kind: 'job_error', httpStatus: 409, code: 'job_generation_already_started', cancelable: true }),
        { type: 'job_created', job: { id: 'job_1', status: 'queued' } },
        { type: 'job_polled', job: { id: 'job_2', status: 'queued' } },
        { type: 'job_polled', job: { id: 'job_1', status: 'working' } },
        { type: 'job_polled', job: { id: 'job_1', status: 'queued', result: null } },
        { type: 'job_polled', job: { id: 'job_1' } },
        { type: 'job_polled', job: { id: 'job_1', status: 'processing' } },
        { type: 'stop_watching' },
        { type: 'job_polled', job: { id: 'job_1', status: 'completed' } },
      ],
    };
    const run = (t, now, input) => {
      try {
        return { out: t.handleInput(now, input) };
      } catch (e) {
        return { code: e.code, message: e.message, out: t.drainOutputs() };
      }
    };
    lives['task-2025'] = lives['task-2026'].slice(0, 3);
    for (const [model, inputs] of Object.entries(lives)) {
      const cfg = { poll: { jitter: 'none', maxPolls: model === 'task-2025' ? 2 : null }, seed: 1 };
      const a = new lc.Tracker(model, cfg);
      const b = new lc.Tracker(model, cfg);
      inputs.forEach((input, i) => {
        const now = 1000 * (i + 1);
        // In the same key order too (the short way builds some outputs from their parts).
        assert.equal(
          JSON.stringify(run(a, now, input)),
          JSON.stringify(run(b, now, general(input))),
          `${model} step ${i}: ${input.type}`,
        );
        assert.deepEqual(a.handleTimeout(now + 500), b.handleTimeout(now + 500), `${model} step ${i} timeout`);
      });
      assert.deepEqual(
        run(a, -1, { type: 'cancel_pressed' }),
        run(b, -1, general({ type: 'cancel_pressed' })),
        'a bad time',
      );
      for (const now of ['5', Number.NaN, 1.5, 2 ** 60, { valueOf: () => 5 }]) {
        const input = { type: 'update_acked' };
        assert.deepEqual(run(a, now, input), run(b, now, general(input)), `the time ${String(now)}`);
        const code = (f) => {
          try {
            return f();
          } catch (e) {
            return e.code;
          }
        };
        assert.deepEqual(
          code(() => a.handleTimeout(now)),
          code(() => b.handleTimeout(now)),
          `a timeout at ${String(now)}`,
        );
      }
      assert.deepEqual(a.runRecord(), b.runRecord());
      // The short way itself: a shape it does not take changes nothing and says so.
      assert.equal(a.flatInput(0, 99, 't-1', 0, Number.NaN), -1);
      a.free();
      b.free();
    }
  },

  'tracker config: own keys read at once; inherited and hidden keys still read'({ lc, assert }) {
    const first = (cfg) => {
      const t = new lc.Tracker('job', cfg);
      const out = t.handleInput(0, { type: 'job_created', job: { id: 'j', status: 'queued' } });
      t.free();
      return out.at(-1);
    };
    const poll = { jitter: 'none', initialMs: 3000 };
    assert.deepEqual(first({ poll }), { type: 'wake_at', at: 3000 });
    assert.deepEqual(first(Object.create({ poll })), { type: 'wake_at', at: 3000 }, 'inherited');
    const hidden = Object.defineProperty({}, 'poll', { value: poll, enumerable: false });
    assert.deepEqual(first(hidden), { type: 'wake_at', at: 3000 }, 'not enumerable');
    assert.throws(() => new lc.Tracker('job', { poll: { jitter: 'none', capMS: 1 } }), { code: 'invalid_config' });
    // An object without a prototype is still an object whose keys are checked.
    const bare = (o) => Object.assign(Object.create(null), o);
    assert.throws(() => new lc.Tracker('task-2026', { poll: bare({ capMS: 1 }) }), { code: 'invalid_config' });
    assert.throws(() => new lc.Tracker('task-2026', bare({ pol: {} })), { code: 'invalid_config' });
    assert.deepEqual(first(bare({ poll: bare(poll) })), { type: 'wake_at', at: 3000 }, 'no prototype');
  },

  async 'a tracker without a seed draws its own, so trackers made together do not poll together'({ lc, assert }) {
    const l = await import('longcall/lite');
    const polls = (mod, config) => {
      const t = new mod.Tracker('job', config);
      const at = [];
      let outs = mod.decodeFast(t, t.fastCreated('job_1', 0, 5, NaN));
      for (let i = 0; i < 6; i++) {
        const wake = outs.findLast((o) => o.type === 'wake_at').at;
        at.push(wake);
        mod.decodeFast(t, t.fastTimeout(wake)); // the poll goes out
        outs = mod.decodeFast(t, t.fastPolled(wake + 1, 5, NaN, 0)); // still queued
      }
      t.free();
      return at.join(',');
    };
    for (const mod of [lc, l]) {
      // Six polls of full jitter: two drawn seeds give the same times about never.
      assert.notEqual(polls(mod, null), polls(mod, null), 'each draws its own seed');
      assert.notEqual(polls(mod, { poll: { capMs: 60_000 } }), polls(mod, { poll: { capMs: 60_000 } }));
      // A seed given replays its schedule.
      assert.equal(polls(mod, { seed: 7 }), polls(mod, { seed: 7 }));
    }
  },

  'tracker config: a config on another prototype builds what the same plain config does'({ lc, assert }) {
    // A config made with Object.create (its prototype not Object.prototype) is read as a plain
    // one (config.js): the same tracker, or the same error.
    const general = (v) =>
      v !== null && typeof v === 'object' && !Array.isArray(v)
        ? Object.assign(
            Object.create({}),
            Object.fromEntries(Object.entries(v).map(([k, w]) => [k, k === 'poll' ? general(w) : w])),
          )
        : v;
    const made = (model, cfg) => {
      try {
        const t = new lc.Tracker(model, cfg);
        const out = t.snapshot ? t.snapshot() : JSON.stringify(t.fastCreated('t', 0, 0, NaN));
        t.free();
        // Without a seed of the caller's, each tracker draws its own.
        return cfg?.seed == null ? out.replace(/"rng":\{"state":"\d+"\}/, '"rng":"drawn"') : out;
      } catch (e) {
        return `${e.code}: ${e.message}`;
      }
    };
    const configs = [
      undefined,
      null,
      {},
      { seed: 7, deadlineMs: 90000 },
      { seed: null, deadlineMs: undefined, poll: null },
      { poll: { jitter: 'none', maxPolls: null } },
      { poll: { initialMs: 200, multiplierPercent: 150, capMs: 8000, minIntervalMs: 100, maxPolls: 9 } },
      { poll: { jitter: 'decorrelated', followServerInterval: false } },
      { poll: { jitter: 'equal', followServerInterval: true }, seed: 2 ** 53 - 1 },
      { poll: { jitter: 'sideways' } },
      { poll: { followServerInterval: 1 } },
      { poll: { initialMs: -1 } },
      { poll: { initialMs: 1.5 } },
      { poll: { initialMs: '5' } },
      { poll: { capMs: 10, initialMs: 50 } },
      { poll: { multiplierPercent: 2 ** 32 } },
      { poll: { maxPolls: 2 ** 32 } },
      { poll: { maxPolls: 0 } },
      { poll: { capMS: 1 } },
      { poll: [] },
      { poll: 5 },
      { seed: 2 ** 53 },
      { seed: Infinity },
      { deadlineMs: NaN },
      { seed: 1n },
      { toString: 1 },
      { deadline: 5 },
    ];
    for (const model of ['task-2026', 'task-2025', 'job', 'nope', 5]) {
      for (const [i, cfg] of configs.entries()) {
        assert.equal(made(model, cfg), made(model, general(cfg)), `${String(model)}, config ${i}`);
      }
    }
  },

  'numbers-only path never throws on junk numbers'({ lc, assert }) {
    const t = new lc.Tracker('task-2026', null);
    const nums = [NaN, -1, 0.5, 1e300, Infinity, -Infinity, 2 ** 53, 2 ** 64, 255, 256];
    for (const x of nums) {
      for (const call of [
        () => t.fastTimeout(x),
        () => t.fastPolled(x, 0, NaN, 0),
        () => t.fastPolled(1, x, NaN, 0),
        () => t.fastCreated('t', x, 0, NaN),
        () => t.fastCreated('t', 0, x, NaN),
        () => t.fastCancelAnswered(x, x, x, x),
        () => t.fastRequestFailed(1, x, x, x),
        () => t.fastCancelPressed(x),
        () => t.fastStop(x),
        () => t.fastUpdateAcked(x),
      ]) {
        const n = call();
        assert.ok(Number.isInteger(n) && n >= -1, `returned ${n}`);
        if (n === -1) assert.ok(t.lastError.length > 0);
      }
    }
    const f = new lc.Tracker('task-2026', null);
    assert.equal(f.fastCreated(42, 0, 0, NaN), -1, 'id must be a string');
    assert.equal(f.fastPolled(0, 0, NaN, 0), -1, 'no handle yet');
    assert.ok(f.fastCreated('t', 0, 0, 1000) > 0);
    // A job has no interval to keep, but a value that is not one is refused all the same.
    for (const bad of [-100, Infinity, 2 ** 60, 0.5]) {
      const j = new lc.Tracker('job', null);
      assert.equal(j.fastCreated('job_1', 0, lc.STATUSES.indexOf('queued'), bad), -1, `interval ${String(bad)}`);
      assert.equal(j.lastError, 'invalid_input');
      j.free();
    }
    assert.ok(new lc.Tracker('job', null).fastCreated('job_1', 0, lc.STATUSES.indexOf('queued'), 2000) > 0);
    assert.equal(t.fastDetail(NaN), undefined);
    assert.equal(t.fastDetail(1e9), undefined);
  },

  'every export refuses junk with a coded Error and keeps working'({ lc, assert }) {
    const t = new lc.Tracker('job', null);
    t.handleInput(0, job());
    const b = new lc.CancelButton('job');
    const calls = {
      seed: (x) => [() => lc.seed(x, 'queued'), () => lc.seed('job', x)],
      classifyOutcome: (x) => [() => lc.classifyOutcome(x, 'failed', {}), () => lc.classifyOutcome('job', 'failed', x)],
      needsResultFetch: (x) => [() => lc.needsResultFetch('job', x)],
      cancelWindow: (x) => [() => lc.cancelWindow(x, 'queued'), () => lc.cancelWindow('job', x)],
      classifyCancelAnswer: (x) => [
        () => lc.classifyCancelAnswer('job', x),
        () => lc.classifyCancelAnswer(x, { kind: 'ack' }),
      ],
      classifySubmit: (x) => [() => lc.classifySubmit(x)],
      planWaits: (x) => [() => lc.planWaits(x), () => lc.planWaits({ ids: x })],
      pollPlan: (x) => [
        () => lc.pollPlan(x),
        () => lc.pollPlan({ count: x }),
        () => lc.pollPlan({ count: 2, startMs: x }),
      ],
      taskStatusFor: (x) => [() => lc.taskStatusFor(x)],
      jobStatusesFor: (x) => [() => lc.jobStatusesFor(x)],
      jobAccess: (x) => [() => lc.jobAccess(x, x)],
      taskAccess: (x) => [() => lc.taskAccess(x, 'p')],
      replay: (x) => [() => replay(x)],
      Tracker: (x) => [() => new lc.Tracker(x, null), () => new lc.Tracker('job', x), () => lc.Tracker.restore(x)],
      'tracker.handleInput': (x) => [
        () => t.handleInput(x, { type: 'cancel_pressed' }),
        () => t.handleInput(5, x),
        () => t.handleInput(5, { type: 'job_polled', job: x }),
      ],
      'tracker.handleTimeout': (x) => [() => t.handleTimeout(x)],
      CancelButton: (x) => [
        () => new lc.CancelButton(x),
        () => b.handleStatus(x),
        () => b.handleVerdict(x),
        () => lc.CancelButton.restore(x),
      ],
    };
    for (const [name, make] of Object.entries(calls)) {
      for (const x of JUNK()) {
        for (const call of make(x))
          mustCode(
            assert,
            call,
            `${name}(${typeof x === 'symbol' ? 'symbol' : typeof x === 'bigint' ? 'bigint' : String(x).slice(0, 20)})`,
          );
      }
    }
    assert.equal(
      mustCode(assert, () => t.handleInput(1, cyclic()), 'cyclic'),
      'malformed',
    );
    assert.equal(
      mustCode(assert, () => t.handleInput(2 ** 53, { type: 'stop_watching' }), 'huge time'),
      'invalid_input',
    );
    assert.equal(
      mustCode(assert, () => new lc.Tracker('job', { deadlineMs: 2 ** 60 }), 'huge config'),
      'invalid_config',
    );
    assert.equal(
      mustCode(assert, () => lc.Tracker.restore('x'.repeat(5 << 20)), 'huge snapshot'),
      'too_large',
    );
    // Still alive and correct.
    assert.deepEqual(t.handleTimeout(1000), [
      { type: 'send', request: { kind: 'get', handle: 'job_1' } },
      { type: 'idle' },
    ]);
    assert.equal(lc.observe('job', 'queued', 'completed'), 'skipped');
    assert.equal(new lc.Tracker('task-2025', null).model, 'task-2025');
  },
  'errors name fields as JavaScript spells them'({ lc, assert }) {
    const t = new lc.Tracker('task-2026', null);
    const completed = { taskId: 't', status: 'completed', result: { content: [] } };
    assert.throws(() => t.handleInput(0, { type: 'task_polled', task: completed }), {
      code: 'malformed',
      message: /missing field `isError`$/,
    });
    assert.throws(() => lc.pollPlan({ count: 1, startMz: 5 }), {
      code: 'malformed',
      message: /unknown field `startMz`, expected one of `policy`, `seed`, `startMs`, `count`, `serverIntervalMs`$/,
    });
    // A key is quoted as the caller wrote it, even in snake_case.
    assert.throws(() => lc.planWaits({ ids: ['a'], timeout_secs: 1 }), {
      message: /unknown field `timeout_secs`, expected .*`timeoutSeconds`/,
    });
    // The core's range checks name the field the caller set, and the field they compare with.
    assert.throws(() => new lc.Tracker('job', { poll: { initialMs: 10, capMs: 1 } }), {
      code: 'invalid_config',
      message: 'invalid configuration: poll.capMs: must not be below initialMs',
    });
    // A reader limit no answer passes is named as the wire option the caller set.
    for (const key of ['maxBytes', 'maxDepth', 'maxStringBytes'])
      assert.throws(() => lc.Endpoint.watch('task-2026', 't1', null, { [key]: 0 }), {
        code: 'invalid_config',
        message: `invalid configuration: wire.${key}: must be at least 1`,
      });
    // Values stay as written: a `type` tag's names, a status.
    assert.throws(() => t.handleInput(0, { type: 'task_pold' }), {
      message: /unknown variant `task_pold`, expected one of `task_created`, `call_result`/,
    });
    assert.throws(() => t.handleInput(0, { type: 'task_polled', task: { taskId: 't', status: 'in_progress' } }), {
      message: /unknown variant `in_progress`, expected one of `working`, `input_required`/,
    });
    t.free();
  },
  'a refused float is quoted whole'({ lc, assert }) {
    // serde_json spells a float in its own messages; the module's other float formatter is
    // emptied at build time (scripts/float-display.mjs), which must not reach these.
    for (const [n, spelled] of [
      [1.5, '1.5'],
      [-0.25, '-0.25'],
      [1e300, '1e+300'],
      [123456.789, '123456.789'],
    ]) {
      assert.throws(() => lc.classifySubmit({ kind: 'answer', httpStatus: n }), {
        code: 'malformed',
        message: `malformed argument: submitted: httpStatus: invalid type: floating point \`${spelled}\`, expected an integer from 0 to 65535`,
      });
      const t = new lc.Tracker('task-2026', null);
      const task = { taskId: 't', status: 'working', createdAt: 'x', lastUpdatedAt: 'x', ttlMs: n };
      assert.throws(() => t.handleInput(0, { type: 'task_polled', task }), {
        code: 'malformed',
        message: `malformed argument: input: task.ttlMs: invalid type: floating point \`${spelled}\`, expected an integer of 0 or more`,
      });
      t.free();
    }
  },
  'an input that is something else at hand says which reader takes it'({ lc, assert }) {
    const t = new lc.Tracker('task-2025', null);
    const raw = { taskId: 't1', status: 'working', ttl: 60000, createdAt: 'x', lastUpdatedAt: 'x' };
    assert.throws(() => t.handleInput(0, raw), {
      code: 'malformed',
      message:
        /missing field `type`; a task or job as the server sent it is read by readResult\(model, asked, result\)/,
    });
    const when = { createdAt: '2026-01-01T00:00:00Z', lastUpdatedAt: '2026-01-01T00:00:00Z' };
    const read = lc.readResult('task-2025', 'call', { task: { ...raw, ...when } });
    assert.throws(() => t.handleInput(0, read), {
      message: /missing field `type`; this is what readResult\/readAnswer return: pass its \.input$/,
    });
    assert.throws(() => t.handleInput(0, { jsonrpc: '2.0', id: 1, result: raw }), {
      message: /readAnswer\(model, asked, message\)/,
    });
    // Anything else keeps serde's words alone.
    assert.throws(() => t.handleInput(0, {}), { message: /missing field `type`$/ });
    // Its .input is what it takes.
    assert.equal(t.handleInput(0, read.input)[0].type, 'status');
    t.free();
  },
  'a refused value is named by where it sits in the input'({ lc, assert }) {
    const t = new lc.Tracker('task-2026', null);
    const polled = (task) => ({ type: 'task_polled', task: { taskId: 't', ...task } });
    assert.throws(() => t.handleInput(0, polled({ status: 'working', pollIntervalMs: '5000' })), {
      code: 'malformed',
      message:
        'malformed argument: input: task.pollIntervalMs: invalid type: string "5000", expected an integer of 0 or more',
    });
    assert.throws(() => t.handleInput(0, polled({ status: 'completed', result: { content: [] } })), {
      message: 'malformed argument: input: task.result: missing field `isError`',
    });
    assert.throws(
      () => t.handleInput(0, polled({ status: 'input_required', inputRequests: [{ key: 7, request: {} }] })),
      {
        message: 'malformed argument: input: task.inputRequests.key: invalid type: integer `7`, expected a string',
      },
    );
    assert.throws(() => t.handleInput(0, polled({ status: 'bogus' })), {
      message: /^malformed argument: input: task\.status: unknown variant `bogus`, expected one of `working`/,
    });
    // A time that is not one, spelled as JavaScript spells it.
    assert.throws(() => t.handleTimeout(Infinity), {
      code: 'invalid_input',
      message: 'invalid input: now: expected an integer from 0 to 2^53-1, got Infinity',
    });
    for (const [now, spelled] of [
      [1e21, '1e+21'],
      [-0.5, '-0.5'],
      [Number.NaN, 'NaN'],
      [2 ** 53, '9007199254740992'],
    ]) {
      assert.throws(() => t.handleTimeout(now), {
        message: `invalid input: now: expected an integer from 0 to 2^53-1, got ${spelled}`,
      });
    }
    // The rule functions' arguments too.
    assert.throws(() => lc.planWaits({ ids: ['a'], timeoutSeconds: 'x' }), {
      code: 'malformed',
      message: /: timeoutSeconds: invalid type: string "x", expected an integer from 0 to 4294967295$/,
    });
    // Refused, the tracker goes on.
    assert.equal(
      t.handleInput(0, { type: 'task_created', task: { taskId: 't', status: 'working' } })[0].type,
      'status',
    );
    t.free();
  },
};
