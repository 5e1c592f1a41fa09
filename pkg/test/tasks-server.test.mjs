// The reference tasks server (examples/mcp-tasks-server.mjs) on the 2025-11-25 revision, for real
// on loopback, read back through the core's own wire readers: what it writes is what a 2025
// client reads without a violation, and its counters count what was asked.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildCall, buildRequest, readAnswer } from 'longcall';
import { createTasksServer } from '../examples/mcp-tasks-server.mjs';

const M = 'task-2025';
let both;
let only2026;
const urls = {};
before(async () => {
  both = createTasksServer({ serve2025: true, pollIntervalMs: 50 });
  only2026 = createTasksServer();
  urls.both = await both.listen(0);
  urls.only2026 = await only2026.listen(0);
});
after(async () => {
  await both.close();
  await only2026.close();
});

let id = 0;
async function post(url, built) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...built.headers },
    body: JSON.stringify(built.message),
  });
  return { status: res.status, text: await res.text() };
}
const read = (request, answer) => {
  const r = readAnswer(M, request, answer.text);
  assert.deepEqual(r.violations, [], `${request}: ${answer.text.slice(0, 200)}`);
  return r.input;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('without serve2025 a 2025 request is refused as another revision', async () => {
  const a = await post(urls.only2026, buildCall(M, ++id, 'slow_compute', { seconds: 0 }, null));
  assert.equal(a.status, 400);
  assert.match(JSON.parse(a.text).error.message, /not 2026-07-28.*started with --serve-2025/);
});

test('2025: create, poll, result with the related task, counted', async () => {
  const created = read('call', await post(urls.both, buildCall(M, ++id, 'slow_compute', { seconds: 0.05 }, 60_000)));
  assert.equal(created.type, 'task_created');
  assert.equal(created.task.ttlMs, 60_000);
  const handle = created.task.taskId;
  assert.equal(
    read('get', await post(urls.both, buildRequest(M, { kind: 'get', handle }, ++id))).task.status,
    'working',
  );
  await sleep(150);
  const done = read('get', await post(urls.both, buildRequest(M, { kind: 'get', handle }, ++id)));
  assert.equal(done.task.status, 'completed');
  const result = read('fetch_result', await post(urls.both, buildRequest(M, { kind: 'fetch_result', handle }, ++id)));
  assert.equal(result.type, 'result_fetched');
  assert.match(JSON.stringify(result), /slow_compute\(\) done/);
  assert.equal(both.counters.polls.get(handle).length, 2);
  assert.equal(both.counters.toolCalls.filter((c) => c.revision === '2025-11-25').length, 1);
  assert.equal(both.registry2025.peek(handle).status, 'completed');
  assert.equal(both.registry.size, 0, 'the 2026 registry holds nothing of it');
});

test('2025: a cancel answers the cancelled task; tasks/result then answers the error', async () => {
  const created = read('call', await post(urls.both, buildCall(M, ++id, 'slow_compute', { seconds: 30 }, null)));
  const handle = created.task.taskId;
  const cancel = read('cancel', await post(urls.both, buildRequest(M, { kind: 'cancel', handle }, ++id)));
  assert.deepEqual(cancel, { type: 'cancel_answered', answer: { kind: 'task', status: 'cancelled' } });
  assert.equal(both.counters.cancels.get(handle).length, 1);
  const result = readAnswer(
    M,
    'fetch_result',
    (await post(urls.both, buildRequest(M, { kind: 'fetch_result', handle }, ++id))).text,
  );
  assert.equal(result.input.type, 'request_failed');
  const again = read('cancel', await post(urls.both, buildRequest(M, { kind: 'cancel', handle }, ++id)));
  assert.equal(again.answer.kind, 'rpc_error', 'a terminal task is not cancelled again');
});

test('2025: a result carries no 2026 resultType; initialize names its revision in its params', async () => {
  const created = read('call', await post(urls.both, buildCall(M, ++id, 'slow_compute', { seconds: 0 }, null)));
  await sleep(100);
  const handle = created.task.taskId;
  const result = await post(urls.both, buildRequest(M, { kind: 'fetch_result', handle }, ++id));
  assert.ok(!JSON.parse(result.text).result.resultType, result.text);
  // The SDK clients send no MCP-Protocol-Version header on initialize: its params say 2025.
  const init = await fetch(urls.both, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: ++id,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  assert.equal(init.status, 200);
  assert.equal((await init.json()).result.protocolVersion, '2025-11-25');
});

// Creates a task of `tool`, then reads its tasks/result stream: the input request first (tagged
// with the task), answered with `content`; then the result, which must match `done`.
async function inputInsideResult(tool, args, content, done) {
  const created = read('call', await post(urls.both, buildCall(M, ++id, tool, args, null)));
  const handle = created.task.taskId;
  await sleep(100);
  assert.equal(
    read('get', await post(urls.both, buildRequest(M, { kind: 'get', handle }, ++id))).task.status,
    'input_required',
  );
  const built = buildRequest(M, { kind: 'fetch_result', handle }, ++id);
  const res = await fetch(urls.both, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...built.headers },
    body: JSON.stringify(built.message),
  });
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  // The stream: the server's request first, the answer last (after the client answered it).
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  const next = async () => {
    for (;;) {
      const end = text.indexOf('\n\n');
      if (end >= 0) {
        const event = text.slice(0, end);
        text = text.slice(end + 2);
        return JSON.parse(
          event
            .split('\n')
            .find((l) => l.startsWith('data: '))
            .slice(6),
        );
      }
      const { value, done } = await reader.read();
      assert.ok(!done, 'the stream ended early');
      text += value;
    }
  };
  const ask = await next();
  assert.equal(ask.method, 'elicitation/create');
  assert.deepEqual(ask.params._meta, { 'io.modelcontextprotocol/related-task': { taskId: handle } });
  const answered = await fetch(urls.both, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content } }),
  });
  assert.equal(answered.status, 202);
  const last = await next();
  assert.equal(last.id, built.message.id);
  assert.match(JSON.stringify(last.result), done);
  const input = readAnswer(M, 'fetch_result', JSON.stringify(last));
  assert.deepEqual(input.violations, []);
  assert.equal(both.registry2025.peek(handle).status, 'completed');
}

