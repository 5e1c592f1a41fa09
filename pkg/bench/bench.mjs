// npm --prefix pkg run bench: per-event cost of the same two lifecycles through longcall
// (numbers-only and structured paths) and through an XState v5 actor, in one Node process.
//   task: created -> 3 x (timeout, working poll) -> input_required -> input answered -> update
//         acked -> completed poll                                                    (10 events)
//   job:  created queued -> timeout -> queued poll -> cancel press -> 409 too late -> timeout
//         -> processing poll -> timeout -> completed poll                            (9 events)
// Each run repeats the lifecycle on fresh machines many times; the figure is the median of RUNS.
// The module measured is the one Node loads (`longcall`'s Node entry: compiled for speed), or,
// with `--browser`, the one pages download (compiled for size), instantiated here in Node; the
// npm script runs both.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setup, createActor, assign } from 'xstate';

const BROWSER = process.argv.includes('--browser');
const longcall = BROWSER ? await import('../web.js') : await import('longcall');
if (BROWSER) longcall.initSync(readFileSync(new URL('../dist/longcall_bg.wasm', import.meta.url)));
const { Tracker, fastOutputs } = longcall;

const RUNS = Number(process.env.RUNS ?? 7);
const ITER = Number(process.env.ITER ?? 20000);

// --- longcall, numbers only (the input_required/answer pair carries text, so the task lifecycle
// uses the structured path for those two events; the job lifecycle is numbers only throughout).
const cfg = { poll: { jitter: 'none' }, seed: 1 };
let sink = 0;
function taskFast() {
  const t = new Tracker('task-2026', cfg);
  let n = t.fastCreated('t-1', 0, 0, 2000);
  const out = fastOutputs();
  sink += out[t.fastOffset];
  let now = 0;
  for (let i = 0; i < 3; i++) {
    now += 2000;
    n += t.fastTimeout(now);
    n += t.fastPolled(now + 50, 0, 2000, 0);
  }
  t.handleInput(now + 100, {
    type: 'task_polled',
    task: { taskId: 't-1', status: 'input_required', inputRequests: [{ key: 'k', request: { q: 1 } }] },
  });
  t.handleInput(now + 200, { type: 'input_answered', key: 'k', response: { ok: true } });
  n += t.fastUpdateAcked(now + 300);
  n += t.fastPolled(now + 4000, 2, NaN, 1);
  sink += n + fastOutputs()[t.fastOffset];
  t.free();
}
const TASK_EVENTS = 10,
  TASK_FAST_EVENTS = 8;
function jobFast() {
  const t = new Tracker('job', cfg);
  let n = t.fastCreated('job_1', 0, 5, NaN);
  n += t.fastTimeout(1000);
  n += t.fastPolled(1100, 5, NaN, 0);
  n += t.fastCancelPressed(1200);
  n += t.fastCancelAnswered(1300, 4, 409, 0);
  n += t.fastTimeout(3100);
  n += t.fastPolled(3200, 6, NaN, 0);
  n += t.fastTimeout(7200);
  n += t.fastPolled(7300, 2, NaN, 0);
  sink += n + fastOutputs()[t.fastOffset];
  t.free();
}
const JOB_EVENTS = 9;

// --- longcall, structured (camelCase in and out, as the JavaScript API is meant to be used).
function taskStructured() {
  const t = new Tracker('task-2026', cfg);
  let o = t.handleInput(0, { type: 'task_created', task: { taskId: 't-1', status: 'working', pollIntervalMs: 2000 } });
  let now = 0;
  for (let i = 0; i < 3; i++) {
    now += 2000;
    o = t.handleTimeout(now);
    o = t.handleInput(now + 50, {
      type: 'task_polled',
      task: { taskId: 't-1', status: 'working', pollIntervalMs: 2000 },
    });
  }
  o = t.handleInput(now + 100, {
    type: 'task_polled',
    task: { taskId: 't-1', status: 'input_required', inputRequests: [{ key: 'k', request: { q: 1 } }] },
  });
  o = t.handleInput(now + 200, { type: 'input_answered', key: 'k', response: { ok: true } });
  o = t.handleInput(now + 300, { type: 'update_acked' });
  o = t.handleInput(now + 4000, {
    type: 'task_polled',
    task: { taskId: 't-1', status: 'completed', result: { isError: false, value: { ok: 1 } } },
  });
  sink += o.length;
  t.free();
}
const jp = (status) => ({ type: 'job_polled', job: { id: 'job_1', status } });
function jobStructured() {
  const t = new Tracker('job', cfg);
  let o = t.handleInput(0, { type: 'job_created', job: { id: 'job_1', status: 'queued' } });
  o = t.handleTimeout(1000);
  o = t.handleInput(1100, jp('queued'));
  o = t.handleInput(1200, { type: 'cancel_pressed' });
  o = t.handleInput(1300, {
    type: 'cancel_answered',
    answer: { kind: 'job_error', httpStatus: 409, code: 'job_generation_already_started' },
  });
  o = t.handleTimeout(3100);
  o = t.handleInput(3200, jp('processing'));
  o = t.handleTimeout(7200);
  o = t.handleInput(7300, jp('completed'));
  sink += o.length;
  t.free();
}

