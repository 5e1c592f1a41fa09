// Smoke test: each fixture starts, answers a tools/call with a task, and is polled to terminal.
// Transcripts go to tests/interop/results/smoke-*.jsonl (gitignored).
//   cd tests/interop && node --test smoke.mjs
// Every loop is bounded (MAX_POLLS) and every request has a timeout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startFixture, sdk2025Http, sdk2025Stdio, fastmcpHttp, INTEROP_DIR } from './lib/fixture.mjs';
import { StdioChannel } from './lib/stdio-recorder.mjs';
import { startHttpRecorder } from './lib/http-recorder.mjs';
import { HttpRpc } from './lib/http-client.mjs';

const RESULTS = path.join(INTEROP_DIR, 'results');
const MAX_POLLS = 80;
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const elicitAccept = async (m) => {
  assert.equal(m.method, 'elicitation/create');
  return { action: 'accept', content: { confirm: true } };
};

// 2025 polling loop shared by stdio and HTTP: poll tasks/get at pollInterval; on input_required call
// tasks/result (the SDK delivers the queued elicitation inside that call and it resolves at terminal).
async function drive2025(request, taskId, pollInterval) {
  const statuses = [];
  let finalResult;
  for (let i = 0; i < MAX_POLLS; i++) {
    const g = await request('tasks/get', { taskId });
    assert.ok(g.result, `tasks/get error: ${JSON.stringify(g.error)}`);
    statuses.push(g.result.status);
    if (g.result.status === 'input_required') {
      const r = await request('tasks/result', { taskId });
      assert.ok(r.result, `tasks/result error: ${JSON.stringify(r.error)}`);
      finalResult = r.result;
      const after = await request('tasks/get', { taskId });
      statuses.push(after.result.status);
      break;
    }
    if (TERMINAL.has(g.result.status)) break;
    await sleep(pollInterval);
  }
  assert.ok(TERMINAL.has(statuses.at(-1)), `not terminal after ${MAX_POLLS} polls: ${statuses}`);
  if (!finalResult && statuses.at(-1) !== 'cancelled') {
    const r = await request('tasks/result', { taskId });
    finalResult = r.result ?? r.error;
  }
  return { statuses, finalResult };
}

async function scenario2025(request) {
  // slow_steps with input: working -> input_required -> (elicitation) -> working -> completed
  const c = await request('tools/call', {
    name: 'slow_steps',
    arguments: { steps: 3, stepMs: 150, askInput: true },
    task: { ttl: 60000 },
  });
  assert.ok(c.result?.task, `expected CreateTaskResult {task}: ${JSON.stringify(c)}`);
  assert.equal(c.result.task.status, 'working');
  assert.equal(c.result.task.pollInterval, 250);
  assert.equal(c.result.task.ttl, 60000);
  const run = await drive2025(request, c.result.task.taskId, c.result.task.pollInterval);
  assert.ok(run.statuses.includes('input_required'), `statuses ${run.statuses}`);
  assert.equal(run.statuses.at(-1), 'completed');
  assert.equal(run.finalResult.content[0].text, 'slow_steps finished 3 steps');
  assert.equal(run.finalResult._meta['io.modelcontextprotocol/related-task'].taskId, c.result.task.taskId);

  // cancellable: cancel while working -> cancelled; second cancel -> -32602
  const k = await request('tools/call', { name: 'cancellable', arguments: { maxMs: 5000 }, task: {} });
  const cancel = await request('tasks/cancel', { taskId: k.result.task.taskId });
  assert.equal(cancel.result.status, 'cancelled');
  const again = await request('tasks/cancel', { taskId: k.result.task.taskId });
  assert.equal(again.error?.code, -32602);

  // failing_job: failed, tasks/result still returns the isError payload
  const f = await request('tools/call', { name: 'failing_job', arguments: {}, task: {} });
  const fr = await drive2025(request, f.result.task.taskId, 250);
  assert.equal(fr.statuses.at(-1), 'failed');
  assert.equal(fr.finalResult.isError, true);
  return run;
}

test('sdk2025 fixture over stdio: task created, input_required answered, polled to completed', async () => {
  const f = await startFixture(sdk2025Stdio());
  const ch = new StdioChannel(f.child, { file: path.join(RESULTS, 'smoke-sdk2025-stdio.jsonl') });
  try {
    ch.onRequest = elicitAccept;
    const init = await ch.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: { form: {} } },
      clientInfo: { name: 'longcall-interop-smoke', version: '0.0.0' },
    });
    assert.deepEqual(init.result.capabilities.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
    ch.notify('notifications/initialized');
    await scenario2025((m, p) => ch.request(m, p));
  } finally {
    ch.close();
    const stop = await f.stop();
    assert.equal(stop.code, 0, `stdio fixture exit ${JSON.stringify(stop)}`);
  }
});

