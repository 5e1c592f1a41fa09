// Lifetimes and hostile arguments through the JS API, in Node and Chromium: `free()` is
// idempotent, use after free and unbound methods throw coded errors, every thrown error is an
// `Error` with a `code`, messages quote only a short prefix of the input, the numbers-only
// functions never throw (Symbol, BigInt, Proxy), and a rejected 50 MB string never reaches the
// module's memory (which cannot shrink again).
import { replay } from 'longcall/vectors';
const lite = () => import('longcall/lite');
const HOSTILE = () => [
  Symbol('s'),
  10n,
  new Proxy(
    {},
    {
      get() {
        throw new Error('trap');
      },
    },
  ),
  {
    valueOf() {
      throw new Error('valueOf');
    },
  },
  undefined,
  null,
  {},
  [],
  () => 1,
];

function codeOf(assert, fn, what) {
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

export const cases = {
  async 'isLongcallError is true for longcall codes only'({ lc, assert }) {
    for (const mod of [lc, await lite()]) {
      let thrown;
      try {
        new mod.Tracker('job', { poll: { capMS: 1 } });
      } catch (e) {
        thrown = e;
      }
      assert.ok(mod.isLongcallError(thrown), 'a refused config');
      const node = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
      assert.equal(mod.isLongcallError(node), false, "Node's own code");
      assert.equal(mod.isLongcallError({ code: 'malformed', message: 'x' }), false, 'not an Error');
      assert.ok(mod.isLongcallError(Object.assign(new Error('x'), { code: 'freed' })), "the JavaScript layer's");
    }
  },

  async 'free() is idempotent; use after free is `freed`; unbound methods are `unbound`'({ lc, assert }) {
    for (const mod of [lc, await lite()]) {
      const b = new mod.CancelButton('job');
      b.handleStatus('queued');
      const press = b.press;
      assert.equal(
        codeOf(assert, () => press(), 'unbound press'),
        'unbound',
      );
      assert.equal(
        codeOf(assert, () => press.call({}), 'press on a plain object'),
        'unbound',
      );
      assert.equal(
        codeOf(
          assert,
          () => Object.getOwnPropertyDescriptor(Object.getPrototypeOf(b), 'state').get.call(undefined),
          'getter',
        ),
        'unbound',
      );
      b.free();
      b.free();
      assert.equal(
        codeOf(assert, () => b.state, 'state after free'),
        'freed',
      );
      assert.equal(
        codeOf(assert, () => b.press(), 'press after free'),
        'freed',
      );
      const t = new mod.Tracker('job');
      t.free();
      t.free();
      assert.equal(
        codeOf(assert, () => t.fastTimeout(0), 'fast after free'),
        'freed',
      );
      assert.equal(
        codeOf(assert, () => t.button, 'getter after free'),
        'freed',
      );
      assert.ok(new mod.Tracker('job') instanceof mod.Tracker, 'instanceof still works');
      // `using` (Symbol.dispose) frees through the same guard: twice is nothing, then `freed`.
      if (typeof Symbol.dispose === 'symbol') {
        const d = new mod.Tracker('job');
        assert.equal(d[Symbol.dispose], d.free, 'dispose is the guarded free');
        d[Symbol.dispose]();
        d[Symbol.dispose]();
        assert.equal(
          codeOf(assert, () => d.fastTimeout(0), 'fast after dispose'),
          'freed',
        );
      }
      // A class called without `new`: coded, and its message says how to construct it.
      for (const Cls of [mod.Tracker, mod.CancelButton]) {
        assert.equal(
          codeOf(assert, () => Cls('job'), `${Cls.name} without new`),
          'unbound',
        );
        assert.throws(() => Cls('job'), /without new \(write new (Tracker|CancelButton)\(/);
      }
    }
    const restored = lc.Tracker.restore(new lc.Tracker('job').snapshot());
    assert.ok(restored instanceof lc.Tracker);
    restored.free();
    restored.free();
    assert.equal(
      codeOf(assert, () => restored.snapshot(), 'snapshot after free'),
      'freed',
    );
  },

  async 'numbers-only functions never throw, whatever the value'({ lc, assert }) {
    for (const mod of [lc, await lite()]) {
      const t = new mod.Tracker('job');
      for (const v of HOSTILE()) {
        assert.equal(mod.observeCode(v, 5, 2), 255);
        assert.equal(mod.observeCode(2, v, 2), 255);
        assert.equal(mod.cancelWindowCode(2, v), 255);
        for (const call of [
          () => t.fastCreated(v, 0, 5, NaN),
          () => t.fastCreated('j', v, 5, NaN),
          () => t.fastCreated('j', 0, v, NaN),
          () => t.fastTimeout(v),
          () => t.fastCancelAnswered(0, 2, v, 0),
          () => t.fastRequestFailed(0, 0, v, NaN),
        ]) {
          let n;
          try {
            n = call();
          } catch (e) {
            assert.ok(false, `threw ${e}`);
          }
          assert.ok(Number.isInteger(n), `returned ${n}`);
        }
      }
      // A number written as a string is not a number: times are plain numbers everywhere.
      assert.equal(t.fastCreated('job_1', '1000', 5, NaN), -1, "'1000' for a time");
      assert.equal(t.lastError, 'invalid_input');
      assert.equal(mod.observeCode('2', 5, 2), 255, "'2' for a code");
      assert.equal(t.fastCreated('job_1', 0, 5, NaN), 3, 'the tracker still works');
      assert.equal(
        codeOf(assert, () => mod.decodeFast(t, Infinity), 'decodeFast(Infinity)'),
        'invalid_input',
      );
      assert.equal(mod.decodeFast(t, 3).length, 3);
    }
  },

  'every error is coded, and quotes only a short prefix of the input'({ lc, assert }) {
    const huge = 'x'.repeat(1_000_000);
    const calls = [
      () => lc.parseStatus('job', huge),
      () => lc.statuses(huge),
      () => new lc.CancelButton('job').handleVerdict(huge),
      () => lc.classifyCancelAnswer('job', { kind: huge, httpStatus: 409 }),
      () => new lc.Tracker('job').handleInput(0, { type: huge }),
      () => lc.Tracker.restore(huge),
      () => replay(`{"name": "${huge}"`),
      () => new lc.Tracker('job').handleInput(0, { type: 'job_created', job: { id: 'j', status: 7 } }),
      () => lc.parseStatus(10n, 'x'),
      () => lc.observe(Symbol('m'), 'a', 'b'),
      () => new lc.CancelButton().handleVerdict(),
      () =>
        lc.classifyOutcome(
          'job',
          'completed',
          new Proxy(
            {},
            {
              get() {
                throw new Error('trap');
              },
            },
          ),
        ),
    ];
    for (const [i, fn] of calls.entries()) {
      let err;
      try {
        fn();
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof Error && typeof err.code === 'string', `call ${i}: ${err}`);
      assert.ok(err.message.length <= 300, `call ${i}: message of ${err.message.length} characters`);
      assert.ok(!/ at line \d+ column \d+/.test(err.message), `call ${i}: ${err.message}`);
    }
  },

  async 'a rejected 50 MB string leaves the module memory near its size'({ lc, assert }) {
    const big = 'q'.repeat(50 * 1024 * 1024);
    for (const mod of [lc, await lite()]) {
      const before = mod.wasmMemory().buffer.byteLength;
      const t = new mod.Tracker('job');
      assert.equal(t.fastCreated(big, 0, 5, NaN), -1);
      assert.equal(t.lastError, 'too_large');
      assert.equal(
        codeOf(assert, () => new mod.CancelButton(big), 'model'),
        'unknown_model',
      );
      assert.equal(
        codeOf(assert, () => new mod.CancelButton('job').handleStatus(big), 'status'),
        'unknown_status',
      );
      if (mod === lc) {
        assert.equal(
          codeOf(assert, () => lc.parseStatus('job', big), 'parseStatus'),
          'unknown_status',
        );
        assert.equal(
          codeOf(assert, () => lc.Tracker.restore(big), 'restore'),
          'too_large',
        );
        assert.equal(
          codeOf(
            assert,
            () => t.handleInput(0, { type: 'job_created', job: { id: big, status: 'queued' } }),
            'handleInput',
          ),
          'too_large',
        );
      }
      t.free();
      const after = mod.wasmMemory().buffer.byteLength;
      assert.ok(after - before <= 1024 * 1024, `memory grew from ${before} to ${after} bytes`);
    }
  },
};
