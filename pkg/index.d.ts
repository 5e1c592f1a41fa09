// Public types of the npm package `longcall` (both entry points share them). The unions of names
// (statuses, button states, error codes, ...) and the code tables are generated from the core's
// types into codes.d.ts (scripts/codes.mjs); this file imports them and writes none of them.
// Every function throws a `LongcallError` (a plain `Error` with a stable `code`) on bad input,
// except the numbers-only `*Code` functions, which return `BAD_CODE` (255) instead.

import type {
  Model,
  Status,
  Observation,
  Transition,
  CancelWindow,
  RequestKind,
  ButtonState,
  Outcome,
  StopReason,
  JobErrorCode,
  CancelVerdict,
  ErrorCode,
  Rule,
  TaskStatus,
  JobStatus,
  JobKind,
  JobDialect,
  Jitter,
  ObservationCode,
} from './codes.js';
export type {
  Model,
  Status,
  Observation,
  Transition,
  CancelWindow,
  OutputKind,
  RequestKind,
  ButtonState,
  Outcome,
  StopReason,
  JobErrorCode,
  CancelVerdict,
  ErrorCode,
  Rule,
  TaskStatus,
  JobStatus,
  JobKind,
  JobDialect,
  Jitter,
  ModelCode,
  StatusCode,
  ObservationCode,
  TransitionCode,
} from './codes.js';

/** The statuses model `M` speaks. */
export type StatusOf<M extends Model> = M extends 'job'
  ? JobStatus
  : M extends 'task-2026' | 'task-2025'
    ? TaskStatus
    : Status;

/** What every export throws on bad input: a plain `Error` with a stable `code`; `message` is for people. */
export interface LongcallError extends Error {
  /** Stable machine-readable code, e.g. `"unknown_status"`. */
  code: ErrorCode;
}

declare global {
  // The two WebAssembly types these declarations name, declared so that they compile without
  // the DOM library (a Node project with `lib: ["es2022"]` and @types/node); where the DOM
  // library is loaded, these merge with its own declarations.
  namespace WebAssembly {
    interface Module {}
    interface Memory {
      readonly buffer: ArrayBuffer;
    }
  }
}

/** Where the .wasm comes from: its URL, a `Response` (or a promise of one), its bytes, or a compiled module. */
export type WasmSource =
  | string
  | URL
  | Response
  | PromiseLike<Response>
  | ArrayBuffer
  | ArrayBufferView
  | WebAssembly.Module;

/**
 * Loads the module (in a browser, nothing is fetched until this is called). By default the .wasm
 * next to the package's JavaScript (`new URL('./dist/longcall_bg.wasm', import.meta.url)`);
 * pass your own URL when a bundler does not copy it. Every other export throws `not_initialized`
 * until the promise resolves. Calling it again returns the same promise; in Node it resolves at
 * once (the `node` entry instantiates synchronously). A strict CSP needs `'wasm-unsafe-eval'`.
 * @example await init(); // or: await init(new URL('./longcall_bg.wasm', import.meta.url))
 */
export function init(input?: WasmSource | Promise<WasmSource>): Promise<void>;
/** Instantiates the module synchronously from its bytes or a compiled `WebAssembly.Module`. */
export function initSync(input: ArrayBuffer | ArrayBufferView | WebAssembly.Module): void;
/**
 * True for an error thrown by longcall's module or its JavaScript layer: an `Error` whose `code`
 * is one of {@link ERROR_CODES}; a type guard for `catch (e)`. False for other errors with a
 * `code` (Node's `ECONNREFUSED`), and for the adapters' own codes (`McpCallError`'s
 * `watch_stopped`, ...: test those with `instanceof`).
 */
export function isLongcallError(e: unknown): e is LongcallError;

/**
 * The `setTimeout` delay for a `wake_at` output at `at` when the time is `now` (ms): `at - now`,
 * never below 0 and never above setTimeout's limit of 2^31-1 ms (about 24.8 days; a longer delay
 * fires at once, so a server's 30-day `Retry-After` passed through would spin the host). A
 * wake-up further away fires early: `handleTimeout` then changes nothing and gives the same
 * `wake_at`, which arms the next timer.
 *
 * ```js
 * if (o.type === 'wake_at') timer = setTimeout(wake, timerDelay(o.at, Date.now()));
 * ```
 */
export function timerDelay(at: number, now: number): number;

/**
 * Reads a wire status for a model and returns its exact spelling.
 * @throws {LongcallError} `unknown_model`, `unknown_status` (never read as "pending"),
 *   `status_not_in_model` (`canceled` for a task, `working` for a job), `invalid_input` (not a string).
 * @example parseStatus('job', 'queued') // 'queued'
 */
export function parseStatus<M extends Model>(model: M, raw: string): StatusOf<M>;

/**
 * May the server really move a call of `model` from `from` to `to`?
 * @throws {LongcallError} on an unknown model or a status the model does not speak.
 * @example transition('job', 'processing', 'canceled') // 'forbidden'
 */
export function transition<M extends Model>(model: M, from: StatusOf<M>, to: StatusOf<M>): Transition;

/**
 * Is seeing `from` and then `to` in two polls consistent with `model`?
 * @throws {LongcallError} on an unknown model or a status the model does not speak.
 * @example observe('job', 'queued', 'completed') // 'skipped'
 */
export function observe<M extends Model>(model: M, from: StatusOf<M>, to: StatusOf<M>): Observation;

/**
 * Numbers-only {@link observe} for per-event use: codes in ({@link MODELS}, {@link STATUSES}),
 * an {@link OBSERVATIONS} code out. Never throws and never allocates: any code that is not a
 * model, or a status of that model (NaN, negative, fractional, huge), gives `BAD_CODE` (255).
 * @example OBSERVATIONS[observeCode(2, 5, 2)] // 'skipped' (job, queued -> completed)
 */
export function observeCode(modelCode: number, fromCode: number, toCode: number): ObservationCode | 255;

/**
 * The wire statuses `model` speaks, in table order.
 * @throws {LongcallError} `unknown_model` or `invalid_input`.
 */
export function statuses<M extends Model>(model: M): StatusOf<M>[];

/**
 * The transition table of `model` as a plain object: each status maps to the statuses the server
 * may move it to (terminal statuses map to `[]`), in table order.
 * @throws {LongcallError} `unknown_model` or `invalid_input`.
 * @example transitionTable('job').processing // ['completed', 'failed', 'expired']
 */
export function transitionTable<M extends Model>(model: M): Record<StatusOf<M>, StatusOf<M>[]>;

