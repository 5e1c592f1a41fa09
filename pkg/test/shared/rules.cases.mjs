// Lifecycle rules through the public API: parseStatus, transition, observe, observeCode,
// statuses, transitionTable, and that no export panics on junk. Runs in Node and Chromium.

const TASK = ['working', 'input_required', 'completed', 'failed', 'cancelled'];
const JOB = ['queued', 'processing', 'running', 'completed', 'failed', 'canceled', 'expired'];
const JUNK = [
  undefined,
  null,
  0,
  1,
  -1,
  NaN,
  Infinity,
  1e300,
  true,
  '',
  ' job',
  'JOB',
  {},
  [],
  ['job'],
  () => 'job',
  10n,
  Symbol('x'),
];

export const cases = {
  'parseStatus returns the wire spelling of every status'({ lc, assert }) {
    for (const s of TASK) {
      assert.equal(lc.parseStatus('task-2026', s), s);
      assert.equal(lc.parseStatus('task-2025', s), s);
    }
    for (const s of JOB) assert.equal(lc.parseStatus('job', s), s);
  },

  'parseStatus errors carry stable codes'({ lc, assert }) {
    const e = assert.throws(() => lc.parseStatus('task-2026', 'canceled'), {
      code: 'status_not_in_model',
      instanceOf: Error,
    });
    assert.ok(e.message.includes('task-2026'), e.message);
    assert.throws(() => lc.parseStatus('job', 'pending'), { code: 'unknown_status', message: '"pending"' });
    assert.throws(() => lc.parseStatus('job', 'working'), { code: 'status_not_in_model' });
    assert.throws(() => lc.parseStatus('task-2027', 'working'), { code: 'unknown_model', message: 'task-2027' });
    assert.throws(() => lc.parseStatus('job', undefined), {
      code: 'invalid_input',
      message: 'raw: expected a string, got undefined',
    });
    assert.throws(() => lc.parseStatus(2, 'queued'), {
      code: 'invalid_input',
      message: 'model: expected a string, got number',
    });
  },

  'transition verdicts'({ lc, assert }) {
    assert.equal(lc.transition('job', 'queued', 'canceled'), 'allowed');
    assert.equal(lc.transition('job', 'processing', 'canceled'), 'forbidden');
    assert.equal(lc.transition('job', 'processing', 'running'), 'repeat');
    assert.equal(lc.transition('task-2026', 'cancelled', 'completed'), 'from_terminal');
    assert.equal(lc.transition('task-2025', 'input_required', 'working'), 'allowed');
    assert.throws(() => lc.transition('task-2026', 'working', 'queued'), { code: 'status_not_in_model' });
  },

  'observe verdicts'({ lc, assert }) {
    assert.equal(lc.observe('job', 'queued', 'completed'), 'skipped');
    assert.equal(lc.observe('job', 'processing', 'queued'), 'regression');
    assert.equal(lc.observe('job', 'queued', 'processing'), 'advance');
    assert.equal(lc.observe('job', 'running', 'processing'), 'repeat');
    assert.equal(lc.observe('task-2026', 'cancelled', 'completed'), 'terminal_conflict');
    assert.throws(() => lc.observe('job', 'queued', 'cancelled'), { code: 'status_not_in_model' });
  },

  'observeCode agrees with observe on every triple'({ lc, assert }) {
    assert.deepEqual([...lc.MODELS], ['task-2026', 'task-2025', 'job']);
    lc.MODELS.forEach((model, m) => {
      lc.STATUSES.forEach((from, f) => {
        lc.STATUSES.forEach((to, t) => {
          const code = lc.observeCode(m, f, t);
          let want;
          try {
            want = lc.OBSERVATIONS.indexOf(lc.observe(model, from, to));
          } catch {
            want = lc.BAD_CODE;
          }
          assert.equal(code, want, `${model} ${from} -> ${to}`);
        });
      });
    });
  },

  'observeCode never throws on junk numbers'({ lc, assert }) {
    // Codes that wrap to valid ones under i32/u8 truncation (2 ** 32 + 2, 258) must still be refused.
    const bad = [
      NaN,
      -1,
      -0.5,
      0.5,
      10,
      255,
      256,
      258,
      2 ** 32,
      2 ** 32 + 2,
      -(2 ** 31),
      1e300,
      Infinity,
      -Infinity,
      Number.MAX_SAFE_INTEGER,
    ];
    for (const x of [...bad, 3]) assert.equal(lc.observeCode(x, 5, 2), lc.BAD_CODE, `model ${x}`);
    for (const x of bad) {
      assert.equal(lc.observeCode(2, x, 2), lc.BAD_CODE, `from ${x}`);
      assert.equal(lc.observeCode(2, 5, x), lc.BAD_CODE, `to ${x}`);
    }
    // Non-numbers are converted by JavaScript (ToNumber) first: undefined -> NaN, '2' -> 2.
    assert.equal(lc.observeCode(undefined, 5, 2), lc.BAD_CODE);
    assert.equal(lc.observeCode({}, 5, 2), lc.BAD_CODE);
    assert.equal(lc.observeCode(-0, 0, 2), 0);
    assert.equal(lc.observeCode(2, 5, 2), 2);
  },

  'statuses and transitionTable'({ lc, assert }) {
    assert.deepEqual(lc.statuses('task-2026'), TASK);
    assert.deepEqual(lc.statuses('task-2025'), TASK);
    assert.deepEqual(lc.statuses('job'), JOB);
    const job = lc.transitionTable('job');
    assert.deepEqual(Object.keys(job), JOB, 'table order');
    assert.deepEqual(job.queued, ['processing', 'running', 'canceled', 'failed', 'expired']);
    assert.deepEqual(job.processing, ['completed', 'failed', 'expired']);
    assert.deepEqual(job.expired, []);
    const task = lc.transitionTable('task-2025');
    assert.deepEqual(task.working, ['input_required', 'completed', 'failed', 'cancelled']);
    assert.equal(Object.getPrototypeOf(task), Object.prototype, 'a plain object, not a Map');
    // The table and transition() agree on every pair.
    for (const model of lc.MODELS) {
      const table = lc.transitionTable(model);
      for (const from of lc.statuses(model)) {
        for (const to of lc.statuses(model)) {
          if (table[from].includes(to))
            assert.equal(lc.transition(model, from, to), 'allowed', `${model} ${from} -> ${to}`);
          else assert.notEqual(lc.transition(model, from, to), 'allowed', `${model} ${from} -> ${to}`);
        }
      }
    }
  },

  'no export panics on any JavaScript value'({ lc, assert }) {
    const calls = {
      parseStatus: (x) => [() => lc.parseStatus(x, 'queued'), () => lc.parseStatus('job', x)],
      transition: (x) => [
        () => lc.transition(x, 'queued', 'running'),
        () => lc.transition('job', x, 'running'),
        () => lc.transition('job', 'queued', x),
      ],
      observe: (x) => [
        () => lc.observe(x, 'queued', 'running'),
        () => lc.observe('job', x, 'running'),
        () => lc.observe('job', 'queued', x),
      ],
      statuses: (x) => [() => lc.statuses(x)],
      transitionTable: (x) => [() => lc.transitionTable(x)],
    };
    for (const [name, make] of Object.entries(calls)) {
      for (const x of JUNK) {
        for (const call of make(x)) {
          let out, err;
          try {
            out = call();
          } catch (e) {
            err = e;
          }
          if (err === undefined) continue; // e.g. a valid value in one slot
          assert.ok(err instanceof Error, `${name}(${String(typeof x)}) threw a non-Error`);
          assert.ok(
            typeof err.code === 'string' && /^[a-z_]+$/.test(err.code),
            `${name}(${typeof x === 'symbol' ? 'symbol' : String(x)}) threw without a code: ${err.name}: ${err.message}`,
          );
          void out;
        }
      }
    }
    // Numbers-only path: JavaScript converts each argument with ToNumber first ([] -> 0,
    // true -> 1, {} -> NaN), so junk gives a valid code or BAD_CODE, or a TypeError from that
    // conversion (Symbol, BigInt); never a wasm trap.
    for (const x of JUNK) {
      try {
        const code = lc.observeCode(x, x, x);
        assert.ok(
          code === lc.BAD_CODE || (Number.isInteger(code) && code >= 0 && code < lc.OBSERVATIONS.length),
          `observeCode(${typeof x}) = ${code}`,
        );
      } catch (e) {
        assert.ok(
          e instanceof TypeError && (typeof x === 'symbol' || typeof x === 'bigint'),
          `observeCode(${typeof x}) threw ${e}`,
        );
      }
    }
    // The instance is still alive and correct afterwards.
    assert.equal(lc.observe('job', 'queued', 'completed'), 'skipped');
  },
};
