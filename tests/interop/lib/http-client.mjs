// Minimal raw JSON-RPC-over-Streamable-HTTP client for the legs (not the team's client; a test driver).
// Handles JSON and SSE responses, the 2025 session header, server->client requests that arrive inside
// an SSE response (answered by a separate POST), and the 2026 per-request headers and _meta.
//
//   const c = new HttpRpc({ url, era: '2025' });  await c.initialize();   // 2025-11-25 stateful session
//   const c = new HttpRpc({ url, era: '2026' });                           // 2026-07-28 stateless + tasks ext
//   const r = await c.request('tools/call', { name, arguments });          // whole response message
//
// Every request is bounded by timeoutMs (AbortSignal.timeout).
export const TASKS_EXT = 'io.modelcontextprotocol/tasks';

export function meta2026({ tasks = true, clientName = 'longcall-interop-smoke' } = {}) {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: clientName, version: '0.0.0' },
    'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [TASKS_EXT]: {} } } : {},
  };
}

function* sseEvents(text) {
  for (const block of text.replace(/\r\n/g, '\n').split('\n\n')) {
    const data = block
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).replace(/^ /, ''))
      .join('\n');
    if (data) yield data;
  }
}

export class HttpRpc {
  constructor({ url, era = '2025', timeoutMs = 30000, capabilities = { elicitation: { form: {} } } }) {
    this.url = url;
    this.era = era;
    this.timeoutMs = timeoutMs;
    this.capabilities = capabilities;
    this.sessionId = undefined;
    this.nextId = 0;
    this.notifications = [];
    this.onRequest = null; // async (msg) => result, for server->client requests inside SSE
    this.lastHttp = null;
  }
  _headers(msg) {
    const h = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (this.sessionId) h['mcp-session-id'] = this.sessionId;
    if (this.era === '2026') {
      h['mcp-protocol-version'] = '2026-07-28';
      if (msg.method) h['mcp-method'] = msg.method;
      const p = msg.params ?? {};
      if (msg.method === 'tools/call' && p.name) h['mcp-name'] = p.name;
      if (msg.method?.startsWith('tasks/') && p.taskId) h['mcp-name'] = p.taskId;
    } else if (this.protocolVersion) {
      h['mcp-protocol-version'] = this.protocolVersion;
    }
    return h;
  }
  async _post(msg, { timeoutMs = this.timeoutMs } = {}) {
    const res = await fetch(this.url, {
      method: 'POST',
      headers: this._headers(msg),
      body: JSON.stringify(msg),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const sid = res.headers.get('mcp-session-id');
    if (sid) this.sessionId = sid;
    const ct = (res.headers.get('content-type') ?? '').split(';')[0];
    this.lastHttp = { status: res.status, contentType: ct };
    if (res.status === 202 || res.headers.get('content-length') === '0') return { http: this.lastHttp, messages: [] };
    if (ct === 'text/event-stream') {
      // Read incrementally so server->client requests are answered while the stream is open.
      const messages = [];
      const reader = res.body.getReader();
      const dec = new TextDecoder();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        const cut = buf.lastIndexOf('\n\n');
        if (cut < 0) continue;
        const complete = buf.slice(0, cut + 2);
        buf = buf.slice(cut + 2);
        for (const data of sseEvents(complete)) {
          const m = JSON.parse(data);
          messages.push(m);
          if (await this._dispatch(m, msg)) {
            reader.cancel().catch(() => {});
            return { http: this.lastHttp, messages };
          }
        }
      }
      return { http: this.lastHttp, messages };
    }
    const text = await res.text();
    const m = text ? JSON.parse(text) : null;
    return { http: this.lastHttp, messages: m ? [m] : [] };
  }
  // returns true when m is the response to `req`
  async _dispatch(m, req) {
    if (m.method && m.id !== undefined) {
      let reply;
      try {
        reply = {
          jsonrpc: '2.0',
          id: m.id,
          result: await (this.onRequest ?? (() => Promise.reject(new Error('no handler'))))(m),
        };
      } catch (e) {
        reply = { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: String(e?.message ?? e) } };
      }
      await this._post(reply);
      return false;
    }
    if (m.method) {
      this.notifications.push(m);
      return false;
    }
    return req.id !== undefined && m.id === req.id;
  }
  /** Send a request; resolves with the response message ({result} or {error}) plus .http. */
  async request(method, params = {}, opts = {}) {
    const p = this.era === '2026' ? { ...params, _meta: { ...meta2026(opts.meta), ...(params._meta ?? {}) } } : params;
    const msg = { jsonrpc: '2.0', id: this.nextId++, method, params: p };
    const { http, messages } = await this._post(msg, opts);
    const resp = messages.find((m) => m.id === msg.id && !m.method);
    if (!resp) throw new Error(`${method}: no response (HTTP ${http.status} ${http.contentType})`);
    return { ...resp, http };
  }
  async notify(method, params) {
    await this._post(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }
  async initialize() {
    const r = await this.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: this.capabilities,
      clientInfo: { name: 'longcall-interop-smoke', version: '0.0.0' },
    });
    this.protocolVersion = r.result?.protocolVersion;
    await this.notify('notifications/initialized');
    return r;
  }
  async close() {
    if (this.era === '2025' && this.sessionId) {
      await fetch(this.url, {
        method: 'DELETE',
        headers: { 'mcp-session-id': this.sessionId },
        signal: AbortSignal.timeout(5000),
      }).catch(() => {});
    }
  }
}