test('2025: an input request goes out inside tasks/result, tagged with the task; its answer completes it', () =>
  inputInsideResult('confirm_delete', { filename: 'a.txt' }, { confirm: true }, /Deleted a\.txt/));

test('2025: what a tool gathers before its task on 2026 (MRTR) is asked inside the task', () =>
  inputInsideResult('test_tool_with_task', {}, { name: 'Ada' }, /Hello Ada, task finished/));

test('2025: a JSON-RPC error goes with HTTP 200, as the 2025 SDK servers send it', async () => {
  const refused = await post(urls.both, buildCall(M, ++id, 'no_such_tool', {}, null));
  assert.equal(refused.status, 200);
  assert.equal(JSON.parse(refused.text).error.code, -32602);
  const unknown = await post(urls.both, buildRequest(M, { kind: 'get', handle: 'nope' }, ++id));
  assert.equal(unknown.status, 200);
  assert.equal(JSON.parse(unknown.text).error.code, -32602);
});

// A 2026 greet from a page at `origin`.
const greetFrom = (url, origin) => {
  const built = buildCall('task-2026', ++id, 'greet', {}, null);
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin, ...built.headers },
    body: JSON.stringify(built.message),
  });
};

test('pages: a page on this machine gets CORS headers and its preflight; another origin is refused', async () => {
  const url = urls.only2026;
  const preflight = await fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin: 'http://localhost:5173',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, mcp-protocol-version, mcp-method',
    },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get('access-control-allow-origin'), 'http://localhost:5173');
  assert.match(preflight.headers.get('access-control-allow-headers'), /mcp-protocol-version/);
  const ok = await greetFrom(url, 'http://127.0.0.1:4173');
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('access-control-allow-origin'), 'http://127.0.0.1:4173');
  const foreign = await greetFrom(url, 'http://evil.example');
  assert.equal(foreign.status, 403, 'another origin (DNS rebinding) is refused');
  assert.equal(foreign.headers.get('access-control-allow-origin'), null);
});

test('an origin named in allowOrigins is served', async () => {
  const srv = createTasksServer({ allowOrigins: ['https://app.example'] });
  const url = await srv.listen(0);
  try {
    const res = await greetFrom(url, 'https://app.example');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), 'https://app.example');
  } finally {
    await srv.close();
  }
});