// --- XState v5, written as its docs recommend (setup().createMachine, createActor, actor.send),
// with the same rules: a guard on the interval, assign for context, after-delays for polls.
const clock = { setTimeout: () => 0, clearTimeout: () => {} }; // timers are host-driven, as in longcall
const taskMachine = setup({
  actions: {
    note: assign({ polls: ({ context }) => context.polls + 1 }),
    ask: assign({ asked: ({ context, event }) => [...context.asked, event.key] }),
  },
  guards: { newKey: ({ context, event }) => !context.asked.includes(event.key) },
  delays: { interval: ({ context }) => context.interval },
}).createMachine({
  id: 'task',
  initial: 'idle',
  context: { polls: 0, asked: [], interval: 2000 },
  states: {
    idle: { on: { CREATED: 'working' } },
    working: {
      after: { interval: { actions: 'note' } },
      on: {
        POLL_WORKING: { target: 'working', reenter: true },
        TIMEOUT: { actions: 'note' },
        INPUT_REQUIRED: { target: 'input_required', guard: 'newKey', actions: 'ask' },
        COMPLETED: 'completed',
        CANCEL: 'cancelling',
      },
    },
    input_required: { on: { ANSWERED: 'updating', CANCEL: 'cancelling' } },
    updating: { on: { UPDATE_ACKED: 'working' } },
    cancelling: { on: { COMPLETED: 'completed' } },
    completed: { type: 'final' },
  },
});
const jobMachine = setup({
  actions: { note: assign({ polls: ({ context }) => context.polls + 1 }) },
  guards: { cancellable: ({ context }) => context.status === 'queued' },
}).createMachine({
  id: 'job',
  initial: 'idle',
  context: { polls: 0, status: 'none', button: 'unavailable' },
  states: {
    idle: { on: { CREATED: { target: 'queued', actions: assign({ status: 'queued', button: 'available' }) } } },
    queued: {
      after: { 1000: { actions: 'note' } },
      on: {
        TIMEOUT: { actions: 'note' },
        POLL_QUEUED: {},
        CANCEL: { target: 'cancelling', guard: 'cancellable', actions: assign({ button: 'requesting' }) },
        POLL_PROCESSING: 'processing',
      },
    },
    cancelling: {
      on: { TOO_LATE: { target: 'processing', actions: assign({ button: 'too_late' }) }, TIMEOUT: { actions: 'note' } },
    },
    processing: {
      on: {
        TIMEOUT: { actions: 'note' },
        POLL_PROCESSING: { actions: assign({ status: 'processing' }) },
        POLL_COMPLETED: 'completed',
      },
    },
    completed: { type: 'final' },
  },
});
function taskXState() {
  const a = createActor(taskMachine, { clock }).start();
  a.send({ type: 'CREATED' });
  for (let i = 0; i < 3; i++) {
    a.send({ type: 'TIMEOUT' });
    a.send({ type: 'POLL_WORKING' });
  }
  a.send({ type: 'INPUT_REQUIRED', key: 'k' });
  a.send({ type: 'ANSWERED' });
  a.send({ type: 'UPDATE_ACKED' });
  a.send({ type: 'COMPLETED' });
  sink += a.getSnapshot().context.polls;
  a.stop();
}
function jobXState() {
  const a = createActor(jobMachine, { clock }).start();
  a.send({ type: 'CREATED' });
  a.send({ type: 'TIMEOUT' });
  a.send({ type: 'POLL_QUEUED' });
  a.send({ type: 'CANCEL' });
  a.send({ type: 'TOO_LATE' });
  a.send({ type: 'TIMEOUT' });
  a.send({ type: 'POLL_PROCESSING' });
  a.send({ type: 'TIMEOUT' });
  a.send({ type: 'POLL_COMPLETED' });
  sink += a.getSnapshot().context.polls;
  a.stop();
}
// Pure per-event cost of the numbers-only path on one long-lived tracker (no construction):
// a poll answer followed by a timeout, repeated (2 events per iteration).
function steadyFast() {
  const t = new Tracker('task-2026', { poll: { jitter: 'none', maxPolls: null }, seed: 1 });
  t.fastCreated('t-1', 0, 0, 1000);
  let now = 0;
  const t0 = performance.now();
  for (let i = 0; i < ITER * 5; i++) {
    now += 1000;
    sink += t.fastTimeout(now);
    sink += t.fastPolled(now + 1, 0, 1000, 0);
  }
  const dt = performance.now() - t0;
  t.free();
  return (dt * 1e6) / (ITER * 10);
}

