// Types of `longcall/mcp`: the MCP host adapter on the longcall core.
import type {
  ButtonState,
  Camelized,
  ErrorCode,
  Json,
  JsonObject,
  ListedTool,
  Outcome,
  RunRecord,
  TaskStatus,
  TaskModel,
  TrackerConfig,
  Violation,
  RpcError,
  EndpointRequestFailed,
  EndpointWireOptions,
} from '../index.js';

/** A JSON-RPC request as the core builds it. */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: number | string | null;
  method: string;
  params: { [key: string]: Json };
}
/** A JSON-RPC response (result or error). */
export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: number | string | null; result: Json }
  | { jsonrpc: '2.0'; id: number | string | null; error: RpcError };

/**
 * How the adapter reaches a server: one revision, one `send`. The sender only moves bytes; the
 * core reads every answer and decides.
 */
export interface Sender {
  /** The wire revision this sender speaks. */
  model: TaskModel;
  /**
   * 2026: the client each request names in its `_meta` (`io.modelcontextprotocol/clientInfo`),
   * which the core writes with the protocol version and capabilities (rule M-21); default
   * `{name: 'longcall', version}`. A call's `wire.clientInfo` takes precedence. A sender sends
   * the message as it is given: it adds no `_meta` of its own.
   */
  clientInfo?: { name: string; version: string } | undefined;
  /**
   * Sends one request and resolves with its JSON-RPC answer (text or object), as it arrived:
   * never validated against a schema, never rewritten (an answer a library's schema rejects is
   * still an answer; the core reads it and reports what is wrong). A JSON-RPC error is an answer.
   * An HTTP sender resolves with the HTTP answer whole ({@link HttpAnswerLike}: the fetch
   * `Response`, or `{status, headers, body}` from another client), a 4xx or 5xx included: the
   * core reads its status, `Retry-After` (a 429's or 503's floor for the next poll) and JSON or
   * event-stream body (rule E-67); the adapter reads a Response's body, under the same signal.
   * Text alone is read as one JSON-RPC message, so an HTTP sender must not hand back only the
   * body: an event stream or a proxy's 502 page would read as a broken answer.
   * Throw only when there is no answer (connection error, timeout, abort).
   *
   * `opts.signal` aborts the request while it is in progress; once the returned promise has
   * settled the sender must no longer follow it (an abort then must not reach the wire: no
   * `notifications/cancelled` for a request that has its answer). The adapter also never aborts
   * the signal of a request whose answer came.
   */
  send(
    message: JsonRpcRequest,
    headers: { [name: string]: string },
    opts: { signal?: AbortSignal; method: string },
  ): Promise<JsonRpcResponse | string | Uint8Array | HttpAnswerLike>;
  /**
   * 2025 senders that can receive server-initiated input requests (`elicitation/create` inside
   * `tasks/result`): routes those about `taskId` to a handler, given the server's request (its
   * id, method and params) and resolving with the client's answer (the JSON-RPC result to send
   * back); returns an unroute function.
   * Absent when the sender cannot receive them: a 2025 task that asks for input is then reported
   * through `onViolation` as `{source: 'adapter', rule: 'input_unsupported'}`, and watching goes on.
   */
  routeInput?(
    taskId: string,
    fn: (request: { id: string | number | null; method: string; params?: Json }) => Promise<Json>,
  ): () => void;
  /**
   * True when what `send` threw says the sender is closed for good and the request was not sent
   * (the SDK senders: a Client closed or never connected, "Not connected"): the watch then stops
   * at once, `outcome` rejecting with code `watch_stopped` (reason `host_stopped`, the error as
   * `cause`), and `cancel()` rejects with `sender_closed`, instead of polling a closed client for
   * ever. The task goes on. For the `tools/call` itself, `callTool` rejects with `sender_closed`.
   */
  isClosed?(error: unknown): boolean;
}

/** Response headers as a sender may hand them over: a `Headers` (any fetch's), pairs, or an object. */
export type HttpHeadersLike =
  | Iterable<[string, string]>
  | { forEach(fn: (value: string, name: string) => void): void }
  | { [name: string]: string | string[] | undefined };

/**
 * The HTTP answer to a POST, whole, as a sender hands it back: a fetch `Response` of any fetch
 * (the global one, undici's; only `status`, `headers`, `url` and `text()` are read), or
 * `{status, headers, body}` from another client.
 * @example
 * // node:http
 * const chunks = []; for await (const c of res) chunks.push(c);
 * return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) };
 */