test('slow_compute says its progress in statusMessage, all done once finished', async () => {
  const M26 = 'task-2026';
  const post26 = async (built) =>
    readAnswer(M26, built.message.method === 'tools/call' ? 'call' : 'get', (await post(urls.only2026, built)).text)
      .input;
  const created = await post26(buildCall(M26, ++id, 'slow_compute', { seconds: 2 }, null));
  assert.equal(created.type, 'task_created');
  const handle = created.task.taskId;
  await sleep(100);
  const polled = await post26(buildRequest(M26, { kind: 'get', handle }, ++id));
  assert.equal(polled.task.status, 'working');
  assert.equal(polled.task.statusMessage, '0 of 2 s done');
  // Finished, it does not say it is part done (a page trial saw "2 of 3 s done" on a result).
  await sleep(2100);
  const done = await post26(buildRequest(M26, { kind: 'get', handle }, ++id));
  assert.equal(done.task.status, 'completed');
  assert.equal(done.task.statusMessage, '2 of 2 s done');
});

test('--help prints the usage and exits', async () => {
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(
    process.execPath,
    [new URL('../examples/mcp-tasks-server.mjs', import.meta.url).pathname, '--help'],
    {
      encoding: 'utf8',
      timeout: 10_000,
    },
  );
  assert.equal(r.status, 0);
  assert.match(r.stdout, /^Usage: mcp-tasks-server\.mjs/);
  assert.match(r.stdout, /--allow-origin/);
});

test('a misspelt flag is refused, and a port in use is said in a line', async () => {
  const { spawnSync } = await import('node:child_process');
  const { createServer } = await import('node:net');
  const script = new URL('../examples/mcp-tasks-server.mjs', import.meta.url).pathname;
  const run = (...args) => spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', timeout: 10_000 });
  const typo = run('--prot', '3000');
  assert.equal(typo.status, 2);
  assert.match(typo.stderr, /Unknown option '--prot'; see --help/);
  const held = createServer();
  await new Promise((resolve) => held.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = held.address();
    const busy = run('--port', String(port));
    assert.equal(busy.status, 1);
    assert.equal(busy.stderr, `cannot listen on 127.0.0.1:${port}: the port is in use\n`);
  } finally {
    held.close();
  }
});

test('--poll-interval-ms sets the interval every task states; a bad value is refused', async () => {
  const { spawn, spawnSync } = await import('node:child_process');
  const script = new URL('../examples/mcp-tasks-server.mjs', import.meta.url).pathname;
  const bad = spawnSync(process.execPath, [script, '--poll-interval-ms', 'soon'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--poll-interval-ms: expected a whole number/);
  const child = spawn(process.execPath, [script, '--poll-interval-ms', '1500'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const m = /LISTENING (\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    const built = buildCall('task-2026', 1, 'slow_compute', { seconds: 1 }, null);
    const created = readAnswer('task-2026', 'call', (await post(url, built)).text).input;
    assert.equal(created.task.pollIntervalMs, 1500);
  } finally {
    child.kill();
  }
});

test('listTools through httpSender on 2026: the Mcp-Method header is added, a listed tool is called as given', async () => {
  const { listTools, httpSender, callTool, McpCallError } = await import('longcall/mcp');
  const sender = httpSender({ url: urls.only2026 });
  const { tools } = await listTools(sender);
  const slow = tools.find((t) => t.name === 'slow_compute');
  assert.ok(slow, `slow_compute among ${tools.map((t) => t.name).join(', ')}`);
  const h = await callTool(sender, { tool: slow, arguments: { seconds: 0 } });
  assert.equal((await h.outcome).outcome, 'succeeded');
  // A server's refusal comes back as one coded error, its JSON-RPC error kept.
  const refusing = {
    model: 'task-2026',
    send: async (m) => ({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } }),
  };
  await assert.rejects(
    listTools(refusing),
    (e) => e instanceof McpCallError && e.code === 'tools_list_failed' && e.error.code === -32601,
  );
  await assert.rejects(listTools(sender, { cursor: 5 }), {
    code: 'invalid_input',
    message: 'listTools: cursor must be a string, got number',
  });
});
