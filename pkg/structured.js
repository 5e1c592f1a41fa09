// The structured path's short way in: `Tracker.handleInput` for the inputs a watch loop sends
// (a task or job created or polled with its id, status, interval, input requests and tool
// result; a cancel press; a cancel answer; an update acknowledged; stop; the user's answer) is
// handed to the module as numbers and strings, payload values as JSON text of their own, and
// its outputs and those of `handleTimeout` come back as numbers, so no JSON text is written or
// read for the input as a whole (a few hundred ns instead of tens of µs). Only the shape is
// looked at here: anything that is not exactly one of those plain objects, with values of the
// right types, takes the general path, which reads it or refuses it (an unknown key is
// `malformed`, naming it). The module builds the same core input either way and decides
// everything (bindings/wasm/src/tracker.rs, `flatInput`); test/shared/api.cases.mjs checks both
// ways give the same outputs and errors.
import { BAD_CODE, BUTTON_STATES, OUTCOMES, STATUSES, STOP_REASONS } from './codes.js';

const STATUS_CODE = new Map(STATUSES.map((s, i) => [s, i]));
const PLAIN = Object.prototype;
// Ids longer than this go the general way (which bounds the whole argument).
const MAX_ID = 1 << 16;
// Responses longer than this go the general way (which bounds the whole argument).
const MAX_TEXT = 1 << 20;

const plain = (v) => v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === PLAIN;
const id = (v) => typeof v === 'string' && v.length <= MAX_ID && v.isWellFormed?.() === true;
const interval = (v) => (v === undefined || v === null ? Number.NaN : Number.isSafeInteger(v) && v >= 0 ? v : -1);

// True when the own enumerable keys of `o` (what JSON.stringify writes) are all `required` and
// any of `optional`, nothing else.
function exactly(o, required, optional) {
  let found = 0;
  // for-in, not Object.keys (no array made): it also sees inherited enumerable keys, which a
  // plain object has none of unless Object.prototype was written to (the general path then).
  for (const k in o) {
    if (required.includes(k)) found++;
    else if (!optional.includes(k)) return false;
  }
  return found === required.length;
}

// The keys of each shape the short way takes (made once: a literal in `flat` is a new array
// on every call).
const NONE = [];
const TYPE = ['type'];
const TYPE_TASK = ['type', 'task'];
const TYPE_JOB = ['type', 'job'];
const TYPE_ANSWER = ['type', 'answer'];
const TYPE_KEY_RESPONSE = ['type', 'key', 'response'];
const TASK = ['taskId', 'status'];
const TASK_OPTIONAL = ['pollIntervalMs', 'inputRequests', 'result'];
const ASK = ['key', 'request'];
const RESULT = ['isError', 'value'];
const JOB = ['id', 'status'];
const ANSWER = ['kind'];
const ANSWER_OPTIONAL = ['status', 'code', 'httpStatus', 'cancelable'];

/**
 * `[body, type, id, statusCode, pollIntervalMs, text, isError, value]` for a flat input (body 0
 * none, 1 task (text: its inputRequests as JSON; isError and value: its result, value as JSON),
 * 2 job, 3 key and response as JSON text; the module checks the type takes that body), or for
 * a cancel answer (body 4) `[4, type, kind, statusCode, httpStatus, cancelable, code]`; or null.
 */
