#!/usr/bin/env node
// A reference MCP tasks server (2026-07-28, extension `io.modelcontextprotocol/tasks`; with
// `--serve-2025`, also the 2025-11-25 experimental tasks for a request that says
// `MCP-Protocol-Version: 2025-11-25`, or an `initialize` whose params name that version, as the
// SDK clients send it) built on the longcall core's TaskRegistry. An example for
// server authors: read it top to bottom.
//
//   node node_modules/longcall/examples/mcp-tasks-server.mjs [--port N] [--serve-2025]
//        [--allow-origin URL]... [--max-lifetime-ms N] [--help]
//   (in this repository: node pkg/examples/mcp-tasks-server.mjs)
//   -> prints `LISTENING http://127.0.0.1:PORT/mcp` on stdout when ready
//
// What lives where:
// * The PROTOCOL GATE lives in the core (`longcall/server`'s `gateRequest`, `gateTaskSupport`,
//   `httpStatusFor`, rules E-20..E-27): the per-request capability gate, the `Mcp-Method` /
//   `Mcp-Name` / `MCP-Protocol-Version` header checks, the methods 2026 removed (-32601), the
//   task-required answer (-32021) and the HTTP status of every error. This file sends what the
//   gate answers and decides none of it.
// * The TASK STATE (status, inputRequests, result/error, TTL, principal binding, cancel, the
//   "first terminal write wins" rule) lives in the core's TaskRegistry, through the npm package.
//   This file never decides a task's status itself: it asks the registry and renders the answer
//   with `renderTask2026` (the exact wire task: ISO times, ttlMs, payload members by status), or
//   on 2025 with `renderTask2025` and `renderTaskResult2025` (`tasks/result`).
// * The ANSWERS beyond the gate live in the core too (`longcall/server`, rules E-53..E-58):
//   how a body is read (`readRequest`: -32700, -32600, 413, 202 for notifications and client
//   responses), the params each method needs (`checkParams`, -32602), an unknown method or tool
//   (`methodNotServed`, `unknownTool`), the MRTR round (`inputRequiredResult`, `inputResponses`),
//   `resultType` on every result (`completeResult`), the discovery answers (`discoverResult`,
//   `initializeResult`, `toolsListResult`) and the answer text with its HTTP status
//   (`answerText`).
// * What this file still decides is transport and its own business only: Streamable HTTP (one
//   POST per request, when to stop reading a body, writing the bytes it is given; on 2025 an
//   answer that must first ask the client for input becomes an SSE stream, and the client's
//   answer, a POST of its own, is routed to the request waiting for it), which methods
//   and tools it implements, the PRINCIPAL (from the Authorization header), the TOOLS, what they
//   ask and their workers (a tool that throws is answered as its own -32603), the task ids
//   (random, unguessable) and the clock (`Date.now()`, with one timer armed at
//   `registry.pollTimeout()`).
//
// Binds 127.0.0.1 only. Pages: a request with an `Origin` header is served only for a page on
// this machine (http://localhost, 127.0.0.1 or [::1], any port) or one named by --allow-origin,
// and gets the CORS headers a browser needs (the preflight included); any other origin is
// refused with 403, as MCP asks of servers against DNS rebinding. SIGTERM/SIGINT: clean exit 0.
// With --max-lifetime-ms, exits by itself after that long (tests use it so that no server
// outlives them).
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  TaskRegistry,
  renderTask2026,
  renderTask2025,
  renderTaskResult2025,
  gateRequest,
  gateTaskSupport,
  readRequest,
  checkParams,
  methodNotServed,
  unknownTool,
  inputResponses,
  inputRequiredResult,
  completeResult,
  discoverResult,
  initializeResult,
  toolsListResult,
  answerText,
} from 'longcall/server';

