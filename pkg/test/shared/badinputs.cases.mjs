// The bad-input catalogue (tests/bad-inputs/*.json, from the fuzz work) through the JS API, when
// it exists: every entry must give an Error with a `code` (or a normal answer), never a trap, and
// the module must keep working afterwards.
import { BAD_INPUTS } from './files.index.mjs';

export const cases = {};
for (const path of BAD_INPUTS) {
  cases[`bad inputs ${path}`] = async ({ lc, assert, readText }) => {
    const text = await readText(path);
    let doc;
    try { doc = JSON.parse(text); } catch { doc = text; }
    const entries = Array.isArray(doc) ? doc : (doc.cases ?? doc.inputs ?? doc.entries ?? [doc]);
    const t = new lc.Tracker('task-2026', null);
    for (const e of entries) {
      const value = e?.input ?? e?.value ?? e;
      for (const call of [() => t.handle(0, value), () => lc.replay(value), () => lc.Tracker.restore(typeof value === 'string' ? value : JSON.stringify(value))]) {
        try { call(); } catch (err) {
          assert.ok(err instanceof Error && typeof err.code === 'string', `${path}: ${err}`);
        }
      }
    }
    assert.equal(lc.observe('job', 'queued', 'completed'), 'skipped');
  };
}
