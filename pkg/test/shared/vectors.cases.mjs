// Every scenario vector (tests/vectors/*.json, pkg/test/vectors/*.json; format: src/vector.rs)
// driven step by step through the JS `Tracker` API, its keys in JavaScript's camelCase
// (./spelling.mjs); outputs must deepEqual the vector's `expect` spelled the same way (which the
// native run passes: bindings/wasm/tests/vectors.rs). Runs in Node and
// Chromium. Each vector also runs through `replay`, and once more restoring the tracker from its
// snapshot before every step.
import { replay } from 'longcall/vectors';
import { VECTORS } from './files.index.mjs';
import { camelKey, camelKeys } from './spelling.mjs';

function drive(lc, assert, v, { restoreEachStep = false } = {}) {
  let t = new lc.Tracker(v.model, camelKeys(v.config ?? null));
  v.steps.forEach((s, i) => {
    if (restoreEachStep) t = lc.Tracker.restore(t.snapshot());
    let outputs,
      error = null;
    if (s.input !== undefined) {
      try {
        outputs = t.handleInput(s.at, camelKeys(s.input));
      } catch (e) {
        assert.ok(e instanceof Error && typeof e.code === 'string', `step ${i}: threw without a code: ${e}`);
        error = e.code;
        outputs = t.drainOutputs();
      }
    } else {
      assert.ok(s.timeout === true, `step ${i}: neither input nor timeout`);
      outputs = t.handleTimeout(s.at);
    }
    assert.equal(error, s.error ?? null, `${v.name} step ${i} (at ${s.at}) error`);
    assert.deepEqual(outputs, camelKeys(s.expect), `${v.name} step ${i} (at ${s.at}) outputs`);
  });
  if (v.record) {
    const rec = t.runRecord();
    for (const [k, want] of Object.entries(v.record))
      assert.deepEqual(rec[camelKey(k)], camelKeys(want), `${v.name} record.${k}`);
  }
  return t;
}

export const cases = {
  'there are vectors to run'({ assert }) {
    assert.ok(VECTORS.length >= 2, `found ${VECTORS.length}`);
  },
  'replay refuses what is not a vector with a coded error, and runs on'({ assert }) {
    assert.throws(() => replay('x'.repeat(5 << 20)), { code: 'too_large' });
    assert.throws(() => replay('{"name": 1}'), { code: 'malformed', message: /name: invalid type/ });
    let thrown = null;
    try {
      replay(Symbol('v'));
    } catch (e) {
      thrown = e;
    }
    assert.ok(thrown instanceof Error && typeof thrown.code === 'string', `a Symbol: ${String(thrown)}`);
    const v = { name: 'n', model: 'job', steps: [{ at: 0, timeout: true, expect: [{ type: 'idle' }] }] };
    assert.equal(replay(v).name, 'n');
  },
};

// Vectors whose steps carry `open_api` (a Sume Open API HTTP answer, named `open-api-*.json`) are
// read into tracker inputs by the core's vector runner, and endpoint vectors (`endpoint-*.json`:
// bytes in, transmits out) drive the core's CallEndpoint: both run through replay() only.
const replayOnly = (path) => /(^|\/)(open-api|endpoint)-[^/]*\.json$/.test(path);

for (const path of VECTORS) {
  if (!replayOnly(path)) {
    cases[`vector ${path} step by step through Tracker`] = async ({ lc, assert, readText }) => {
      drive(lc, assert, JSON.parse(await readText(path)));
    };
    cases[`vector ${path} with snapshot/restore before every step`] = async ({ lc, assert, readText }) => {
      drive(lc, assert, JSON.parse(await readText(path)), { restoreEachStep: true });
    };
  }
  cases[`vector ${path} through replay()`] = async ({ assert, readText }) => {
    const text = await readText(path);
    const report = replay(text);
    assert.ok(report.passed, JSON.stringify(report.steps.filter((s) => !s.ok)));
    assert.deepEqual(replay(JSON.parse(text)), report, 'text and object give the same report');
  };
}