const MODEL = 'task-2026';
// A request on the 2025 revision says so in its header; each revision has a registry of its own.
const MODEL_2025 = 'task-2025';
const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const PROTOCOL_VERSION_2025 = '2025-11-25';
const SERVER_INFO = { name: 'longcall-reference-tasks-server', version: '0.1.0' };

// The error a tool's own failure carries (the tool's business, not the protocol's).
const INTERNAL = -32603;
// Where this transport stops reading a body (the core answers 413 past its limit).
const BODY_LIMIT = 4 << 20;

/** A JSON-RPC error to throw from a handler; `rpcError` objects from the registry fit as-is. */
class RpcFailure extends Error {
  constructor(error) {
    super(error.message);
    this.error = error;
  }
}

const elicit = (message, properties) => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties, required: Object.keys(properties) } },
});
const text = (t, isError = false) => ({ content: [{ type: 'text', text: t }], isError });
const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

// ---- tools ----------------------------------------------------------------------------------
//
// A tool is `run({args, answers, signal, progress})` returning one of:
//   {result}  a CallToolResult (isError:true is still a *completed* task on 2026),
//   {error}   a JSON-RPC error (the task becomes *failed* with it),
//   {ask}     input requests {key: request}: MRTR round on the sync path, input_required on a task.
// `answers` holds the client's responses by key; `progress(text)` sets the task's
// `statusMessage` (a no-op on the sync path). A task tool is re-run with more answers after
// every tasks/update that leaves nothing outstanding (the "guard" pattern).
// `task`: 'never' (always sync), 'optional' (a task when the client declared the extension),
// 'required' (-32021 without the extension); the core's `gateTaskSupport` reads it. `gather({args, answers})`, when a tool has it,
// returns the input still needed before any work starts (or null): asked synchronously as an
// MRTR round, before a task is created.
const TOOLS = {
  greet: {
    description: 'Sync tool: returns a greeting.',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
    task: 'never',
    run: ({ args }) => ({ result: text(`Hello, ${args.name ?? 'world'}!`) }),
  },
  slow_compute: {
    description:
      'Task tool: waits `seconds` (0 = immediate), saying each second done in its statusMessage, then returns. Cancelling it while it runs ends it cancelled.',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number' }, label: { type: 'string' } } },
    task: 'optional',
    run: async ({ args, signal, progress }) => {
      const seconds = Math.min(Math.max(Number(args.seconds ?? 1) || 0, 0), 300);
      for (let done = 0; done < seconds; done++) {
        progress(`${done} of ${Math.ceil(seconds)} s done`);
        await sleep(Math.min(1, seconds - done) * 1000, signal);
      }
      // The last word before the result, so a finished task does not say it is part done.
      if (seconds > 0) progress(`${Math.ceil(seconds)} of ${Math.ceil(seconds)} s done`);
      return { result: text(`slow_compute(${args.label ?? ''}) done after ${seconds}s`) };
    },
  },
  failing_job: {
    description: 'Task-required tool whose execution is a tool error: completed with isError:true.',
    inputSchema: { type: 'object', properties: {} },
    task: 'required',
    run: async ({ signal }) => {
      await sleep(200, signal);
      return { result: text('failing_job: simulated tool failure', true) };
    },
  },
  protocol_error_job: {
    description: 'Task tool that hits a JSON-RPC error: failed with error{code,message}.',
    inputSchema: { type: 'object', properties: {} },
    task: 'optional',
    run: async ({ signal }) => {
      await sleep(200, signal);
      return { error: { code: INTERNAL, message: 'protocol_error_job: simulated internal error' } };
    },
  },
  confirm_delete: {
    description: 'Task tool that asks one confirmation (input_required) before deleting.',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
    task: 'optional',
    run: ({ args, answers }) => {
      const a = answers.confirm;
      if (!a) return { ask: { confirm: elicit(`Delete ${args.filename}?`, { confirm: { type: 'boolean' } }) } };
      const yes = a.action === 'accept' && a.content?.confirm !== false;
      return { result: text(yes ? `Deleted ${args.filename}` : `Kept ${args.filename} (action=${a.action})`) };
    },
  },
  multi_input: {
    description: 'Task tool that asks two questions at once; stays input_required until both are answered.',
    inputSchema: { type: 'object', properties: {} },
    task: 'optional',
    run: ({ answers }) => {
      const ask = {};
      if (!answers.first) ask.first = elicit('First answer?', { name: { type: 'string' } });
      if (!answers.second) ask.second = elicit('Second answer?', { name: { type: 'string' } });
      if (Object.keys(ask).length) return { ask };
      return {
        result: text(`multi_input: got first=${answers.first.content?.name} second=${answers.second.content?.name}`),
      };
    },
  },
  test_tool_with_task: {
    description: 'MRTR then task: asks user_name synchronously, then creates a task whose result contains it.',
    inputSchema: { type: 'object', properties: {} },
    task: 'required',
    // Asked synchronously (MRTR) before the task exists; the task then only does the work.
    gather: ({ answers }) =>
      answers.user_name ? null : { user_name: elicit('What is your name?', { name: { type: 'string' } }) },
    run: async ({ answers, signal }) => {
      await sleep(100, signal);
      return { result: text(`Hello ${answers.user_name.content?.name}, task finished`) };
    },
  },
};

