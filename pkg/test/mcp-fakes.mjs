// Test doubles for longcall/mcp: a fake clock for the watch's wake-ups, and SDK-shaped clients
// that behave like the official SDK lines where the senders depend on it (abort listeners,
// result schemas, error classes, request handlers). Real SDKs run in tests/interop.

/** A fake clock: `now()` and timers the test advances; no wall-clock waits. */
export function fakeClock(start = 1_000_000) {
  let now = start;
  let seq = 0;
  const timers = new Map(); // id -> {at, fn}
  // Several event-loop turns: enough for an answer's promise chain to land at the current time.
  const settle = async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  };
  return {
    now: () => now,
    timers: {
      setTimeout: (fn, ms) => {
        const id = ++seq;
        timers.set(id, { at: now + Math.max(0, ms), fn });
        return id;
      },
      clearTimeout: (id) => {
        timers.delete(id);
      },
    },
    get pending() {
      return timers.size;
    },
    /** Lets promise chains run (answers, handlers), without moving time. */
    settle,
    /** Moves time by `ms`, firing due timers in order, settling promise chains between them. */
    async advance(ms) {
      const end = now + ms;
      await settle();
      for (;;) {
        let next = null;
        for (const [id, t] of timers) if (t.at <= end && (!next || t.at < next[1].at)) next = [id, t];
        if (!next) break;
        timers.delete(next[0]);
        now = Math.max(now, next[1].at);
        next[1].fn();
        await settle();
      }
      now = end;
      await settle();
    },
    /** Advances in `step` ms increments until `done()` or `limitMs` of fake time passed. */
    async runUntil(done, { step = 50, limitMs = 60000 } = {}) {
      for (let t = 0; t <= limitMs && !done(); t += step) await this.advance(step);
      return done();
    },
  };
}

/** Tracks whether a promise settled, for `runUntil`. */
export function watchPromise(p) {
  const s = { done: false, value: undefined, error: undefined };
  p.then(
    (v) => {
      s.done = true;
      s.value = v;
    },
    (e) => {
      s.done = true;
      s.error = e;
    },
  );
  return s;
}

export const T = '2026-11-29T15:07:54.708Z';
export const task25 = (id, status, extra = {}) => ({
  taskId: id,
  status,
  createdAt: T,
  lastUpdatedAt: T,
  ttl: 60000,
  pollInterval: 100,
  ...extra,
});

/**
 * Scripted server behind the fake clients: `handlers[method](params)` returns a result, or throws
 * `{rpc: {code, message, data?}}` for a JSON-RPC error answer.
 */
function answer(handlers, method, params) {
  const h = handlers[method];
  if (!h) return { error: { code: -32601, message: 'Method not found' } };
  try {
    return { result: h(params) };
  } catch (e) {
    if (e?.rpc) return { error: e.rpc };
    // An HTTP error status whose body is `text` (a server that sends its JSON-RPC errors as 400).
    if (e?.http) return { http: e.http };
    throw e;
  }
}

/**
 * Like `@modelcontextprotocol/sdk` 1.32.2's Client: `request(req, zodSchema, {signal})` parses the
 * result with the schema and rejects on a failed parse; a JSON-RPC error rejects as McpError
 * ("MCP error <code>: <message>"); the abort listener is added per request and never removed, so a
 * later abort sends `notifications/cancelled` for that request id. `setRequestHandler` refuses
 * `elicitation/create` when the capability was not declared.
 */
