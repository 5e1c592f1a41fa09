// longcall/mcp: an MCP host adapter on the longcall core's endpoint (`Endpoint`, one call end to
// end). The endpoint builds every request, reads every answer (both revisions, MRTR included),
// decides every poll, prompt and cancel and hands over the settled payload; this file moves its
// `transmit` text and headers through a sender, hands back each answer as it arrived, runs the
// timers it asks for and calls the host's callbacks.
//
//   import { callTool, sdkSender, httpSender } from 'longcall/mcp';
//   const h = await callTool(httpSender({ url }), { name: 'slow_compute', arguments: { seconds: 3 },
//     onInput: async (key, request) => ({ action: 'accept', content: { confirm: true } }) });
//   const { outcome, result } = await h.outcome;
//
// What this file still decides (transport only, nothing about the protocol's meaning):
// * an exchange that ended without an answer (the sender threw) is a transport failure; what an
//   answer that arrived means, readable or not, and whether it answered the request it came back
//   for, is the core's (`handleAnswer`, rules E-1, E-2);
// * the senders' part: httpSender hands back the HTTP answer whole (a fetch Response), which the
//   core reads (`handleHttpAnswer`, rule E-67: a JSON or event-stream body, a 429's
//   Retry-After), and adds the session `_meta` (protocol version, client info); the SDK senders
//   turn the SDK's thrown server errors back into JSON-RPC error answers and keep its local
//   failures (timeout, closed connection) as no answer;
// * 2025 input requests arrive as SDK elicitation requests, are routed by the task id in their
//   `related-task` `_meta` to the call, and go to its endpoint as the server's requests: the
//   core asks them (once each, keyed `elicitation/create#<request id>`, rule I-10) and its reply
//   is what the SDK's handler answers. A 2025 sender that cannot receive them is reported once
//   as `input_unsupported`;
// * resuming a snapshot whose watching had stopped (not a lost `tools/call`) watches its handle
//   again, as the core's `stopped` event tells a host to do.
//
// Senders: `sdkSender(client, {types})` (official @modelcontextprotocol/sdk 1.x Client, 2025-11-25
// wire), `sdk2Sender(client)` (the 2.x `@modelcontextprotocol/client` Client, same wire) and
// `httpSender({url})` (fetch-based Streamable HTTP, 2026-07-28 tasks extension). Any object
// `{model, send(message, headers, {signal, method}) -> Promise<JSON-RPC response>}` works; the
// contract (index.d.ts `Sender`): resolve with whatever answer arrived (a JSON-RPC message as
// text or object, or an HTTP answer whole), unvalidated; throw only when none did; once `send` has settled, the signal it was
// given is no longer followed.
import * as lc from 'longcall';
import { checkJson, checkOptions, isHttpUrl } from '../options.js';
import { mergeHeaders, ownHeaders } from '../headers.js';
import { failureText, transportDetail } from '../failure.js';

const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const TASKS_EXT = 'io.modelcontextprotocol/tasks';

/** An Error with a stable `code` (and extra fields), like the core's errors. */
export class McpCallError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {object} [extra]
   */
  constructor(code, message, extra = {}) {
    super(message, 'cause' in extra ? { cause: extra.cause } : undefined);
    this.name = 'McpCallError';
    this.code = code;
    for (const [k, v] of Object.entries(extra)) if (k !== 'cause') this[k] = v;
  }
}

const closedCancel = () =>
  new McpCallError('sender_closed', "the sender's client is closed: the cancel cannot be sent");

// The method each request kind of the core is on the MCP wire, for words to show.
const REQUEST_METHODS = {
  get: 'tasks/get',
  cancel: 'tasks/cancel',
  update: 'tasks/update',
  fetch_result: 'tasks/result',
  continue_call: 'tools/call',
};

const safe = (fn, ...args) => {
  try {
    return fn?.(...args);
  } catch {
    return undefined;
  }
};

// ---- senders ------------------------------------------------------------------------------

/**
 * A fetch-based Streamable HTTP sender for the 2026-07-28 tasks extension. Sends each message
 * as the core built it, with the core's headers (`Mcp-Method`, `Mcp-Name`,
 * `MCP-Protocol-Version`); the core writes each request's `_meta` (capability, protocol version
 * and `clientInfo`, which this sender names: rule M-21). Resolves with the
 * fetch Response whole: the core reads it (a JSON or SSE body; an HTTP error with a JSON-RPC
 * body, such as 400 -32602 or 400 -32021, is an answer; a 429 or 503 without one fails the
 * request, its Retry-After a floor for the next poll).
 * @param {{url: string|URL, fetch?: typeof fetch, headers?: Record<string,string> | Iterable<[string,string]>,
 *   clientInfo?: {name: string, version: string}, timeoutMs?: number, declareTasks?: boolean}} options
 *   `declareTasks: false` strips the tasks extension from `_meta` (to see a server's -32021).
 */
