// MCP wire exports (readAnswer, readResult, readNotification, buildRequest, buildCall, requestMeta), in
// Node and Chromium. Answers are shaped like the recorded transcripts (SDK 1.32.2 for 2025,
// fastmcp-tasks 4.1.4 for 2026); then every export on junk: an Error with a `code`, never a trap.
const T = '2026-11-29T15:07:54.708861+00:00';
const res = (id, result) => JSON.stringify({ jsonrpc: '2.0', id, result });
const err = (id, code, message = 'x', data) =>
  JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } });
const task26 = (extra) => ({
  taskId: 'tk',
  status: 'working',
  createdAt: T,
  lastUpdatedAt: T,
  ttlMs: 900000,
  pollIntervalMs: 200,
  ...extra,
});
const task25 = (extra) => ({
  taskId: 'tk',
  status: 'working',
  createdAt: '2026-11-29T15:07:54.708Z',
  lastUpdatedAt: '2026-11-29T15:07:54.708Z',
  ttl: 60000,
  pollInterval: 250,
  ...extra,
});
const CAP = 'io.modelcontextprotocol/clientCapabilities';
const EXT = 'io.modelcontextprotocol/tasks';

function codeOf(fn) {
  try {
    fn();
  } catch (e) {
    return e instanceof Error ? e.code : `not an Error: ${e}`;
  }
  return undefined;
}