export type HttpAnswerLike =
  | { status: number; url?: string; headers: HttpHeadersLike; text(): Promise<string> }
  | { status: number; url?: string; headers?: HttpHeadersLike | null; body: string | Uint8Array };

/** Options of {@link httpSender}. */
export interface HttpSenderOptions {
  /** The Streamable HTTP endpoint, e.g. `http://127.0.0.1:8000/mcp`; in a page, a path of its own origin (`/mcp`) too. */
  url: string | URL;
  /** The fetch to use (default `globalThis.fetch`; undici's works too). */
  fetch?:
    | ((
        url: string,
        init: { method: string; headers: Record<string, string>; body: string; signal: AbortSignal },
      ) => Promise<HttpAnswerLike>)
    | undefined;
  /** Extra headers on every request (auth). */
  headers?: Record<string, string> | Iterable<readonly [string, string]> | undefined;
  /**
   * The client every request names (`_meta["io.modelcontextprotocol/clientInfo"]`, written by
   * the core; default `{name: 'longcall', version}`): the sender's `clientInfo`. A value
   * without string `name` and `version` is refused here (`malformed`).
   */
  clientInfo?: { name: string; version: string } | undefined;
  /** Per-request timeout in ms (default 30000). A timeout is no answer, never a cancel. */
  timeoutMs?: number | undefined;
  /** `false` strips the tasks extension from `_meta` (to see a server's -32021). Default true. */
  declareTasks?: boolean | undefined;
}

/** A fetch-based Streamable HTTP sender for the 2026-07-28 tasks extension. */
export function httpSender(options: HttpSenderOptions): Sender;

/** Timeouts of the SDK senders. A timeout is no answer (the send throws), never a cancel of the task. */
export interface SdkTimeouts {
  /** Timeout of `tools/call`, `tasks/get`, `tasks/cancel` (default 60000 ms). */
  requestTimeoutMs?: number | undefined;
  /** Timeout of the blocking 2025 `tasks/result` (default 600000 ms; reset on progress). */
  resultTimeoutMs?: number | undefined;
}

/** Options of {@link sdkSender}. */
export interface SdkSenderOptions extends SdkTimeouts {
  /** `await import('@modelcontextprotocol/sdk/types.js')` from the SDK the client came from. */
  types: object;
}

/**
 * A sender over an official `@modelcontextprotocol/sdk` 1.x `Client` (2025-11-25 tasks).
 *
 * - Results are handed over as they arrived (the SDK's result schemas are not applied).
 * - A server's JSON-RPC error (`McpError`) is an answer, with the SDK's `"MCP error <code>: "`
 *   message prefix removed; the SDK's own request timeout (-32001) and closed connection (-32000)
 *   are no answer.
 * - Registers an `elicitation/create` handler: elicitations about a watched task go to that
 *   call's `onInput`; any other goes to the handler the host registered before `sdkSender` was
 *   called (declined if none). Register your own handler first.
 * - A Client that did not declare `capabilities.elicitation` is fine: the sender has no
 *   `routeInput` then (see {@link Sender.routeInput}).
 */
/** The two methods the SDK senders use of an SDK `Client` (1.x or 2.x). */
export interface SdkClientLike {
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's own signatures differ between 1.x and 2.x
  request(...args: any[]): Promise<unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  setRequestHandler(...args: any[]): void;
}

export function sdkSender(client: SdkClientLike, options: SdkSenderOptions): Sender;

/**
 * A sender over the SDK 2.x `Client` (`@modelcontextprotocol/client` 2.x; tested with 2.4.0) on the
 * 2025-11-25 wire (the Client's default legacy negotiation). Same behaviour as {@link sdkSender}:
 * results as they arrived (a Standard Schema that accepts anything), a server's `ProtocolError`
 * is an answer, an `SdkError` (timeout, closed connection) is none, task elicitations routed and
 * others chained to the host's own handler registered before.
 */
export function sdk2Sender(client: SdkClientLike, options?: SdkTimeouts): Sender;

/**
 * A violation seen while watching: from the core's endpoint (`wire`: its codecs and tracker, about
 * what arrived), or the adapter. Adapter
 * rules: `input_unsupported` (a 2025 task asks for input and the sender has no `routeInput`),
 * `on_input_failed` (`onInput` threw), or the code of an error the core raised.
 */
export type WatchViolation =
  | (Violation & { source: 'wire' | 'tracker' })
  | { source: 'adapter'; rule: string; level: 'must' | 'should'; detail: string };

