// npm --prefix pkg run bench:watch: 100,000 watched calls in one Node process.
//
// One `WatchList` (the `longcall_watch` module behind `longcall/store`) holds CALLS paid jobs,
// driven with real timers against a job server simulated in this process (each job answers
// `queued`, then `processing`, then `completed` after a few polls; a settled call is removed and
// a new one added, so the list stays at CALLS). No store: the list is not durable, so this
// measures the watch list and its host loop, not a database.
//
// Prints:
// * memory per watched call: the growth of the wasm module's linear memory and of the JS heap
//   (after a forced GC) from an empty list to CALLS calls, divided by CALLS;
// * how late wakes fire: one timer is armed at the list's next wake (`pollTimeout`, the core's
//   wake-at); when it fires, lateness = the time it ran minus that wake-at. p50/p99 over the
//   timer fires, and over the calls they drove (each counted with its fire's lateness: an upper
//   bound, since a call driven late in a batch may have had a later wake than the first).
//
// A bench, not a test: figures depend on the machine and its load; take them idle.
//   node --expose-gc bench/watch.mjs   (CALLS=100000 DURATION_MS=30000 by default)
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { WatchList } from 'longcall/store';
import { initSync } from '../dist/longcall_watch.js';

const CALLS = Number(process.env.CALLS ?? 100_000);
const DURATION_MS = Number(process.env.DURATION_MS ?? 30_000);
// Polls spread by equal jitter over 5-10 s, then 10-20 s: about 10,000 polls per second at first.
// (Full jitter would clamp a fifth of the first draws to the 2 s floor: a herd the bench made.)
const poll = { initialMs: 10_000, capMs: 20_000, minIntervalMs: 2_000, jitter: 'equal' };

// `initSync` hands back the module's exports when it is already loaded: its memory is one of them.
const wasm = initSync({ module: readFileSync(new URL('../dist/longcall_watch_bg.wasm', import.meta.url)) });
const gc = globalThis.gc ?? (() => {});
const t0 = performance.now();
const clock = () => Math.floor(performance.now() - t0);

function usage() {
  gc();
  gc();
  return { wasm: wasm.memory.buffer.byteLength, heap: process.memoryUsage().heapUsed };
}

// ---- the simulated job server -----------------------------------------------------------------
const jobs = new Map(); // handle -> { polls, finishAfter }
let seq = 0;
function newJob() {
  const handle = `job_${seq++}`;
  jobs.set(handle, { polls: 0, finishAfter: 2 + (seq % 5) });
  return handle;
}
function answer(handle) {
  const j = jobs.get(handle);
  j.polls++;
  if (j.polls >= j.finishAfter) {
    jobs.delete(handle);
    return { id: handle, status: 'completed', result: { url: `https://example.invalid/${handle}` } };
  }
  return { id: handle, status: j.polls === 1 ? 'queued' : 'processing' };
}

// ---- the host -----------------------------------------------------------------------------
// The server's first CALLS jobs exist before the first measure: what grows is the host's alone
// (the watch list, and one map entry from call to job per call).
const ready = Array.from({ length: CALLS }, newJob);
const before = usage();
const list = new WatchList({ durable: false });
const handleOf = new Map(); // call -> handle
let nextCall = 0;
function addCall(now) {
  const call = nextCall++;
  const handle = ready.pop() ?? newJob();
  handleOf.set(call, handle);
  list.addHandle(now, call, 'job', handle, { poll: { ...poll }, seed: call });
}
let answers = [];
const stats = { polls: 0, settled: 0, fires: 0 };
function onOutputs(outs) {
  for (const o of outs) {
    if (o.type !== 'call') continue;
    if (o.output.type === 'send' && o.output.request.kind === 'get') {
      stats.polls++;
      answers.push(o.call);
    } else if (o.output.type === 'settled') {
      stats.settled++;
      list.remove(o.call);
      handleOf.delete(o.call);
      addCall(clock());
    }
  }
}
// Drained as they come, as a host does: one drain of 100,000 calls' first outputs would be a
// transient peak that the wasm memory, which never shrinks, would keep.
for (let i = 0; i < CALLS; i++) {
  addCall(clock());
  if (i % 1000 === 999) onOutputs(list.drain());
}
onOutputs(list.drain());
const loaded = usage();
const perCall = {
  wasm: (loaded.wasm - before.wasm) / CALLS,
  heap: (loaded.heap - before.heap) / CALLS,
};

