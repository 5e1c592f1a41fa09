/**
 * `longcall/server`: the core's reference servers, for mock servers, conformance runs and
 * examples: an MCP task registry (`TaskRegistry`) and a Sume job book (`JobBook`), plus the 2026
 * wire rendering of a task. A WebAssembly module of its own, so clients never download it.
 * Data is camelCase, as on the MCP wire and in the client API (`taskId`, `pollIntervalMs`,
 * `httpStatus`); JSON of your own inside it (a tool result, input requests and answers, a
 * job's result) passes untouched. Only snapshots keep the core's snake_case.
 * @packageDocumentation
 */
import type {
  Camelized,
  WasmSource,
  InputRequest,
  JobStatus,
  JobView,
  Json,
  JsonObject,
  LongcallError,
  Model,
  Owner,
  RpcError,
  Status,
  TaskStatus,
  TaskView,
  ToolResult,
  WaitFor,
} from './index.js';

/** The JSON types of this module's data, for a server's own signatures. */
export type { Json, JsonObject, RpcError, ToolResult, TaskView } from './index.js';

/** Loads the server module (see `longcall`'s `init`); by default `./dist/longcall_server_bg.wasm`. */
export function init(input?: WasmSource | Promise<WasmSource>): Promise<void>;
/** Instantiates the server module synchronously from its bytes or a compiled module. */
export function initSync(input: ArrayBuffer | ArrayBufferView | WebAssembly.Module): void;
/** True for an error thrown by longcall (an `Error` with a string `code`). */
export function isLongcallError(e: unknown): e is LongcallError;

/** A client-side answer of a reference server: a domain answer to put on the wire, never thrown. */
export type Answer<T, E> = { ok: true; value: T } | { ok: false; error: E };

/** A Sume API error as the job book answers it. */
export interface ApiError {
  httpStatus: number;
  code: string;
  message?: string;
  details?: Json;
  requestId?: string;
}

/** A task as the registry hands it out and the renderers take it (the client's `TaskView`, camelCase). */
export type RegistryTask = Camelized<TaskView>;

/** What became of a worker-side write. Only `applied` changed anything. */
export type WriteOutcome =
  | { kind: 'applied' }
  | { kind: 'ignored_terminal'; status: Status }
  | { kind: 'not_allowed'; status: Status }
  | { kind: 'ignored_cancel_requested' }
  | { kind: 'unknown_id' };

/** How a 2026 `tasks/cancel` takes effect. */
export type CancelMode = 'cooperative' | 'immediate';

/**
 * `TaskRegistry` configuration; every key is optional and laid over the defaults. A key it
 * does not have throws `invalid_input` naming it (`ttl_ms` is told `ttlMs`).
 */
export interface RegistryConfig {
  ttlMs?: number | null;
  maxTtlMs?: number | null;
  pollIntervalMs?: number | null;
  retentionMs?: number | null;
  maxTasksPerPrincipal?: number | null;
  cancel?: CancelMode;
  pageSize?: number;
}

/**
 * What `handleTimeout` did: stop the workers of these tasks. `failed` also names a task a call
 * found past its TTL since the last sweep (`pollTimeout` is then due at once).
 */
export interface Sweep {
  failed: string[];
  purged: string[];
}

/** A `tasks/update` ack, with the key lists for the host. */
export interface UpdateAck {
  accepted: string[];
  ignored: string[];
}

/** A `tasks/cancel` answer: the 2026 ack, or the 2025 cancelled task. */
export type CancelReply = { kind: 'ack' } | { kind: 'task'; task: RegistryTask };

/** A 2025 `tasks/result` answer (`blocked`: hold the request and ask again later). */
export type ResultAnswer =
  | { kind: 'result'; result: Camelized<ToolResult> }
  | { kind: 'error'; error: RpcError }
  | { kind: 'cancelled' }
  | { kind: 'blocked'; status: TaskStatus; inputRequests: InputRequest[] };

/** A 2025 `tasks/list` page. */
export interface TaskPage {
  tasks: RegistryTask[];
  nextCursor: string | null;
}

