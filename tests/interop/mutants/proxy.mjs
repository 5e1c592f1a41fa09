#!/usr/bin/env node
// Deliberately broken variants of the reference MCP tasks server (pkg/examples/mcp-tasks-server.mjs),
// for measuring `longcall probe`: the reference server runs in this process and a proxy in front
// of it rewrites its answers the way one kind of broken server would.
//
//   node tests/interop/mutants/proxy.mjs --mutant NAME [--port N] [--max-lifetime-ms N]
//   -> prints `LISTENING http://127.0.0.1:PORT/mcp` on stdout when ready
//   node tests/interop/mutants/proxy.mjs --list   -> one `NAME<TAB>what it breaks` per line
//
// `--mutant none` forwards everything unchanged (the control). Binds 127.0.0.1 only; SIGTERM and
// SIGINT exit 0; exits by itself after --max-lifetime-ms (default 120000).
import http from 'node:http';
import { createTasksServer } from '../../../pkg/examples/mcp-tasks-server.mjs';
import { runMutantCli } from '../lib/mutant-cli.mjs';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
const err = (code, message) => ({ error: { code, message } });

// Each mutant: {what, rule (what should catch it), request?(ctx) -> answer|undefined (answer
// without asking upstream), answer?(ctx) -> answer|undefined (rewrite)}. An answer is
// {status, body, headers?}. ctx: {msg, method, taskId, auth, answer, task (state), st (global)}.
export const MUTANTS = {
  none: { what: 'the reference server, unchanged', rule: '(no finding)' },
  'terminal-flip': {
    what: 'a settled task reads "working" again on the second poll after it settled',
    rule: 'terminal_conflict (X-2)',
    answer({ method, task, answer }) {
      const r = answer.body?.result;
      if (method !== 'tasks/get' || !r) return;
      if (TERMINAL.has(r.status)) task.settledPolls = (task.settledPolls ?? 0) + 1;
      if (task.settledPolls >= 2) {
        const { result, error, ...rest } = r;
        return { ...answer, body: { ...answer.body, result: { ...rest, status: 'working' } } };
      }
    },
  },
  'cancel-after-complete': {
    what: 'a tasks/cancel acked on a completed task turns it "cancelled"',
    rule: 'terminal_conflict (X-2)',
    answer({ method, task, answer }) {
      const r = answer.body?.result;
      if (method === 'tasks/cancel' && task.last === 'completed') task.flipped = true;
      if (method === 'tasks/get' && r && task.flipped) {
        const { result, error, ...rest } = r;
        return { ...answer, body: { ...answer.body, result: { ...rest, status: 'cancelled' } } };
      }
    },
  },
  'foreign-403': {
    what: "another principal's task id answered HTTP 403 instead of like an unknown id",
    rule: 'foreign_id_distinguishable (X-4)',
    request({ msg, taskId, auth, st }) {
      const owner = st.owner.get(taskId);
      if (taskId && owner !== undefined && owner !== auth)
        return { status: 403, body: { jsonrpc: '2.0', id: msg.id, ...err(-32003, 'Forbidden: not your task') } };
    },
  },
  'foreign-leak': {
    what: 'principals ignored: anyone who has a task id can read and cancel the task',
    rule: 'foreign_id_distinguishable (X-4)',
    forwardAuth: false,
  },
  'rate-limit': {
    what: 'pollIntervalMs says 200 but a rate limiter refuses a second tasks/get within 1 s (HTTP 429)',
    rule: 'poll_refused_at_floor (X-5)',
    request({ msg, method, task }) {
      if (method !== 'tasks/get') return;
      const now = Date.now();
      const last = task.lastGet;
      task.lastGet = now;
      if (last !== undefined && now - last < 1000)
        return {
          status: 429,
          headers: { 'retry-after': '1' },
          body: { jsonrpc: '2.0', id: msg.id, ...err(-32000, 'Too many requests') },
        };
    },
  },
  'key-reappears': {
    what: 'an input key answered with tasks/update is asked again once it had gone',
    rule: 'input_key_reused',
    answer({ method, msg, task, answer }) {
      if (method === 'tasks/update') {
        task.answered = {
          ...(task.answered ?? {}),
          ...Object.fromEntries(Object.keys(msg.params?.inputResponses ?? {}).map((k) => [k, true])),
        };
        return;
      }
      const r = answer.body?.result;
      if (method !== 'tasks/get' || !r) return;
      for (const [k, v] of Object.entries(r.inputRequests ?? {})) (task.asked ??= {})[k] = v;
      if (r.status !== 'input_required' || !task.answered) return;
      const back = Object.keys(task.answered).filter((k) => task.asked?.[k] && !r.inputRequests?.[k]);
      if (!task.gone) {
        task.gone = back.length > 0;
        return;
      } // let the key disappear once
      if (!back.length) return;
      const inputRequests = { ...r.inputRequests, ...Object.fromEntries(back.map((k) => [k, task.asked[k]])) };
      return { ...answer, body: { ...answer.body, result: { ...r, inputRequests } } };
    },
  },
  'get-404-fresh': {
    what: 'tasks/get answers "task not found" for the first 1.5 s after the task was created',
    rule: 'created_task_not_found (X-1)',
    request({ msg, method, task }) {
      if (method === 'tasks/get' && task.createdAt !== undefined && Date.now() - task.createdAt < 1500)
        return {
          status: 400,
          body: { jsonrpc: '2.0', id: msg.id, ...err(-32602, 'Failed to retrieve task: Task not found') },
        };
    },
  },
  'cancelled-unasked': {
    what: 'a task whose tool failed is reported "cancelled" (nobody cancelled it, no statusMessage)',
    rule: 'cancelled_unasked (X-3)',
    answer({ method, answer }) {
      const r = answer.body?.result;
      if (method === 'tasks/get' && r?.status === 'failed') {
        const { error, ...rest } = r;
        return { ...answer, body: { ...answer.body, result: { ...rest, status: 'cancelled' } } };
      }
    },
  },
  'completed-no-result': {
    what: 'a completed task is reported without its result',
    rule: 'result_contradicts_status',
    answer({ method, answer }) {
      const r = answer.body?.result;
      if (method === 'tasks/get' && r?.status === 'completed') {
        const { result, ...rest } = r;
        return { ...answer, body: { ...answer.body, result: rest } };
      }
    },
  },
  'cancel-terminal-error': {
    what: 'tasks/cancel on a settled task answered -32602 instead of the idempotent ack',
    rule: 'cancel_terminal_not_acked (X-6)',
    request({ msg, method, task }) {
      if (method === 'tasks/cancel' && TERMINAL.has(task.last) && !task.foreign)
        return { status: 400, body: { jsonrpc: '2.0', id: msg.id, ...err(-32602, 'Task already finished') } };
    },
  },
  'cancel-returns-task': {
    what: 'the tasks/cancel ack carries the task (the 2025 shape) instead of the empty ack',
    rule: 'cancel_answer_breaks_revision',
    answer({ method, taskId, task, answer }) {
      if (method === 'tasks/cancel' && answer.body?.result)
        return {
          ...answer,
          body: {
            ...answer.body,
            result: { resultType: 'complete', taskId, status: task.last ?? 'working', ttlMs: 60000 },
          },
        };
    },
  },
  'unknown-status': {
    what: 'a working task is reported "running" (a status MCP does not have)',
    rule: 'unknown_status',
    answer({ method, answer }) {
      const r = answer.body?.result;
      if (method === 'tasks/get' && r?.status === 'working')
        return { ...answer, body: { ...answer.body, result: { ...r, status: 'running' } } };
    },
  },
  'wrong-result-type': {
    what: 'tasks/get answers with resultType "task" (the CreateTaskResult shape)',
    rule: 'wrong_result_type',
    answer({ method, answer }) {
      const r = answer.body?.result;
      if (method === 'tasks/get' && r?.status)
        return { ...answer, body: { ...answer.body, result: { ...r, resultType: 'task' } } };
    },
  },
};