export function httpSender(options = {}) {
  checkOptions(options, ['url', 'fetch', 'headers', 'clientInfo', 'timeoutMs', 'declareTasks'], 'httpSender', mcpError);
  const {
    url,
    fetch: f = globalThis.fetch,
    headers: given,
    clientInfo,
    timeoutMs = 30000,
    declareTasks = true,
  } = options ?? {};
  if (!url) throw new McpCallError('invalid_input', 'httpSender: url is required');
  const extra = ownHeaders(given, 'httpSender', mcpError);
  // Refused here, not at the first call, where fetch's throw would read as "no answer: the tool
  // may have started" for a request that never left.
  // In a page, a path of its own origin ('/mcp', behind a dev server's proxy) is a URL too.
  if (!isHttpUrl(url))
    throw new McpCallError(
      'invalid_input',
      `httpSender: url is not an http(s) URL${globalThis.location ? '' : ' (outside a page, give it whole)'}: ${JSON.stringify(String(url).slice(0, 80))}`,
    );
  // A timer's whole milliseconds (setTimeout's limit): a string from an environment variable
  // would otherwise throw inside the first send, read as "no answer" for a request never sent.
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 2 ** 31 - 1)
    throw new McpCallError(
      'invalid_input',
      `httpSender: timeoutMs must be a whole number of milliseconds from 1 to 2147483647, got ${JSON.stringify(String(timeoutMs).slice(0, 40))} (${timeoutMs === null ? 'null' : typeof timeoutMs})`,
    );
  // Checked by the core now, not at the first call: a clientInfo without a name or version.
  if (clientInfo !== undefined) fromCore(() => lc.requestMeta(clientInfo));
  return {
    model: 'task-2026',
    // The client the core names in every request it builds for this sender (M-21).
    ...(clientInfo === undefined ? {} : { clientInfo }),
    async send(message, headers, { signal } = {}) {
      let body = message;
      const meta = message.params?._meta;
      if (!declareTasks && meta?.[CAPS]?.extensions) {
        const { [TASKS_EXT]: _dropped, ...rest } = meta[CAPS].extensions;
        const stripped = { ...meta, [CAPS]: { ...meta[CAPS], extensions: rest } };
        body = { ...message, params: { ...message.params, _meta: stripped } };
      }
      const timeout = AbortSignal.timeout(timeoutMs);
      // The HTTP answer whole, a Response: the core reads its status, Retry-After and JSON or
      // event-stream body, and which message in it answers this request (rule E-67). The
      // timeout covers the body too, which the adapter reads.
      return f(String(url), {
        method: 'POST',
        // Every 2026 request names its method and revision in headers: the core's requests
        // carry them, and a request of the host's own (`tools/list`) gets them here.
        headers: mergeHeaders(
          null,
          {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'Mcp-Method': message.method,
            'MCP-Protocol-Version': '2026-07-28',
          },
          extra,
          headers,
        ),
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    },
  };
}

/**
 * One page of the server's tools (`tools/list`), through any sender: `{tools, nextCursor}`. A tool
 * as listed is what `callTool({tool})` takes (on the 2025 wire its `execution.taskSupport` decides
 * whether it runs as a task). Rejects with code `transport` when no answer came, and
 * `tools_list_failed` (the JSON-RPC error as `error`) when the server refused.
 * @param {{model: string, send: Function}} sender
 * @param {{cursor?: string, signal?: AbortSignal}} [options]
 */
export async function listTools(sender, options = {}) {
  checkOptions(options, ['cursor', 'signal'], 'listTools', mcpError);
  const { cursor, signal } = options ?? {};
  if (!sender || typeof sender.send !== 'function')
    throw new McpCallError('invalid_input', 'listTools: expected a sender {model, send(message, headers, opts)}');
  if (cursor !== undefined && typeof cursor !== 'string')
    throw new McpCallError('invalid_input', `listTools: cursor must be a string, got ${typeof cursor}`);
  // On 2026 a request of the host's own carries the envelope the core's requests do (M-21).
  const params =
    sender.model === 'task-2026' ? { _meta: fromCore(() => lc.requestMeta(sender.clientInfo ?? null)) } : {};
  if (cursor !== undefined) params.cursor = cursor;
  const message = { jsonrpc: '2.0', id: 1, method: 'tools/list', params };
  let answer;
  let http;
  try {
    answer = await sender.send(message, { 'Mcp-Method': 'tools/list' }, { signal, method: 'tools/list' });
    if (isHttpAnswer(answer)) http = await readHttpAnswer(answer, 'tools/list', message.id);
  } catch (e) {
    throw new McpCallError('transport', `listTools: no answer to tools/list (${transportDetail(e)})`, { cause: e });
  }
  if (http) {
    answer = answerIn(http.status, http.headers, http.body, message.id);
    if (!answer) {
      const detail = httpDetail(http);
      throw new McpCallError('transport', `listTools: ${detail}`, { httpStatus: http.status });
    }
  }
  let m = answer;
  try {
    if (typeof answer === 'string') m = JSON.parse(answer);
  } catch {
    throw new McpCallError(
      'malformed',
      `tools/list answered text that is not JSON: ${JSON.stringify(answer.slice(0, 60))}`,
    );
  }
  if (m?.error)
    throw new McpCallError('tools_list_failed', `tools/list failed: ${m.error.code} ${m.error.message}`, {
      error: m.error,
    });
  const tools = m?.result?.tools;
  if (!Array.isArray(tools)) throw new McpCallError('malformed', 'tools/list answered without a tools array');
  return m.result.nextCursor === undefined ? { tools } : { tools, nextCursor: m.result.nextCursor };
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
 * `httpBody(e)` returns the body text when `e` is an HTTP error status the SDK raised (both lines
 * raise one for a 4xx/5xx answer to a 2025 request, with the body's text), else null;
 * `previousElicitation()` returns the `elicitation/create` handler registered now, if any;
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
      if (route) return route({ id: requestId ?? null, method: 'elicitation/create', params: request?.params });
      // Not about a task this sender watches: the host's own handler answers it.
      if (previous) return previous(request, extra);
      return { action: 'decline' };
    });
  } catch (e) {
    // The Client did not declare `capabilities.elicitation` (both SDK lines refuse the handler,
    // naming the capability): fine until a task asks for input (the watch reports
    // `input_unsupported` then). Anything else: most often a Client of the other SDK line,
    // whose handler registration takes another argument.
    if (!/elicitation/i.test(String(e?.message ?? '')))
      throw new McpCallError('invalid_input', `${sdk.otherLine}: ${e?.message ?? e}`, { cause: e });
    inputChannel = false;
  }
  const sender = {
    model: 'task-2025',
    // Both SDK lines reject every request of a closed Client with "Not connected".
    isClosed: (e) => e?.message === 'Not connected',
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
        const error = signal?.aborted ? null : (rpcErrorInBody(sdk.httpBody(e)) ?? sdk.rpcError(e));
        if (error) return { jsonrpc: '2.0', id, error };
        throw e;
      } finally {
        link.detach();
      }
    },
  };
  // The handler as the Client keeps it (the SDKs wrap ours): a host that registers its own after
  // this replaces it, and the task prompts would never reach onInput.
  const mine = inputChannel ? sdk.previousElicitation() : undefined;
  if (inputChannel)
    sender.routeInput = (taskId, fn) => {
      routes.set(taskId, fn);
      return () => routes.delete(taskId);
    };
  Object.defineProperty(sender, 'inputUnsupported', {
    get: () =>
      !inputChannel
        ? 'the Client did not declare capabilities.elicitation: declare it (new Client(info, {capabilities: {elicitation: {}}})) before connecting'
        : mine !== undefined && sdk.previousElicitation() !== mine
          ? "an elicitation/create handler registered after the sender was made replaced the sender's own: register yours before making the sender, which passes it every elicitation about no watched task"
          : undefined,
  });
  return sender;
}