/**
 * The reference MCP task server state (the core's `TaskRegistry`). The host owns the clock and
 * mints unguessable task ids; client-side methods answer {@link Answer}s; bad input throws a
 * {@link LongcallError}.
 * @example
 * const reg = new TaskRegistry('task-2026', { cancel: 'immediate' });
 * const view = reg.create(Date.now(), 'anonymous', crypto.randomUUID());
 * const wire = renderTask2026(view, 'task'); // the CreateTaskResult
 */
export class TaskRegistry {
  /** @throws {LongcallError} `unknown_model`, `wrong_model`, `invalid_config`, `invalid_input`. */
  constructor(model: 'task-2026' | 'task-2025', config?: RegistryConfig | null);
  readonly model: Model;
  /** How many tasks are stored. */
  readonly size: number;
  isEmpty(): boolean;
  /** The full configuration in force. */
  config(): Required<RegistryConfig>;
  /**
   * Lays `config` over the defaults, for the tasks created from now on: a registry restored from
   * a snapshot takes the configuration the new process starts with (rule S-9).
   * @throws {LongcallError} `invalid_config` (also for an unknown key), the registry unchanged.
   */
  setConfig(config: RegistryConfig | null): void;
  /**
   * The ids of the tasks not settled yet. After {@link TaskRegistry.restore} at server start,
   * the tasks whose work ended with the old process: start it again, or `fail` them, so none
   * stays `working` until its TTL (rule S-9).
   */
  unsettled(): string[];
  /** Runs TTL expiry and retention; call when `now` reaches {@link TaskRegistry.pollTimeout}. */
  handleTimeout(now: number): Sweep;
  /** The next absolute time `handleTimeout` has work, or `undefined` when none is due. Ask again after every write. */
  pollTimeout(): number | undefined;
  /** A new task for `principal` (answer the client after this returns). @throws {LongcallError} `duplicate`, `limit_reached`, `invalid_input`. */
  create(now: number, principal: string, taskId: string, requestedTtlMs?: number | null): RegistryTask;
  /** Worker: the stored view (detailed on 2026), no principal check; null if unknown. */
  peek(taskId: string): RegistryTask | null;
  /** Worker: whether a client asked to cancel. */
  cancelRequested(taskId: string): boolean;
  /**
   * Worker: ask the client for input under `key`; `request` is the request the client answers
   * (`{method: 'elicitation/create', params}`).
   * @throws {LongcallError} `duplicate` for a reused key; `invalid_input` for a request without a string `method`.
   */
  requestInput(now: number, taskId: string, key: string, request: Json): WriteOutcome;
  /** Worker: the answers since the last call, in answer order (drained). */
  takeInputResponses(taskId: string): [string, Json][];
  /** Worker: sets or clears `statusMessage`. */
  setStatusMessage(now: number, taskId: string, message: string | null): WriteOutcome;
  /** Worker: the tool's `CallToolResult` (`isError` read from it). */
  complete(now: number, taskId: string, callToolResult: JsonObject): WriteOutcome;
  /** Worker: execution hit a JSON-RPC error. */
  fail(now: number, taskId: string, error: RpcError): WriteOutcome;
  /**
   * Worker: the task ends `cancelled`: after a cancel request (cooperative mode), or on the
   * server's own decision (a shutdown; say why with `setStatusMessage` first, as clients are
   * told a cancel nobody asked for only by the message).
   */
  settleCancelled(now: number, taskId: string): WriteOutcome;
  /** `tasks/get`. */
  get(now: number, principal: string, taskId: string): Answer<RegistryTask, RpcError>;
  /** 2025 `tasks/result` (2026: -32601). */
  result(now: number, principal: string, taskId: string): Answer<ResultAnswer, RpcError>;
  /** `tasks/update`: `{key: response}` or `[[key, response], ...]`. */
  update(
    now: number,
    principal: string,
    taskId: string,
    responses: { [key: string]: Json } | [string, Json][],
  ): Answer<UpdateAck, RpcError>;
  /** `tasks/cancel`. */
  cancel(now: number, principal: string, taskId: string): Answer<CancelReply, RpcError>;
  /** 2025 `tasks/list` (2026: -32601). */
  list(now: number, principal: string, cursor?: string | null): Answer<TaskPage, RpcError>;
  /** The versioned snapshot text. */
  snapshot(): string;
  /** @throws {LongcallError} `snapshot_invalid`, `snapshot_version`, `too_large`. */
  static restore(text: string): TaskRegistry;
  free(): void;
}

