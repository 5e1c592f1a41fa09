// Every scenario vector (tests/vectors/*.json, pkg/test/vectors/*.json; format: src/vector.rs)
// driven step by step through the JS `Tracker` API; outputs must deepEqual the vector's
// `expect` (which the native run passes: bindings/wasm/tests/vectors.rs). Runs in Node and
// Chromium. Each vector also runs through `replay`, and once more restoring the tracker from its
// snapshot before every step.
import { VECTORS } from './files.index.mjs';

// Endpoint vectors (`"endpoint"`): bytes in, transmits and events out, through CallEndpoint.
function driveEndpoint(lc, assert, v) {
  const cfg = { tracker: v.config ?? {} };
  let ep = v.endpoint.call
    ? lc.CallEndpoint.callTool(v.model, v.endpoint.call.name, v.endpoint.call.arguments ?? {}, v.endpoint.call.ttl_ms ?? null, cfg)
    : lc.CallEndpoint.watch(v.model, v.endpoint.watch, cfg);
  v.steps.forEach((s, i) => {
    let outputs, error = null;
    try {
      if (s.message !== undefined) outputs = ep.handleMessage(s.at, s.message);
      else if (s.transport_failure !== undefined) outputs = ep.handleTransportFailure(s.at, s.transport_failure);
      else if (s.timeout) outputs = ep.timeout(s.at);
      else if (s.restore) { ep = lc.CallEndpoint.restore(ep.snapshot(), s.at); outputs = ep.events(); }
      else if (s.input?.type === 'cancel_pressed') outputs = ep.cancel(s.at);
      else if (s.input?.type === 'input_answered') outputs = ep.answerInput(s.at, s.input.key, s.input.response);
      else if (s.input?.type === 'stop_watching') outputs = ep.stopWatching(s.at);
      else outputs = ep.events();
    } catch (e) {
      assert.ok(e instanceof Error && typeof e.code === 'string', `step ${i}: threw without a code: ${e}`);
      error = e.code;
      outputs = ep.events();
    }
    assert.equal(error, s.error ?? null, `${v.name} step ${i} (at ${s.at}) error`);
    assert.deepEqual(outputs, s.expect, `${v.name} step ${i} (at ${s.at}) outputs`);
  });
  if (v.record) {
    const rec = ep.record();
    for (const [k, want] of Object.entries(v.record)) assert.deepEqual(rec[k], want, `${v.name} record.${k}`);
  }
}

function drive(lc, assert, v, { restoreEachStep = false } = {}) {
  if (v.endpoint) return driveEndpoint(lc, assert, v);
  let t = new lc.Tracker(v.model, v.config ?? null);
  v.steps.forEach((s, i) => {
    if (restoreEachStep) t = lc.Tracker.restore(t.snapshot());
    let outputs, error = null;
    if (s.input !== undefined) {
      try { outputs = t.handle(s.at, s.input); } catch (e) {
        assert.ok(e instanceof Error && typeof e.code === 'string', `step ${i}: threw without a code: ${e}`);
        error = e.code;
        outputs = t.drain();
      }
    } else {
      assert.ok(s.timeout === true, `step ${i}: neither input nor timeout`);
      outputs = t.timeout(s.at);
    }
    assert.equal(error, s.error ?? null, `${v.name} step ${i} (at ${s.at}) error`);
    assert.deepEqual(outputs, s.expect, `${v.name} step ${i} (at ${s.at}) outputs`);
  });
  if (v.record) {
    const rec = t.record();
    for (const [k, want] of Object.entries(v.record)) assert.deepEqual(rec[k], want, `${v.name} record.${k}`);
  }
  return t;
}

export const cases = {
  'there are vectors to run'({ assert }) {
    assert.ok(VECTORS.length >= 2, `found ${VECTORS.length}`);
  },
};

for (const path of VECTORS) {
  cases[`vector ${path} step by step through Tracker`] = async ({ lc, assert, readText }) => {
    drive(lc, assert, JSON.parse(await readText(path)));
  };
  cases[`vector ${path} with snapshot/restore before every step`] = async ({ lc, assert, readText }) => {
    drive(lc, assert, JSON.parse(await readText(path)), { restoreEachStep: true });
  };
  cases[`vector ${path} through replay()`] = async ({ lc, assert, readText }) => {
    const text = await readText(path);
    const report = lc.replay(text);
    assert.ok(report.passed, JSON.stringify(report.steps.filter((s) => !s.ok)));
    assert.deepEqual(lc.replay(JSON.parse(text)), report, 'text and object give the same report');
  };
}