export const cases = {
  '2026 tools/call: flat CreateTaskResult is task_created, a plain result is call_result'({ lc, assert }) {
    const a = lc.readAnswer('task-2026', 'call', res(1, { ...task26(), resultType: 'task' }));
    assert.equal(a.id, 1);
    assert.equal(a.input.type, 'task_created');
    assert.equal(a.input.task.taskId, 'tk');
    assert.equal(a.input.task.pollIntervalMs, 200);
    assert.equal(a.input.task.ttlMs, 900000);
    assert.deepEqual(a.violations, []);
    const r = lc.readAnswer('task-2026', 'call', {
      jsonrpc: '2.0',
      id: 2,
      result: { content: [], isError: true, resultType: 'complete' },
    });
    assert.equal(r.input.type, 'call_result');
    assert.equal(r.input.result.isError, true);
    const e = lc.readAnswer(
      'task-2026',
      'call',
      err(3, -32021, 'needs tasks', { requiredCapabilities: { extensions: { [EXT]: {} } } }),
    );
    assert.equal(e.input.type, 'call_error');
    assert.equal(e.input.error.code, -32021);
  },
  '2026 CreateTaskResult without resultType "task" or ttlMs: violations, still a call answer'({ lc, assert }) {
    const { ttlMs, ...noTtl } = task26();
    const a = lc.readAnswer('task-2026', 'call', res(1, { ...noTtl, resultType: 'task' }));
    assert.equal(a.input.type, 'task_created');
    assert.ok(
      a.violations.some((v) => v.rule === 'missing_field'),
      JSON.stringify(a.violations),
    );
  },
  '2026 tasks/get: input_required with server-minted keys, completed with result, failed with error'({ lc, assert }) {
    const ir = lc.readAnswer(
      'task-2026',
      'get',
      res(4, {
        ...task26({ status: 'input_required' }),
        resultType: 'complete',
        inputRequests: { 'tk:00ff': { method: 'elicitation/create', params: { message: 'ok?' } } },
      }),
    );
    assert.equal(ir.input.type, 'task_polled');
    assert.equal(ir.input.task.inputRequests[0].key, 'tk:00ff');
    const done = lc.readAnswer(
      'task-2026',
      'get',
      res(5, {
        ...task26({ status: 'completed' }),
        resultType: 'complete',
        result: { content: [{ type: 'text', text: 'hi' }], isError: false },
      }),
    );
    assert.equal(done.input.task.status, 'completed');
    assert.equal(done.input.task.result.isError, false);
    const failed = lc.readAnswer(
      'task-2026',
      'get',
      res(6, { ...task26({ status: 'failed' }), resultType: 'complete', error: { code: -32603, message: 'boom' } }),
    );
    assert.equal(failed.input.task.error.code, -32603);
    const gone = lc.readAnswer('task-2026', 'get', err(7, -32602, 'Task tk not found'));
    assert.deepEqual(gone.input, {
      type: 'request_failed',
      request: 'get',
      failure: { kind: 'rpc', error: { code: -32602, message: 'Task tk not found' } },
    });
  },
  '2026 acks: update_acked and cancel_answered ack; a wrong resultType is a violation'({ lc, assert }) {
    assert.deepEqual(lc.readAnswer('task-2026', 'update', res(8, { resultType: 'complete' })).input, {
      type: 'update_acked',
    });
    const c = lc.readAnswer('task-2026', 'cancel', res(9, { resultType: 'complete' }));
    assert.deepEqual(c.input, { type: 'cancel_answered', answer: { kind: 'ack' } });
    assert.deepEqual(c.violations, []);
    const bad = lc.readAnswer('task-2026', 'cancel', res(9, {}));
    assert.ok(bad.violations.some((v) => v.rule === 'wrong_result_type'));
    assert.deepEqual(lc.readAnswer('task-2026', 'cancel', err(10, -32602)).input, {
      type: 'cancel_answered',
      answer: { kind: 'rpc_error', code: -32602 },
    });
  },
  '2025: nested create, tasks/get, tasks/result success and error, cancel task and -32602'({ lc, assert }) {
    const c = lc.readAnswer('task-2025', 'call', res(1, { task: task25() }));
    assert.equal(c.input.type, 'task_created');
    assert.equal(c.input.task.pollIntervalMs, 250);
    assert.equal(c.input.task.ttlMs, 60000);
    assert.equal(lc.readAnswer('task-2025', 'get', res(2, task25({ status: 'failed' }))).input.task.status, 'failed');
    const r = lc.readAnswer(
      'task-2025',
      'fetch_result',
      res(3, { content: [], isError: true, _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'tk' } } }),
    );
    assert.equal(r.input.type, 'result_fetched');
    assert.equal(r.input.result.isError, true);
    assert.deepEqual(r.violations, []);
    const noMeta = lc.readAnswer('task-2025', 'fetch_result', res(3, { content: [] }));
    assert.ok(noMeta.violations.some((v) => v.rule === 'missing_field'));
    const re = lc.readAnswer('task-2025', 'fetch_result', err(4, -32603, 'no result stored'));
    assert.equal(re.input.type, 'request_failed');
    assert.equal(re.input.request, 'fetch_result');
    assert.deepEqual(lc.readAnswer('task-2025', 'cancel', res(5, task25({ status: 'cancelled' }))).input, {
      type: 'cancel_answered',
      answer: { kind: 'task', status: 'cancelled' },
    });
    assert.deepEqual(
      lc.readAnswer(
        'task-2025',
        'cancel',
        err(6, -32602, 'MCP error -32602: Cannot cancel task in terminal status: completed'),
      ).input,
      { type: 'cancel_answered', answer: { kind: 'rpc_error', code: -32602 } },
    );
  },
  'readResult: a result as an SDK client returns it passes in unchanged'({ lc, assert }) {
    // The TypeScript SDK's `client.request(...)` resolves with the result alone: a 2025 Task
    // with its wire names (createdAt, ttl, pollInterval), as in the SDK 1.32.2 transcripts.
    const raw = task25({ statusMessage: 'rendering' });
    const alone = lc.readResult('task-2025', 'get', raw);
    const whole = lc.readAnswer('task-2025', 'get', res(7, raw));
    assert.equal(alone.id, null);
    assert.deepEqual(alone.input, whole.input);
    assert.deepEqual(alone.violations, whole.violations);
    assert.equal(alone.input.task.pollIntervalMs, 250);
    assert.deepEqual(lc.readResult('task-2025', 'get', JSON.stringify(raw)), alone, 'the text reads the same');
    // 2026, and the creating call's result.
    const created = lc.readResult('task-2026', 'call', { ...task26(), resultType: 'task' });
    assert.equal(created.input.type, 'task_created');
    const t = new lc.Tracker('task-2026', { poll: { jitter: 'none' } });
    t.handleInput(0, created.input);
    const out = t.handleInput(
      300,
      lc.readResult('task-2026', 'get', task26({ status: 'completed', result: { content: [] } })).input,
    );
    assert.equal(out.find((o) => o.type === 'settled')?.outcome, 'succeeded');
    t.free();
    // What the whole answer refuses, the result alone refuses the same way.
    assert.equal(
      codeOf(() => lc.readResult('task-2025', 'get', { status: 'working' })),
      'malformed',
    );
    assert.equal(
      codeOf(() => lc.readResult('job', 'get', raw)),
      'wrong_model',
    );
    // The message reads right when the model given is the wrong one (not a machine's).
    assert.throws(() => lc.buildCall('job', 1, 'render', {}), {
      code: 'wrong_model',
      message: 'wrong model: expected task-2026, got job',
    });
    assert.equal(
      codeOf(() => lc.readResult('task-2025', 'get', '{not json')),
      'malformed',
    );
  },

  'notifications: task_notified for the revision name, null for others'({ lc, assert }) {
    const n = lc.readNotification('task-2025', {
      jsonrpc: '2.0',
      method: 'notifications/tasks/status',
      params: task25({ status: 'completed' }),
    });
    assert.equal(n.input.type, 'task_notified');
    assert.equal(n.id, null);
    assert.equal(
      lc.readNotification('task-2026', { jsonrpc: '2.0', method: 'notifications/tasks/status', params: task25() }),
      null,
    );
    assert.equal(
      lc.readNotification(
        'task-2026',
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tasks', params: task26() }),
      ).input.task.taskId,
      'tk',
    );
  },
  'answers feed a Tracker end to end (2026 create, poll, completed)'({ lc, assert }) {
    const t = new lc.Tracker('task-2026', { seed: 1 });
    let out = t.handleInput(0, lc.readAnswer('task-2026', 'call', res(1, { ...task26(), resultType: 'task' })).input);
    const wake = out.at(-1);
    assert.equal(wake.type, 'wake_at');
    assert.ok(wake.at >= 200);
    out = t.handleTimeout(wake.at);
    const send = out.find((o) => o.type === 'send');
    const built = lc.buildRequest('task-2026', send.request, 2);
    assert.equal(built.message.method, 'tasks/get');
    out = t.handleInput(
      wake.at + 5,
      lc.readAnswer(
        'task-2026',
        'get',
        res(2, { ...task26({ status: 'completed' }), resultType: 'complete', result: { content: [] } }),
      ).input,
    );
    assert.deepEqual(
      out.find((o) => o.type === 'settled'),
      { type: 'settled', outcome: 'succeeded', status: 'completed', result: { content: [] } },
    );
  },
  'buildRequest 2026: capability _meta, Mcp-Method, Mcp-Name = taskId, MCP-Protocol-Version'({ lc, assert }) {
    for (const [req, method] of [
      [{ kind: 'get', handle: 't1' }, 'tasks/get'],
      [{ kind: 'cancel', handle: 't1' }, 'tasks/cancel'],
      [
        { kind: 'update', handle: 't1', responses: [['k', { action: 'accept', content: { ok: true } }]] },
        'tasks/update',
      ],
    ]) {
      const b = lc.buildRequest('task-2026', req, 11);
      assert.equal(b.message.jsonrpc, '2.0');
      assert.equal(b.message.id, 11);
      assert.equal(b.message.method, method);
      assert.equal(b.message.params.taskId, 't1');
      assert.deepEqual(b.message.params._meta[CAP].extensions[EXT], {});
      assert.deepEqual(b.headers, { 'Mcp-Method': method, 'Mcp-Name': 't1', 'MCP-Protocol-Version': '2026-07-28' });
    }
    const u = lc.buildRequest(
      'task-2026',
      { kind: 'update', handle: 't1', responses: [['k', { action: 'accept' }]] },
      'x',
    );
    assert.deepEqual(u.message.params.inputResponses, { k: { action: 'accept' } });
    assert.equal(u.message.id, 'x');
    assert.equal(
      lc.buildRequest('task-2026', { kind: 'get', handle: 'tâche' }, 1).headers['Mcp-Name'],
      '=?base64?dMOiY2hl?=',
    );
  },
  'buildRequest 2025 and buildCall for both revisions'({ lc, assert }) {
    const r = lc.buildRequest('task-2025', { kind: 'fetch_result', handle: 't1' }, 3);
    assert.deepEqual(r.message, { jsonrpc: '2.0', id: 3, method: 'tasks/result', params: { taskId: 't1' } });
    assert.deepEqual(r.headers, { 'MCP-Protocol-Version': '2025-11-25' });
    const c25 = lc.buildCall('task-2025', 1, 'slow_steps', { steps: 2 }, 60000);
    assert.deepEqual(c25.message.params, { name: 'slow_steps', arguments: { steps: 2 }, task: { ttl: 60000 } });
    const c26 = lc.buildCall('task-2026', 1, 'greet', { name: 'a' });
    assert.equal(c26.message.params.task, undefined);
    // Rule M-21: the whole stateless envelope, longcall named by default.
    assert.deepEqual(c26.message.params._meta, lc.requestMeta());
    assert.equal(c26.message.params._meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
    assert.equal(c26.message.params._meta['io.modelcontextprotocol/clientInfo'].name, 'longcall');
    const studio = lc.requestMeta({ name: 'studio', version: '2.1.0' });
    assert.deepEqual(studio['io.modelcontextprotocol/clientInfo'], { name: 'studio', version: '2.1.0' });
    assert.throws(() => lc.requestMeta({ name: 'studio' }), { code: 'malformed', message: /version/ });
    assert.deepEqual(c26.headers, {
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'greet',
      'MCP-Protocol-Version': '2026-07-28',
    });
    assert.deepEqual(lc.buildCall('task-2025', 2, 'x').message.params, { name: 'x', arguments: {}, task: {} });
  },
  'httpMessages: the JSON-RPC messages of a JSON or event-stream answer; none in an error page'({ lc, assert }) {
    const sse = { status: 200, headers: [['Content-Type', 'text/event-stream']] };
    assert.deepEqual(
      lc.httpMessages(sse, 'event: message\ndata: {"id":1,\ndata: "result":{}}\n\n: ping\n\ndata: 2\n'),
      ['{"id":1,\n"result":{}}', '2'],
    );
    const error = '{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"no"}}';
    assert.deepEqual(lc.httpMessages({ status: 400, headers: { 'content-type': 'application/json' } }, error), [error]);
    assert.deepEqual(lc.httpMessages({ status: 502 }, '<h1>Bad gateway</h1>'), []);
    assert.deepEqual(lc.httpMessages({ status: 200 }, new TextEncoder().encode('{}')), ['{}']);
    assert.equal(
      codeOf(() => lc.httpMessages({ status: 'x' }, '')),
      'invalid_input',
    );
  },
  'requests a revision does not have are refused'({ lc, assert }) {
    assert.equal(
      codeOf(() => lc.buildRequest('task-2025', { kind: 'update', handle: 't', responses: [] }, 1)),
      'invalid_input',
    );
    assert.equal(
      codeOf(() => lc.buildRequest('task-2026', { kind: 'fetch_result', handle: 't' }, 1)),
      'invalid_input',
    );
    assert.equal(
      codeOf(() => lc.readAnswer('task-2025', 'update', res(1, { resultType: 'complete' }))),
      'invalid_input',
    );
    assert.equal(
      codeOf(() => lc.readAnswer('task-2026', 'fetch_result', res(1, { content: [] }))),
      'invalid_input',
    );
    assert.equal(
      codeOf(() => lc.readAnswer('job', 'get', res(1, {}))),
      'wrong_model',
    );
    assert.equal(
      codeOf(() => lc.buildCall('job', 1, 'x', {})),
      'wrong_model',
    );
  },
  'junk into every wire export: an Error with a code, and the module keeps working'({ lc, assert }) {
    const cyclic = {};
    cyclic.self = cyclic;
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const junk = [
      undefined,
      null,
      0,
      -1,
      NaN,
      1e308,
      '',
      '{',
      'null',
      '[]',
      '{"jsonrpc":"2.0"}',
      deep,
      cyclic,
      [],
      {},
      () => 1,
      Symbol('s'),
      res(1, { resultType: 'task' }),
      res(1, { resultType: 'task', taskId: 1, status: 'working' }),
      res(1, { task: { taskId: 't', status: 'pending' } }),
      JSON.stringify({ jsonrpc: '2.0', method: 'tasks/get', id: 1 }),
      JSON.stringify({ jsonrpc: '2.0', id: 1.5, result: {} }),
      'x'.repeat(1 << 16),
    ];
    const models = ['task-2026', 'task-2025', 'job', 'nope', 7, null];
    const kinds = ['call', 'get', 'cancel', 'update', 'fetch_result', 'tasks/get', 3, null];
    let threw = 0;
    for (const j of junk) {
      for (const m of models) {
        for (const k of kinds) {
          try {
            lc.readAnswer(m, k, j);
          } catch (e) {
            threw++;
            assert.ok(e instanceof Error && typeof e.code === 'string', `readAnswer ${String(e)}`);
          }
        }
        for (const f of [
          () => lc.readNotification(m, j),
          () => lc.buildRequest(m, j, 1),
          () => lc.buildRequest(m, { kind: 'get', handle: 't' }, j),
          () => lc.buildCall(m, j, 'n', {}),
          () => lc.buildCall(m, 1, j, {}),
          () => lc.buildCall(m, 1, 'n', j),
          () => lc.buildCall(m, 1, 'n', {}, j),
        ]) {
          try {
            f();
          } catch (e) {
            threw++;
            assert.ok(e instanceof Error && typeof e.code === 'string', String(e));
          }
        }
      }
    }
    assert.ok(threw > 1000);
    assert.equal(
      codeOf(() => lc.readAnswer('task-2026', 'get', deep)),
      'too_deep',
    );
    assert.equal(lc.readAnswer('task-2026', 'update', res(1, { resultType: 'complete' })).input.type, 'update_acked');
    assert.equal(lc.observe('job', 'queued', 'completed'), 'skipped');
  },
};