/** One request and its answer, with host times (ms). */
/**
 * What `onInput` answers: the client's result as the wire carries it, an object (an
 * elicitation's `{ action, content? }`). A promise of anything else does not type-check; at run
 * time a value that is not an object is reported (`on_input_failed`) and declines.
 */
export type InputAnswer =
  | { action: 'accept' | 'decline' | 'cancel'; content?: { [key: string]: Json }; _meta?: JsonObject }
  | (object & { then?: never });

export interface Exchange {
  method: string;
  sentAt: number;
  answeredAt: number;
  /** The answer exactly as the sender handed it back (the core reads it); an HTTP answer's body text. */
  answer?: Json;
  /** The HTTP answer's status and header pairs, when the sender handed back a fetch `Response`. */
  http?: { status: number; headers: [string, string][] };
  /** Why there was no answer: the sender's error message, with the causes it wraps. */
  error?: string;
}

/** Options shared by {@link callTool}, {@link watchTask} and {@link resume}. */
export interface WatchOptions {
  /** The core's tracker config (poll policy, seed, deadline). */
  config?: TrackerConfig | null | undefined;
  /** The endpoint's reading options (message limits, revision check). */
  wire?: EndpointWireOptions | null | undefined;
  /**
   * Aborting stops watching (never the task): `outcome` rejects with code `watch_stopped`, and
   * the button turns `unavailable` (`onButton`), as a watch that stopped can send no cancel.
   * Aborted while the `tools/call` is out, the stop waits for its answer, so the task it creates
   * is named (`h.id`, `taskId`) and can be resumed (rule E-62); aborted before `callTool`,
   * nothing is sent and `callTool` rejects with `watch_stopped`.
   */
  signal?: AbortSignal | undefined;
  /**
   * Asked once per input key (2026: answered with tasks/update, or for an MRTR input of the
   * `tools/call` itself, `info.call`, with the continuation call; 2025: the SDK's elicitation
   * handler). Default: decline. One that throws or rejects (the person closed the dialog), or
   * answers something that is not an object, is reported (`on_input_failed`) and declines, so
   * the server hears an answer. The answer is the
   * client's result as the wire carries it (an elicitation's `{ action, content? }`, the SDK's
   * `ElicitResult` as it is); `undefined` declines.
   *
   * `request` is the input request as the server wrote it: on 2026 the `inputRequests` entry
   * (`{method: 'elicitation/create', params: {message, requestedSchema}}`), on 2025 the server's
   * own request (`{id, method, params}`). The key is the server's on 2026; on 2025 it is made of
   * the method and the request's id as JSON (`elicitation/create#"ask-7"`).
   *
   * `info.signal` aborts when the question is withdrawn: the call ended, or the server accepted
   * a cancel (its `reason` an `McpCallError` with code `input_withdrawn`). Close the dialog then;
   * an answer given after it is not sent.
   */
  onInput?:
    | ((
        key: string,
        request: Json,
        info: { call: boolean; signal: AbortSignal },
      ) => InputAnswer | undefined | Promise<InputAnswer | undefined>)
    | undefined;
  /** The cancel button changed. */
  onButton?: ((state: ButtonState) => void) | undefined;
  /** The status held changed. */
  onStatus?: ((status: TaskStatus) => void) | undefined;
  /** The task's `statusMessage` changed ("Rendering frame 40 of 90"): words to show the person. */
  onProgress?: ((message: string) => void) | undefined;
  /**
   * A `tasks/get` (or a result fetch, an input update) got no usable answer and the core asks
   * again later, by its backoff: called for each, so the page can say the server is not
   * answering. With no answer at all, `cause` is what the sender threw; for an HTTP answer
   * without a JSON-RPC answer in it (a proxy's 502 page, a 429), a `transport` error with
   * `httpStatus` whose message quotes the start of the body. `message` says it in words to log
   * (`tasks/get got no answer: fetch failed: connect ECONNREFUSED 127.0.0.1:3001; asking again`).
   */
  onRequestFailed?: ((failed: EndpointRequestFailed & { message: string; cause?: unknown }) => void) | undefined;
  /** The server answered again after `onRequestFailed`. */
  onRecovered?: (() => void) | undefined;
  /** A rule the peer broke (the call goes on). */
  onViolation?: ((v: WatchViolation) => void) | undefined;
  /** Every request/answer pair. */
  onExchange?: ((e: Exchange) => void) | undefined;
  /**
   * The handle's snapshot ({@link CallHandle.snapshot}) after every change the core made: the
   * task named, an answer or a cancel press on its way, each poll's outcome. Store the latest
   * (it replaces the one before); {@link resume} continues from it. A snapshot holds the tool's
   * arguments and answers not yet acknowledged as given: keep it where you would keep them.
   */
  onSnapshot?: ((snapshot: string) => void) | undefined;
  /** Clock in ms (default Date.now). */
  now?: (() => number) | undefined;
  /** Timers for the watch's wake-ups (default the global ones). With `now`, a fake clock drives the watch in tests. */
  timers?: { setTimeout(fn: () => void, ms: number): unknown; clearTimeout(handle: unknown): void } | undefined;
}