/** How a first status relates to the model's seeds. */
export type Seed = 'normal' | 'unusual' | 'violation';
/** MUST or SHOULD. */
export type Level = 'must' | 'should';
/** One broken rule, with what was seen. */
export interface Violation {
  rule: Rule;
  level: Level;
  detail: string;
}
/** Any JSON value (tool results, elicitation requests and answers). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

// ---- the endpoint: one call, bytes in, events out (bindings/wasm/src/endpoint.rs) ----

/** Something to put on the wire, ready to send (`headers` is an object ready for `fetch`). */
export type Transmit =
  | { kind: 'rpc'; id: number; text: string; headers: { [name: string]: string } }
  /** The answer to a request of the server's (a 2025 task's input request): POST it; nothing comes back to hand over. */
  | { kind: 'reply'; text: string; headers: { [name: string]: string } }
  | {
      kind: 'http';
      requestRef: number;
      method: string;
      path: string;
      headers: { [name: string]: string };
      body?: string;
    };
/** What the host must do or show, from an {@link Endpoint}. Every batch ends with `wake_at` or `idle`. */
export type EndpointEvent =
  | ({ type: 'transmit' } & Transmit)
  | { type: 'ask_user'; key: string; request: Json; call?: boolean }
  | { type: 'button'; state: ButtonState }
  | { type: 'status'; status: Status }
  /** The task's `statusMessage` changed: words for the person; it never changes the status. */
  | { type: 'progress'; message: string }
  | { type: 'violation'; violation: Violation }
  | { type: 'settled'; outcome: Outcome; status: Status | null; result?: Json; error?: Json }
  /**
   * Watching ended without an outcome. `create_unanswered` after an HTTP answer with no JSON-RPC
   * answer in it (a 429 or 503 page) carries its status and `retryAfterMs` in `failure` (E-68).
   */
  | { type: 'stopped'; reason: StopReason; failure?: Camelized<Failure> }
  | EndpointRequestFailed
  /** The server answered again after `request_failed`. */
  | { type: 'recovered' }
  | { type: 'admission'; advice: Camelized<Advice>; httpStatus: number; requestId?: string }
  | { type: 'wake_at'; at: number }
  | { type: 'idle' };
/**
 * A poll (a result fetch, an input update) got no usable answer and the call is still watched:
 * the core asks again at the next `wake_at` (its backoff, never before a `Retry-After`). Said for
 * each failure; `recovered` follows the first answer after.
 */
export interface EndpointRequestFailed {
  type: 'request_failed';
  request: RequestKind;
  failure: Camelized<Failure>;
}
/**
 * A JSON object the caller hands over as it is (a tool's or a job's arguments, an answer as an
 * MCP SDK returns it). Typed `object`, so an `interface` fits as well as a type literal
 * (TypeScript gives an interface no index signature) and so does an SDK result, whose index
 * signature is of `unknown`; the module refuses anything but a JSON object. `longcall/mcp` and
 * `longcall/jobs` also refuse, as `malformed`, what JSON.stringify would change without a word
 * (a `Map`, a `Set`, a function, a `Date`, `NaN`), naming where it is.
 */
export type JsonObject = object;

/** A job to create with {@link Endpoint.submitJob}. */
export interface JobSubmit {
  /** The catalog model. */
  model: string;
  /** The model's kind. */
  kind: JobKind;
  /** The arguments, sent as they are (an object). */
  arguments?: JsonObject | undefined;
  /** The key of the user's intent: the same on every try and after a restore. */
  idempotencyKey: string;
}
/** An HTTP answer's status and headers, as {@link Endpoint.handleHttpAnswer} takes them. */
export interface HttpAnswerHead {
  status: number;
  /** `Object.fromEntries(response.headers)` or `[...response.headers]`. */
  headers?: { [name: string]: string } | [string, string][] | null;
}
/** The endpoint's reading and job-API options (the tracker's are the `config` argument). */
export interface EndpointWireOptions {
  /** Largest message in bytes (default 4 MiB); an answer over it stops watching (`answer_too_large`). */
  maxBytes?: number | undefined;
  /** Deepest nesting (default 64); an answer nested deeper stops watching (`answer_too_large`). */
  maxDepth?: number | undefined;
  /** Longest string in bytes (default 4 MiB: as long as the message may be); a longer one stops watching (`answer_too_large`). */
  maxStringBytes?: number | undefined;
  /** Check each `tasks/*` answer's revision (default true). */
  detectRevision?: boolean | undefined;
  /**
   * A job API's routes: `[method, path]`, `{id}` replaced by the job id. For the `mcp_tools`
   * dialect only: with `open_api`, whose routes are the Open API's, they are `invalid_config`.
   */
  jobRoutes?: { get?: [string, string]; cancel?: [string, string] } | undefined;
  /** The job API's dialect (default `mcp_tools`). */
  jobDialect?: JobDialect | undefined;
  /**
   * The client each 2026 request names in its `_meta` (`io.modelcontextprotocol/clientInfo`,
   * beside the protocol version and capabilities the core writes too; rule M-21). Default
   * `{name: 'longcall', version}` of this package. 2026 only: a 2025 or job endpoint refuses it
   * (`invalid_config`), since its requests never carry it.
   */
  clientInfo?: { name: string; version: string } | undefined;
}

/** A tool as a `tools/list` answer lists it: its name, and on the 2025 wire how it may run. */
export interface ListedTool {
  name: string;
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' | undefined } | undefined;
  [member: string]: unknown;
}

/** The options of {@link Endpoint.callTool}; an unknown key is `invalid_input`, naming it. */
export interface CallToolOptions {
  /** The task TTL to ask for (ms). */
  ttlMs?: number | null | undefined;
  /** The tracker's poll policy, seed and watch deadline. */
  config?: TrackerConfig | null | undefined;
  /** The endpoint's wire options. */
  wire?: EndpointWireOptions | null | undefined;
  /** The time now (ms): with it, a `config.deadlineMs` already passed is refused. */
  now?: number | null | undefined;
}

/**
 * One call through the core's endpoint: hand it what arrived exactly as it arrived, send what
 * its `transmit` events say, show the rest. Every `handle*` method and user input returns the
 * batch of events it caused, ending with `wake_at` (call `handleTimeout(at)` then, or earlier on
 * input) or `idle`. The core decides every poll, prompt, cancel and what an answer means.
 * @example
 * const ep = Endpoint.callTool('task-2026', 'render', { month: '2026-10' }, { config: { poll: { capMs: 10_000 } } });
 * for (const e of ep.pollEvents()) if (e.type === 'transmit' && e.kind === 'rpc') post(e.text, e.headers, e.id);
 */