export function fakeSdk1Client(handlers, { capabilities = { elicitation: {} } } = {}) {
  class McpError extends Error {
    constructor(code, message, data) {
      super(`MCP error ${code}: ${message}`);
      this.code = code;
      this.data = data;
    }
  }
  const types = {
    ErrorCode: { ConnectionClosed: -32000, RequestTimeout: -32001 },
    ElicitRequestSchema: { shape: { method: 'elicitation/create' } },
    // What the old sender used: the SDK's own result schemas (a 2025 Task needs `ttl`).
    ResultSchema: { safeParse: (d) => ({ success: true, data: d }) },
    CallToolResultSchema: {
      safeParse: (d) =>
        Array.isArray(d?.content)
          ? { success: true, data: d }
          : { success: false, error: new Error('content: Required') },
    },
    CreateTaskResultSchema: {
      safeParse: (d) =>
        d?.task && 'ttl' in d.task
          ? { success: true, data: d }
          : { success: false, error: new Error('task.ttl: Required') },
    },
    GetTaskResultSchema: {
      safeParse: (d) =>
        'ttl' in (d ?? {}) ? { success: true, data: d } : { success: false, error: new Error('ttl: Required') },
    },
    CancelTaskResultSchema: {
      safeParse: (d) =>
        'ttl' in (d ?? {}) ? { success: true, data: d } : { success: false, error: new Error('ttl: Required') },
    },
    GetTaskPayloadResultSchema: { safeParse: (d) => ({ success: true, data: d }) },
  };
  let nextId = 0;
  const client = {
    types,
    McpError,
    sent: [], // {id, method, params} and {method: 'notifications/cancelled', params}
    _requestHandlers: new Map(),
    setRequestHandler(schema, handler) {
      // 1.32.2 takes a schema; a method name (the 2.x form) is refused.
      const method = schema?.shape?.method;
      if (typeof method !== 'string') throw new Error('Schema is missing a method literal');
      if (method === 'elicitation/create' && !capabilities.elicitation) {
        throw new Error(`Client does not support elicitation capability (required for ${method})`);
      }
      this._requestHandlers.set(method, async (request, extra) => handler(request, extra));
    },
    /** After `close()`, 1.32.2's `request` rejects at once with Error('Not connected'). */
    close() {
      client.closed = true;
    },
    request({ method, params }, schema, options = {}) {
      if (client.closed) return Promise.reject(new Error('Not connected'));
      const id = nextId++;
      client.sent.push({ id, method, params });
      return new Promise((resolve, reject) => {
        let answered = false;
        options.signal?.addEventListener('abort', () => {
          // 1.32.2: no check that the answer already came; the listener stays attached.
          client.sent.push({
            method: 'notifications/cancelled',
            params: { requestId: id, reason: String(options.signal.reason) },
          });
          if (!answered) reject(new McpError(-32001, String(options.signal.reason)));
        });
        Promise.resolve()
          .then(() => {
            if (options.signal?.aborted) return;
            answered = true;
            const a = answer(handlers, method, params);
            if (a.error) return reject(new McpError(a.error.code, a.error.message, a.error.data));
            if (a.http) {
              // 1.32.2's StreamableHTTPError: the HTTP status as `code`, the body in the message.
              const e = new Error(`Streamable HTTP error: Error POSTing to endpoint: ${a.http.text}`);
              e.code = a.http.status;
              return reject(e);
            }
            const parsed = schema.safeParse(a.result);
            if (!parsed.success) return reject(parsed.error);
            resolve(parsed.data);
          })
          .catch(reject);
      });
    },
    /** The server sends `elicitation/create`; resolves with the client's answer. */
    elicit(params, requestId = 900) {
      const h = this._requestHandlers.get('elicitation/create');
      if (!h) return Promise.reject(new McpError(-32601, 'Method not found'));
      return h({ method: 'elicitation/create', params }, { requestId });
    },
    cancelled() {
      return this.sent.filter((m) => m.method === 'notifications/cancelled');
    },
  };
  return client;
}

/**
 * Like `@modelcontextprotocol/client` 2.4.0's Client: `request(req, standardSchema, {signal})`
 * validates with a Standard Schema; a JSON-RPC error rejects as ProtocolError (numeric code, the
 * message as sent), local failures as SdkError (string code); handlers are keyed by method name
 * and reachable through `_getRequestHandler`.
 */
export function fakeSdk2Client(handlers, { capabilities = { elicitation: {} } } = {}) {
  class ProtocolError extends Error {
    constructor(code, message, data) {
      super(message);
      this.code = code;
      this.data = data;
      this.name = 'ProtocolError';
    }
  }
  class SdkError extends Error {
    constructor(code, message) {
      super(message);
      this.code = code;
      this.name = 'SdkError';
    }
  }
  class SdkHttpError extends SdkError {
    constructor(message, { status, text }) {
      super('CLIENT_HTTP_NOT_IMPLEMENTED', message);
      this.data = { status, statusText: 'Bad Request', text };
      this.name = 'SdkHttpError';
    }
  }
  let nextId = 0;
  const registered = new Map();
  const client = {
    sent: [],
    SdkError,
    setRequestHandler(method, handler) {
      // 2.4.0 takes a method name; a schema (the 1.x form) is refused.
      if (typeof method !== 'string')
        throw new TypeError(
          `'${method}' is not a spec request method; pass schemas as the second argument to setRequestHandler().`,
        );
      if (method === 'elicitation/create' && !capabilities.elicitation) {
        throw new SdkError(
          'CAPABILITY_NOT_SUPPORTED',
          `Client does not support elicitation capability (required for ${method})`,
        );
      }
      registered.set(method, async (request, ctx) => handler(request, ctx));
    },
    _getRequestHandler(method) {
      return registered.get(method);
    },
    /** After `close()`, 2.4.0's `request` rejects at once with Error('Not connected'). */
    close() {
      client.closed = true;
    },
    request({ method, params }, schema, _options = {}) {
      if (!schema?.['~standard']) throw new TypeError('expected a Standard Schema');
      if (client.closed) return Promise.reject(new Error('Not connected'));
      const id = nextId++;
      client.sent.push({ id, method, params });
      if (handlers[method] === 'timeout') return Promise.reject(new SdkError('REQUEST_TIMEOUT', 'Request timed out'));
      return Promise.resolve().then(async () => {
        const a = answer(handlers, method, params);
        if (a.error) throw new ProtocolError(a.error.code, a.error.message, a.error.data);
        // 2.4.0's SdkHttpError for a 2025 request answered with an HTTP error status.
        if (a.http) throw new SdkHttpError(`Error POSTing to endpoint: ${a.http.text}`, a.http);
        const v = await schema['~standard'].validate(a.result);
        if (v.issues) throw new SdkError('INVALID_RESULT', `Invalid result for ${method}`);
        return v.value;
      });
    },
    elicit(params, id = 900) {
      const h = registered.get('elicitation/create');
      if (!h) return Promise.reject(new ProtocolError(-32601, 'Method not found'));
      return h({ method: 'elicitation/create', params }, { mcpReq: { id } });
    },
  };
  return client;
}
