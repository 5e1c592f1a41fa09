// longcall/mcp: an MCP host adapter on the longcall core. It calls a tool and, when a task comes
// back, lets the core's Tracker decide every poll, input prompt and cancel; it only does the I/O.
//
//   import { callTool, sdkSender, httpSender } from 'longcall/mcp';
//   const h = await callTool(httpSender({ url }), { name: 'slow_compute', arguments: { seconds: 3 },
//     onInput: async (key, request) => ({ action: 'accept', content: { confirm: true } }) });
//   const { outcome, result } = await h.outcome;
//
// Senders: `sdkSender(client, {types})` (official @modelcontextprotocol/sdk 1.x Client, 2025-11-25
// wire), `sdk2Sender(client)` (the 2.x `@modelcontextprotocol/client` Client, same wire) and
// `httpSender({url})` (fetch-based Streamable HTTP, 2026-07-28 tasks extension). Any object
// `{model, send(message, headers, {signal, kind}) -> Promise<JSON-RPC response>}` works; the
// contract (index.d.ts `Sender`): resolve with whatever answer arrived, unvalidated; throw only
// when none did; once `send` has settled, the signal it was given is no longer followed.
import * as lc from 'longcall';

const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const TASKS_EXT = 'io.modelcontextprotocol/tasks';
const SNAPSHOT_VERSION = 1;

/** An Error with a stable `code` (and extra fields), like the core's errors. */
export class McpCallError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {object} [extra]
   */
  constructor(code, message, extra = {}) {
    super(message, extra.cause ? { cause: extra.cause } : undefined);
    this.name = 'McpCallError';
    this.code = code;
    for (const [k, v] of Object.entries(extra)) if (k !== 'cause') this[k] = v;
  }
}

const safe = (fn, ...args) => {
  try {
    return fn?.(...args);
  } catch {
    return undefined;
  }
};

// ---- senders ------------------------------------------------------------------------------

/**
 * A fetch-based Streamable HTTP sender for the 2026-07-28 tasks extension. Sets `Mcp-Method`,
 * `Mcp-Name` and `MCP-Protocol-Version` from the core's headers, and the per-request `_meta`
 * (protocol version, client info, and the core's capability declaration). Accepts JSON or SSE
 * answers; an HTTP error with a JSON-RPC body (400 -32602, 400 -32021, 404 -32601) is an answer.
 * @param {{url: string|URL, fetch?: typeof fetch, headers?: Record<string,string>,
 *   clientInfo?: {name: string, version: string}, timeoutMs?: number, declareTasks?: boolean}} options
 *   `declareTasks: false` strips the tasks extension from `_meta` (to see a server's -32021).
 */
export function httpSender({
  url,
  fetch: f = globalThis.fetch,
  headers: extra = {},
  clientInfo = { name: 'longcall', version: '0.1.0' },
  timeoutMs = 30000,
  declareTasks = true,
} = {}) {
  if (!url) throw new McpCallError('invalid_input', 'httpSender: url is required');
  return {
    model: 'task-2026',
    async send(message, headers, { signal } = {}) {
      const params = { ...(message.params ?? {}) };
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': clientInfo,
        ...(params._meta ?? {}),
      };
      if (!declareTasks && meta[CAPS]?.extensions) {
        const { [TASKS_EXT]: _dropped, ...rest } = meta[CAPS].extensions;
        meta[CAPS] = { ...meta[CAPS], extensions: rest };
      }
      params._meta = meta;
      const body = { ...message, params };
      const timeout = AbortSignal.timeout(timeoutMs);
      const res = await f(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...extra,
          ...headers,
        },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      const ct = (res.headers.get('content-type') ?? '').split(';')[0].trim();
      const text = await res.text();
      const candidates = [];
      if (ct === 'text/event-stream') {
        for (const block of text.replace(/\r\n/g, '\n').split('\n\n')) {
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).replace(/^ /, ''))
            .join('\n');
          if (data) {
            try {
              candidates.push(JSON.parse(data));
            } catch {
              /* not JSON: skipped */
            }
          }
        }
      } else if (text) {
        try {
          candidates.push(JSON.parse(text));
        } catch {
          /* below */
        }
      }
      const answer = candidates
        .flat()
        .find((m) => m && !m.method && (m.id === message.id || (m.error && m.id === null)));
      if (answer) return answer;
      throw new McpCallError(
        'transport',
        `HTTP ${res.status} (${ct || 'no content type'}) without a JSON-RPC answer to ${message.method}`,
        { httpStatus: res.status },
      );
    },
  };
}