/** The 2026 wire task (`CreateTaskResult` / `GetTaskResult` / `notifications/tasks` params). */
export interface WireTask2026 {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  resultType?: string;
  inputRequests?: { [key: string]: Json };
  result?: Json;
  error?: RpcError;
}

/**
 * Renders a task view as the 2026 wire task: `'task'` for a create answer, `'complete'` for
 * `tasks/get`, none for a notification.
 * @throws {LongcallError} `malformed` for a key a view does not have; `invalid_input` for
 * another `resultType` or a view without its times; `status_not_in_model`.
 */
export function renderTask2026(view: RegistryTask, resultType?: 'task' | 'complete' | null): WireTask2026;

/** The 2025 wire task (`CreateTaskResult.task`, `tasks/get`, `tasks/cancel`, `notifications/tasks/status` params). */
export interface WireTask2025 {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  pollInterval?: number;
}

/** Renders a task view as the 2025 wire task (no payload: 2025 hands it over on `tasks/result`). */
export function renderTask2025(view: RegistryTask): WireTask2025;

/**
 * What a 2025 server answers to `tasks/result`, from {@link TaskRegistry.result}'s value:
 * `{result}` (the tool result with `_meta["io.modelcontextprotocol/related-task"]`), `{error}`
 * (the stored error, or the core's error for a cancelled task), or `null` while the task is not
 * terminal (hold the request and ask again after the next write).
 */
export function renderTaskResult2025(
  taskId: string,
  answer: ResultAnswer,
): { result: { [key: string]: Json } } | { error: RpcError } | null;

/** The -32021 error (with `data.requiredCapabilities.extensions["io.modelcontextprotocol/tasks"]`). */
export function missingCapability2026(message: string): RpcError;

/** A request the server refused (rules E-20..E-26, E-53..E-55): send `error` with HTTP `httpStatus`. */
export interface GateRefusal {
  /** The rule id, `E-20` ... */
  rule: string;
  kind:
    | 'missing_capability'
    | 'mcp_method_header'
    | 'mcp_name_header'
    | 'protocol_version'
    | 'task_support'
    | 'method_not_in_revision'
    | 'envelope'
    | 'params'
    | 'not_served';
  error: RpcError;
  httpStatus: number;
}

/**
 * The request gate: `null` when the request passes, else the first refusal. `headers`: Node's
 * `req.headers`, a Fetch `Headers` (a worker runtime's `request.headers`) or other pairs, or
 * `null` on stdio.
 */
export function gateRequest(
  model: 'task-2026' | 'task-2025',
  method: string,
  params: Json | null | undefined,
  headers: { [name: string]: string | string[] | undefined } | Iterable<readonly [string, string]> | null,
): GateRefusal | null;

/** Whether a `tools/call` runs as a task (`value: true`), synchronously (`false`), or is refused (E-24). */
export function gateTaskSupport(
  model: 'task-2026' | 'task-2025',
  tool: string,
  support: 'forbidden' | 'never' | 'optional' | 'required',
  params: Json | null | undefined,
): { ok: true; value: boolean } | { ok: false; error: GateRefusal };

/** The HTTP status a JSON-RPC error code is sent with (E-26). */
export function httpStatusFor(code: number): number;

/** One POST body read as a request (E-53): dispatch it, answer nothing (HTTP 202), or send `body` with `httpStatus`. */
export function readRequest(
  body: string,
):
  | { kind: 'request'; id: string | number; method: string; params: Json }
  | { kind: 'no_answer' }
  | { kind: 'refused'; httpStatus: number; body: string };

/** `null` when `params` hold what `method` needs, else the -32602 refusal (E-54). */
export function checkParams(
  model: 'task-2026' | 'task-2025',
  method: string,
  params: Json | null | undefined,
): GateRefusal | null;

/** The -32601 refusal of a method the server does not serve (E-55). */
export function methodNotServed(method: string): GateRefusal;

/** The -32602 refusal of a tool the server does not have (E-55). */
export function unknownTool(name: string): GateRefusal;

/** The answers a `tools/call` continuation carries, key -> response (E-56). */
export function inputResponses(params: Json | null | undefined): { [key: string]: Json };