const fireLateness = [];
const callLateness = [];
let timer = null;
let armedAt;
let stopped = false;
// Re-armed only when the next wake moved: a timer cleared and set again on every answer would
// never fire while answers keep coming.
function arm() {
  if (stopped) return;
  const at = list.pollTimeout;
  if (at === armedAt) return;
  clearTimeout(timer);
  armedAt = at;
  if (at === undefined) return;
  timer = setTimeout(() => fire(at), Math.max(0, at - (performance.now() - t0)));
}
function fire(at) {
  armedAt = undefined;
  const late = performance.now() - t0 - at;
  const polls = stats.polls;
  list.timeout(Math.max(at, clock()));
  onOutputs(list.drain());
  fireLateness.push(late);
  for (let i = stats.polls - polls; i > 0; i--) callLateness.push(late);
  stats.fires++;
  flush();
  arm();
}
// The server answers on the next turn of the event loop, as a loopback server would, at most
// BATCH answers per turn so that a burst does not hold the timers back.
const BATCH = 100;
let flushing = false;
function flush() {
  if (flushing || answers.length === 0) return;
  flushing = true;
  setImmediate(() => {
    flushing = false;
    const batch = answers.length > BATCH ? answers.splice(0, BATCH) : answers;
    if (batch === answers) answers = [];
    const now = clock();
    for (const call of batch) {
      const handle = handleOf.get(call);
      if (handle !== undefined) list.handle(now, call, { type: 'job_polled', job: answer(handle) });
    }
    onOutputs(list.drain());
    flush();
    arm();
  });
}
const cpu0 = process.cpuUsage();
arm();
await new Promise((r) => setTimeout(r, DURATION_MS));
const cpu = process.cpuUsage(cpu0);
stopped = true;
clearTimeout(timer);

const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : Number.NaN;
};
const end = usage();
const ms = (x) => `${x.toFixed(2)} ms`;
console.log(`watch list: ${CALLS} calls held in one Node ${process.version} process for ${DURATION_MS} ms`);
console.log(
  `memory per watched call: wasm ${perCall.wasm.toFixed(0)} B, JS heap ${perCall.heap.toFixed(0)} B ` +
    `(at the end: wasm ${(end.wasm / CALLS).toFixed(0)} B, JS heap ${((end.heap - before.heap) / CALLS).toFixed(0)} B per call)`,
);
console.log(
  `wake lateness over ${fireLateness.length} timer fires: p50 ${ms(q(fireLateness, 0.5))}, p99 ${ms(q(fireLateness, 0.99))}, max ${ms(q(fireLateness, 1))}`,
);
console.log(
  `wake lateness over ${callLateness.length} calls driven (upper bound): p50 ${ms(q(callLateness, 0.5))}, p99 ${ms(q(callLateness, 0.99))}`,
);
console.log(`${stats.polls} polls, ${stats.settled} settled (each replaced by a new call), list size ${list.size}`);
const cpuMs = (cpu.user + cpu.system) / 1000;
console.log(
  `CPU ${cpuMs.toFixed(0)} ms over ${DURATION_MS} ms (${((cpuMs / DURATION_MS) * 100).toFixed(0)}% of a core): ` +
    `${((cpuMs * 1000) / stats.polls).toFixed(1)} µs per poll (its release, the server's answer, the answer fed back), host and simulated server together`,
);
if (!globalThis.gc) console.log('(run with node --expose-gc for the memory figures)');
process.exit(0);