/**
 * A signal for one request that follows `signal` only until `detach()`: once a request has its
 * answer, aborting the caller's signal must not reach it. (SDK 1.32.2 never removes its abort
 * listener, so a late abort there sends `notifications/cancelled` for a request that is over,
 * which MCP forbids: cancellation names only requests still in progress.)
 * @param {AbortSignal} [signal]
 */
function requestSignal(signal) {
  if (!signal) return { signal: undefined, detach() {} };
  const ctl = new AbortController();
  if (signal.aborted) {
    ctl.abort(signal.reason);
    return { signal: ctl.signal, detach() {} };
  }
  const follow = () => ctl.abort(signal.reason);
  signal.addEventListener('abort', follow, { once: true });
  return { signal: ctl.signal, detach: () => signal.removeEventListener('abort', follow) };
}

// Result schemas that accept any result unchanged: the sender hands over what arrived and the
// core reads it (an SDK schema would turn a result it rejects, e.g. a 2025 Task without `ttl`,
// into an exception, i.e. into "no answer").
const PASSTHROUGH_ZOD = { safeParse: (data) => ({ success: true, data }) };
const PASSTHROUGH_STANDARD = { '~standard': { version: 1, vendor: 'longcall', validate: (value) => ({ value }) } };

/**
 * The part shared by the SDK senders. `sdk` adapts one SDK line:
 * `request(method, params, options)` resolves with the raw result or throws;
 * `rpcError(e)` returns the JSON-RPC error object when `e` is the server's error answer, else
 * null (a local failure: timeout, closed connection);
 * `previousElicitation()` returns the `elicitation/create` handler registered before, if any;
 * `setElicitation(fn)` registers ours (throws when the Client did not declare elicitation).
 */
function sdkLikeSender(sdk, { requestTimeoutMs = 60000, resultTimeoutMs = 600000 } = {}) {
  const routes = new Map(); // taskId -> (key, request) => Promise<ElicitResult>
  const previous = sdk.previousElicitation();
  let inputChannel = true;
  try {
    sdk.setElicitation(async (request, extra, requestId) => {
      const taskId = request?.params?._meta?.[RELATED_TASK]?.taskId;
      const route = taskId !== undefined ? routes.get(taskId) : undefined;
      if (route) return route(`elicitation/create#${requestId ?? '?'}`, request);
      // Not about a task this sender watches: the host's own handler answers it.
      if (previous) return previous(request, extra);
      return { action: 'decline' };
    });
  } catch (e) {
    // The Client did not declare `capabilities.elicitation` (both SDK lines refuse the handler,
    // naming the capability): fine until a task asks for input (the watch reports
    // `input_unsupported` then). Anything else is a real failure.
    if (!/elicitation/i.test(String(e?.message ?? ''))) throw e;
    inputChannel = false;
  }
  const sender = {
    model: 'task-2025',
    async send(message, _headers, { signal } = {}) {
      const { id, method, params } = message;
      const timeout = method === 'tasks/result' ? resultTimeoutMs : requestTimeoutMs;
      const link = requestSignal(signal);
      try {
        const result = await sdk.request(method, params, {
          signal: link.signal,
          timeout,
          resetTimeoutOnProgress: true,
        });
        return { jsonrpc: '2.0', id, result };
      } catch (e) {
        const error = signal?.aborted ? null : sdk.rpcError(e);
        if (error) return { jsonrpc: '2.0', id, error };
        throw e;
      } finally {
        link.detach();
      }
    },
  };
  if (inputChannel)
    sender.routeInput = (taskId, fn) => {
      routes.set(taskId, fn);
      return () => routes.delete(taskId);
    };
  return sender;
}