// The same on the structured path: plain objects in, plain objects out.
function steadyStructured() {
  const t = new Tracker('task-2026', { poll: { jitter: 'none', maxPolls: null }, seed: 1 });
  t.handleInput(0, { type: 'task_created', task: { taskId: 't-1', status: 'working', pollIntervalMs: 1000 } });
  let now = 0;
  const n = ITER;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    now += 1000;
    sink += t.handleTimeout(now).length;
    sink += t.handleInput(now + 1, {
      type: 'task_polled',
      task: { taskId: 't-1', status: 'working', pollIntervalMs: 1000 },
    }).length;
  }
  const dt = performance.now() - t0;
  t.free();
  return (dt * 1e6) / (n * 2);
}

function perEvent(fn, events, iter = ITER) {
  for (let i = 0; i < Math.min(2000, iter); i++) fn(); // warm-up
  const t0 = performance.now();
  for (let i = 0; i < iter; i++) fn();
  return ((performance.now() - t0) * 1e6) / (iter * events);
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
};
// Headline rows first: whole lifecycles including constructing and freeing the machine.
const rows = {
  'longcall numbers-only, job lifecycle': () => perEvent(jobFast, JOB_EVENTS),
  'longcall numbers-only*, task lifecycle': () => perEvent(taskFast, TASK_EVENTS),
  'longcall structured, job lifecycle': () => perEvent(jobStructured, JOB_EVENTS, ITER / 4),
  'longcall structured, task lifecycle': () => perEvent(taskStructured, TASK_EVENTS, ITER / 4),
  'XState 5 actor.send, job lifecycle': () => perEvent(jobXState, JOB_EVENTS, ITER / 4),
  'XState 5 actor.send, task lifecycle': () => perEvent(taskXState, TASK_EVENTS, ITER / 4),
  'longcall numbers-only, steady (poll+timeout)': () => steadyFast(),
  'longcall structured, steady (poll+timeout)': () => steadyStructured(),
};
const results = {};
for (let r = 0; r < RUNS; r++) for (const [name, fn] of Object.entries(rows)) (results[name] ??= []).push(fn());
const med = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, median(v)]));
const fmt = (ns) => (ns >= 1000 ? `${(ns / 1000).toFixed(2)} µs` : `${ns.toFixed(1)} ns`);
console.log(
  BROWSER
    ? 'module: dist/longcall_bg.wasm (what pages download: compiled for size), run in Node'
    : "module: dist/longcall_node_bg.wasm (what `import 'longcall'` loads in Node: compiled for speed)",
);
console.log(
  `node ${process.version}, ${RUNS} runs (median), ${ITER} lifecycles per run (structured/XState: ${ITER / 4})`,
);
console.log(`${'path'.padEnd(46)} ${'per event'.padStart(10)}   runs (ns)`);
for (const [k, v] of Object.entries(med))
  console.log(`${k.padEnd(46)} ${fmt(v).padStart(10)}   ${results[k].map((x) => x.toFixed(0)).join(' ')}`);
const ratio = (a, b) => (med[b] / med[a]).toFixed(1);
console.log('ratios (XState / longcall, same lifecycle):');
console.log(
  `  job:  numbers-only ${ratio('longcall numbers-only, job lifecycle', 'XState 5 actor.send, job lifecycle')}x, structured ${ratio('longcall structured, job lifecycle', 'XState 5 actor.send, job lifecycle')}x`,
);
console.log(
  `  task: numbers-only* ${ratio('longcall numbers-only*, task lifecycle', 'XState 5 actor.send, task lifecycle')}x, structured ${ratio('longcall structured, task lifecycle', 'XState 5 actor.send, task lifecycle')}x`,
);
console.log(
  `  steady numbers-only vs XState job: ${ratio('longcall numbers-only, steady (poll+timeout)', 'XState 5 actor.send, job lifecycle')}x, steady structured vs XState job: ${ratio('longcall structured, steady (poll+timeout)', 'XState 5 actor.send, job lifecycle')}x`,
);
console.log(
  `* task lifecycle numbers-only: ${TASK_FAST_EVENTS} of ${TASK_EVENTS} events fast; input_required and the answer carry text and go structured. Lifecycles include constructing and freeing the machine (about 1-3 µs: the config is read by its own keys and wasm-bindgen registers each object for garbage collection); the steady rows are the per-event cost on a long-lived machine. The structured rows take the short way (pkg/structured.js) for every event; payload values (input requests, answers, results) still cross as JSON text.`,
);
if (sink === 42.5) console.log('');