export class Endpoint {
  private constructor();
  /**
   * Calls tool `name` (or the tool as `tools/list` listed it: on the 2025 wire one whose
   * `execution.taskSupport` is `forbidden` or absent is called without a task, and its result
   * settles the call); the first event is the `tools/call` to send. With `now` (ms), a
   * `config.deadlineMs` already passed is refused before anything is sent. @throws
   * {LongcallError} `unknown_model`, `wrong_model`, `invalid_input`, `invalid_config`, `malformed`.
   */
  static callTool(
    model: TaskModel,
    name: string | ListedTool,
    args?: JsonObject | null,
    options?: CallToolOptions,
  ): Endpoint;
  /** The same call with its options as positional arguments. */
  static callTool(
    model: TaskModel,
    name: string | ListedTool,
    args?: JsonObject | null,
    ttlMs?: number | null,
    config?: TrackerConfig | null,
    wire?: EndpointWireOptions | null,
    now?: number | null,
  ): Endpoint;
  /**
   * Creates a job; the first event is its submit (an `http` transmit), with the intent's key on
   * every try. The core re-sends it with the same key after a 429, `queue_full`, 5xx or no
   * answer, and never otherwise. With `now` (ms), a `config.deadlineMs` already passed is refused
   * before anything is sent. @throws {LongcallError} `invalid_input`, `malformed`, `invalid_config`.
   */
  static submitJob(
    submit: JobSubmit,
    config?: TrackerConfig | null,
    wire?: EndpointWireOptions | null,
    now?: number | null,
  ): Endpoint;
  /** Watches a task or job id the host persisted; the first event is its poll, no status assumed. */
  static watch(
    model: Model,
    handle: string,
    config?: TrackerConfig | null,
    wire?: EndpointWireOptions | null,
  ): Endpoint;
  /** An endpoint from {@link Endpoint.snapshot}; requests in flight then are handled by the core (lost polls re-armed, a lost `tools/call` never re-sent). @throws {LongcallError} `snapshot_invalid`, `snapshot_version`, `too_large`. */
  static restore(text: string, now: number): Endpoint;
  /** The versioned snapshot of the whole call. */
  snapshot(): string;
  /** The events queued now. */
  pollEvents(): EndpointEvent[];
  /** A JSON-RPC message arrived (an answer or a notification), as it arrived. On a transport that pairs answers with requests, prefer {@link handleAnswer}. */
  handleMessage(now: number, message: string | Uint8Array): EndpointEvent[];
  /**
   * The answer to request `id` on a transport that pairs them (the body of the HTTP response to
   * its POST), as it arrived. When it does not answer `id` (the server echoed another id, or
   * `null` for a request it could not read), request `id` got no answer, as with
   * {@link handleTransportFailure}, so nothing waits for an answer that cannot come.
   */
  handleAnswer(now: number, id: number, message: string | Uint8Array): EndpointEvent[];
  /** {@link handleHttpAnswer} without headers, `Retry-After` read by the caller. */
  handleHttp(
    now: number,
    requestRef: number,
    status: number,
    retryAfterMs: number | null,
    body: string | Uint8Array,
  ): EndpointEvent[];
  /**
   * An HTTP answer to the transmit `requestRef` arrived, with its headers (`Retry-After`,
   * `x-sume-request-id` are the core's to read); `body` exactly as it arrived. A job API's
   * answer, or the response to the POST of an `rpc` transmit over Streamable HTTP (rule E-67): a
   * JSON body is the answer, an event stream's events are read in order, and a 4xx or 5xx with
   * no JSON-RPC answer (a 429 page) fails the request with its status and `Retry-After`.
   */
  handleHttpAnswer(now: number, requestRef: number, answer: HttpAnswerHead, body: string | Uint8Array): EndpointEvent[];
  /** The request `id` got no answer (a request already answered is left alone). */
  handleTransportFailure(now: number, id: number): EndpointEvent[];
  /** Time passed (at or after the last `wake_at`). */
  handleTimeout(now: number): EndpointEvent[];
  /**
   * The user pressed cancel. While the create (a job submit, a `tools/call`) is out unanswered,
   * the press is kept (in the snapshot too) and made once the answer names the call (rule E-65).
   * @throws {LongcallError} `cancel_refused` (nothing is sent).
   */
  pressCancel(now: number): EndpointEvent[];
  /** The user answered input `key` (a task input, or an MRTR input of the call). @throws {LongcallError} on a key never asked. */
  answerInput(now: number, key: string, response: Json): EndpointEvent[];
  /**
   * The `ask_user` events given and not answered yet. After `restore`, show these again (the
   * person who saw them is gone with the old process; the core does not ask a key twice). On
   * 2025 a resumed prompt, the server's own request, is held back until the server sends that
   * request again, and then comes as an `ask_user` event (rule R-7).
   */
  openPrompts(): Extract<EndpointEvent, { type: 'ask_user' }>[];
  /** Stops watching (the call goes on). */
  stopWatching(now: number): EndpointEvent[];
  /**
   * A person comes to look (a page reloaded, a job resumed from its record, a view back on
   * screen): the next poll moves to the earliest time the floors allow (the minimum and the
   * server's interval after the last poll, a `Retry-After`), never later than it was (rule
   * P-15). The backoff goes on, so calling it often polls no faster than the floor. A poll
   * already out, or a call not yet named or ended, is left as it is.
   */
  refresh(now: number): EndpointEvent[];
  /** The run record, camelCase. */
  runRecord(): Camelized<RunRecord>;
  readonly model: Model;
  readonly id: string | undefined;
  readonly status: Status | undefined;
  readonly button: ButtonState;
  readonly outcome: Outcome | undefined;
  readonly isDone: boolean;
  /**
   * After watching stopped with the call going on (a deadline, {@link Endpoint.stopWatching}):
   * a new endpoint watching the same call. Its first poll keeps this watch's floors (rule
   * P-16): no sooner than the end of the last poll plus the floor in force (the server's
   * interval included) nor before a `Retry-After`, so its first events are the status this
   * watch last saw with its button (unless a cancel was asked) and that `wake_at`, or the poll
   * when this watch knew no floor. A call stopped in an MRTR round goes on from that round
   * (rule E-70): its open prompts asked again, or its continuation armed. It keeps what
   * {@link Endpoint.checkSubmit} compares. Free this one when done with it.
   * @throws {LongcallError} `invalid_input` unless watching stopped on a call, named or in an open MRTR round, that has not settled.
   */
  watchAgain(config?: TrackerConfig | null, wire?: EndpointWireOptions | null): Endpoint;
  /**
   * Before continuing a record found under an intent key: checks that `submit` is the job this
   * endpoint submitted (rule E-66). An endpoint that watches an id cannot tell and accepts.
   * @throws {LongcallError} `duplicate` when it submitted another model, other arguments or
   * another key (the key names the job it first submitted; nothing is sent).
   */
  checkSubmit(submit: JobSubmit): void;
  /** The job submit's idempotency key, while the job is not created yet. */
  readonly submitKey: string | undefined;
  /** How often the job submit was sent so far. */
  readonly submitTries: number;
  /** The tool called (`callTool`), restored with a snapshot; `undefined` for a job or a watched handle. */
  readonly toolName: string | undefined;
  free(): void;
}