const rpcErrorOf = (code, message, data) => {
  const error = { code, message };
  if (data !== undefined) error.data = data;
  return error;
};

/**
 * A sender over the official `@modelcontextprotocol/sdk` 1.x `Client` (2025-11-25 experimental
 * tasks). Requests go through `client.request(...)` with a schema that accepts any result, so
 * what the server answered reaches the core as it arrived; a JSON-RPC error is an answer too.
 * The 2025 elicitation (delivered inside `tasks/result`) is answered by a request handler routed
 * to the `onInput` of the call whose task it names; any other elicitation goes to the handler the
 * host registered before calling `sdkSender` (or is declined if there is none). A Client without
 * `capabilities.elicitation` works until a task asks for input.
 * @param {object} client a connected SDK `Client`
 * @param {{types: object, requestTimeoutMs?: number, resultTimeoutMs?: number}} options
 *   `types` is `await import('@modelcontextprotocol/sdk/types.js')` (the SDK the client came from).
 */
export function sdkSender(client, { types, ...options } = {}) {
  if (!client || typeof client.request !== 'function')
    throw new McpCallError('invalid_input', 'sdkSender: expected an SDK Client');
  if (!types?.ElicitRequestSchema) {
    throw new McpCallError(
      'invalid_input',
      "sdkSender: pass {types: await import('@modelcontextprotocol/sdk/types.js')} (for a Client from @modelcontextprotocol/client 2.x, use sdk2Sender(client))",
    );
  }
  // Failures the SDK raises as McpError on its own side: not answers from the server.
  const LOCAL = new Set([types.ErrorCode?.RequestTimeout ?? -32001, types.ErrorCode?.ConnectionClosed ?? -32000]);
  return sdkLikeSender(
    {
      request: (method, params, opts) => client.request({ method, params }, PASSTHROUGH_ZOD, opts),
      rpcError: (e) =>
        typeof e?.code === 'number' && !LOCAL.has(e.code)
          ? // McpError prefixes the server's message with "MCP error <code>: ".
            rpcErrorOf(e.code, String(e.message ?? '').replace(/^MCP error -?\d+: /, ''), e.data)
          : null,
      previousElicitation: () => client._requestHandlers?.get?.('elicitation/create'),
      setElicitation: (fn) =>
        client.setRequestHandler(types.ElicitRequestSchema, (request, extra) => fn(request, extra, extra?.requestId)),
    },
    options,
  );
}

/**
 * A sender over the official SDK 2.x `Client` (`@modelcontextprotocol/client`, 2.4.0), on the
 * 2025-11-25 wire (a Client connected with the default legacy negotiation). Same behaviour as
 * {@link sdkSender}: results handed over as they arrived (a schema that accepts anything), a
 * server's `ProtocolError` is an answer, an `SdkError` (timeout, closed connection) is none, and
 * task elicitations are routed while others go to the host's own handler.
 * @param {object} client a connected `Client` from `@modelcontextprotocol/client`
 * @param {{requestTimeoutMs?: number, resultTimeoutMs?: number}} [options]
 */
export function sdk2Sender(client, options = {}) {
  if (!client || typeof client.request !== 'function' || typeof client.setRequestHandler !== 'function') {
    throw new McpCallError('invalid_input', 'sdk2Sender: expected a Client from @modelcontextprotocol/client');
  }
  return sdkLikeSender(
    {
      request: (method, params, opts) => client.request({ method, params }, PASSTHROUGH_STANDARD, opts),
      // ProtocolError (the server's JSON-RPC error) has a numeric code; SdkError's codes are strings.
      rpcError: (e) => (typeof e?.code === 'number' ? rpcErrorOf(e.code, String(e.message ?? ''), e.data) : null),
      previousElicitation: () => client._getRequestHandler?.('elicitation/create'),
      setElicitation: (fn) =>
        client.setRequestHandler('elicitation/create', (request, ctx) => fn(request, ctx, ctx?.mcpReq?.id)),
    },
    options,
  );
}

// ---- the watch ----------------------------------------------------------------------------