/** Options of {@link callTool}. */
export type CallOptions = CallOptionsBase &
  (
    | {
        /** The tool, by its name. */
        name: string;
        tool?: undefined;
      }
    | {
        /**
         * The tool as `tools/list` listed it. On the 2025 wire, where the client decides, one whose
         * `execution.taskSupport` is `forbidden` or absent is called without a task (its result
         * settles the call at once; no `ttlMs`); `optional` and `required` run as tasks.
         */
        tool: ListedTool;
        name?: undefined;
      }
  );

/** What {@link CallOptions} has whichever way the tool is given. */
export interface CallOptionsBase extends WatchOptions {
  /** Its arguments: a JSON object, as the SDK's own `callTool` takes them (an interface fits too). */
  arguments?: JsonObject | undefined;
  /** 2025 only: the TTL to ask for (the server may override); with a 2026 sender, `invalid_input` (rule M-18). */
  ttlMs?: number | undefined;
}

/** The run record plus what the adapter adds. */
export type McpRunRecord = Camelized<RunRecord> & { name: string | null; wireViolations: WatchViolation[] };

/** What an MCP call can come to: a job's own `failed` and `expired` never occur here. */
export type McpOutcome = Exclude<Outcome, 'failed' | 'expired'>;

/** The verified outcome of a call. */
/** One item of a tool result's `content` (`{type: 'text', text}`, an image, a resource, ...). */
export interface ToolContent {
  type: string;
  text?: string;
  [member: string]: unknown;
}

/**
 * A tool's result as MCP spells it (`CallToolResult`), exactly as the server sent it: the members
 * a host reads are typed, anything else the server put in is there as it came (JSON). A server
 * that breaks MCP may send other shapes (a result without its `content` list is passed on, with
 * a `missing_field` violation): check before you rely on one.
 */
export interface ToolResult {
  content?: ToolContent[];
  structuredContent?: { [key: string]: Json };
  isError?: boolean;
  /** `'complete'` on the 2026 wire. */
  resultType?: string;
  _meta?: { [key: string]: Json };
  [member: string]: unknown;
}

export interface CallOutcome {
  /** What the call means (`tool_error`: the tool ran and reported an error). */
  outcome: McpOutcome;
  /** The terminal status observed (`null` for plain results and lost handles). */
  status: TaskStatus | null;
  /**
   * The tool result, when one came back, exactly as the server sent it: a `CallToolResult`
   * with the members its revision adds (`resultType: 'complete'` on 2026, the related-task
   * `_meta` on 2025). Hand a model its `content`, not the whole object.
   */
  result?: ToolResult;
  /** The JSON-RPC error, when one came back: the task's, or for `lost` the answer that lost it (`-32602`, "Task not found"). */
  error?: RpcError;
  /** The run record at settlement. */
  record: McpRunRecord;
}

/** A watched call. */
export interface CallHandle {
  readonly model: TaskModel;
  /** The task id once known (`null` for a plain result). Persist it. */
  readonly id: string | null;
  readonly status: TaskStatus | null;
  readonly button: ButtonState;
  /** Resolves with the verified outcome; rejects with code `watch_stopped` or `create_unanswered`. */
  readonly outcome: Promise<CallOutcome>;
  /**
   * Presses the core's cancel button: resolves with the button state once the cancel was
   * answered (`cancelled`, `acknowledged_pending`, `finished_first`, ...), or `available` again
   * when it did not go through (the server unreachable, an error answer): the task goes on, and
   * the person may press again; check the state, a resolved promise is not a cancel. A 2026
   * `-32602` (the server does not know the task: unknown or expired) resolves `unavailable`,
   * and the next status decides (rule C-4). A refusal
   * rejects with an {@link McpCallError} of code `cancel_refused` (nothing is sent; the core's
   * refusal is its `cause`).
   */
  cancel(): Promise<ButtonState>;
  /** Stops watching (never the task); while the `tools/call` is out, once it is answered (rule E-62). */
  stop(): void;
  /** The run record now. */
  record(): McpRunRecord;
  /** A JSON text to persist; {@link resume} continues from it. */
  snapshot(): string;
}