/** A JSON-RPC error object. Compare codes, never message text. */
export interface RpcError {
  code: number;
  message?: string;
  data?: Json;
}
/** A tool result with its `isError` flag read out. */
export interface ToolResult {
  is_error: boolean;
  value: Json;
}
/** One outstanding input request of an `input_required` task. */
export interface InputRequest {
  key: string;
  request: Json;
}
/** One observation of a task (`tasks/get`, a notification, the creating answer). Times are ms. */
export interface TaskView {
  task_id: string;
  status: TaskStatus;
  status_message?: string;
  created_at_ms?: number;
  last_updated_at_ms?: number;
  /** Absent: the server did not say (the deadline in force stays); `null`: no time limit. */
  ttl_ms?: number | null;
  poll_interval_ms?: number;
  input_requests?: InputRequest[];
  result?: ToolResult;
  error?: RpcError;
}
/** One observation of a job (`jobs_get`, an entry of `jobs_wait`). */
export interface JobView {
  id: string;
  status: JobStatus;
  result?: Json;
  error?: Json;
}
/** A cancel answer as the wire said it. */
export type CancelAnswer =
  | { kind: 'ack' }
  | { kind: 'task'; status: TaskStatus }
  | { kind: 'rpc_error'; code: number }
  | { kind: 'job'; status: JobStatus }
  /** `code`: the envelope's `error.code` as the wire had it; one longcall does not know reads as `other`. */
  | { kind: 'job_error'; http_status: number; code: JobErrorCode | (string & {}); cancelable?: boolean | null }
  | { kind: 'no_answer' };
/** How a request failed. */
export type Failure =
  | { kind: 'rpc'; error: RpcError }
  | { kind: 'http'; status: number; code?: string | null; retry_after_ms?: number | null }
  | { kind: 'transport' };
/**
 * Something that happened, in the core's snake_case spelling (scenario vectors);
 * {@link Tracker.handleInput} takes its camelCase form, {@link TrackerInput}.
 * Discriminated on `type`.
 */
export type Input =
  | { type: 'task_created'; task: TaskView }
  | { type: 'call_result'; result: ToolResult }
  | { type: 'call_input_required'; input_requests: { key: string; request: Json }[]; request_state?: Json }
  | { type: 'call_error'; error: RpcError }
  | { type: 'job_created'; job: JobView }
  | { type: 'create_unanswered' }
  | { type: 'submit_refused'; http_status: number; error?: Json }
  | { type: 'task_polled'; task: TaskView }
  | { type: 'job_polled'; job: JobView }
  | { type: 'task_notified'; task: TaskView }
  | { type: 'result_fetched'; result: ToolResult }
  | { type: 'cancel_answered'; answer: CancelAnswer }
  | { type: 'update_acked' }
  | { type: 'request_failed'; request: RequestKind; failure: Failure }
  | { type: 'cancel_pressed' }
  | { type: 'input_answered'; key: string; response: Json }
  | { type: 'stop_watching' }
  | { type: 'answer_too_large'; request?: RequestKind; size: number; limit: number };
/** A request the host must send now. */
export type Request =
  | { kind: 'get'; handle: string }
  | { kind: 'cancel'; handle: string; idempotency_key?: string }
  | { kind: 'update'; handle: string; responses: [string, Json][] }
  | { kind: 'fetch_result'; handle: string }
  | { kind: 'continue_call'; responses: [string, Json][]; requestState?: Json };
/** Something the host must do or show. Discriminated on `type`; every batch ends with `wake_at` or `idle`. */
export type Output =
  | { type: 'send'; request: Request }
  | { type: 'ask_user'; key: string; request: Json; call?: true }
  | { type: 'button'; state: ButtonState }
  | { type: 'status'; status: Status }
  | { type: 'violation'; violation: Violation }
  | {
      type: 'settled';
      outcome: Outcome;
      status: Status | null;
      /** The tool result (or a job's result) exactly as the server sent it. */
      result?: Json;
      /** The JSON-RPC error (or a job's error) exactly as the server sent it. */
      error?: Json;
    }
  | { type: 'stopped'; reason: StopReason }
  | { type: 'wake_at'; at: number }
  | { type: 'idle' };