class Watch {
  constructor(sender, tracker, opts, state = {}) {
    this.sender = sender;
    this.model = sender.model;
    this.tracker = tracker;
    this.opts = opts;
    this.now = opts.now ?? Date.now;
    this.timers = opts.timers ?? globalThis;
    this.name = state.name ?? null;
    this.nextId = state.nextId ?? 1;
    this.result = state.result;
    this.error = state.error;
    this.inflight = [];
    this.pendingInputs = new Map(state.pendingInputs ?? []);
    this.wireViolations = state.wireViolations ?? [];
    this.controllers = new Set();
    this.cancelWaiters = [];
    this.timer = null;
    this.done = false;
    this.outcome = new Promise((res, rej) => {
      this.resolve = res;
      this.reject = rej;
    });
    this.outcome.catch(() => {}); // a stopped watch rejects; never an unhandled rejection
    this.unroute = null;
    if (opts.signal) {
      if (opts.signal.aborted) queueMicrotask(() => this.stop());
      else opts.signal.addEventListener('abort', () => this.stop(), { once: true });
    }
  }

  route() {
    const id = this.tracker.id;
    if (id && this.sender.routeInput && !this.unroute) {
      this.unroute = this.sender.routeInput(id, (key, request) => this.askDirect(key, request));
    }
  }

  // A 2025 task asks for input over the SDK's elicitation handler; a sender without one (a Client
  // that did not declare elicitation) cannot deliver it: said once, the watch goes on.
  checkInputChannel(status) {
    if (status !== 'input_required' || this.model !== 'task-2025' || this.sender.routeInput || this.inputUnsupported)
      return;
    this.inputUnsupported = true;
    this.report({
      source: 'adapter',
      rule: 'input_unsupported',
      level: 'must',
      detail: `task ${this.tracker.id ?? '?'} asks for input, but the sender cannot receive input requests (declare capabilities.elicitation on the Client)`,
    });
  }

  apply(fn) {
    let outs;
    try {
      outs = fn();
    } catch (e) {
      if (!this.done)
        this.report({ source: 'adapter', rule: e.code ?? 'error', level: 'should', detail: String(e.message ?? e) });
      return;
    }
    for (const o of outs) this.out(o);
  }

  out(o) {
    const opts = this.opts;
    switch (o.type) {
      case 'send':
        this.dispatch(o.request);
        break;
      case 'ask_user':
        this.ask(o.key, o.request);
        break;
      case 'button':
        safe(opts.onButton, o.state);
        if (o.state !== 'requesting') this.flushCancel(o.state);
        break;
      case 'status':
        safe(opts.onStatus, o.status);
        this.route();
        this.checkInputChannel(o.status);
        break;
      case 'violation':
        this.report({ source: 'tracker', ...o.violation });
        break;
      case 'settled':
        this.settle(o);
        break;
      case 'stopped':
        this.stopped(o.reason);
        break;
      case 'wake_at':
        this.arm(o.at);
        break;
      case 'idle':
        this.disarm();
        break;
      default:
        break;
    }
  }

  report(v) {
    if (v.source === 'wire') this.wireViolations.push(v);
    safe(this.opts.onViolation, v);
  }

  arm(at) {
    this.disarm();
    if (this.done) return;
    const delay = Math.max(0, at - this.now());
    // Timers may fire a millisecond early: the tracker gets the real time and asks again if so.
    this.timer = this.timers.setTimeout(
      () => {
        this.timer = null;
        if (!this.done) this.apply(() => this.tracker.timeout(this.now()));
      },
      Math.max(1, delay),
    );
  }