// ---- the server -----------------------------------------------------------------------------

/**
 * Creates the server (not listening yet). Options: `pollIntervalMs` (the hint on every task),
 * `ttlMs`, `retentionMs`, `now` (the clock, `Date.now` by default), `log` (a function, or null),
 * `allowOrigins` (page origins served besides this machine's).
 * `serve2025: true` also serves 2025-11-25 requests (by their `MCP-Protocol-Version` header, or
 * for `initialize` its `protocolVersion`; a 2025 input request goes out inside `tasks/result`);
 * otherwise the gate refuses them as another revision. `counters` holds what clients asked, for
 * tests that judge a client by the server's own count.
 */
export function createTasksServer(opts = {}) {
  const now = opts.now ?? Date.now;
  const log = opts.log ?? (() => {});
  // cancel: 'immediate' -- a tasks/cancel settles the task `cancelled` before the ack, and later
  // worker writes are ignored by the registry (first terminal write wins). The conformance
  // fixture slow_compute MUST end cancelled when cancelled while running.
  const registryConfig = {
    cancel: 'immediate',
    pollIntervalMs: opts.pollIntervalMs ?? 200,
    ttlMs: opts.ttlMs ?? 900_000,
    retentionMs: opts.retentionMs ?? 300_000,
  };
  const registry = new TaskRegistry(MODEL, registryConfig);
  const registry2025 = new TaskRegistry(MODEL_2025, registryConfig);
  // taskId -> { reg, tool, args, answers, abort: AbortController, running }
  const workers = new Map();
  // What clients asked: `methods` by name, every `tools/call` (`{revision, name, arguments}`),
  // and per task every `tasks/get` (arrival ms), every `tasks/update` key and `tasks/cancel`.
  const counters = { methods: {}, toolCalls: [], polls: new Map(), updateKeys: new Map(), cancels: new Map() };
  const count = (map, taskId, value) => map.set(taskId, [...(map.get(taskId) ?? []), value]);
  let timer = null;

  // One timer, armed at the registries' next deadline (TTL expiry, retention purge).
  function rearm() {
    clearTimeout(timer);
    const ats = [registry.pollTimeout(), registry2025.pollTimeout()].filter((at) => at !== undefined && at !== null);
    if (!ats.length) return;
    timer = setTimeout(
      () => {
        for (const reg of [registry, registry2025]) {
          const sweep = reg.handleTimeout(now());
          for (const id of [...sweep.failed, ...sweep.purged]) stopWorker(id);
        }
        rearm();
      },
      Math.max(0, Math.min(Math.min(...ats) - now(), 2 ** 31 - 1)),
    );
    timer.unref?.();
  }

  function stopWorker(taskId) {
    const w = workers.get(taskId);
    if (w) {
      w.abort.abort();
      workers.delete(taskId);
    }
  }

  // Runs (or re-runs) a task tool and writes what it produced into the registry.
  async function runWorker(taskId) {
    const w = workers.get(taskId);
    if (!w || w.running) return;
    w.running = true;
    let out;
    try {
      const progress = (message) => {
        if (!w.abort.signal.aborted) w.reg.setStatusMessage(now(), taskId, message);
      };
      out = await w.tool.run({ args: w.args, answers: w.answers, signal: w.abort.signal, progress });
    } catch (e) {
      out = { error: { code: INTERNAL, message: String(e?.message ?? e) } };
    }
    w.running = false;
    if (w.abort.signal.aborted) return; // cancelled or expired: the registry already settled it
    const t = now();
    let outcome;
    if (out.ask) {
      for (const [key, request] of Object.entries(out.ask)) {
        outcome = w.reg.requestInput(t, taskId, key, request);
        if (outcome.kind !== 'applied') break;
      }
    } else if (out.error) {
      outcome = w.reg.fail(t, taskId, out.error);
      workers.delete(taskId);
    } else {
      // 2025 stores the CallToolResult as the tool gave it; 2026 results carry `resultType`.
      outcome = w.reg.complete(t, taskId, w.reg === registry2025 ? out.result : completeResult(out.result));
      workers.delete(taskId);
    }
    if (outcome && outcome.kind !== 'applied') log(`task ${taskId}: worker write ${JSON.stringify(outcome)}`);
    rearm();
  }

  // ---- method handlers: (params, ctx) -> result object; throw RpcFailure for an error ----

  // A registry answer {ok, value|error}: the value, or the JSON-RPC error thrown.
  const unwrap = (answer) => {
    if (!answer.ok) throw new RpcFailure(answer.error);
    return answer.value;
  };

  async function toolsCall(params, ctx) {
    const tool = Object.hasOwn(TOOLS, params?.name) ? TOOLS[params.name] : null;
    if (!tool) throw new RpcFailure(unknownTool(params.name).error);
    const args = params.arguments ?? {};
    counters.toolCalls.push({ revision: '2026-07-28', name: params.name, arguments: args });
    // The core decides: a task, sync, or -32021 for a task-required tool without the capability
    // (the legacy 2025 `task` param is ignored: on 2026 the server alone decides).
    const support = gateTaskSupport(MODEL, params.name, tool.task, params);
    if (!support.ok) throw new RpcFailure(support.error.error);
    const asTask = support.value;
    const answers = inputResponses(params);
    const missing = tool.gather?.({ args, answers });
    if (missing) return inputRequiredResult(missing);
    if (!asTask) {
      // Sync path; an {ask} becomes an MRTR round (InputRequiredResult).
      const out = await tool.run({ args, answers, signal: ctx.signal, progress: () => {} });
      if (out.ask) return inputRequiredResult(out.ask);
      if (out.error) throw new RpcFailure(out.error);
      return completeResult(out.result);
    }
    // Task path: the task exists in the registry before we answer (strong consistency).
    const taskId = randomBytes(24).toString('base64url'); // unguessable: the id may act as a bearer token
    const view = registry.create(now(), ctx.principal, taskId);
    workers.set(taskId, { reg: registry, tool, args, answers, abort: new AbortController(), running: false });
    setImmediate(() => runWorker(taskId));
    rearm();
    return renderTask2026(view, 'task');
  }

  function tasksGet(params, ctx) {
    count(counters.polls, params.taskId, now());
    const view = unwrap(registry.get(now(), ctx.principal, params.taskId));
    return renderTask2026(view, 'complete');
  }

  function tasksUpdate(params, ctx) {
    const taskId = params.taskId;
    for (const key of Object.keys(params.inputResponses)) count(counters.updateKeys, taskId, key);
    deliverAnswers(registry, taskId, unwrap(registry.update(now(), ctx.principal, taskId, params.inputResponses)));
    return completeResult();
  }

  // Input answers the registry accepted go to the task's worker, which runs again once nothing
  // is outstanding (a partial answer keeps the task input_required).
  function deliverAnswers(reg, taskId, ack) {
    const w = workers.get(taskId);
    if (!w || !ack.accepted.length) return;
    for (const [key, value] of reg.takeInputResponses(taskId)) w.answers[key] = value;
    if (reg.peek(taskId)?.status === 'working') setImmediate(() => runWorker(taskId));
  }

  function tasksCancel(params, ctx) {
    const taskId = params.taskId;
    count(counters.cancels, taskId, now());
    unwrap(registry.cancel(now(), ctx.principal, taskId)); // an ack, also for a terminal task
    if (registry.peek(taskId)?.status === 'cancelled') stopWorker(taskId);
    rearm();
    return completeResult();
  }

  // ---- 2025-11-25: the same tools and workers, the 2025 registry and wire ----

  // 2025 has no MRTR round: what a tool gathers before its task exists (2026) is asked inside
  // the task instead (input_required), as the tools that ask while they run do.
  const gatheredInTask = (tool) =>
    tool.gather
      ? {
          ...tool,
          run: (ctx) => {
            const ask = tool.gather(ctx);
            return ask ? { ask } : tool.run(ctx);
          },
        }
      : tool;

  async function toolsCall2025(params, ctx) {
    const tool = Object.hasOwn(TOOLS, params?.name) ? TOOLS[params.name] : null;
    if (!tool) throw new RpcFailure(unknownTool(params.name).error);
    const args = params.arguments ?? {};
    counters.toolCalls.push({ revision: PROTOCOL_VERSION_2025, name: params.name, arguments: args });
    // The core decides: a task when `params.task` asks for one and the tool allows it.
    const support = gateTaskSupport(MODEL_2025, params.name, tool.task, params);
    if (!support.ok) throw new RpcFailure(support.error.error);
    if (!support.value) {
      // 2025 has no MRTR round: a tool that needs input answers, as its own error result, that
      // it runs only as a task here.
      const out = await tool.run({ args, answers: {}, signal: ctx.signal, progress: () => {} });
      if (out.error) throw new RpcFailure(out.error);
      if (out.ask)
        return { content: [{ type: 'text', text: `${params.name} needs input: call it as a task` }], isError: true };
      return out.result;
    }
    const taskId = randomBytes(24).toString('base64url');
    const ttl = Number.isSafeInteger(params.task?.ttl) ? params.task.ttl : null;
    const view = registry2025.create(now(), ctx.principal, taskId, ttl);
    workers.set(taskId, {
      reg: registry2025,
      tool: gatheredInTask(tool),
      args,
      answers: {},
      abort: new AbortController(),
      running: false,
    });
    setImmediate(() => runWorker(taskId));
    rearm();
    return { task: renderTask2025(view) };
  }

  function tasksGet2025(params, ctx) {
    count(counters.polls, params.taskId, now());
    return renderTask2025(unwrap(registry2025.get(now(), ctx.principal, params.taskId)));
  }

  // Blocks until the task is terminal (the 2025 contract), asking the registry again as time
  // passes; a client that hangs up ends the wait. While the task needs input, each of its input
  // requests goes to the client once, as a request of this server on this answer's stream,
  // tagged with the task (`related-task`), and the client's answer is the task's input.
  async function tasksResult2025(params, ctx) {
    const taskId = params.taskId;
    const asked = new Set();
    for (;;) {
      const state = unwrap(registry2025.result(now(), ctx.principal, taskId));
      if (state.kind === 'blocked' && state.status === 'input_required') {
        for (const { key, request } of state.inputRequests) {
          if (asked.has(key)) continue;
          asked.add(key);
          const meta = { ...(request.params?._meta ?? {}), [RELATED_TASK]: { taskId } };
          const reply = await ctx.ask({ ...request, params: { ...request.params, _meta: meta } });
          if (reply && 'result' in reply)
            deliverAnswers(
              registry2025,
              taskId,
              unwrap(registry2025.update(now(), ctx.principal, taskId, { [key]: reply.result })),
            );
          else log(`task ${taskId}: input ${key} got no answer: ${JSON.stringify(reply?.error ?? null)}`);
        }
      }
      const answer = renderTaskResult2025(taskId, state);
      if (answer?.error) throw new RpcFailure(answer.error);
      if (answer) return answer.result;
      if (ctx.signal.aborted) throw new RpcFailure({ code: INTERNAL, message: 'the client hung up' });
      await sleep(20, ctx.signal);
    }
  }

  function tasksCancel2025(params, ctx) {
    const taskId = params.taskId;
    count(counters.cancels, taskId, now());
    const reply = unwrap(registry2025.cancel(now(), ctx.principal, taskId));
    if (registry2025.peek(taskId)?.status === 'cancelled') stopWorker(taskId);
    rearm();
    return renderTask2025(reply.task);
  }

  function tasksList2025(params, ctx) {
    const page = unwrap(registry2025.list(now(), ctx.principal, params?.cursor ?? null));
    return { tasks: page.tasks.map(renderTask2025), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }

  // What this server offers; the core adds the tasks extension and shapes the answers.
  const capabilities = { tools: { listChanged: false } };
  const HANDLERS = {
    'server/discover': () => discoverResult(MODEL, SERVER_INFO, capabilities),
    initialize: () => initializeResult(MODEL, SERVER_INFO, capabilities),
    ping: () => completeResult(),
    'tools/list': () =>
      toolsListResult(
        Object.entries(TOOLS).map(([name, t]) => ({ name, description: t.description, inputSchema: t.inputSchema })),
      ),
    'tools/call': toolsCall,
    'tasks/get': tasksGet,
    'tasks/update': tasksUpdate,
    'tasks/cancel': tasksCancel,
    // tasks/result and tasks/list do not exist on 2026: the core's gate answers -32601.
  };
  const capabilities2025 = {
    tools: { listChanged: false },
    tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
  };
  const HANDLERS_2025 = {
    initialize: () => initializeResult(MODEL_2025, SERVER_INFO, capabilities2025),
    ping: () => ({}),
    'tools/list': () =>
      toolsListResult(
        Object.entries(TOOLS).map(([name, t]) => ({
          name,
          description: t.description,
          inputSchema: t.inputSchema,
          execution: { taskSupport: t.task === 'never' ? 'forbidden' : t.task },
        })),
      ),
    'tools/call': toolsCall2025,
    'tasks/get': tasksGet2025,
    'tasks/result': tasksResult2025,
    'tasks/cancel': tasksCancel2025,
    'tasks/list': tasksList2025,
  };

  // ---- HTTP transport ----

  // Principal binding: a task belongs to whoever created it. Here the principal is a digest of
  // the bearer token (a real server verifies it and uses the account it names): the registry
  // keeps principals in memory and in its snapshots, where a token must not be. Without one
  // every caller is the same anonymous principal.
  function principalOf(req) {
    const auth = req.headers.authorization;
    if (typeof auth !== 'string' || !auth.trim()) return 'anonymous';
    return `auth:${createHash('sha256').update(auth.trim()).digest('base64url')}`;
  }

  function send(res, status, text) {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  }

  // Sends a JSON-RPC answer the core wrote: a result, or an error with its HTTP status (2026);
  // on the 2025 wire an error goes as 200, as the 2025 SDK servers send it.
  function answer(res, id, result, error, on2025) {
    const out = answerText(id, result ?? null, error ?? null);
    send(res, on2025 ? 200 : out.httpStatus, out.body);
  }

  // A page's requests: served for the origins allowed, with the CORS headers a browser reads
  // (the MCP headers a client sends, and the session header it may read back); refused for any
  // other origin. Requests without an Origin (Node, curl) are not a browser's and pass.
  const allowedOrigins = new Set(opts.allowOrigins ?? []);
  const local = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;
  function cors(req, res) {
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    if (!local.test(origin) && !allowedOrigins.has(origin)) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end(`origin ${origin} is not allowed (--allow-origin)`);
      return false;
    }
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('vary', 'Origin');
    res.setHeader('access-control-expose-headers', 'mcp-session-id');
    if (req.method === 'OPTIONS') {
      res
        .writeHead(204, {
          'access-control-allow-methods': 'POST',
          'access-control-allow-headers':
            'content-type, authorization, mcp-protocol-version, mcp-session-id, mcp-method, mcp-name, last-event-id',
          'access-control-max-age': '600',
        })
        .end();
      return false;
    }
    return true;
  }

  async function handle(req, res) {
    if (!cors(req, res)) return;
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    let raw = '';
    for await (const chunk of req) {
      raw += chunk;
      if (raw.length > BODY_LIMIT) break; // the core answers a body over its limit (413)
    }
    const msg = readRequest(raw);
    if (msg.kind === 'refused') {
      send(res, msg.httpStatus, msg.body);
      return;
    }
    if (msg.kind !== 'request') {
      // A notification, or the client's answer to a request of this server (2025: an input
      // request on a `tasks/result` stream), which goes to the request waiting for it.
      answerAsked(raw);
      res.writeHead(202).end();
      return;
    }
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    // The revision the request speaks: its `MCP-Protocol-Version` header, which a client sends
    // on every request after `initialize`; `initialize` itself names the version in its params.
    const version =
      req.headers['mcp-protocol-version'] ?? (msg.method === 'initialize' ? msg.params?.protocolVersion : undefined);
    const on2025 = opts.serve2025 === true && version === PROTOCOL_VERSION_2025;
    const model = on2025 ? MODEL_2025 : MODEL;
    const handlers = on2025 ? HANDLERS_2025 : HANDLERS;
    counters.methods[msg.method] = (counters.methods[msg.method] ?? 0) + 1;
    // The core's gate: headers, the methods 2026 removed, the capability on tasks/*; then what
    // the method needs (E-54) and whether this server serves it (E-55).
    const handler = Object.hasOwn(handlers, msg.method) ? handlers[msg.method] : null;
    const refusal =
      gateRequest(model, msg.method, msg.params, req.headers) ??
      (handler ? checkParams(model, msg.method, msg.params) : methodNotServed(msg.method));
    if (refusal) {
      // A 2025 client at a server started for 2026 only: say how to serve it.
      if (!on2025 && version === PROTOCOL_VERSION_2025)
        refusal.error.message += '; this server speaks 2025-11-25 when started with --serve-2025';
      answer(res, msg.id, null, refusal.error, on2025);
      return;
    }
    // A request of this server to the client (`ask`) turns this answer into an SSE stream: the
    // server's requests first, the answer last.
    let stream = false;
    const ask = (request) => {
      const id = `ask-${++askCount}`;
      if (!stream) res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      stream = true;
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, ...request })}\n\n`);
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        abort.signal.addEventListener('abort', () => waiting.delete(id) && resolve(null), { once: true });
      });
    };
    const reply = (result, error) => {
      if (!stream) return answer(res, msg.id, result, error, on2025);
      res.end(`event: message\ndata: ${answerText(msg.id, result ?? null, error ?? null).body}\n\n`);
    };
    try {
      reply(await handler(msg.params, { principal: principalOf(req), signal: abort.signal, ask }));
    } catch (e) {
      const error = e instanceof RpcFailure ? e.error : { code: INTERNAL, message: String(e?.message ?? e) };
      if (!(e instanceof RpcFailure)) log(`internal error on ${msg.method}: ${e?.stack ?? e}`);
      reply(null, error);
    }
  }

  // Requests of this server waiting for the client's answer: id -> resolve({result} | {error}).
  const waiting = new Map();
  let askCount = 0;
  function answerAsked(raw) {
    let m;
    try {
      m = JSON.parse(raw);
    } catch {
      return;
    }
    const resolve = m && typeof m === 'object' && !('method' in m) ? waiting.get(m.id) : undefined;
    if (!resolve) return;
    waiting.delete(m.id);
    resolve('result' in m ? { result: m.result } : { error: m.error ?? null });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e) => {
      log(`handler crashed: ${e?.stack ?? e}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });

  return {
    registry,
    registry2025,
    counters,
    /** The request handler, to mount under another server (the cancel page does). */
    handle,
    /** Listens on 127.0.0.1; resolves to the endpoint URL. */
    listen(port = 0) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}/mcp`));
      });
    },
    close() {
      clearTimeout(timer);
      for (const id of [...workers.keys()]) stopWorker(id);
      return new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      });
    },
  };
}

// ---- command line -----------------------------------------------------------------------------

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // Node's own parser, strict: a misspelt flag (`--prot 3000`) is refused, not ignored.
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        'serve-2025': { type: 'boolean' },
        'allow-origin': { type: 'string', multiple: true },
        'poll-interval-ms': { type: 'string' },
        'max-lifetime-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    process.stderr.write(`${e.message}; see --help\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`Usage: mcp-tasks-server.mjs [options]
A reference MCP tasks server on http://127.0.0.1:PORT/mcp (Streamable HTTP, the 2026-07-28 tasks
extension). Prints "LISTENING <url>" when ready; stops on SIGINT or SIGTERM.

  --port N              listen on port N (default: a free port)
  --serve-2025          also serve 2025-11-25 clients (the SDK 1.x and 2.x clients)
  --allow-origin URL    also serve pages from URL (pages on this machine are always served)
  --poll-interval-ms N  the poll interval every task states (default 200)
  --max-lifetime-ms N   exit by itself after N ms (default: never)
  --help                this text

Tools: greet (sync), slow_compute {seconds, label} (a task reporting progress), confirm_delete
{filename} (asks for input), multi_input, failing_job, protocol_error_job, test_tool_with_task.
`);
    process.exit(0);
  }
  /** The whole number a flag was given, `dflt` when it was not; exits 2 on anything else. */
  const whole = (name, dflt, least) => {
    if (values[name] === undefined) return dflt;
    const n = Number(values[name]);
    if (Number.isSafeInteger(n) && n >= least) return n;
    process.stderr.write(
      `--${name}: expected a whole number of at least ${least}, got ${JSON.stringify(values[name])}\n`,
    );
    process.exit(2);
  };
  const port = whole('port', 0, 0);
  const srv = createTasksServer({
    log: (m) => process.stderr.write(`[tasks-server] ${m}\n`),
    serve2025: Boolean(values['serve-2025']),
    pollIntervalMs: whole('poll-interval-ms', undefined, 1),
    allowOrigins: values['allow-origin'] ?? [],
  });
  let url;
  try {
    url = await srv.listen(port);
  } catch (e) {
    // A port another process holds: said in a line, not a stack.
    process.stderr.write(
      `cannot listen on 127.0.0.1:${port}: ${e.code === 'EADDRINUSE' ? 'the port is in use' : e.message}\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`LISTENING ${url}\n`);
  const stop = async () => {
    await srv.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const lifetime = whole('max-lifetime-ms', 0, 0);
  if (lifetime > 0)
    setTimeout(() => {
      process.stderr.write('[tasks-server] max lifetime reached\n');
      stop();
    }, lifetime).unref();
}