/**
 * The MRTR `InputRequiredResult` of a `tools/call` (E-56). A tool still waiting on something of
 * its own asks nothing: `inputRequests` `null` (or `{}`) and the state alone (E-69), which the
 * client sends back on its poll schedule. Throws `invalid_input` for neither a request nor a
 * state, or a request without a method.
 */
export function inputRequiredResult(inputRequests: { [key: string]: Json } | null, requestState?: Json | null): Json;

/** `result` with `resultType: "complete"` (E-57); none is the empty result of `ping` and the acks. */
export function completeResult(result?: Json | JsonObject | null): { [key: string]: Json };

/** The `server/discover` result (E-58). */
export function discoverResult(model: 'task-2026' | 'task-2025', serverInfo: Json, capabilities?: Json | null): Json;

/** The `initialize` result (E-58). */
export function initializeResult(model: 'task-2026' | 'task-2025', serverInfo: Json, capabilities?: Json | null): Json;

/** The `tools/list` result (E-58). */
export function toolsListResult(tools: Json[]): Json;

/**
 * The JSON-RPC answer text to send and its HTTP status: 200 for a result, E-26 for an error.
 * A registry or job book answer (`{ok, value}`) is no result: send its value, rendered for the
 * wire, or its error as `error` (passing the answer itself does not type-check, and throws
 * `invalid_input`).
 */
export function answerText<R extends Json | JsonObject | null>(
  id: string | number | null,
  result: R & (R extends { ok: boolean } ? never : unknown),
  error?: RpcError | null,
): { httpStatus: number; body: string };

/** `JobBook` configuration; every key is optional and laid over the defaults (2, 20, 1); an unknown key throws `invalid_input` naming it. */
export interface JobBookConfig {
  concurrencyPerWorkspace?: number;
  queueLimitPerWorkspace?: number;
  costPerJob?: number;
}

/** One `jobs_wait` entry. */
export type WaitEntry = { kind: 'job'; job: JobView } | { kind: 'not_found'; id: string };

/** A `jobs_wait` snapshot. */
export interface WaitAnswer {
  jobs: WaitEntry[];
  satisfied: boolean;
}

/**
 * The reference Sume job server (the core's `JobBook`): ownership, queue-first admission, the
 * cancel window, batch waits. No timers: call `dispatch(now)` after every change.
 */
export class JobBook {
  /** @throws {LongcallError} `invalid_config`, `invalid_input`. */
  constructor(config?: JobBookConfig | null);
  readonly size: number;
  isEmpty(): boolean;
  config(): Required<JobBookConfig>;
  /** `null`: unlimited. A workspace never given a balance is unlimited too. */
  setCredits(workspace: string, balance: number | null): void;
  /** The balance; `undefined` when unlimited (never given one, or given `null`). */
  credits(workspace: string): number | undefined;
  /** Worker/test: job and owner without an ownership check. */
  peek(jobId: string): { owner: Owner; job: JobView } | null;
  count(workspace: string, status: JobStatus): number;
  /** `jobs_submit` (queue-first). */
  submit(now: number, owner: Owner, jobId: string, idempotencyKey?: string | null): Answer<JobView, ApiError>;
  /** Moves queued jobs into free slots; returns the ids started. */
  dispatch(now: number): string[];
  complete(now: number, jobId: string, result: Json): WriteOutcome;
  fail(now: number, jobId: string, error: Json): WriteOutcome;
  expire(now: number, jobId: string): WriteOutcome;
  /** `jobs_get`. */
  get(owner: Owner, jobId: string): Answer<JobView, ApiError>;
  /** `jobs_list`: the caller's jobs only. */
  list(owner: Owner): JobView[];
  /** `jobs_cancel` (queued only; 409 after start). */
  cancel(now: number, owner: Owner, jobId: string, idempotencyKey?: string | null): Answer<JobView, ApiError>;
  /** `jobs_wait` snapshot. */
  wait(
    now: number,
    owner: Owner,
    jobIds: string[],
    waitFor?: WaitFor | null,
    includeResults?: boolean | null,
  ): Answer<WaitAnswer, ApiError>;
  snapshot(): string;
  static restore(text: string): JobBook;
  free(): void;
}
