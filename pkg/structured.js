// The structured path's short way in: `Tracker.handleInput` for the inputs a watch loop sends
// most (a task or job created or polled with only its id, status and interval; a cancel press;
// an update acknowledged; stop) is handed to the module as numbers and two strings, so no JSON
// text is written and read (a few hundred ns instead of several µs). Only the shape is looked at
// here: anything that is not exactly one of those plain objects, with values of the right types,
// takes the general path, which reads it or refuses it (an unknown key is `malformed`, naming
// it). The module builds the same core input either way and decides everything
// (bindings/wasm/src/tracker.rs, `flatInput`); test/shared/api.cases.mjs checks both ways give
// the same outputs and errors.
import { STATUSES } from './codes.js';

const STATUS = new Map(STATUSES.map((s, i) => [s, i]));
const PLAIN = Object.prototype;
// Ids longer than this go the general way (which bounds the whole argument).
const MAX_ID = 1 << 16;

const plain = (v) => v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === PLAIN;
const id = (v) => typeof v === 'string' && v.length <= MAX_ID && v.isWellFormed?.() === true;
const interval = (v) => (v === undefined || v === null ? Number.NaN : Number.isSafeInteger(v) && v >= 0 ? v : -1);

// True when the own enumerable keys of `o` (what JSON.stringify writes) are all `required` and
// any of `optional`, nothing else.
function exactly(o, required, optional) {
  const keys = Object.keys(o);
  let found = 0;
  for (const k of keys) {
    if (required.includes(k)) found++;
    else if (!optional.includes(k)) return false;
  }
  return found === required.length;
}

/** `[type, body, id, statusCode, pollIntervalMs]` for a flat input, or null. */
function flat(input) {
  if (!plain(input)) return null;
  const type = input.type;
  if (typeof type !== 'string') return null;
  if (exactly(input, ['type'], [])) return [type, 0, undefined, Number.NaN, Number.NaN];
  if (exactly(input, ['type', 'task'], [])) {
    const task = input.task;
    if (!plain(task) || !exactly(task, ['taskId', 'status'], ['pollIntervalMs'])) return null;
    const status = STATUS.get(task.status);
    const taskId = task.taskId;
    const ms = interval(task.pollIntervalMs);
    return status === undefined || !id(taskId) || ms < 0 ? null : [type, 1, taskId, status, ms];
  }
  if (exactly(input, ['type', 'job'], [])) {
    const job = input.job;
    if (!plain(job) || !exactly(job, ['id', 'status'], [])) return null;
    const status = STATUS.get(job.status);
    const jobId = job.id;
    return status === undefined || !id(jobId) ? null : [type, 2, jobId, status, Number.NaN];
  }
  return null;
}

/** Routes `Cls.prototype.handleInput` (the glue's, before runtime.js guards it) through `flat`. */
export function routeStructured(Cls) {
  const proto = Cls.prototype;
  const general = proto.handleInput;
  const short = proto.flatInput;
  proto.handleInput = function handleInput(now, input) {
    let f = null;
    try {
      f = flat(input);
    } catch {
      // A getter or proxy that throws: the general path reports it.
    }
    if (f !== null) {
      const out = short.call(this, now, f[0], f[1], f[2], f[3], f[4]);
      if (out !== undefined) return out;
    }
    return general.call(this, now, input);
  };
}
