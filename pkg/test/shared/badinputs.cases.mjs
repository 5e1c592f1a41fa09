// The bad-input catalogue (tests/bad-inputs/*.json, format in its README) through the JS API, in
// Node and in Chromium: each input gets the same error code as in the native run
// (tests/bad_inputs.rs), and the value that refused it keeps working (its follow-up succeeds).
// Inputs given as raw text that is not JSON at all stop at the host's own JSON.parse, before
// longcall, for the APIs that take objects; the text-taking APIs (restore, replay) get the text.
// Not run here: `wire` (the JS wire API is readAnswer/readNotification, tested with junk by
// wire.cases.mjs) and `poll_schedule` snapshots (no JS class).
import { replay } from 'longcall/vectors';
import { BAD_INPUTS } from './files.index.mjs';
import { camelKeys } from './spelling.mjs';

const textOf = (c) => {
  if (c.input_text === undefined) return JSON.stringify(c.input);
  const parts = Array.isArray(c.input_text) ? c.input_text : [c.input_text];
  return parts.map((p) => (typeof p === 'string' ? p : p.repeat.repeat(p.times))).join('');
};
const NOT_JSON = Symbol('not JSON');
// biome-ignore lint/suspicious/noShadowRestrictedNames: a module-local helper; nothing here needs the global valueOf.
const valueOf = (c) => {
  if (c.input !== undefined) return c.input;
  try {
    return JSON.parse(textOf(c));
  } catch {
    return NOT_JSON;
  }
};
function codeOf(assert, fn, what) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof Error && typeof e.code === 'string', `${what}: not a coded Error: ${e}`);
    return e.code;
  }
  return '<no error>';
}

// target -> (lc, case) => { bad: () => ..., follow: () => ... } or null (not applicable here)
const TARGETS = {
  model_parse: (lc, c) => ({ bad: () => lc.statuses(c.input ?? textOf(c)), follow: () => lc.statuses(c.follow_up) }),
  status_parse: (lc, c) => ({
    bad: () => lc.parseStatus(c.model, c.input),
    follow: () => lc.parseStatus(c.model, c.follow_up),
  }),
  // JavaScript spells keys in camelCase (the catalogue is the core's snake_case).
  tracker_config: (lc, c) => ({
    bad: () => new lc.Tracker(c.model, camelKeys(valueOf(c))),
    follow: () => new lc.Tracker(c.model, camelKeys(c.follow_up)),
  }),
  poll_policy: (lc, c) => ({
    bad: () => lc.pollPlan({ policy: camelKeys(valueOf(c)), count: 1 }),
    follow: () => lc.pollPlan({ policy: camelKeys(c.follow_up), count: 1 }),
  }),
  poll_plan: (lc, c) => ({
    bad: () => lc.pollPlan({ count: c.input.count }),
    follow: (assert) => assert.equal(lc.pollPlan({ count: c.follow_up.count }).length, c.follow_up.count),
  }),
  snapshot_restore: (lc, c) => {
    const cls = { tracker: lc.Tracker, cancel_button: lc.CancelButton }[c.kind];
    if (!cls) return null;
    const fresh = c.kind === 'tracker' ? new lc.Tracker('job', null) : new lc.CancelButton('task-2026');
    return { bad: () => cls.restore(textOf(c)), follow: () => cls.restore(fresh.snapshot()) };
  },
  vector_parse: (_lc, c) => ({ bad: () => replay(textOf(c)), follow: () => replay(JSON.stringify(c.follow_up)) }),
  batch_ids: (lc, c) => ({
    bad: () => lc.planWaits({ ids: valueOf(c) }),
    follow: () => lc.planWaits({ ids: c.follow_up }),
  }),
  cancel_answer: (lc, c) => ({
    bad: () => lc.classifyCancelAnswer(c.model, camelKeys(valueOf(c))),
    follow: () => lc.classifyCancelAnswer(c.model, camelKeys(c.follow_up)),
  }),
  outcome_classify: (lc, c) => ({
    bad: () => lc.classifyOutcome(c.model, c.input.status, c.input.payload),
    follow: () => lc.classifyOutcome(c.model, c.follow_up.status, c.follow_up.payload),
  }),
  tracker_input: (lc, c) => {
    const t = new lc.Tracker(c.model, camelKeys(c.config ?? null));
    for (const s of c.setup ?? []) t.handleInput(s.at, camelKeys(s.input));
    let before;
    return {
      bad: () => {
        before = t.snapshot();
        t.handleInput(c.at ?? 1, camelKeys(valueOf(c)));
      },
      follow: (assert) => {
        assert.equal(t.snapshot(), before, 'the refused input changed the tracker');
        assert.ok(!t.drainOutputs().some((o) => o.type === 'send'), 'the refused input put a request on the wire');
        t.handleInput(c.follow_up.at ?? c.at ?? 1, camelKeys(c.follow_up.input));
      },
    };
  },
  wire: () => null,
};

export const cases = {};
for (const path of BAD_INPUTS) {
  cases[`bad input ${path.replace(/^tests\/bad-inputs\//, '')}`] = async ({ lc, assert, readText }) => {
    const c = JSON.parse(await readText(path));
    const make = TARGETS[c.target];
    assert.ok(make, `unknown target ${c.target}`);
    const run = make(lc, c);
    if (!run) return; // not applicable to the JS API (see the header)
    const objectTaking = ![
      'snapshot_restore',
      'vector_parse',
      'model_parse',
      'status_parse',
      'poll_plan',
      'outcome_classify',
    ].includes(c.target);
    if (objectTaking && valueOf(c) === NOT_JSON) return; // refused by the host's JSON.parse first
    assert.equal(codeOf(assert, run.bad, path), c.expect_code, `${path}: ${c.about ?? ''}`);
    // A follow-up carrying integers past 2^53 (u64::MAX, say) is valid natively but cannot be
    // held exactly by a JavaScript number; those follow-ups run natively only.
    if (/\d{16,}/.test(JSON.stringify(c.follow_up ?? null))) return;
    run.follow(assert);
  };
}