/** The codes of {@link McpCallError}: this module's own, and the core's refusals it passes on. */
export type McpErrorCode =
  | 'create_unanswered'
  | 'watch_stopped'
  | 'sender_closed'
  | 'transport'
  | 'input_withdrawn'
  | 'tools_list_failed'
  | ErrorCode;

/**
 * An Error with a stable `code` (`create_unanswered`, `watch_stopped`, `sender_closed`,
 * `transport`, `cancel_refused`, `invalid_input`, `wrong_model` (a snapshot resumed on a sender
 * of the other revision), `input_withdrawn` (the reason of an `onInput` signal), and the core's
 * own refusals: `invalid_config`, `malformed`, `snapshot_*`, ... with the core's error as
 * `cause`). Every refusal of `callTool`, `watchTask`, `resume` and the senders is one.
 */
export class McpCallError extends Error {
  /** `extra.cause` becomes the standard `cause`; its other fields are copied onto the error. */
  constructor(code: McpErrorCode, message: string, extra?: object);
  code: McpErrorCode;
  /**
   * `create_unanswered`, and `watch_stopped` for `deadline`, `max_polls` or a closed sender: what the sender threw
   * when the latest exchange got no answer (for `httpSender` a fetch `TypeError('fetch failed')`
   * whose own `cause` says why, e.g. `ECONNREFUSED`, or a `transport` error with `httpStatus`
   * for an HTTP answer with no JSON-RPC answer in it); its words are in the message too. Undefined when an answer
   * came (unreadable, or after a restart) and for a stop the caller asked for.
   */
  cause?: unknown;
  /** The core's stop reason (`create_unanswered`, `deadline`, `host_stopped`, ...). */
  reason?: string;
  /** The task id, when one was known. */
  taskId?: string | null;
  /**
   * `transport` for an HTTP answer with no readable JSON-RPC answer in it: its status;
   * `create_unanswered` too, when the `tools/call` got such an answer (a 429 or 503 page, rule
   * E-68, or a 2xx one such as a login page).
   */
  httpStatus?: number;
  /**
   * `create_unanswered` after such an answer: its `Retry-After` in ms (`null` without one), read
   * by the core. The call may still have started: reconcile before any call of your own.
   */
  retryAfterMs?: number | null;
  /** `create_unanswered` and `watch_stopped`: the run record when the watch stopped. */
  record?: McpRunRecord;
  /** `tools_list_failed`: the server's JSON-RPC error. */
  error?: RpcError;
}

/**
 * One page of the server's tools (`tools/list`), through any sender. Pass a listed tool to
 * {@link callTool} as `tool` (on the 2025 wire its `execution.taskSupport` decides whether it
 * runs as a task). Rejects with code `transport` (no answer), `tools_list_failed` (the server's
 * JSON-RPC error as `error`) or `malformed`.
 * @example
 * const { tools } = await listTools(httpSender({ url }));
 * const h = await callTool(sender, { tool: tools[0], arguments: {} });
 */
export function listTools(
  sender: Sender,
  options?: { cursor?: string | undefined; signal?: AbortSignal | undefined },
): Promise<{ tools: ListedTool[]; nextCursor?: string }>;

/**
 * Calls a tool; resolves once `tools/call` answered. Never resubmits: no answer rejects with code
 * `create_unanswered`, whose `cause` is the transport error when the sender threw; a closed sender
 * (nothing sent) rejects with `sender_closed`.
 */
export function callTool(sender: Sender, options: CallOptions): Promise<CallHandle>;
/** Watches a task by id (the first poll decides; an unknown id ends `lost`). */
export function watchTask(sender: Sender, taskId: string, options?: WatchOptions): CallHandle;
/**
 * Continues a handle from {@link CallHandle.snapshot} after a restart: `onStatus` and `onButton`
 * are told what the snapshot holds, and the next poll goes as soon as the floor allows (rule
 * P-15). An input asked before the snapshot and not answered is put to `onInput` again (the
 * person who saw it is gone with the old process); the core never asks a key twice within one
 * process. A snapshot of a watch that had stopped (an `AbortSignal`, `stop()`) is watched again:
 * a task no sooner than the floors of the watch that stopped, its last status shown meanwhile
 * (P-16); a call stopped in an MRTR round from that round (E-70).
 */
export function resume(snapshot: string, sender: Sender, options?: WatchOptions): CallHandle;
