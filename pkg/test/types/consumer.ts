// Compile-only check of index.d.ts (test/types.test.mjs runs tsc --noEmit on this file).
import {
  init,
  observe,
  observeCode,
  parseStatus,
  statuses,
  transition,
  transitionTable,
  MODELS,
  OBSERVATIONS,
  BAD_CODE,
  type Model,
  type Observation,
  type Transition,
  type JobStatus,
  type TaskStatus,
  type LongcallError,
} from 'longcall';

const o: Observation = observe('job', 'queued', 'completed');
const t: Transition = transition('task-2026', 'working', 'input_required');
const j: JobStatus = parseStatus('job', 'queued');
const s: TaskStatus[] = statuses('task-2025');
const table: Record<JobStatus, JobStatus[]> = transitionTable('job');
const code = observeCode(2, 5, 2);
const verdict: Observation | undefined = code === BAD_CODE ? undefined : OBSERVATIONS[code];
const m: Model = MODELS[0];
try {
  parseStatus('job', 'x');
} catch (e) {
  const code: string = (e as LongcallError).code;
  void code;
}

// @ts-expect-error: a task status is not a job status
observe('job', 'working', 'queued');
// @ts-expect-error: not a model
statuses('task-2027');
void init(new URL('./longcall_bg.wasm', 'https://example.invalid/'));
// @ts-expect-error: verdicts are literal unions
const bad: Observation = 'skipped-ish';

export { o, t, j, s, table, verdict, m, bad };

import { Tracker, type TrackerOutput, type TrackerInput } from 'longcall';
const tr = new Tracker('job', { poll: { jitter: 'none' } });
const outs: TrackerOutput[] = tr.handleInput(0, { type: 'job_created', job: { id: 'j', status: 'queued' } });
for (const o of outs) {
  if (o.type === 'wake_at') {
    const at: number = o.at;
    void at;
  }
}
// @ts-expect-error: inputs are a discriminated union
const badInput: TrackerInput = { type: 'job_created', task: {} };
// @ts-expect-error: `handle` (the core's snake_case spelling) is gone; `handleInput` is the one way in
tr.handle(0, { type: 'cancel_pressed' });
export { outs, badInput };