function flat(input) {
  if (!plain(input)) return null;
  const type = input.type;
  if (typeof type !== 'string') return null;
  if (exactly(input, TYPE, NONE)) return [0, type, undefined, Number.NaN, Number.NaN];
  if (exactly(input, TYPE_TASK, NONE)) {
    const task = input.task;
    if (!plain(task) || !exactly(task, TASK, TASK_OPTIONAL)) return null;
    const status = STATUS_CODE.get(task.status);
    const taskId = task.taskId;
    const ms = interval(task.pollIntervalMs);
    if (status === undefined || !id(taskId) || ms < 0) return null;
    // Input requests go as JSON text, each exactly {key, request}.
    let text;
    if ('inputRequests' in task) {
      const asks = task.inputRequests;
      if (!Array.isArray(asks) || !asks.every((r) => plain(r) && exactly(r, ASK, NONE) && id(r.key))) return null;
      text = JSON.stringify(asks);
      if (typeof text !== 'string' || text.length > MAX_TEXT) return null;
    }
    // A tool result goes as isError and the JSON text of its value.
    let isError = Number.NaN;
    let value;
    if ('result' in task) {
      const result = task.result;
      if (!plain(result) || !exactly(result, RESULT, NONE) || typeof result.isError !== 'boolean') return null;
      isError = result.isError ? 1 : 0;
      value = JSON.stringify(result.value);
      if (typeof value !== 'string' || value.length > MAX_TEXT) return null;
    }
    return [1, type, taskId, status, ms, text, isError, value];
  }
  if (exactly(input, TYPE_JOB, NONE)) {
    const job = input.job;
    if (!plain(job) || !exactly(job, JOB, NONE)) return null;
    const status = STATUS_CODE.get(job.status);
    const jobId = job.id;
    return status === undefined || !id(jobId) ? null : [2, type, jobId, status, Number.NaN];
  }
  if (exactly(input, TYPE_ANSWER, NONE)) {
    const answer = input.answer;
    if (!plain(answer) || !exactly(answer, ANSWER, ANSWER_OPTIONAL)) return null;
    const { kind, code, httpStatus, cancelable } = answer;
    const status = 'status' in answer ? STATUS_CODE.get(answer.status) : -1;
    const http = 'httpStatus' in answer ? httpStatus : Number.NaN;
    const can = !('cancelable' in answer) ? Number.NaN : cancelable === null ? 2 : cancelable === true ? 1 : 0;
    const ok =
      typeof kind === 'string' &&
      status !== undefined &&
      (!('code' in answer) || Number.isSafeInteger(code) || id(code)) &&
      (Number.isNaN(http) || (Number.isSafeInteger(http) && http >= 0)) &&
      (!('cancelable' in answer) || typeof cancelable === 'boolean' || cancelable === null);
    return ok ? [4, type, kind, status, http, can, 'code' in answer ? code : undefined] : null;
  }
  if (exactly(input, TYPE_KEY_RESPONSE, NONE)) {
    const key = input.key;
    // undefined, a function or a symbol (no JSON) and a cyclic value or BigInt (a throw, caught
    // by the caller) go the general way, which refuses them.
    const text = JSON.stringify(input.response);
    return !id(key) || typeof text !== 'string' || text.length > MAX_TEXT
      ? null
      : [3, type, key, Number.NaN, Number.NaN, text];
  }
  return null;
}

// The shapes of outputs fetched in detail (bindings/wasm/src/tracker.rs, `shape`): WHOLE is
// parsed whole (`fastDetail`); the others are built here from their parts (`flatDetail`, a JSON
// array), in the key order the whole output has: parsing only the payload values inside costs
// far less than parsing the whole object.
const WHOLE = 0;
function build(shape, p) {
  if (shape === 1) {
    const o = { type: 'ask_user', key: p[0], request: p[1] };
    if (p[2]) o.call = true;
    return o;
  }
  if (shape === 2) return { type: 'send', request: { kind: 'update', handle: p[0], responses: p[1] } };
  if (shape === 3) {
    const o = { type: 'settled', outcome: p[0], status: p[1] };
    if (p[2]) o.result = p[3];
    if (p[4]) o.error = p[5];
    return o;
  }
  const request = { kind: 'cancel', handle: p[0] };
  if (p[1] !== null) request.idempotencyKey = p[1];
  return { type: 'send', request };
}

// Output kinds of the short way (bindings/wasm/src/tracker.rs, `kind`): the numbers-only kinds
// it writes as numbers; any other (`kind::DETAIL`) is an output fetched whole.
const IDLE = 0,
  WAKE_AT = 1,
  SEND = 2,
  BUTTON = 4,
  STATUS = 5,
  SETTLED = 7,
  STOPPED = 8;

/**
 * Routes `Cls.prototype.handleInput` and `handleTimeout` (the glue's, before runtime.js guards
 * them) through the short way; `fastOutputs` reads the module's numbers-only buffer.
 */
