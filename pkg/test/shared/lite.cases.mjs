// `longcall/lite` (the small build) behaves exactly like `longcall` on everything it exports:
// the numbers-only rules over every code, the cancel button, and the numbers-only tracker over a
// job and a task lifecycle (outputs and detail objects compared one for one).
const lite = () => import('longcall/lite');

export const cases = {
  async "timerDelay: a wake_at's setTimeout delay, never negative, never past setTimeout's limit"({ lc, assert }) {
    const l = await lite();
    for (const timerDelay of [lc.timerDelay, l.timerDelay]) {
      assert.equal(timerDelay(1_500, 1_000), 500);
      assert.equal(timerDelay(1_000, 1_500), 0, 'a time already passed: at once');
      assert.equal(timerDelay(2 ** 53 - 1, 0), 2 ** 31 - 1, 'capped: a longer delay would fire at once');
      assert.equal(timerDelay(Number.NaN, 0), 0, 'no time: at once, said as the 0 it is');
      assert.equal(timerDelay(undefined, 0), 0);
    }
  },
  async 'lite exports only its own surface, and the same code tables'({ lc, assert }) {
    const l = await lite();
    const want = [
      'BAD_CODE',
      'BUTTON_STATES',
      'CANCEL_VERDICTS',
      'CancelButton',
      'ERROR_CODES',
      'JOB_ERROR_CODES',
      'JOB_STATUSES',
      'MODELS',
      'OBSERVATIONS',
      'OUTCOMES',
      'OUTPUT_KINDS',
      'REQUEST_KINDS',
      'RULES',
      'STATUSES',
      'STOP_REASONS',
      'TASK_STATUSES',
      'TRANSITIONS',
      'Tracker',
      'WINDOWS',
      'cancelWindowCode',
      'decodeFast',
      'fastOutputs',
      'init',
      'initSync',
      'isLongcallError',
      'jobErrorCode',
      'observeCode',
      'timerDelay',
      'wasmMemory',
    ].sort();
    assert.deepEqual(Object.keys(l).sort(), want);
    for (const k of want.filter((k) => /^[A-Z_]+$/.test(k))) assert.deepEqual(l[k], lc[k], k);
  },

  async 'numbers-only rules agree with the full build on every code'({ lc, assert }) {
    const l = await lite();
    const codes = [...Array(12).keys(), 255, NaN, -1, 0.5, 1e300];
    for (const m of codes) {
      for (const a of codes) {
        assert.equal(l.cancelWindowCode(m, a), lc.cancelWindowCode(m, a), `window ${m} ${a}`);
        for (const b of codes.slice(0, 11))
          assert.equal(l.observeCode(m, a, b), lc.observeCode(m, a, b), `observe ${m} ${a} ${b}`);
      }
    }
  },

  async 'the cancel button is the same machine'({ lc, assert }) {
    const l = await lite();
    for (const model of ['job', 'task-2026', 'task-2025']) {
      const a = new lc.CancelButton(model),
        b = new l.CancelButton(model);
      const first = model === 'job' ? 'queued' : 'working';
      for (const v of ['too_late', 'acknowledged', 'cancelled']) {
        const [x, y] = [new lc.CancelButton(model), new l.CancelButton(model)];
        assert.equal(y.handleStatus(first), x.handleStatus(first));
        // An answer to a cancel nobody sent: refused by both, nothing changes.
        assert.throws(() => y.handleVerdict(v), { code: 'invalid_input' });
        assert.throws(() => x.handleVerdict(v), { code: 'invalid_input' });
        assert.equal(y.state, 'available');
        y.press();
        x.press();
        assert.equal(y.handleVerdict(v), x.handleVerdict(v), v);
        x.free();
        y.free();
      }
      assert.equal(b.handleStatus(first), a.handleStatus(first));
      b.press();
      a.press();
      assert.equal(b.handleVerdict('request_failed'), a.handleVerdict('request_failed'));
      assert.throws(() => b.handleVerdict('nope'), { code: 'invalid_input' });
      assert.throws(() => b.handleVerdict(42), { code: 'invalid_input' });
      assert.equal(b.handleLost(), a.handleLost());
      assert.equal(b.state, a.state);
      let ea, eb;
      try {
        a.press();
      } catch (e) {
        ea = e.code;
      }
      try {
        b.press();
      } catch (e) {
        eb = e.code;
      }
      assert.equal(eb, ea);
    }
    assert.throws(() => new l.CancelButton('jobs'), { code: 'unknown_model' });
  },

  // C-11: a task cancel failed at the HTTP level (a proxy's 502 page) is no MCP answer. A page
  // trial read the README's two ways of saying so and got a MUST violation and a button stuck
  // at `requesting` from one of them.
  async 'a task cancel failed over HTTP reads as no answer, the same by either call'({ assert }) {
    const l = await lite();
    const CANCEL = l.REQUEST_KINDS.indexOf('cancel');
    for (const model of ['task-2026', 'task-2025']) {
      const ends = [];
      for (const fail of [
        (t) => t.fastRequestFailed(20, CANCEL, 502, Number.NaN),
        (t) => t.fastRequestFailed(20, CANCEL, 0, Number.NaN),
        (t) => t.fastCancelAnswered(20, 5, 0, 0),
      ]) {
        const t = new l.Tracker(model, { poll: { jitter: 'none' }, seed: 1 });
        l.decodeFast(t, t.fastCreated('t1', 0, 0, 500));
        l.decodeFast(t, t.fastCancelPressed(10));
        const outs = l.decodeFast(t, fail(t));
        assert.deepEqual(
          outs.filter((o) => o.type === 'violation'),
          [],
          model,
        );
        assert.equal(t.button, 'available', model);
        ends.push(outs);
        t.free();
      }
      assert.deepEqual(ends[0], ends[2], `${model}: 502 as no answer`);
      assert.deepEqual(ends[1], ends[2], `${model}: status 0 as no answer`);
    }
  },

  async 'the numbers-only tracker gives the same outputs as the full build'({ lc, assert }) {
    const l = await lite();
    const cfg = { poll: { jitter: 'none', minIntervalMs: 100 }, seed: 3 };
    // A job: created, polled, cancel too late, completed.
    const a = new lc.Tracker('job', cfg),
      b = new l.Tracker('job', cfg);
    const same = (na, nb, what) => assert.deepEqual(l.decodeFast(b, nb), lc.decodeFast(a, na), what);
    same(a.fastCreated('job_1', 0, 5, NaN), b.fastCreated('job_1', 0, 5, NaN), 'created');
    same(a.fastTimeout(1000), b.fastTimeout(1000), 'timeout');
    same(a.fastPolled(1100, 5, NaN, 0), b.fastPolled(1100, 5, NaN, 0), 'queued');
    same(a.fastCancelPressed(1200), b.fastCancelPressed(1200), 'press');
    same(a.fastCancelAnswered(1300, 4, 409, 0), b.fastCancelAnswered(1300, 4, 409, 0), '409');
    assert.equal(b.fastCancelPressed(1301), -1);
    assert.equal(b.lastError, 'cancel_refused');
    same(a.fastTimeout(3100), b.fastTimeout(3100), 'timeout 2');
    same(a.fastPolled(3200, 2, NaN, 0), b.fastPolled(3200, 2, NaN, 0), 'completed');
    assert.equal(b.outcome, a.outcome);
    assert.equal(b.button, 'finished_first');
    // A 2026 task: an isError result is a tool error; a violation detail crosses as an object.
    const c = new lc.Tracker('task-2026', cfg),
      d = new l.Tracker('task-2026', cfg);
    const same2 = (na, nb, what) => assert.deepEqual(l.decodeFast(d, nb), lc.decodeFast(c, na), what);
    same2(c.fastCreated('t1', 0, 0, 500), d.fastCreated('t1', 0, 0, 500), 'created');
    same2(c.fastTimeout(600), d.fastTimeout(600), 'timeout');
    same2(c.fastPolled(650, 2, NaN, 0), d.fastPolled(650, 2, NaN, 0), 'completed without a result');
    assert.equal(d.outcome, 'protocol_failure');
    const outs = l.decodeFast(d, 0);
    assert.deepEqual(outs, []);
  },

  async "numbers-only: a job 404 is lost only when it says not_found (a proxy's page is a failed poll)"({
    lc,
    assert,
  }) {
    const l = await lite();
    const GET = l.REQUEST_KINDS.indexOf('get');
    const queued = l.STATUSES.indexOf('queued');
    // The same answers in both builds, with the error code as the API's envelope gave it.
    const after404 = (mod, ...code) => {
      const t = new mod.Tracker('job', { poll: { jitter: 'none' } });
      t.fastCreated('job_1', 0, queued, NaN);
      t.fastTimeout(1000);
      const n = t.fastRequestFailed(1100, GET, 404, NaN, ...code);
      const outs = n < 0 ? t.lastError : mod.decodeFast(t, n);
      const outcome = t.outcome;
      t.free();
      return { outs, outcome };
    };
    for (const code of [[], [NaN], [l.jobErrorCode(undefined)], [l.jobErrorCode('route_not_found')]]) {
      const got = after404(l, ...code);
      assert.deepEqual(got, after404(lc, ...code), `code ${code}`);
      assert.equal(got.outcome, undefined, `code ${code}: not lost`);
      assert.equal(got.outs.at(-1).type, 'wake_at', `code ${code}: polled again`);
    }
    const lost = after404(l, l.jobErrorCode('not_found'));
    assert.deepEqual(lost, after404(lc, lc.jobErrorCode('not_found')));
    assert.equal(lost.outcome, 'lost');
    // A code that is no index is refused, not read as none.
    for (const bad of [99, -1, 0.5, 'not_found']) {
      assert.equal(after404(l, bad).outs, 'invalid_input', `code ${String(bad)}`);
      assert.equal(after404(lc, bad).outs, 'invalid_input', `code ${String(bad)}`);
    }
  },

  async 'memory freed by lite trackers serves the next ones'({ assert }) {
    // The small module has an allocator of its own (a free list): a page that makes and frees
    // trackers for hours must not grow its memory. 400 trackers alive at once, each with an id
    // of a different length, freed, then 4,000 more lifecycles: the memory stays as it was after
    // the first round.
    const l = await lite();
    const round = (n) => {
      const live = [];
      for (let i = 0; i < n; i++) {
        const t = new l.Tracker(i % 2 ? 'job' : 'task-2026');
        t.fastCreated(`id_${i}_${'x'.repeat(i % 97)}`, 0, i % 2 ? 5 : 0, NaN);
        t.fastPolled(1000, i % 2 ? 6 : 0, NaN, 0);
        t.fastCancelPressed(1100);
        live.push(t);
      }
      for (const t of live) t.free();
    };
    round(400);
    const before = l.wasmMemory().buffer.byteLength;
    for (let i = 0; i < 10; i++) round(400);
    assert.equal(l.wasmMemory().buffer.byteLength, before);
  },

  async 'the lite tracker reads its config and refuses junk with codes'({ assert }) {
    const l = await lite();
    assert.throws(() => new l.Tracker('job', { poll: { jitter: 'sideways' } }), { code: 'malformed' });
    assert.throws(() => new l.Tracker('job', { seed: -1 }), { code: 'malformed' });
    assert.throws(() => new l.Tracker('job', { poll: { multiplierPercent: 50 } }), { code: 'invalid_config' });
    const bare = Object.assign(Object.create(null), { multiplierPercent: 50 });
    assert.throws(() => new l.Tracker('job', { poll: bare }), { code: 'invalid_config' }, 'no prototype');
    assert.throws(() => new l.Tracker('job', 7), { code: 'malformed' });
    const t = new l.Tracker('job', { poll: { jitter: 'none', initialMs: 2000 }, deadlineMs: null });
    const n = t.fastCreated('job_1', 0, 5, NaN);
    const outs = l.decodeFast(t, n);
    assert.deepEqual(outs.at(-1), { type: 'wake_at', at: 2000 });
    for (const x of [NaN, -1, 1e300, 2 ** 64]) assert.ok(t.fastPolled(x, 5, NaN, 0) >= -1);
    assert.ok(t.fastTimeout(2000) > 0, 'still usable');
  },
};
