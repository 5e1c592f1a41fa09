// Compares two builds of the package on the structured lifecycles in one Node process, each
// build in turn for many rounds, and prints the median of the paired ratios (new / old): on a
// shared machine, whose speed drifts by more than the changes being weighed, the pairs move
// together and their ratio does not.
//   node pkg/bench/compare.mjs OLD_PKG_DIR NEW_PKG_DIR
// Each folder is a built package (`npm --prefix pkg run build`), e.g. a `git worktree` of the
// older commit; its Node entry (`node.js`, the module compiled for speed) is what runs.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [oldDir, newDir] = process.argv.slice(2);
if (!oldDir || !newDir) {
  console.error('usage: node pkg/bench/compare.mjs OLD_PKG_DIR NEW_PKG_DIR');
  process.exit(2);
}
const load = async (dir) => (await import(pathToFileURL(resolve(dir, 'node.js')).href)).Tracker;
const builds = { old: await load(oldDir), new: await load(newDir) };

const ROUNDS = Number(process.env.ROUNDS ?? 60);
const ITER = Number(process.env.ITER ?? 5000);
const cfg = { poll: { jitter: 'none' }, seed: 1 };
let sink = 0;

// The lifecycles of bench.mjs, structured: a task with an input request, a job whose cancel is
// too late.
const lifecycles = {
  task: [
    10,
    (Tracker) => {
      const t = new Tracker('task-2026', cfg);
      let now = 0;
      t.handleInput(now, { type: 'task_created', task: { taskId: 't-1', status: 'working', pollIntervalMs: 2000 } });
      for (let i = 0; i < 3; i++) {
        now += 2000;
        t.handleTimeout(now);
        t.handleInput(now + 50, {
          type: 'task_polled',
          task: { taskId: 't-1', status: 'working', pollIntervalMs: 2000 },
        });
      }
      const asks = [{ key: 'k', request: { q: 1 } }];
      t.handleInput(now + 100, {
        type: 'task_polled',
        task: { taskId: 't-1', status: 'input_required', inputRequests: asks },
      });
      t.handleInput(now + 200, { type: 'input_answered', key: 'k', response: { ok: true } });
      t.handleInput(now + 300, { type: 'update_acked' });
      const result = { isError: false, value: { ok: 1 } };
      sink += t.handleInput(now + 4000, {
        type: 'task_polled',
        task: { taskId: 't-1', status: 'completed', result },
      }).length;
      t.free();
    },
  ],
  job: [
    9,
    (Tracker) => {
      const jp = (status) => ({ type: 'job_polled', job: { id: 'job_1', status } });
      const t = new Tracker('job', cfg);
      t.handleInput(0, { type: 'job_created', job: { id: 'job_1', status: 'queued' } });
      t.handleTimeout(1000);
      t.handleInput(1100, jp('queued'));
      t.handleInput(1200, { type: 'cancel_pressed' });
      const answer = { kind: 'job_error', httpStatus: 409, code: 'job_generation_already_started' };
      t.handleInput(1300, { type: 'cancel_answered', answer });
      t.handleTimeout(3100);
      t.handleInput(3200, jp('processing'));
      t.handleTimeout(7200);
      sink += t.handleInput(7300, jp('completed')).length;
      t.free();
    },
  ],
};

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (const [name, [events, life]] of Object.entries(lifecycles)) {
  const run = (Tracker) => {
    const t0 = performance.now();
    for (let i = 0; i < ITER; i++) life(Tracker);
    return ((performance.now() - t0) * 1e6) / (ITER * events);
  };
  for (let i = 0; i < 2000; i++) {
    life(builds.old);
    life(builds.new);
  }
  const times = { old: [], new: [] };
  const ratios = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Each build first in every other round.
    const order = r % 2 ? ['old', 'new'] : ['new', 'old'];
    const t = {};
    for (const b of order) t[b] = run(builds[b]);
    times.old.push(t.old);
    times.new.push(t.new);
    ratios.push(t.new / t.old);
  }
  console.log(
    `${name} lifecycle, structured: old ${median(times.old).toFixed(0)} ns/event, new ${median(times.new).toFixed(0)} ns/event, new/old ${median(ratios).toFixed(3)} (median of ${ROUNDS} paired rounds)`,
  );
}
if (sink === 0.5) console.log('');