/** A snake_case name in the camelCase JavaScript spells it (`poll_interval_ms` -> `pollIntervalMs`). */
export type CamelCase<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<CamelCase<T>>}` : S;
/** A core type with every key in camelCase, as the structured JavaScript API takes and returns it. */
export type Camelized<T> = [Json] extends [T]
  ? T // JSON the caller owns (a result, an input request) keeps its spelling, and reads as `Json`
  : T extends readonly [infer A, infer B]
    ? [Camelized<A>, Camelized<B>]
    : T extends readonly (infer U)[]
      ? Camelized<U>[]
      : T extends object
        ? { [K in keyof T as K extends string ? CamelCase<K> : K]: Camelized<T[K]> }
        : T;
/** What {@link Tracker.handleInput} takes: an {@link Input} in camelCase (`{type: 'task_polled', task: {taskId, status, pollIntervalMs}}`). */
export type TrackerInput = Camelized<Input>;
/** What the camelCase tracker methods (and `decodeFast`) return: an {@link Output} in camelCase (`request.idempotencyKey`). */
export type TrackerOutput = Camelized<Output>;
/** A request a {@link TrackerOutput} says to send. */
export type TrackerRequest = Camelized<Request>;
/** The client's own poll schedule, in the core's spelling (vectors, `pollPlan`). */
export interface PollPolicy {
  initial_ms?: number;
  multiplier_percent?: number;
  cap_ms?: number;
  jitter?: Jitter;
  min_interval_ms?: number;
  max_polls?: number | null;
}
/** The tracker configuration in the core's spelling (vectors). JavaScript passes {@link TrackerConfig}. */
export interface CoreTrackerConfig {
  poll?: PollPolicy;
  seed?: number;
  deadline_ms?: number | null;
}
/**
 * How a tracker polls and how long it watches (integers up to 2^53-1); missing keys take their
 * defaults (1000 ms, x2, 30 s cap, full jitter, 500 ms minimum). A key not listed here is
 * refused with `invalid_config` naming it.
 */
export interface TrackerConfig {
  poll?:
    | {
        initialMs?: number | undefined;
        multiplierPercent?: number | undefined;
        capMs?: number | undefined;
        jitter?: Jitter | undefined;
        minIntervalMs?: number | undefined;
        maxPolls?: number | null | undefined;
        /** Poll at about a stated server interval rather than backing off from it (default true; rule P-13). */
        followServerInterval?: boolean | undefined;
      }
    | undefined;
  /**
   * The jitter's seed (any integer; the same seed, the same schedule). Without one, each tracker
   * draws its own, so trackers made together do not poll together.
   */
  seed?: number | undefined;
  /**
   * When watching stops (`stopped`, reason `deadline`): an absolute time on the clock the `now`
   * arguments come from (`Date.now()` for `longcall/mcp` and `longcall/jobs` unless given), not
   * a duration: `Date.now() + 10 * 60_000` for ten minutes. Never the task or job itself.
   */
  deadlineMs?: number | null | undefined;
}
/** What a host shows or stores about a watched call. */
export interface RunRecord {
  model: Model;
  handle: string | null;
  status: Status | null;
  poll_interval_ms: number | null;
  last_observed_at: number | null;
  next_poll_at: number | null;
  ttl_deadline: number | null;
  polls_sent: number;
  cancel: ButtonState;
  outcome: Outcome | null;
  stopped: StopReason | null;
  violations: Violation[];
  violation_count: number;
  /** The settled call's payload, exactly as the server sent it. */
  result?: Json;
  error?: Json;
}
/** What came with a terminal status: `result` is `isError` when a tool result is present. */
export interface Payload {
  result: boolean | null;
  error: boolean;
}
/** A Sume admission error code. */
export type AdmissionErrorCode =
  | 'queue_full'
  | 'insufficient_credits'
  | 'rate_limit_exceeded'
  | 'not_found'
  | 'none'
  | 'other';
/** What happened to a submit request. */
export type Submitted =
  | { kind: 'answer'; http_status: number; error_code: AdmissionErrorCode; retry_after_ms: number | null }
  | { kind: 'local_timeout' }
  | { kind: 'transport_error' };
/** Why retrying a submit unchanged will not help. */
export type PermanentReason = 'insufficient_credits' | 'unauthorized' | 'forbidden' | 'not_found' | 'rejected';
/** What to do after a submit. There is deliberately no "resubmit". */
export type Advice =
  | { advice: 'accepted' }
  | { advice: 'queue_full' | 'retry_after' | 'backoff'; not_before_ms: number | null }
  | { advice: 'permanent'; reason: PermanentReason }
  | { advice: 'reconcile' };
/** What a `jobs_wait` call waits for. */
export type WaitFor = 'all' | 'any';
/** The body of one `jobs_wait` call. */
export interface WaitCall {
  job_ids: string[];
  wait_for: WaitFor;
  timeout_seconds?: number;
  include_results: boolean;
}
/** The calls for one wave of ids. */
export interface WaitPlan {
  calls: WaitCall[];
  wait_for: WaitFor;
  duplicates: string[];
  already_terminal: string[];
}
/** A job's owner or a caller. */
export interface Owner {
  workspace: string;
  member: string;
}
/** Whether a caller may see a task or job. */
export type Access = 'owner' | 'hidden';
/**
 * How the first status seen for a call relates to the model's seeds.
 * @throws {LongcallError} `unknown_model`, `unknown_status`, `status_not_in_model`, `invalid_input`.
 * @example seed('task-2025', 'completed') // 'violation'
 */
export function seed<M extends Model>(model: M, first: StatusOf<M>): Seed;
/**
 * Classifies a settled call from its terminal status and what came with it.
 * @throws {LongcallError} `invalid_input` for a status that is not terminal or a bad payload.
 * @example classifyOutcome('task-2026', 'completed', { result: true, error: false }) // { outcome: 'tool_error', violation: null }
 */
export function classifyOutcome<M extends Model>(
  model: M,
  status: StatusOf<M>,
  payload: Payload,
): { outcome: Outcome; violation: Rule | null };
/** Whether a 2025 task's outcome needs a `tasks/result` fetch first. @throws {LongcallError} on a bad model or status. */
export function needsResultFetch<M extends Model>(model: M, status: StatusOf<M>): boolean;
/**
 * The cancel window of a call last seen in `status`.
 * @throws {LongcallError} on a bad model or status.
 * @example cancelWindow('job', 'running') // 'started'
 */
export function cancelWindow<M extends Model>(model: M, status: StatusOf<M>): CancelWindow;
/** Numbers-only {@link cancelWindow}: a {@link WINDOWS} code, or `BAD_CODE` (255). Never throws. */
export function cancelWindowCode(modelCode: number, statusCode: number): 0 | 1 | 2 | 255;
/**
 * What a cancel answer means.
 * @throws {LongcallError} `malformed` for an answer it cannot read (a member missing or of the
 * wrong type, a key it does not have), `unknown_status`, `status_not_in_model`.
 * @example classifyCancelAnswer('job', { kind: 'job_error', httpStatus: 409, code: 'job_generation_already_started' }) // 'too_late'
 */
export function classifyCancelAnswer(model: Model, answer: Camelized<CancelAnswer>): CancelVerdict;
/**
 * Admission advice for a submit (never "resubmit").
 * @throws {LongcallError} `malformed` (a member missing or of the wrong type, a key it does not have).
 * @example classifySubmit({ kind: 'local_timeout' }) // { advice: 'reconcile' }
 */
export function classifySubmit(submitted: Camelized<Submitted>): Camelized<Advice>;
/** The advice when an MCP `CreateTaskResult` was lost: reconcile, never repeat blindly. */
export function mcpCreateLost(): Camelized<Advice>;
/**
 * Plans the `jobs_wait` calls for a wave (chunks of 20; duplicates and known-terminal ids left out).
 * @throws {LongcallError} `invalid_input` (an empty id), `malformed` (an argument it cannot read).
 */
export function planWaits(args: {
  ids: string[];
  terminal?: string[];
  waitFor?: WaitFor;
  timeoutSeconds?: number | null;
  includeResults?: boolean;
}): { calls: WaitCall[]; waitFor: WaitFor; duplicates: string[]; alreadyTerminal: string[] };
/**
 * The poll times (absolute ms) a fresh schedule produces, as `longcall plan` prints them.
 * @throws {LongcallError} `invalid_config` (bad policy), `invalid_input` (count over 10000).
 * @example pollPlan({ policy: { jitter: 'none' }, count: 3 }) // [1000, 3000, 7000]
 */
export function pollPlan(args: {
  policy?: TrackerConfig['poll'];
  seed?: number;
  startMs?: number;
  count: number;
  serverIntervalMs?: number | null;
}): number[];
/** The task status a job status maps to (the task/job mapping of the core). @throws {LongcallError} for a non-job status. */
export function taskStatusFor(jobStatus: JobStatus): TaskStatus;
/** The job statuses a task status stands for (`[]` for `input_required`). @throws {LongcallError} for a non-task status. */
export function jobStatusesFor(taskStatus: TaskStatus): JobStatus[];
/** The concept mapping: each MCP task concept and the closest job construct (`null` where jobs have none). */
export function mappingConcepts(): { task: string; job: string | null }[];
/** Whether `caller` may see a job owned by `owner`. @throws {LongcallError} `invalid_input`. */
export function jobAccess(owner: Owner, caller: Owner): Access;
/** Whether `caller` may see a task bound to `principal`. @throws {LongcallError} `invalid_input`. */
export function taskAccess(principal: string, caller: string): Access;
/** Every error code the module itself throws ({@link ERROR_CODES} adds the JavaScript layer's: `not_initialized`, `freed`, `unbound`). */
export function errorCodes(): ErrorCode[];
/** Every protocol rule a peer can break, with its level. */
export function violationRules(): { rule: Rule; level: Level }[];
/** The module's memory (what {@link fastOutputs} views). */
export function wasmMemory(): WebAssembly.Memory;
/**
 * The numbers-only outputs: output `i` of the last `fast*` call of tracker `t` is
 * `[kind, a, b]` at `fastOutputs()[t.fastOffset + 3 * i]`, kind by {@link OUTPUT_KINDS}:
 * `idle`; `wake_at` (a: the time); `send` (a: {@link REQUEST_KINDS} index; b: -1 for a poll of
 * the tracker's own handle, else the index for `t.fastDetail(b)`); `ask_user` (a: the index for
 * `t.fastDetail(a)`); `button` (a: {@link BUTTON_STATES} index); `status` (a: {@link STATUSES}
 * index); `violation` (a: {@link RULES} index; b: the index for `t.fastDetail(b)`); `settled`
 * (a: {@link OUTCOMES} index; b: {@link STATUSES} index, or {@link BAD_CODE} for none);
 * `stopped` (a: {@link STOP_REASONS} index). `decodeFast(t, n)` turns them into objects.
 * Call it again after each `fast*` call (the array is replaced only when the memory grew).
 */
export function fastOutputs(): Float64Array;
/** The {@link JOB_ERROR_CODES} index of a Sume error code; a code longcall does not know (or no string at all) is `other`. Never throws once `init()` has resolved (before, `not_initialized`). */
export function jobErrorCode(code: unknown): number;
/** Decodes `n` numbers-only outputs of `tracker` into the objects the camelCase methods return. @throws {LongcallError} `invalid_input` for `n` not in 0..64. */
export function decodeFast(tracker: Tracker, n: number): TrackerOutput[];

/**
 * The honest cancel button of one call.
 * @example
 * const b = new CancelButton('job'); b.handleStatus('queued'); b.press(); // send jobs_cancel now
 * b.handleVerdict('too_late'); b.state // 'too_late'
 */
export class CancelButton<M extends Model = Model> {
  /** A button for a call whose handle is not known yet. @throws {LongcallError} `unknown_model`. */
  constructor(model: M);
  /** The versioned snapshot text. */
  snapshot(): string;
  /** A button from a snapshot. @throws {LongcallError} `snapshot_invalid`, `snapshot_version`, `too_large`. */
  static restore(text: string): CancelButton;
  /** The state as a plain object. */
  toJSON(): object;
}

/** What every cancel button has, in both builds (`longcall/lite`'s `CancelButton` is just this). */
export interface CancelButtonCore<M extends Model = Model> {
  /** What the button shows now. */
  readonly state: ButtonState;
  /** Whether a press went on the wire. */
  readonly pressed: boolean;
  /** An observed status, one of the button's model; returns the new state. @throws {LongcallError} for a status of another model. */
  handleStatus(status: StatusOf<M>): ButtonState;
  /** Returns when the cancel must be sent now. @throws {LongcallError} `cancel_refused` (nothing goes on the wire). */
  press(): void;
  /**
   * The cancel answer's verdict; returns the new state. Only while a cancel is out (pressed, not
   * yet answered): an answer to a cancel the button did not send changes nothing and throws.
   * @throws {LongcallError} `invalid_input` (not a verdict, or no cancel out).
   */
  handleVerdict(verdict: CancelVerdict): ButtonState;
  /**
   * A Sume `jobs_cancel` answer as read off the HTTP response: a 2xx status with the job's
   * status (`data.sume_status`), or the error status with the envelope's `error.code` (an
   * unknown code, or none, as a 502 HTML page has, reads as `other`); `0` for no answer at all
   * (`fetch` threw). A 2xx whose body names no status (an empty body, a proxy's HTML page) is
   * given `undefined`: it decides nothing, so the button stays `requesting` and the next status
   * decides, never `cancelled` on its own. Returns the new state (`available` again when the
   * cancel did not go through).
   * @throws {LongcallError} `invalid_input` (not an HTTP status, a code that is not a string,
   * such as the whole error body, or no cancel out), `unknown_status` (a 2xx with a status no job has).
   */
  handleJobAnswer(httpStatus: number, statusOrCode?: string | null): ButtonState;
  /** The handle no longer resolves. */
  handleLost(): ButtonState;
  /** Frees the module memory now (otherwise the garbage collector does it). */
  free(): void;
}

/** The full {@link CancelButton} also has every member of {@link CancelButtonCore}. */
export interface CancelButton<M extends Model = Model> extends CancelButtonCore<M> {}

/**
 * One watched task or job (sans-io): feed it what happened, do what its outputs say, call
 * `handleTimeout(at)` at the last `wake_at`. Every call returns all its outputs at once, ending
 * with `wake_at` or `idle`. Refused inputs throw a {@link LongcallError} and change nothing.
 * @example
 * const t = new Tracker('job', { poll: { jitter: 'none' } });
 * t.handleInput(Date.now(), { type: 'job_created', job: { id: 'job_1', status: 'queued' } });
 */
export class Tracker {
  /** A tracker whose handle is not known yet. @throws {LongcallError} `unknown_model`, `invalid_config` (also for an unknown key), `malformed`. */
  constructor(model: Model, config?: TrackerConfig | null);
  /** Something happened at `now` (ms); camelCase keys. @throws {LongcallError} (then nothing changed); `malformed` names an unknown key. */
  handleInput(now: number, input: TrackerInput): TrackerOutput[];
  /** Time passed: call at the last `wake_at`. @throws {LongcallError} `invalid_input` for a bad time. */
  handleTimeout(now: number): TrackerOutput[];
  /** The outputs queued now (after a refused input: just the closing `wake_at`/`idle`). */
  drainOutputs(): TrackerOutput[];
  /** The run record to show or store, camelCase. */
  runRecord(): Camelized<RunRecord>;
  /** The versioned snapshot text (absolute deadlines). */
  snapshot(): string;
  /** A tracker from a snapshot; it continues exactly. @throws {LongcallError} `snapshot_invalid`, `snapshot_version`, `too_large`. */
  static restore(text: string): Tracker;
}

/**
 * What every tracker has, in both builds: the getters and the numbers-only path (status codes and
 * times in, packed numbers out through {@link fastOutputs}; `longcall/lite`'s `Tracker` is just
 * this). Each `fast*` call returns the number of outputs written, or -1 (see `lastError`).
 */
export interface TrackerCore {
  /** The model. */
  readonly model: Model;
  /** The task or job id, once known. */
  readonly id: string | undefined;
  /** The status held (the first terminal one, once seen). */
  readonly status: Status | undefined;
  /** What the cancel button shows. */
  readonly button: ButtonState;
  /** The verified outcome, once settled. */
  readonly outcome: Outcome | undefined;
  /** True once settled or stopped. */
  readonly isDone: boolean;
  /** When `timeout` has work next (ms), if ever. */
  readonly pollTimeout: number | undefined;
  /** Numbers-only path: index of this tracker's output triples in {@link fastOutputs}. */
  readonly fastOffset: number;
  /** Numbers-only path: the error code of the last `fast*` call that returned -1 (`''` after a success). */
  readonly lastError: ErrorCode | '';
  /**
   * The structured output a numbers-only triple points to, by the index the triple holds (not
   * the triple's position): `a` of an `ask_user`, `b` of a `violation` or of a `send` that is
   * not a poll (see {@link fastOutputs}).
   */
  fastDetail(index: number): TrackerOutput | undefined;
  /** Numbers-only creating answer: returns the output count, or -1 (see `lastError`). `pollIntervalMs` NaN for none. */
  fastCreated(id: string, now: number, statusCode: number, pollIntervalMs: number): number;
  /** Numbers-only poll answer. `payload` (tasks): 0 nothing, 1 result, 2 result with isError, 3 JSON-RPC error. */
  fastPolled(now: number, statusCode: number, pollIntervalMs: number, payload: number): number;
  /** Numbers-only {@link Tracker.timeout}. */
  fastTimeout(now: number): number;
  /** Numbers-only cancel press (-1 with `lastError` `cancel_refused` when refused). */
  fastCancelPressed(now: number): number;
  /** Numbers-only cancel answer: kind 0 ack, 1 task (a=status), 2 rpc error (a=code), 3 job (a=status), 4 job error (a=HTTP status, b=JobErrorCode index), 5 no answer. */
  fastCancelAnswered(now: number, kind: number, a: number, b: number): number;
  /** Numbers-only Sume cancel answer as read off the HTTP response (see {@link CancelButtonCore.handleJobAnswer}). */
  fastJobCancelAnswered(now: number, httpStatus: number, statusOrCode?: string | null): number;
  /** Numbers-only `tasks/update` ack. */
  fastUpdateAcked(now: number): number;
  /**
   * Numbers-only failure: request code ({@link REQUEST_KINDS}), HTTP status (0 transport), Retry-After ms (NaN none), and the
   * error envelope's `error.code` as a {@link JOB_ERROR_CODES} index (`jobErrorCode(body?.error?.code)`; left out or NaN when the
   * body had none). A job is lost only on a 404 whose code is `not_found`: a proxy's 404 page is a failed poll, asked again.
   */
  fastRequestFailed(
    now: number,
    requestCode: number,
    httpStatus: number,
    retryAfterMs: number,
    errorCode?: number,
  ): number;
  /** Numbers-only stop watching. */
  fastStop(now: number): number;
  /** Writes outputs still queued after a call that filled the 64-output buffer. */
  fastDrain(): number;
  /** Frees the module memory now (otherwise the garbage collector does it). */
  free(): void;
}

/** The structured {@link Tracker} also has every member of {@link TrackerCore}. */
export interface Tracker extends TrackerCore {}

/** What {@link Wave} says to do or show. */
export type WaveOutput =
  | { type: 'wait'; callId: number; call: WaitCall }
  | { type: 'job'; id: string; output: TrackerOutput }
  /** A `jobs_wait` call got no usable answer; the next round waits for the backoff. `reason`: why a 2xx answer could not be read. */
  | { type: 'call_failed'; callId: number; failure: Camelized<Failure>; reason: string | null }
  | {
      type: 'ignored';
      id: string;
      reason: { kind: 'not_in_wave' } | { kind: 'refused'; code: ErrorCode; message: string };
    }
  | { type: 'satisfied'; by: string | null }
  | { type: 'wake_at'; at: number }
  | { type: 'idle' };
/** How a {@link Wave} waits; missing keys take their defaults (all, 50 s, results included, 500 ms between rounds). */
export interface WaveConfig {
  waitFor?: WaitFor | undefined;
  timeoutSeconds?: number | undefined;
  includeResults?: boolean | undefined;
  minRoundIntervalMs?: number | undefined;
  seed?: number | undefined;
  backoff?: TrackerConfig['poll'] | undefined;
}
/**
 * Many paid jobs watched together with `jobs_wait` rounds, one core tracker per job. Send each
 * `wait` output's `call` as the `jobs_wait` body (the Sume wire's own spelling) and hand its HTTP answer, as it
 * arrived, to {@link Wave.handleWaitHttp} ({@link Wave.handleWaitFailed} when none came); call
 * {@link Wave.handleTimeout} at each `wake_at`. Every method returns the outputs it queued.
 * @example
 * const w = new Wave({ waitFor: 'all' });
 * w.addJob(Date.now(), { id: 'job_1', status: 'queued' });
 * const out = w.handleTimeout(Date.now()); // [{ type: 'wait', callId: 0, call: { job_ids: ['job_1'], ... } }, ...]
 */
export class Wave {
  /** @throws {LongcallError} `invalid_config`, `malformed` (naming an unknown key). */
  constructor(config?: WaveConfig | null);
  /** A job whose submit was accepted, watched until `deadline` (absolute ms) if given. */
  addJob(now: number, job: Camelized<JobView>, deadline?: number | null): WaveOutput[];
  /** Time passed; starts a round when one is due. */
  handleTimeout(now: number): WaveOutput[];
  /**
   * A `jobs_wait` call answered over HTTP, as it arrived (`body` text or bytes): the core reads
   * it. A 2xx `jobs_wait` answer is applied; anything else is a failed call (a `call_failed`
   * output), and a 429's `Retry-After` delays the next round.
   * @example
   * const r = await fetch(`${base}/jobs/wait`, { method: 'POST', body: JSON.stringify(o.call) });
   * w.handleWaitHttp(Date.now(), o.callId, { status: r.status, headers: [...r.headers] }, await r.text());
   */
  handleWaitHttp(now: number, callId: number, answer: HttpAnswerHead, body: string | Uint8Array): WaveOutput[];
  /** A `jobs_wait` call answered with its job entries, already read (a timeout answer is a partial snapshot). */
  handleWaitAnswer(now: number, callId: number, jobs: Camelized<JobView>[]): WaveOutput[];
  /** A `jobs_wait` call failed without a usable answer. */
  handleWaitFailed(now: number, callId: number, failure: Camelized<Failure>): WaveOutput[];
  /** The job is no longer needed: queued, its cancel goes out; started, the wave stops waiting (it runs and bills). */
  release(
    now: number,
    id: string,
  ): { released: 'cancel_requested' | 'cancel_pending' | 'stopped_waiting' | 'already_done'; outputs: WaveOutput[] };
  /** The person pressed one job's cancel. @throws {LongcallError} `cancel_refused`. */
  pressCancel(now: number, id: string): WaveOutput[];
  /** Something for one job's tracker (its cancel answer, a failed cancel), as {@link Tracker.handleInput} takes it. */
  handleJobInput(now: number, id: string, input: TrackerInput): WaveOutput[];
  /** The outputs queued now. */
  drainOutputs(): WaveOutput[];
  /** True once satisfied (`any`: a job settled; `all`: every job settled or was given up). */
  readonly isSatisfied: boolean;
  /** True while a round's calls are unanswered. */
  readonly roundInFlight: boolean;
  /** How many rounds were sent. */
  readonly roundsSent: number;
  /** When `handleTimeout` has work next (ms), if ever. */
  readonly pollTimeout: number | undefined;
  /** The ids still needed (not settled, not given up). */
  readonly neededIds: string[];
  /** The versioned snapshot text. */
  snapshot(): string;
  /** A wave from a snapshot. */
  static restore(text: string): Wave;
  /** Frees the module memory now (otherwise the garbage collector does it). */
  free(): void;
}

export {
  MODELS,
  STATUSES,
  OBSERVATIONS,
  TRANSITIONS,
  WINDOWS,
  OUTPUT_KINDS,
  REQUEST_KINDS,
  BUTTON_STATES,
  OUTCOMES,
  STOP_REASONS,
  JOB_ERROR_CODES,
  CANCEL_VERDICTS,
  ERROR_CODES,
  RULES,
  TASK_STATUSES,
  JOB_STATUSES,
  JOB_KINDS,
  JOB_DIALECTS,
  BAD_CODE,
} from './codes.js';

// ---- MCP wire (JSON-RPC answers -> tracker inputs; tracker requests -> JSON-RPC + headers) ----

/** An MCP task revision: the models the wire exports speak. */
export type TaskModel = 'task-2026' | 'task-2025';
/** Which request an answer belongs to: the creating `tools/call` (`"call"`) or a tracker request. */
export type AskedRequest = 'call' | RequestKind;
/** A JSON-RPC id. */
export type RpcId = number | string | null;
/** What {@link readAnswer}, {@link readResult} and {@link readNotification} return. */
export interface ReadAnswer {
  /** The id the answer carried (`null` for notifications). */
  id: RpcId;
  /** The tracker input, camelCase: pass it to {@link Tracker.handleInput} (or `WatchList.handle`). */
  input: TrackerInput;
  /** Shape rules the peer broke in this answer (the call goes on). */
  violations: Violation[];
}
/** A JSON-RPC request and the Streamable HTTP headers to send it with. */
export interface BuiltRequest {
  /** `{jsonrpc: "2.0", id, method, params}`. */
  message: { jsonrpc: '2.0'; id: RpcId; method: string; params: { [key: string]: Json } };
  /** 2026: `Mcp-Method`, `Mcp-Name` (the taskId, or the tool name for `tools/call`), `MCP-Protocol-Version`. 2025: `MCP-Protocol-Version`. */
  headers: { [name: string]: string };
}

/**
 * Reads a JSON-RPC answer (text, or the parsed object) to `request` into the tracker input the
 * core wants. 2026: `tools/call` -> `task_created` | `call_result` | `call_error`; `tasks/get` ->
 * `task_polled`; `tasks/update` -> `update_acked`; `tasks/cancel` -> `cancel_answered`; errors ->
 * `request_failed`. 2025: nested create, `tasks/get`, `tasks/result` -> `result_fetched` (or
 * `request_failed` with the underlying error), `tasks/cancel` -> `cancel_answered`.
 * @throws {LongcallError} `invalid_input`, `wrong_model` (job), `malformed` (not JSON, not a response, bad task), `too_large`, `too_deep`, `unknown_status`.
 * @example readAnswer('task-2026', 'get', text).input // { type: 'task_polled', task: {...} }
 */
export function readAnswer(model: TaskModel, request: AskedRequest, answer: string | JsonObject): ReadAnswer;

/**
 * {@link readAnswer} for the `result` alone, as an SDK client returns it with the JSON-RPC
 * envelope taken off (the TypeScript SDK's `client.request(...)`): a `tasks/get` result object
 * passes in unchanged, `createdAt`, `ttl` and `pollInterval` included. The `id` read is `null`.
 * @throws {LongcallError} as {@link readAnswer}.
 * @example
 * const r = await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema);
 * tracker.handleInput(Date.now(), readResult('task-2025', 'get', r).input);
 */
export function readResult(model: TaskModel, request: AskedRequest, result: string | JsonObject): ReadAnswer;

/**
 * Reads a task status notification (`notifications/tasks` for 2026, `notifications/tasks/status`
 * for 2025) into a `task_notified` input; `null` for any other notification.
 * @throws {LongcallError} as {@link readAnswer}.
 */
export function readNotification(model: TaskModel, message: string | JsonObject): ReadAnswer | null;

/**
 * Turns a tracker `send` request into the JSON-RPC request and its HTTP headers. 2026 requests
 * carry the per-request capability `_meta` and `Mcp-Name: <taskId>`.
 * @throws {LongcallError} `invalid_input` (a request the revision does not have: 2025 update, 2026 fetch_result), `wrong_model`.
 * @example buildRequest('task-2026', { kind: 'get', handle: 't1' }, 7).headers['Mcp-Name'] // 't1'
 */
export function buildRequest(model: TaskModel, request: TrackerRequest, id: number | string): BuiltRequest;

/**
 * The creating `tools/call`: 2026 declares the tasks extension in `_meta` (the server decides
 * whether to make a task); 2025 asks for one with `params.task: {ttl?}`.
 * @throws {LongcallError} `invalid_input` (arguments not an object), `wrong_model`.
 */
export function buildCall(
  model: TaskModel,
  id: number | string,
  name: string,
  args?: JsonObject | null,
  ttlMs?: number | null,
): BuiltRequest;

/**
 * The `_meta` of one 2026 request (rules M-5, M-21): the tasks extension in the client
 * capabilities, the protocol version and the client (default `{name: 'longcall', version}`),
 * for a request of your own such as `tools/list`. The core's requests carry it already.
 * @throws {LongcallError} `malformed` (a `clientInfo` without string `name` and `version`).
 * @example requestMeta({ name: 'studio', version: '2.1.0' })['io.modelcontextprotocol/protocolVersion'] // '2026-07-28'
 */
export function requestMeta(clientInfo?: { name: string; version: string } | null): {
  'io.modelcontextprotocol/clientCapabilities': {
    extensions: { 'io.modelcontextprotocol/tasks': Record<string, never> };
  };
  'io.modelcontextprotocol/protocolVersion': '2026-07-28';
  'io.modelcontextprotocol/clientInfo': { name: string; version: string };
};

/**
 * The JSON-RPC messages (their texts, in order) that the HTTP answer to a POST carries: a JSON
 * body, or the data of each event of a `text/event-stream` body; none in a 4xx or 5xx page from
 * a proxy (rule E-67). For a request of your own, such as `tools/list`; an {@link Endpoint} reads
 * the answers to its own requests whole ({@link Endpoint.handleHttpAnswer}).
 * @example
 * const res = await fetch(url, { method: 'POST', body, headers });
 * const texts = httpMessages({ status: res.status, headers: [...res.headers] }, await res.text());
 * const answer = texts.map((t) => JSON.parse(t)).find((m) => m.id === 1 && !m.method);
 */
export function httpMessages(answer: HttpAnswerHead, body: string | Uint8Array): string[];

/**
 * The first artifact's URL in a finished Sume job's result, whichever shape it came in:
 * `longcall/jobs`' `settled.result` (the Open API's `data`, the artifacts under
 * `result.artifacts`) or a wave's `{artifacts}`; `undefined` when it has none, or no result at all
 * (a cancelled or failed job's `settled.result`).
 * @example artifactUrl(end.result) // 'https://cdn.example/a.png'
 */
export function artifactUrl(result: Json | undefined): string | undefined;