/**
 * The JSON-RPC error an HTTP error status carried as its body: the server's answer (some servers
 * send their JSON-RPC errors as 400), handed over unvalidated for the core to read; null when the
 * body is not a JSON-RPC error (a proxy's HTML 502 page: no answer).
 */
function rpcErrorInBody(text) {
  if (typeof text !== 'string') return null;
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  return body?.jsonrpc === '2.0' && body.error !== null && typeof body.error === 'object' ? body.error : null;
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
export function sdkSender(client, opts = {}) {
  if (!client || typeof client.request !== 'function')
    throw new McpCallError('invalid_input', 'sdkSender: expected an SDK Client');
  checkOptions(opts, ['types', 'requestTimeoutMs', 'resultTimeoutMs'], 'sdkSender', mcpError);
  const { types, ...options } = opts ?? {};
  if (!types?.ElicitRequestSchema) {
    throw new McpCallError(
      'invalid_input',
      "sdkSender: pass {types: await import('@modelcontextprotocol/sdk/types.js')} (for a Client from @modelcontextprotocol/client 2.x, use sdk2Sender(client))",
    );
  }
  // Failures the SDK raises as McpError on its own side: not answers from the server.
  const LOCAL = new Set([types.ErrorCode?.RequestTimeout ?? -32001, types.ErrorCode?.ConnectionClosed ?? -32000]);
  // An HTTP error status: StreamableHTTPError, its status as a numeric `code` (not a JSON-RPC
  // error code) and the body after this prefix.
  const HTTP = /^Streamable HTTP error: Error POSTing to endpoint: ([\s\S]*)$/;
  const httpBody = (e) => (typeof e?.message === 'string' ? (HTTP.exec(e.message)?.[1] ?? null) : null);
  return sdkLikeSender(
    {
      request: (method, params, opts) => client.request({ method, params }, PASSTHROUGH_ZOD, opts),
      httpBody,
      rpcError: (e) =>
        typeof e?.code === 'number' && !LOCAL.has(e.code) && httpBody(e) === null
          ? // McpError prefixes the server's message with "MCP error <code>: ".
            rpcErrorOf(e.code, String(e.message ?? '').replace(/^MCP error -?\d+: /, ''), e.data)
          : null,
      previousElicitation: () => client._requestHandlers?.get?.('elicitation/create'),
      setElicitation: (fn) =>
        client.setRequestHandler(types.ElicitRequestSchema, (request, extra) => fn(request, extra, extra?.requestId)),
      otherLine:
        'sdkSender: this Client did not take an SDK 1.x request handler (for a Client from @modelcontextprotocol/client 2.x, use sdk2Sender(client))',
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
  checkOptions(options, ['requestTimeoutMs', 'resultTimeoutMs'], 'sdk2Sender', mcpError);
  return sdkLikeSender(
    {
      request: (method, params, opts) => client.request({ method, params }, PASSTHROUGH_STANDARD, opts),
      // SdkHttpError keeps the status and body in `data`.
      httpBody: (e) => (e?.name === 'SdkHttpError' && typeof e.data?.text === 'string' ? e.data.text : null),
      // ProtocolError (the server's JSON-RPC error) has a numeric code; SdkError's codes are strings.
      rpcError: (e) => (typeof e?.code === 'number' ? rpcErrorOf(e.code, String(e.message ?? ''), e.data) : null),
      previousElicitation: () => client._getRequestHandler?.('elicitation/create'),
      setElicitation: (fn) =>
        client.setRequestHandler('elicitation/create', (request, ctx) => fn(request, ctx, ctx?.mcpReq?.id)),
      otherLine:
        'sdk2Sender: this Client did not take an SDK 2.x request handler (for a Client from @modelcontextprotocol/sdk 1.x, use sdkSender(client, {types}))',
    },
    options,
  );
}

// ---- the watch ----------------------------------------------------------------------------

class Watch {
  constructor(sender, ep, opts, name = ep.toolName ?? null) {
    this.sender = sender;
    this.model = sender.model;
    this.ep = ep;
    this.opts = opts;
    this.now = opts.now ?? Date.now;
    this.timers = opts.timers ?? globalThis;
    // The tool called: the core keeps it in the snapshot; null for a task watched by its id.
    this.name = name;
    this.inflight = new Map(); // transmit id -> AbortController
    this.wireViolations = [];
    this.cancelWaiters = [];
    this.answered = new Set(); // transmit ids whose exchange ended (answer or none)
    this.asked = new Set(); // input keys put to onInput by this watch
    this.asking = new Map(); // input key -> the AbortController of its open onInput
    // 2025: the server's request id (as JSON) -> the resolves of its handlers (a request sent
    // again before it was answered is answered once, for every copy).
    this.replies = new Map();
    this.replyFor = new Map(); // 2025: input key -> the server's request id (as JSON)
    this.serverAsking = undefined; // 2025: the id of the server's request being handed over
    this.exchangeWaiters = [];
    this.timer = null;
    this.done = false;
    // The sender said it is closed for good (`isClosed`): nothing more can be sent.
    this.closed = false;
    this.failure = null;
    // The error of the latest exchange that ended without an answer (null once one answered): the
    // cause of a stop it led to.
    this.transportError = null;
    // The HTTP answer (read whole) the core is reading, while it reads it.
    this.httpAnswer = null;
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
    const id = this.ep.id;
    if (id && this.sender.routeInput && !this.unroute) {
      this.unroute = this.sender.routeInput(id, (request) => this.serverRequest(request));
    }
  }

  // A 2025 task asks for input over the SDK's elicitation handler; a sender without one (a Client
  // that did not declare elicitation) cannot deliver it: said once, the watch goes on.
  checkInputChannel(status) {
    if (
      status !== 'input_required' ||
      this.model !== 'task-2025' ||
      (this.sender.routeInput && !this.sender.inputUnsupported) ||
      this.inputUnsupported
    )
      return;
    this.inputUnsupported = true;
    this.report({
      source: 'adapter',
      rule: 'input_unsupported',
      level: 'must',
      detail: `task ${this.ep.id ?? '?'} asks for input, but the sender cannot receive input requests (${this.sender.inputUnsupported ?? 'declare capabilities.elicitation on the Client'})`,
    });
  }

  /** Runs one endpoint call and acts on the events it returns. */
  apply(fn) {
    let events;
    try {
      events = fn();
    } catch (e) {
      if (!this.done)
        this.report({ source: 'adapter', rule: e.code ?? 'error', level: 'should', detail: String(e.message ?? e) });
      return;
    }
    this.run(events);
  }

  run(events) {
    for (const e of events) this.event(e);
    // Any batch may change what a restart needs (the task named, an answer or a press on its
    // way, the next poll): the host keeps the latest text, and never has to guess when.
    if (events.length && this.opts.onSnapshot) safe(this.opts.onSnapshot, this.ep.snapshot());
  }

  event(e) {
    const opts = this.opts;
    switch (e.type) {
      case 'transmit':
        if (e.kind === 'rpc') this.transmit(e);
        else if (e.kind === 'reply') this.reply(JSON.parse(e.text));
        break;
      case 'ask_user':
        if (this.serverAsking !== undefined) this.replyFor.set(e.key, this.serverAsking);
        this.asked.add(e.key);
        this.ask(e.key, e.request, Boolean(e.call));
        break;
      case 'button':
        // The server took the cancel: the open questions are moot (I-6), answers would be refused.
        if (e.state === 'acknowledged_pending') this.withdrawInputs('the server accepted the cancel');
        safe(opts.onButton, e.state);
        // A press the core kept while the create was out (E-65) is made in the same batch as
        // the create's answer: a cancel is on its way then, whatever this event said.
        if (e.state !== 'requesting' && this.ep.button !== 'requesting') this.flushCancel(e.state);
        break;
      case 'progress':
        safe(opts.onProgress, e.message);
        break;
      case 'request_failed': {
        // No answer: say what the sender threw, or what came back instead, as `callTool`'s own
        // errors do. (A JSON-RPC error is an answer.)
        const failed = e.failure.kind === 'rpc' ? null : this.failedExchange();
        const message = `${REQUEST_METHODS[e.request] ?? e.request} ${failureText(e.failure, failed?.detail)}; asking again`;
        safe(opts.onRequestFailed, failed ? { ...e, message, cause: failed.error } : { ...e, message });
        break;
      }
      case 'recovered':
        safe(opts.onRecovered);
        break;
      case 'status':
        safe(opts.onStatus, e.status);
        this.route();
        this.checkInputChannel(e.status);
        break;
      case 'violation':
        this.report({ source: 'wire', ...e.violation });
        break;
      case 'settled':
        this.settle(e);
        break;
      case 'stopped':
        this.stopped(e.reason, e.failure);
        break;
      case 'wake_at':
        this.arm(e.at);
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
    // Timers may fire a millisecond early, and a wake-up beyond setTimeout's limit fires early
    // by design: the endpoint gets the real time and asks again if so.
    this.timer = this.timers.setTimeout(
      () => {
        this.timer = null;
        if (!this.done) this.apply(() => this.ep.handleTimeout(this.now()));
      },
      Math.max(1, lc.timerDelay(at, this.now())),
    );
  }

  disarm() {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  /** Moves one request: its text and headers out, its answer back as it arrived. */
  transmit({ id, text, headers }) {
    // The sender contract takes the request as an object (the SDK senders need method and params).
    const message = JSON.parse(text);
    const ctl = new AbortController();
    this.inflight.set(id, ctl);
    // Aborted only when the watch ends while it is in flight (the caller's signal stops the
    // watch); never once it has its answer.
    const signal = ctl.signal;
    const t0 = this.now();
    const ended = () => {
      this.inflight.delete(id);
      this.answered.add(id);
      const w = this.exchangeWaiters;
      this.exchangeWaiters = [];
      for (const f of w) f();
    };
    Promise.resolve()
      .then(() => this.sender.send(message, headers, { signal, method: message.method }))
      // An HTTP answer's body is read here, while the exchange is still in flight: a body that
      // breaks off is no answer.
      .then(async (answer) => {
        // Nothing at all (a sender that forgot to return its answer) is no answer: said, and
        // handled as one, never left in flight for ever.
        if (answer === undefined)
          throw new McpCallError(
            'transport',
            `the sender's send() resolved with undefined for ${message.method}: resolve with the answer, or throw when none came`,
          );
        return isHttpAnswer(answer)
          ? { response: await readHttpAnswer(answer, message.method, message.id) }
          : { answer };
      })
      .then(
        ({ answer, response }) => {
          ended();
          if (this.done) return;
          const answeredAt = this.now();
          if (response) {
            const { status, headers } = response;
            safe(this.opts.onExchange, {
              method: message.method,
              sentAt: t0,
              answeredAt,
              answer: response.body,
              http: { status, headers },
            });
            // Whether and what it answered is the core's to read (E-67); what it was is kept for
            // the words of a failure the core reports on it.
            this.transportError = null;
            this.httpAnswer = response;
            try {
              this.apply(() => this.ep.handleHttpAnswer(answeredAt, id, { status, headers }, response.body));
            } finally {
              this.httpAnswer = null;
            }
            return;
          }
          // An error that names no request (id null: the server could not take the message) is
          // no answer to it; what it said is the cause of what that leads to.
          const unnamed = answer?.id === null && answer.error ? answer.error : null;
          this.transportError = unnamed && { error: unnamed, detail: unnamedDetail(unnamed.message, said(unnamed)) };
          const bytes = typeof answer === 'string' || answer instanceof Uint8Array ? answer : JSON.stringify(answer);
          safe(this.opts.onExchange, { method: message.method, sentAt: t0, answeredAt, answer });
          this.apply(() => this.ep.handleAnswer(answeredAt, id, bytes));
        },
        (e) => {
          ended();
          if (this.done) return;
          this.transportError = { error: e, detail: transportDetail(e) };
          safe(this.opts.onExchange, {
            method: message.method,
            sentAt: t0,
            answeredAt: this.now(),
            error: this.transportError.detail,
          });
          // A sender closed for good sent nothing and answers nothing more: stop watching now (the
          // task goes on), instead of polling a closed client for ever. The core still hears of the
          // failure first: a `tools/call` it waits for would otherwise hold the stop back (E-62).
          if (safe(this.sender.isClosed, e) === true) this.closed = true;
          this.apply(() => this.ep.handleTransportFailure(this.now(), id));
          if (this.closed) this.stop();
        },
      );
  }

  /**
   * The failure of the latest exchange, once the core has said it brought no answer (a request
   * failed, a `tools/call` unanswered): an HTTP answer the core is reading had none in it (a
   * proxy's page, a 429), said with its status and the start of its body.
   */
  failedExchange() {
    if (this.httpAnswer && !this.transportError) {
      const detail = httpDetail(this.httpAnswer);
      this.transportError = {
        error: new McpCallError('transport', detail, { httpStatus: this.httpAnswer.status }),
        detail,
      };
    }
    return this.transportError;
  }

  /** Resolves once the exchange of transmit `id` has ended, or the watch is over. */
  exchanged(id) {
    return new Promise((res) => {
      const check = () => (this.done || this.answered.has(id) ? res() : this.exchangeWaiters.push(check));
      check();
    });
  }

  // The person's answer, or the default (decline). An `onInput` that throws (a dialog closed
  // without an answer) is reported and declines too: the server must hear something, or the
  // task waits in input_required for good.
  async userAnswer(key, request, call) {
    if (!this.opts.onInput) return DECLINE;
    // Aborted when the question is withdrawn (withdrawInputs): the dialog can close, saying why.
    const asking = new AbortController();
    this.asking.set(key, asking);
    let answer;
    try {
      answer = (await this.opts.onInput(key, request, { call, signal: asking.signal })) ?? DECLINE;
    } catch (e) {
      return asking.signal.aborted ? WITHDRAWN : this.declined(String(e?.message ?? e));
    } finally {
      this.asking.delete(key);
    }
    // The question was withdrawn while the dialog was open: whatever it answered goes nowhere,
    // as docs/mcp.md says, and is nobody's fault.
    if (asking.signal.aborted) return WITHDRAWN;
    // An answer is an object (rule I-9); the SDK's own handler would be sent anything.
    if (typeof answer !== 'object' || Array.isArray(answer))
      return this.declined(`onInput answered ${Array.isArray(answer) ? 'an array' : typeof answer}, not an object`);
    return answer;
  }

  declined(why) {
    this.report({
      source: 'adapter',
      rule: 'on_input_failed',
      level: 'should',
      detail: `${why}; answered with a decline`,
    });
    return DECLINE;
  }

  // The endpoint asked (once per key: a task input, or an MRTR input of the call itself); the
  // answer goes back to it, and it sends what the revision wants (tasks/update, the continuation).
  // `onInput` runs on a later turn of the event loop, never inside `callTool` or `resume`: an
  // input asked at once (an MRTR round, a prompt re-asked after a restart) must find the handle
  // those return already assigned, for an `onInput` that reads `h.id` or saves `h.snapshot()`.
  // A 2025 request of the server's is asked at once: its handle is known, and the SDK's handler
  // waits for the answer.
  ask(key, request, call) {
    const server = this.replyFor.has(key);
    (server ? Promise.resolve() : new Promise((next) => this.timers.setTimeout(next, 0)))
      .then(() => this.userAnswer(key, request, call))
      .then((response) => {
        if (!this.done && response !== WITHDRAWN) this.apply(() => this.ep.answerInput(this.now(), key, response));
        // 2025: an answer the endpoint refused (a cancel pressed meanwhile, I-6) sent no reply;
        // the server's request still needs one.
        this.replied(this.replyFor.get(key), DECLINE);
      });
  }

  // 2025: a request of the server's about this call's task, as the SDK delivered it. The
  // endpoint decides whether it is asked (once per request, not after a cancel press: I-10);
  // its reply is what the SDK's handler answers, and a request it does not ask is declined.
  serverRequest(request) {
    if (this.done) return Promise.resolve(DECLINE);
    const id = JSON.stringify(request.id);
    return new Promise((resolve) => {
      this.replies.set(id, [...(this.replies.get(id) ?? []), resolve]);
      this.serverAsking = id;
      this.apply(() => this.ep.handleMessage(this.now(), JSON.stringify({ jsonrpc: '2.0', ...request })));
      this.serverAsking = undefined;
      if (![...this.replyFor.values()].includes(id)) this.replied(id, DECLINE);
    });
  }

  reply(message) {
    this.replied(JSON.stringify(message?.id ?? null), message?.result ?? DECLINE);
  }

  replied(id, answer) {
    const resolves = id === undefined ? undefined : this.replies.get(id);
    if (!resolves) return;
    this.replies.delete(id);
    for (const resolve of resolves) resolve(answer);
  }

  // A press waiting for its answer resolves with the button state it came to; when the sender
  // turned out closed, no answer can come, and the press rejects as a press on a closed one does.
  flushCancel(state) {
    const w = this.cancelWaiters;
    this.cancelWaiters = [];
    for (const { res, rej } of w) this.closed ? rej(closedCancel()) : res(state);
  }

  /** Aborts the signal of every open `onInput`, with an `input_withdrawn` error saying why. */
  withdrawInputs(why) {
    for (const [key, asking] of this.asking)
      asking.abort(new McpCallError('input_withdrawn', `input ${key} is no longer asked: ${why}`));
    this.asking.clear();
  }

  finish() {
    this.withdrawInputs('the call ended');
    this.done = true;
    for (const id of [...this.replies.keys()]) this.replied(id, DECLINE);
    this.disarm();
    for (const ctl of this.inflight.values()) ctl.abort();
    this.inflight.clear();
    this.unroute?.();
    this.flushCancel(this.ep.button);
    const w = this.exchangeWaiters;
    this.exchangeWaiters = [];
    for (const f of w) f();
  }

  settle(e) {
    if (this.done) return;
    this.finish();
    this.resolve({
      outcome: e.outcome,
      status: e.status ?? null,
      result: e.result,
      error: e.error,
      record: this.record(),
    });
  }

  // `failure`: what a tools/call got instead of an answer (a 429's status and Retry-After), as the
  // core read it (E-68).
  stopped(reason, failure) {
    if (this.done) return;
    this.finish();
    const id = this.ep.id;
    // A stop the caller asked for is not the transport's doing, even after a failed exchange; a
    // closed sender is.
    const transport =
      reason === 'host_stopped' && !this.closed
        ? null
        : reason === 'create_unanswered'
          ? this.failedExchange()
          : this.transportError;
    const said = transport ? ` (${transport.detail})` : '';
    // No id: the call ended before the server named a task (an MRTR round), so none goes on.
    const goesOn = id
      ? `the task ${id} goes on: resume from a snapshot or watchTask(sender, id)`
      : 'no task was created';
    // The tools/call itself met a closed sender: it was not sent, so nothing started.
    if (reason === 'create_unanswered' && this.closed) {
      this.failure = new McpCallError(
        'sender_closed',
        `callTool: the sender's client is closed${said}: tools/call ${this.name ?? ''} was not sent; connect it and call again`,
        { reason, taskId: null, ...(transport ? { cause: transport.error } : {}) },
      );
      this.reject(this.failure);
      return;
    }
    const wait =
      failure?.retryAfterMs != null ? ` The server asked to wait ${failure.retryAfterMs} ms (Retry-After).` : '';
    // What a URL that is no MCP endpoint answers (a wrong path, a plain web server): said, since
    // "the tool may have started" alone sends a newcomer looking for a task that never was.
    const notMcp = [404, 405, 501].includes(transport?.error?.httpStatus)
      ? ` Is the URL the server's MCP endpoint (its path, such as /mcp)?`
      : '';
    const why =
      reason === 'create_unanswered'
        ? `tools/call ${this.name ?? ''} got no ${transport?.error?.httpStatus ? 'JSON-RPC ' : ''}answer${said}: the tool may have started. Reconcile (look the task or its effects up); do not resubmit.${wait}${notMcp}`
        : this.closed
          ? `stopped watching: the sender's client is closed${said}; ${id ? `${goesOn} with a connected one` : 'nothing was sent'}`
          : reason === 'answer_too_large'
            ? `stopped watching (answer_too_large): an answer was over the reading limits (wire.maxBytes, maxStringBytes, maxDepth); ${goesOn}, with the limits raised`
            : `stopped watching (${reason})${transport ? `, last exchange unanswered${said}` : ''}; ${goesOn}`;
    this.failure = new McpCallError(reason === 'create_unanswered' ? 'create_unanswered' : 'watch_stopped', why, {
      reason,
      ...httpOf(failure, reason === 'create_unanswered' ? transport : null),
      taskId: id ?? null,
      record: this.record(),
      ...(transport ? { cause: transport.error } : {}),
    });
    this.reject(this.failure);
  }

  stop() {
    if (this.done) return;
    this.apply(() => this.ep.stopWatching(this.now()));
  }

  record() {
    return { ...this.ep.runRecord(), name: this.name, wireViolations: [...this.wireViolations] };
  }

  handle() {
    const w = this;
    return {
      get model() {
        return w.model;
      },
      get id() {
        return w.ep.id ?? null;
      },
      get status() {
        return w.ep.status ?? null;
      },
      get button() {
        return w.ep.button;
      },
      outcome: w.outcome,
      /** Presses the core's cancel button; resolves with the button state once the answer is in. */
      cancel() {
        if (w.closed) return Promise.reject(closedCancel());
        let events;
        try {
          events = w.ep.pressCancel(w.now());
        } catch (e) {
          // The core's refusal (`cancel_refused`), as this adapter's error, the core's as cause.
          return Promise.reject(
            new McpCallError(e?.code ?? 'invalid_input', e?.message ?? String(e), {
              cause: e,
              taskId: w.ep.id ?? null,
            }),
          );
        }
        const p = new Promise((res, rej) => w.cancelWaiters.push({ res, rej }));
        w.run(events);
        return p;
      },
      /** Stops watching (never the task). */
      stop() {
        w.stop();
      },
      record() {
        return w.record();
      },
      /** The endpoint's snapshot (the core's one format); `resume(text, sender)` picks it up. */
      snapshot() {
        return w.ep.snapshot();
      },
    };
  }
}

const WATCH_OPTIONS = [
  'config',
  'wire',
  'signal',
  'onInput',
  'onButton',
  'onStatus',
  'onProgress',
  'onRequestFailed',
  'onRecovered',
  'onViolation',
  'onExchange',
  'onSnapshot',
  'now',
  'timers',
];
const CALL_OPTIONS = ['name', 'tool', 'arguments', 'ttlMs', ...WATCH_OPTIONS];
const mcpError = (code, message) => new McpCallError(code, message);
const DECLINE = Object.freeze({ action: 'decline' });
/** What `userAnswer` gives for a question withdrawn while it was open: nothing to send. */
const WITHDRAWN = Symbol('withdrawn');

/** What a JSON-RPC error with id null said. */
const said = (error) =>
  `the server answered error ${error.code} ${JSON.stringify(String(error.message ?? '').slice(0, 120))} to no request id`;

/** `detail`, with what a server's words `text` usually mean when they say it was not initialized. */
function unnamedDetail(text, detail) {
  // The SDK's Streamable HTTP servers (2025-11-25) want `initialize` first; httpSender speaks
  // the stateless 2026 extension.
  return /not initialized/i.test(String(text))
    ? `${detail}; a 2025-11-25 server takes an SDK client's session: use sdkSender or sdk2Sender`
    : detail;
}

/**
 * An HTTP answer a sender handed back, read whole as the core takes one (rule E-67): a fetch
 * Response of any fetch (`status`, `headers`, `text()`), or `{status, headers, body}` from
 * another client (node:http, undici's `request`). Kept with what a failure's words name: the
 * request's method and the URL.
 */
async function readHttpAnswer(res, method, id) {
  const headers = headerPairs(res.headers);
  const body =
    typeof res.body?.getReader === 'function'
      ? await readUntilAnswered(res.body, res.status, headers, id)
      : typeof res.text === 'function'
        ? await res.text()
        : res.body;
  return {
    status: res.status,
    headers,
    body: typeof body === 'string' ? body : new TextDecoder().decode(body),
    url: typeof res.url === 'string' ? res.url : '',
    method,
  };
}

// The message of an HTTP answer that answers request `id` (or an error naming no request, from a
// server that could not read it), if any. Which messages the answer carries (a JSON body, an event
// stream's events) is the core's to say.
function answerIn(status, headers, body, id) {
  for (const text of lc.httpMessages({ status, headers }, body)) {
    try {
      const m = JSON.parse(text);
      if (m && !m.method && (m.id === id || (m.error && m.id === null))) return m;
    } catch {
      // not JSON: not the answer
    }
  }
  return undefined;
}

// A body read as it comes, up to the message that answers request `id`: a server may keep an
// event stream open after it (closing it is only a SHOULD), and waiting for its end would lose
// the answer to the timeout. Whether the body is a JSON text or an event stream, and which
// messages it carries so far, is the core's to say (`httpMessages`); a JSON body is whole only
// at its end.
async function readUntilAnswered(stream, status, headers, id) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
    if (!text.includes('\n\n') && !text.includes('\r\n\r\n')) continue;
    if (answerIn(status, headers, text, id)) {
      reader.cancel().catch(() => {});
      return text;
    }
  }
}

/** Header pairs from a `Headers` (any fetch's), pairs, or an object (a list of values joined). */
function headerPairs(headers) {
  if (headers == null) return [];
  if (typeof headers[Symbol.iterator] === 'function') return Array.from(headers, ([k, v]) => [String(k), String(v)]);
  if (typeof headers.forEach === 'function') {
    const pairs = [];
    headers.forEach((v, k) => {
      pairs.push([String(k), String(v)]);
    });
    return pairs;
  }
  return Object.entries(headers)
    .filter(([, v]) => v != null)
    .map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]);
}

/**
 * The status and `Retry-After` of the HTTP answer a `tools/call` got instead of its JSON-RPC
 * answer: the core's failure says them for an error status (E-68); a 2xx page without one (a
 * login page, an empty body) is no answer to the core, and its status is the transport error's.
 */
function httpOf(failure, transport) {
  if (failure?.kind === 'http') return { httpStatus: failure.status, retryAfterMs: failure.retryAfterMs ?? null };
  const status = transport?.error?.httpStatus;
  return status == null ? {} : { httpStatus: status, retryAfterMs: null };
}

/** An HTTP answer without a JSON-RPC answer in it: its status, type, URL and the start of its body. */
function httpDetail({ status, headers, body, url, method }) {
  // Looked up in the pairs, not through `Headers`, which throws on a name it would not send.
  const type =
    headers
      .find(([name]) => name.toLowerCase() === 'content-type')?.[1]
      .split(';')[0]
      .trim() || 'no content type';
  const start = body.trim().slice(0, 160);
  return unnamedDetail(
    start,
    `HTTP ${status} (${type}) from ${url || 'the server'} without a readable JSON-RPC answer to ${method}${start ? `: ${JSON.stringify(start)}` : ''}`,
  );
}

/**
 * An HTTP answer, which the core reads whole: a fetch Response (of any fetch) or `{status,
 * headers, body}`; not a JSON-RPC message (text, bytes or an object with `jsonrpc`).
 */
const isHttpAnswer = (x) =>
  typeof x?.status === 'number' &&
  !('jsonrpc' in x) &&
  (typeof x.text === 'function' || typeof x.body === 'string' || x.body instanceof Uint8Array);

// The watch options that must be functions when given, refused at once rather than when the
// server first asks or the button first moves.
function checkHooks(opts, where) {
  for (const name of WATCH_OPTIONS.filter((o) => o.startsWith('on') || o === 'now')) {
    if (opts?.[name] != null && typeof opts[name] !== 'function')
      throw new McpCallError('invalid_input', `${where}: ${name} must be a function, got ${typeof opts[name]}`);
  }
  if (opts?.signal != null && !(opts.signal instanceof AbortSignal))
    throw new McpCallError('invalid_input', `${where}: signal must be an AbortSignal`);
}

function checkSender(sender, opts, where) {
  if (!sender || typeof sender.send !== 'function' || (sender.model !== 'task-2026' && sender.model !== 'task-2025')) {
    throw new McpCallError(
      'invalid_input',
      "expected a sender {model: 'task-2026'|'task-2025', send(message, headers, opts)}",
    );
  }
  // An onInput that could never be called: a task asking for input would wait for an answer
  // this host cannot give.
  const unsupported = typeof opts?.onInput === 'function' ? sender.inputUnsupported : undefined;
  if (unsupported)
    throw new McpCallError(
      'invalid_input',
      `${where}: onInput is given, but this sender cannot receive input requests (${unsupported}); or leave onInput out`,
    );
}

// The endpoint's wire options, naming the sender's client in every 2026 request (M-21) unless
// the options name one themselves.
function wireOf(sender, wire) {
  if (sender.model !== 'task-2026' || sender.clientInfo == null || wire?.clientInfo !== undefined) return wire ?? null;
  return { ...(wire ?? {}), clientInfo: sender.clientInfo };
}

// The core's refusals (a deadline already passed, arguments that are no JSON, a snapshot it
// cannot read) as this module's own error, so `instanceof McpCallError` catches every refusal of
// its functions; the core's error is the `cause`, its code and message kept.
function fromCore(fn) {
  try {
    return fn();
  } catch (e) {
    throw new McpCallError(e?.code ?? 'invalid_input', String(e?.message ?? e), { cause: e });
  }
}

/**
 * @typedef {object} CallOptions
 * @property {string} [name] the tool, by its name (or `tool`)
 * @property {{name: string, execution?: {taskSupport?: string}}} [tool] the tool as `tools/list`
 *   listed it: on 2025 one that may not run as a task is called without one (E-64)
 * @property {object} [arguments]
 * @property {number} [ttlMs] 2025 only: the TTL asked for (the server may override); refused for 2026
 * @property {object} [config] the core's TrackerConfig ({poll, seed, deadlineMs}, camelCase)
 * @property {object} [wire] the endpoint's reading options ({maxBytes, maxDepth, maxStringBytes, detectRevision})
 * @property {AbortSignal} [signal] stops watching (never the task)
 * @property {(key: string, request: object, info: {call: boolean}) => Promise<object>|object} [onInput]
 *   asked once per key; `info.call` is true for an MRTR input of the `tools/call` itself
 * @property {(state: string) => void} [onButton]
 * @property {(status: string) => void} [onStatus]
 * @property {(v: object) => void} [onViolation]
 * @property {(e: object) => void} [onExchange] every request and its answer as it arrived, with times
 * @property {(snapshot: string) => void} [onSnapshot] the handle's snapshot, after every change
 * @property {() => number} [now] clock in ms (default Date.now)
 * @property {{setTimeout: Function, clearTimeout: Function}} [timers] for wake-ups (default the
 *   global ones); with `now`, a test drives the watch on a fake clock
 */

/**
 * Calls a tool. Resolves with a handle once the `tools/call` answered (a plain result settles at
 * once; an MRTR `input_required` asks `onInput` and the endpoint sends the continuation); rejects
 * with code `create_unanswered` if it got no answer: never resubmitted.
 * @param {{model: string, send: Function}} sender
 * @param {CallOptions} opts
 */
export async function callTool(sender, opts) {
  checkOptions(opts, CALL_OPTIONS, 'callTool', mcpError);
  checkHooks(opts, 'callTool');
  checkSender(sender, opts, 'callTool');
  // The tool by its name, or its `tools/list` entry, whose `taskSupport` the core reads (E-64).
  if (opts?.name != null && typeof opts.name !== 'string')
    throw new McpCallError(
      'invalid_input',
      `callTool: opts.name is the tool's name, a string, not ${Array.isArray(opts.name) ? 'an array' : `a ${typeof opts.name}`}`,
    );
  if (!opts || (opts.tool == null) === (opts.name == null))
    throw new McpCallError(
      'invalid_input',
      'callTool: give the tool as opts.name (its name) or opts.tool (its tools/list entry), one of the two',
    );
  checkJson(opts.arguments, 'callTool: opts.arguments', mcpError);
  // A name passed as `tool` would run with no `taskSupport` to decide by: said, not guessed.
  if (opts.tool != null && (typeof opts.tool !== 'object' || Array.isArray(opts.tool)))
    throw new McpCallError(
      'invalid_input',
      `callTool: opts.tool is the tool's tools/list entry ({name, execution}), not ${Array.isArray(opts.tool) ? 'an array' : `a ${typeof opts.tool}`}; give a name as opts.name`,
    );
  // Aborted before the call: nothing is sent. (Aborted while the tools/call is out, the core
  // waits for its answer, so the task it creates is kept: rule E-62.)
  if (opts.signal?.aborted)
    throw new McpCallError('watch_stopped', 'callTool: the signal was aborted before the call; nothing was sent', {
      reason: 'host_stopped',
      taskId: null,
    });
  const ep = fromCore(() =>
    lc.Endpoint.callTool(sender.model, opts.tool ?? opts.name, opts.arguments ?? {}, {
      ttlMs: opts.ttlMs,
      config: opts.config,
      wire: wireOf(sender, opts.wire),
      now: (opts.now ?? Date.now)(),
    }),
  );
  const w = new Watch(sender, ep, opts);
  const first = w.exchanged(1);
  w.apply(() => ep.pollEvents());
  await first;
  if (w.failure?.reason === 'create_unanswered') throw w.failure;
  w.route();
  return w.handle();
}

/**
 * Watches a task whose id is known (from a record, a log, another process) without calling
 * anything: the first poll decides, with no status assumed. An unknown id ends `lost`.
 * @param {{model: string, send: Function}} sender
 * @param {string} taskId
 * @param {Omit<CallOptions, 'name'|'arguments'|'ttlMs'>} [opts]
 */
export function watchTask(sender, taskId, opts = {}) {
  checkOptions(opts, WATCH_OPTIONS, 'watchTask', mcpError);
  checkHooks(opts, 'watchTask');
  checkSender(sender, opts, 'watchTask');
  if (typeof taskId !== 'string' || !taskId)
    throw new McpCallError('invalid_input', 'watchTask: taskId must be a non-empty string');
  return watchId(sender, taskId, opts);
}

// Watches a task by its id; `name` is the tool that created it, when known (a resume).
function watchId(sender, taskId, opts, name = null) {
  const ep = fromCore(() => lc.Endpoint.watch(sender.model, taskId, opts.config ?? null, wireOf(sender, opts.wire)));
  return watchWith(sender, ep, opts, name);
}

// Drives a new watch endpoint from its first event (the poll, or the wake-up before it).
function watchWith(sender, ep, opts, name) {
  const w = new Watch(sender, ep, opts, name);
  w.apply(() => ep.pollEvents());
  w.route();
  return w.handle();
}

/**
 * Resumes a handle from `handle.snapshot()` after a restart. The core handles the requests that
 * were in flight when the snapshot was taken (a lost poll is re-armed, a cancel or update sent
 * again with its key, a `tools/call` never re-sent).
 * @param {string} snapshot
 * @param {{model: string, send: Function}} sender
 * @param {Omit<CallOptions, 'name'|'arguments'|'ttlMs'>} [opts]
 */
export function resume(snapshot, sender, opts = {}) {
  checkOptions(opts, WATCH_OPTIONS, 'resume', mcpError);
  checkHooks(opts, 'resume');
  checkSender(sender, opts, 'resume');
  const now = opts.now ?? Date.now;
  const ep = fromCore(() => lc.Endpoint.restore(snapshot, now()));
  if (ep.model !== sender.model)
    throw new McpCallError('wrong_model', `snapshot is ${ep.model}, sender speaks ${sender.model}`);
  const rec = ep.runRecord();
  if (ep.isDone && rec.stopped && rec.stopped !== 'create_unanswered') {
    // Watching had stopped (an AbortSignal, a deadline) and the call goes on: watch the handle
    // again, no sooner than the floors of the watch that stopped (P-16), or go on with the MRTR
    // round it stopped in (E-70).
    const name = ep.toolName ?? null;
    let again = null;
    try {
      again = fromCore(() => ep.watchAgain(opts.config ?? null, wireOf(sender, opts.wire)));
    } catch (e) {
      // Stopped before any task and in no round: nothing to go on with, said again below.
      if (ep.id || e.code !== 'invalid_input') {
        ep.free();
        throw e;
      }
    }
    if (again) {
      ep.free();
      return watchWith(sender, again, opts, name);
    }
  }
  const w = new Watch(sender, ep, opts);
  // Shown afresh after a restart: the view is drawn from what the snapshot holds (the status,
  // then the button it allows, as a live call tells them), and since that status is as old as
  // the snapshot, the next poll goes as soon as the floors allow (P-15).
  if (ep.status) safe(opts.onStatus, ep.status);
  safe(opts.onButton, ep.button);
  w.apply(() => ep.refresh(now()));
  // R-7: the prompts the old process showed and nobody answered, shown again through onInput
  // (the core lists them and does not ask a key twice; on 2025 it holds one back until the
  // server sends its request again, and asks it then).
  for (const p of ep.openPrompts()) if (!w.asked.has(p.key)) w.event(p);
  w.route();
  if (ep.isDone && !w.done) {
    // Settled or stopped before the snapshot: its events were drained then; say it again.
    if (rec.outcome) w.settle({ outcome: rec.outcome, status: rec.status, result: rec.result, error: rec.error });
    else w.stopped(rec.stopped ?? 'host_stopped');
  }
  return w.handle();
}