test('sdk2025 fixture over Streamable HTTP (through the recording proxy)', async () => {
  const f = await startFixture(sdk2025Http());
  assert.match(f.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  const rec = await startHttpRecorder({ upstream: f.url, file: path.join(RESULTS, 'smoke-sdk2025-http.jsonl') });
  const c = new HttpRpc({ url: rec.url, era: '2025' });
  try {
    c.onRequest = elicitAccept;
    await c.initialize();
    assert.ok(c.sessionId, 'no Mcp-Session-Id');
    await scenario2025((m, p) => c.request(m, p));
    const posts = rec.transcript.lines.filter((l) => l.dir === 's2c' && l.http);
    assert.ok(
      posts.some((l) => l.http.contentType === 'text/event-stream'),
      'expected SSE responses',
    );
    assert.ok(
      posts.some((l) => l.http.status === 202),
      'expected a 202 for a notification or client response',
    );
  } finally {
    await c.close();
    await rec.stop();
    const stop = await f.stop();
    assert.equal(stop.code, 0, `http fixture exit ${JSON.stringify(stop)}`);
  }
});

test('fastmcp-tasks fixture (2026-07-28 extension): flat task, input_required via tasks/update, completed', async () => {
  const f = await startFixture(fastmcpHttp(), { timeoutMs: 30000 });
  const rec = await startHttpRecorder({ upstream: f.url, file: path.join(RESULTS, 'smoke-fastmcp-tasks.jsonl') });
  const c = new HttpRpc({ url: rec.url, era: '2026' });
  try {
    const cr = await c.request('tools/call', { name: 'staged_confirm', arguments: { work_seconds: 0.3 } });
    const t = cr.result;
    assert.equal(t?.resultType, 'task', JSON.stringify(cr));
    assert.equal(t.task, undefined, 'CreateTaskResult must be flat');
    assert.equal(t.status, 'working');
    assert.ok(Number.isInteger(t.pollIntervalMs));
    const statuses = [];
    const answered = new Set();
    let last;
    for (let i = 0; i < MAX_POLLS; i++) {
      await sleep(t.pollIntervalMs);
      const g = await c.request('tasks/get', { taskId: t.taskId });
      assert.ok(g.result, `tasks/get error ${JSON.stringify(g.error)}`);
      last = g.result;
      statuses.push(last.status);
      if (last.status === 'input_required') {
        const fresh = Object.keys(last.inputRequests ?? {}).filter((k) => !answered.has(k));
        if (fresh.length) {
          const inputResponses = Object.fromEntries(
            fresh.map((k) => [k, { action: 'accept', content: { confirm: true } }]),
          );
          const u = await c.request('tasks/update', { taskId: t.taskId, inputResponses });
          assert.deepEqual(
            Object.keys(u.result).filter((k) => k !== '_meta'),
            ['resultType'],
          );
          for (const k of fresh) answered.add(k);
        }
      }
      if (TERMINAL.has(last.status)) break;
    }
    assert.equal(last.status, 'completed', `statuses ${statuses}`);
    assert.ok(statuses.includes('input_required'), `statuses ${statuses}`);
    assert.match(last.result.content[0].text, /staged_confirm finished \(action=accept, confirm=True\)/);

    // cancel a long slow_compute -> cancelled; cancel again -> idempotent ack (2026 rule)
    const sc = await c.request('tools/call', {
      name: 'slow_compute',
      arguments: { seconds: 30, label: 'smoke-cancel' },
    });
    const ack = await c.request('tasks/cancel', { taskId: sc.result.taskId });
    assert.equal(ack.result.resultType, 'complete');
    let st;
    for (let i = 0; i < MAX_POLLS && st !== 'cancelled'; i++) {
      await sleep(100);
      st = (await c.request('tasks/get', { taskId: sc.result.taskId })).result.status;
    }
    assert.equal(st, 'cancelled');
    const ack2 = await c.request('tasks/cancel', { taskId: sc.result.taskId });
    assert.equal(ack2.result?.resultType, 'complete');

    const c2s = rec.transcript.lines.filter((l) => l.dir === 'c2s' && l.msg?.method === 'tasks/get');
    assert.ok(c2s.every((l) => l.http.mcpName === l.msg.params.taskId && l.http.mcpMethod === 'tasks/get'));
  } finally {
    await rec.stop();
    const stop = await f.stop();
    assert.equal(stop.code, 0, `fastmcp fixture exit ${JSON.stringify(stop)}`);
  }
});
