// Compile-only check of lite.d.ts and server.d.ts (test/types.test.mjs runs tsc --noEmit).
import {
  Tracker,
  CancelButton,
  fastOutputs,
  decodeFast,
  OUTPUT_KINDS,
  STATUSES,
  type ButtonState,
  type Model,
  type TrackerOutput,
} from 'longcall/lite';
import { TaskRegistry, renderTask2026, answerText, completeResult, gateRequest } from 'longcall/server';
import { replay, type ReplayReport } from 'longcall/vectors';
import liteWasm from 'longcall/lite/wasm';
import fullWasm from 'longcall/wasm';

const t = new Tracker('job', { poll: { jitter: 'none' } });
// The .wasm entries are URLs (strings) a bundler hands over, for init().
const _urls: string[] = [liteWasm, fullWasm];
const n: number = t.fastCreated('job_1', 0, 5, NaN);
const kind = OUTPUT_KINDS[fastOutputs()[t.fastOffset]];
const decoded: TrackerOutput[] = decodeFast(t, n);
for (const o of decoded)
  if (o.type === 'send' && o.request.kind === 'cancel') {
    const _key: string | undefined = o.request.idempotencyKey;
  }
// @ts-expect-error: lite has no classifyCancelAnswer (its types list only what it has)
import('longcall/lite').then((m) => m.classifyCancelAnswer);
// A status read off the wire is a string: the code tables' indexOf takes it with no cast, and
// their entries keep their names.
const wireStatus: string = JSON.parse('"queued"');
const code: number = STATUSES.indexOf(wireStatus);
const known: boolean = STATUSES.includes(wireStatus);
const queued: 'queued' = STATUSES[5];
const state: ButtonState = t.button;
// @ts-expect-error: the lite tracker has no structured path
t.handle(0, { type: 'cancel_pressed' });
const b = new CancelButton('job');
const after: ButtonState = b.handleVerdict('too_late');
// No answer at all (fetch threw): the status alone, as the README says.
const _unanswered: ButtonState = b.handleJobAnswer(0);
// @ts-expect-error: verdicts are literal unions
b.handleVerdict('too-late');
// A button knows its model's statuses: a job is never `working`.
b.handleStatus('queued');
// @ts-expect-error: `working` is a task status
b.handleStatus('working');
// A button of a model known only at run time takes any status (the core refuses a wrong one).
const anyModel: Model = JSON.parse('"job"');
new CancelButton(anyModel).handleStatus('working');

const reg = new TaskRegistry('task-2026', { cancel: 'immediate' });
const view = reg.create(0, 'alice', 't1');
const wire = renderTask2026(view, 'task');
// The server's own patterns compile without casts: a rendered task answered, a complete result
// stored, the registry's answers read in camelCase, a Fetch runtime's headers gated.
const _answer: { httpStatus: number; body: string } = answerText(1, wire);
void answerText(1, null, { code: -32602, message: 'unknown task' });
void answerText(1, completeResult());
// @ts-expect-error: a registry answer is not a result; its value, rendered, is
void answerText(1, reg.get(1, 'alice', 't1'));
reg.complete(1, 't1', completeResult({ content: [] }));
const got = reg.result(2, 'alice', 't1');
if (got.ok && got.value.kind === 'result') {
  const _isError: boolean = got.value.result.isError;
}
if (got.ok && got.value.kind === 'blocked') void got.value.inputRequests;
declare const fetchHeaders: Iterable<[string, string]>;
void gateRequest('task-2026', 'ping', null, fetchHeaders);
// @ts-expect-error: a task's members are camelCase
void view.task_id;

export { kind, decoded, state, after, wire };

// The vector runner is its own entry point; its report is typed.
const report: ReplayReport = replay({ name: 'n', model: 'job', steps: [] });
const _passed: boolean = report.passed;