  disarm() {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  capture(input) {
    const t = input.task;
    if (t?.result) this.result = t.result.value;
    if (t?.error) this.error = t.error;
    if (input.type === 'result_fetched') this.result = input.result.value;
    if (input.type === 'call_result') this.result = input.result.value;
    if (input.type === 'call_error') this.error = input.error;
    if (input.type === 'request_failed' && input.request === 'fetch_result' && input.failure.kind === 'rpc')
      this.error = input.failure.error;
  }

  dispatch(request) {
    const id = this.nextId++;
    let built;
    try {
      built = lc.buildRequest(this.model, request, id);
    } catch (e) {
      this.report({ source: 'adapter', rule: e.code ?? 'error', level: 'must', detail: String(e.message) });
      return;
    }
    const ctl = new AbortController();
    const entry = { kind: request.kind, ctl };
    this.inflight.push(entry);
    // Off the in-flight list as soon as it has its answer (before the core reads it): settling
    // aborts what is still in flight, and a request that has its answer is not.
    const landed = () => {
      this.inflight = this.inflight.filter((x) => x !== entry);
    };
    const t0 = this.now();
    Promise.resolve()
      .then(() => this.sender.send(built.message, built.headers, { signal: ctl.signal, kind: request.kind }))
      .then(
        (answer) => {
          landed();
          if (this.done) return;
          let read;
          try {
            read = lc.readAnswer(this.model, request.kind, answer);
          } catch (e) {
            this.report({
              source: 'wire',
              rule: e.code ?? 'malformed',
              level: 'must',
              detail: `${built.message.method}: ${e.message}`,
            });
            read = {
              input: { type: 'request_failed', request: request.kind, failure: { kind: 'transport' } },
              violations: [],
            };
          }
          for (const v of read.violations) this.report({ source: 'wire', ...v });
          this.capture(read.input);
          safe(this.opts.onExchange, {
            method: built.message.method,
            sentAt: t0,
            answeredAt: this.now(),
            input: read.input,
          });
          this.apply(() => this.tracker.handle(this.now(), read.input));
        },
        (e) => {
          landed();
          if (this.done) return;
          safe(this.opts.onExchange, {
            method: built.message.method,
            sentAt: t0,
            answeredAt: this.now(),
            error: String(e?.message ?? e),
          });
          this.apply(() =>
            this.tracker.handle(this.now(), {
              type: 'request_failed',
              request: request.kind,
              failure: { kind: 'transport' },
            }),
          );
        },
      );
  }

  async userAnswer(key, request) {
    if (!this.opts.onInput) return { action: 'decline' };
    return this.opts.onInput(key, request);
  }

  // 2026: the tracker asked (once per key); the answer goes back through tasks/update.
  ask(key, request) {
    this.pendingInputs.set(key, request);
    Promise.resolve()
      .then(() => this.userAnswer(key, request))
      .then(
        (response) => {
          this.pendingInputs.delete(key);
          if (this.done) return;
          this.apply(() =>
            this.tracker.handle(this.now(), {
              type: 'input_answered',
              key,
              response: response ?? { action: 'decline' },
            }),
          );
        },
        (e) =>
          this.report({ source: 'adapter', rule: 'on_input_failed', level: 'should', detail: String(e?.message ?? e) }),
      );
  }

  // 2025: the SDK's elicitation handler asks; the answer is the handler's return value.
  async askDirect(key, request) {
    if (this.done) return { action: 'decline' };
    return (await this.userAnswer(key, request)) ?? { action: 'decline' };
  }

  flushCancel(state) {
    const w = this.cancelWaiters;
    this.cancelWaiters = [];
    for (const res of w) res(state);
  }

  finish() {
    this.done = true;
    this.disarm();
    for (const { ctl } of this.inflight) ctl.abort();
    this.unroute?.();
    this.flushCancel(this.tracker.button);
  }

  settle(o) {
    if (this.done) return;
    this.finish();
    this.resolve({
      outcome: o.outcome,
      status: o.status ?? null,
      result: this.result,
      error: this.error,
      record: this.record(),
    });
  }

  stopped(reason) {
    if (this.done) return;
    this.finish();
    const id = this.tracker.id;
    const why =
      reason === 'create_unanswered'
        ? `tools/call ${this.name ?? ''} got no answer: the tool may have started. Reconcile (look the task or its effects up); do not resubmit`
        : `stopped watching (${reason}); the task${id ? ` ${id}` : ''} goes on: resume from a snapshot or watchTask(sender, id)`;
    this.reject(
      new McpCallError(reason === 'create_unanswered' ? 'create_unanswered' : 'watch_stopped', why, {
        reason,
        taskId: id ?? null,
        record: this.record(),
      }),
    );
  }

  stop() {
    if (this.done) return;
    this.apply(() => this.tracker.handle(this.now(), { type: 'stop_watching' }));
  }

  record() {
    return { ...this.tracker.record(), name: this.name, wire_violations: [...this.wireViolations] };
  }

  handle() {
    const w = this;
    return {
      get model() {
        return w.model;
      },
      get id() {
        return w.tracker.id ?? null;
      },
      get status() {
        return w.tracker.status ?? null;
      },
      get button() {
        return w.tracker.button;
      },
      outcome: w.outcome,
      /** Presses the core's cancel button; resolves with the button state once the answer is in. */
      cancel() {
        let outs;
        try {
          outs = w.tracker.handle(w.now(), { type: 'cancel_pressed' });
        } catch (e) {
          return Promise.reject(e);
        }
        const p = new Promise((res) => w.cancelWaiters.push(res));
        for (const o of outs) w.out(o);
        return p;
      },
      /** Stops watching (never the task). */
      stop() {
        w.stop();
      },
      record() {
        return w.record();
      },
      snapshot() {
        return w.snapshot();
      },
    };
  }

  snapshot() {
    return JSON.stringify({
      longcall_mcp: SNAPSHOT_VERSION,
      model: this.model,
      name: this.name,
      tracker: this.tracker.snapshot(),
      nextId: this.nextId,
      inflight: this.inflight.map((x) => x.kind),
      pendingInputs: [...this.pendingInputs],
      result: this.result,
      error: this.error,
      wireViolations: this.wireViolations,
    });
  }
}

function checkSender(sender) {
  if (!sender || typeof sender.send !== 'function' || (sender.model !== 'task-2026' && sender.model !== 'task-2025')) {
    throw new McpCallError(
      'invalid_input',
      "expected a sender {model: 'task-2026'|'task-2025', send(message, headers, opts)}",
    );
  }
}

/**
 * @typedef {object} CallOptions
 * @property {string} name the tool
 * @property {object} [arguments]
 * @property {number} [ttlMs] 2025 only: the TTL asked for (the server may override)
 * @property {object} [config] the core's TrackerConfig ({poll, seed, deadline_ms})
 * @property {AbortSignal} [signal] stops watching (never the task)
 * @property {(key: string, request: object) => Promise<object>|object} [onInput] asked once per key
 * @property {(state: string) => void} [onButton]
 * @property {(status: string) => void} [onStatus]
 * @property {(v: object) => void} [onViolation]
 * @property {(e: object) => void} [onExchange] every request/answer pair, with times
 * @property {() => number} [now] clock in ms (default Date.now)
 * @property {{setTimeout: Function, clearTimeout: Function}} [timers] for wake-ups (default the
 *   global ones); with `now`, a test drives the watch on a fake clock
 */

/**
 * Calls a tool. Resolves with a handle once the `tools/call` answered (a plain result settles at
 * once); rejects with code `create_unanswered` if it got no answer: never resubmitted.
 * @param {{model: string, send: Function}} sender
 * @param {CallOptions} opts
 */
export async function callTool(sender, opts) {
  checkSender(sender);
  if (!opts || typeof opts.name !== 'string')
    throw new McpCallError('invalid_input', 'callTool: opts.name (the tool) is required');
  const tracker = new lc.Tracker(sender.model, opts.config ?? null);
  const w = new Watch(sender, tracker, opts, { name: opts.name, nextId: 2 });
  const built = lc.buildCall(sender.model, 1, opts.name, opts.arguments ?? {}, opts.ttlMs ?? null);
  const t0 = w.now();
  let read;
  // The caller's signal stops watching later: it must not reach the answered tools/call.
  const link = requestSignal(opts.signal);
  try {
    const answer = await sender.send(built.message, built.headers, { signal: link.signal, kind: 'call' });
    link.detach();
    read = lc.readAnswer(sender.model, 'call', answer);
  } catch (e) {
    link.detach();
    safe(opts.onExchange, { method: 'tools/call', sentAt: t0, answeredAt: w.now(), error: String(e?.message ?? e) });
    w.apply(() => tracker.handle(w.now(), { type: 'create_unanswered' }));
    throw new McpCallError(
      'create_unanswered',
      `tools/call ${opts.name} got no readable answer (${e?.message ?? e}): the tool may have started. Reconcile (look the task or its effects up); do not resubmit`,
      { cause: e, record: w.record() },
    );
  }
  if (read.input.type === 'call_input_required'
    || (read.input.type === 'call_result' && read.input.result.value?.resultType === 'input_required')) {
    // A 2026 MRTR round (InputRequiredResult) before any task: not supported yet, and not a result.
    throw new McpCallError(
      'mrtr_unsupported',
      `tools/call ${opts.name} answered an MRTR InputRequiredResult; multi-round-trip requests are not supported by longcall/mcp yet (no task was created)`,
      { answer: read.input.result.value },
    );
  }
  for (const v of read.violations) w.report({ source: 'wire', ...v });
  w.capture(read.input);
  safe(opts.onExchange, { method: 'tools/call', sentAt: t0, answeredAt: w.now(), input: read.input });
  w.apply(() => tracker.handle(w.now(), read.input));
  w.route();
  return w.handle();
}

/**
 * Watches a task whose id is known (from a record, a log, another process) without calling
 * anything: the first poll decides. An unknown id ends `lost`.
 * @param {{model: string, send: Function}} sender
 * @param {string} taskId
 * @param {Omit<CallOptions, 'name'|'arguments'|'ttlMs'>} [opts]
 */
export function watchTask(sender, taskId, opts = {}) {
  checkSender(sender);
  if (typeof taskId !== 'string' || !taskId)
    throw new McpCallError('invalid_input', 'watchTask: taskId must be a non-empty string');
  const tracker = new lc.Tracker(sender.model, opts.config ?? null);
  const w = new Watch(sender, tracker, opts, { name: null, nextId: 1 });
  w.apply(() =>
    tracker.handle(w.now(), { type: 'task_created', task: { task_id: taskId, status: 'working', ttl_ms: null } }),
  );
  w.route();
  return w.handle();
}

/**
 * Resumes a handle from `handle.snapshot()` after a restart. Requests that were in flight when
 * the snapshot was taken count as lost in transport (the core retries what it needs); input
 * prompts that were open are asked again.
 * @param {string} snapshot
 * @param {{model: string, send: Function}} sender
 * @param {Omit<CallOptions, 'name'|'arguments'|'ttlMs'>} [opts]
 */
export function resume(snapshot, sender, opts = {}) {
  checkSender(sender);
  let s;
  try {
    s = JSON.parse(snapshot);
  } catch (e) {
    throw new McpCallError('snapshot_invalid', `not a longcall/mcp snapshot: ${e.message}`);
  }
  if (s?.longcall_mcp !== SNAPSHOT_VERSION)
    throw new McpCallError('snapshot_version', `expected a longcall/mcp snapshot version ${SNAPSHOT_VERSION}`);
  if (s.model !== sender.model)
    throw new McpCallError('wrong_model', `snapshot is ${s.model}, sender speaks ${sender.model}`);
  const tracker = lc.Tracker.restore(s.tracker);
  const rec0 = tracker.record();
  if (rec0.stopped && rec0.stopped !== 'create_unanswered' && tracker.id) {
    // Watching had stopped (an AbortSignal, a deadline): a fresh tracker picks the handle up.
    return watchTask(sender, tracker.id, opts);
  }
  const w = new Watch(sender, tracker, opts, { ...s, pendingInputs: [] });
  w.apply(() => tracker.drain());
  for (const kind of s.inflight ?? []) {
    w.apply(() => tracker.handle(w.now(), { type: 'request_failed', request: kind, failure: { kind: 'transport' } }));
  }
  for (const [key, request] of s.pendingInputs ?? []) w.ask(key, request);
  w.apply(() => tracker.timeout(w.now()));
  w.route();
  if (tracker.isDone && !w.done) {
    const rec = tracker.record();
    if (rec.outcome) w.settle({ outcome: rec.outcome, status: rec.status });
    else w.stopped(rec.stopped ?? 'host_stopped');
  }
  return w.handle();
}
