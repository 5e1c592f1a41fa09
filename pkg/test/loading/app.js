// One small page app, built three ways by test/loading.test.mjs (plain <script type="module">
// with an import map, esbuild (ESM and IIFE), Vite): loads both client builds when it chooses,
// from where the page says (`globalThis.LONGCALL_WASM`, else each build's default), and reports
// what it saw in document.title.
import { init, observe, Tracker, isLongcallError } from 'longcall';
import { init as initLite, CancelButton } from 'longcall/lite';

const where = globalThis.LONGCALL_WASM ?? {};
const report = {};

function codeOf(fn) {
  try {
    fn();
    return 'no error';
  } catch (e) {
    return isLongcallError(e) ? e.code : `uncoded ${e}`;
  }
}

(async () => {
  report.before = codeOf(() => observe('job', 'queued', 'completed'));
  report.beforeLite = codeOf(() => new CancelButton('job'));
  await Promise.all([init(where.full), initLite(where.lite)]);
  report.observe = observe('job', 'queued', 'completed');
  const b = new CancelButton('job');
  b.handleStatus('queued');
  b.press();
  b.handleVerdict('too_late');
  report.button = b.state;
  const t = new Tracker('job', { poll: { jitter: 'none' } });
  report.outputs = t.handleInput(0, { type: 'job_created', job: { id: 'job_1', status: 'queued' } }).map((o) => o.type);
  b.free();
  b.free();
  report.freed = codeOf(() => b.state);
})()
  .catch((e) => {
    report.error = String(e?.stack ?? e);
    report.errorCode = e?.code;
  })
  .finally(() => {
    document.title = JSON.stringify(report);
  });