export async function startMutant(name, port = 0) {
  const m = MUTANTS[name];
  if (!m) throw new Error(`unknown mutant ${name}; --list shows them`);
  const upstream = createTasksServer({ log: (s) => process.stderr.write(`[reference] ${s}\n`) });
  const upstreamUrl = await upstream.listen(0);
  const st = { owner: new Map(), tasks: new Map() };
  const taskState = (id) => {
    if (!id) return {};
    if (!st.tasks.has(id)) st.tasks.set(id, {});
    return st.tasks.get(id);
  };

  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const c of req) raw += c;
    let msg = null;
    try {
      msg = JSON.parse(raw);
    } catch {
      /* forwarded as is */
    }
    const method = msg?.method;
    const taskId = typeof msg?.params?.taskId === 'string' ? msg.params.taskId : undefined;
    const auth = req.headers.authorization ?? '';
    const task = taskState(taskId);
    const owner = taskId ? st.owner.get(taskId) : undefined;
    task.foreign = owner !== undefined && owner !== auth;
    const ctx = { msg, method, taskId, auth, task, st };
    const reply = (a) => {
      const text = JSON.stringify(a.body);
      res.writeHead(a.status, { 'content-type': 'application/json', ...(a.headers ?? {}) }).end(text);
    };
    const early = m.request?.(ctx);
    if (early) return reply(early);
    const headers = {};
    for (const h of ['content-type', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'authorization']) {
      if (req.headers[h] !== undefined && !(h === 'authorization' && m.forwardAuth === false))
        headers[h] = req.headers[h];
    }
    const up = await fetch(upstreamUrl, { method: req.method, headers, body: req.method === 'POST' ? raw : undefined });
    const text = await up.text();
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      res.writeHead(up.status).end(text);
      return;
    }
    const answer = { status: up.status, body };
    // What the proxy learns from the real answer (before any rewrite).
    const r = body?.result;
    if (method === 'tools/call' && r?.resultType === 'task' && r.taskId) {
      st.owner.set(r.taskId, auth);
      taskState(r.taskId).createdAt = Date.now();
      taskState(r.taskId).last = r.status;
    }
    ctx.answer = answer;
    const out = m.answer?.(ctx) ?? answer;
    if (method === 'tasks/get' && r?.status && !task.foreign) task.last = r.status;
    reply(out);
  });
  const url = await new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}/mcp`)),
  );
  return {
    url,
    async close() {
      server.closeAllConnections?.();
      await new Promise((r) => server.close(() => r()));
      await upstream.close();
    },
  };
}

await runMutantCli(import.meta.url, MUTANTS, startMutant);