export function routeStructured(Cls, fastOutputs) {
  const proto = Cls.prototype;
  const general = proto.handleInput;
  const drain = proto.drainOutputs;
  const short = proto.flatInput;
  const shortTimeout = proto.flatTimeout;
  const generalTimeout = proto.handleTimeout;
  const shortAnswer = proto.flatCancelAnswered;
  const detail = proto.fastDetail;
  const parts = proto.flatDetail;
  const offset = Object.getOwnPropertyDescriptor(proto, 'fastOffset').get;
  const flatTypes = Cls.flatTypes;
  // type -> its code, for each body (0 none, 1 task, 2 job); read from the module on first use.
  let types = null;
  // Per tracker (a property under a symbol: a WeakMap lookup costs more): where its buffer is,
  // and the handle it holds.
  const MINE = Symbol('longcall.structured');

  function mineOf(t) {
    let mine = t[MINE];
    if (mine === undefined) {
      mine = { at: offset.call(t), handle: undefined };
      t[MINE] = mine;
    }
    return mine;
  }

  function decode(t, n) {
    const mine = mineOf(t);
    let out = fastOutputs();
    const list = [];
    let k = IDLE;
    for (let i = 0, j = mine.at; i < n; i++, j += 3) {
      k = out[j];
      const a = out[j + 1];
      if (k === WAKE_AT) list.push({ type: 'wake_at', at: a });
      else if (k === STATUS) list.push({ type: 'status', status: STATUSES[a] });
      else if (k === BUTTON) list.push({ type: 'button', state: BUTTON_STATES[a] });
      else if (k === SEND) list.push({ type: 'send', request: { kind: 'get', handle: mine.handle } });
      else if (k === IDLE) list.push({ type: 'idle' });
      else if (k === STOPPED) list.push({ type: 'stopped', reason: STOP_REASONS[a] });
      else if (k === SETTLED) {
        const b = out[j + 2];
        list.push({ type: 'settled', outcome: OUTCOMES[a], status: b === BAD_CODE ? null : STATUSES[b] });
      } else {
        const shape = out[j + 2];
        if (shape === WHOLE) {
          const d = detail.call(t, a);
          if (d.type === 'send' && d.request.kind === 'get') mine.handle = d.request.handle;
          list.push(d);
        } else list.push(build(shape, JSON.parse(parts.call(t, a))));
        // The call may have grown the module memory (a new array over it).
        out = fastOutputs();
      }
    }
    // The buffer filled up before the closing wake_at/idle: the rest as the general path has it.
    return k === WAKE_AT || k === IDLE ? list : list.concat(drain.call(t));
  }

  proto.handleInput = function handleInput(now, input) {
    let f = null;
    try {
      f = flat(input);
    } catch {
      // A getter or proxy that throws: the general path reports it.
    }
    if (f !== null && typeof now === 'number') {
      types ??= [0, 1, 2, 3, 4].map(
        (b) => new Map(flatTypes().flatMap(([name, body], i) => (body === b ? [[name, i]] : []))),
      );
      const type = types[f[0]].get(f[1]);
      if (f[0] === 4) {
        if (type !== undefined) {
          const n = shortAnswer.call(this, now, f[2], f[3], f[6], f[4], f[5]);
          if (n >= 0) return decode(this, n);
        }
      } else if (type !== undefined) {
        // The handle this tracker holds (the one last given or written out in full) need not be
        // sent again; one given is held from now on, by the module too.
        const mine = mineOf(this);
        const id = f[0] !== 3 && f[2] !== undefined && f[2] === mine.handle ? undefined : f[2];
        const n = short.call(this, now, type, id, f[3], f[4], f[5], f[6] ?? Number.NaN, f[7]);
        if (n >= 0) {
          if (f[0] !== 3 && id !== undefined) mine.handle = id;
          return decode(this, n);
        }
      }
    }
    return general.call(this, now, input);
  };
  proto.handleTimeout = function handleTimeout(now) {
    const n = typeof now === 'number' ? shortTimeout.call(this, now) : -1;
    return n >= 0 ? decode(this, n) : generalTimeout.call(this, now);
  };
}
