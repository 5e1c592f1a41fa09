// The Endpoint export the hosts run on (bindings/wasm/src/endpoint.rs), in Node and Chromium: one call end to end
// with answers handed over as they arrived (text and bytes), camelCase events, the server's
// payload untouched, and a coded Error for every refusal.
const T = '2026-11-29T15:07:54.708Z';
const task = (status, extra = {}) => ({
  taskId: 't1',
  status,
  createdAt: T,
  lastUpdatedAt: T,
  ttlMs: 60000,
  pollIntervalMs: 100,
  ...extra,
});
const answer = (id, result) => JSON.stringify({ jsonrpc: '2.0', id, result });
const CONFIG = { poll: { jitter: 'none' } };

function codeOf(fn) {
  try {
    fn();
  } catch (e) {
    return e instanceof Error ? e.code : `not an Error: ${String(e)}`;
  }
  return 'no throw';
}

export const cases = {
  '2026 task over HTTP: a 429 page holds the next poll back, an event stream is read (E-67)'({ lc, assert }) {
    const ep = lc.Endpoint.callTool('task-2026', 'render', {}, null, CONFIG, null);
    ep.pollEvents();
    const created = ep.handleHttpAnswer(
      5,
      1,
      { status: 200, headers: { 'content-type': 'application/json' } },
      answer(1, { resultType: 'task', ...task('working') }),
    );
    const poll = ep.handleTimeout(created.at(-1).at).find((e) => e.type === 'transmit');
    const busy = ep.handleHttpAnswer(200, poll.id, { status: 429, headers: { 'Retry-After': '3' } }, '<h1>slow</h1>');
    assert.deepEqual(
      busy.filter((e) => e.type === 'violation'),
      [],
    );
    assert.deepEqual(busy.at(-1), { type: 'wake_at', at: 3200 });
    const again = ep.handleTimeout(3200).find((e) => e.type === 'transmit');
    const done = answer(again.id, { resultType: 'complete', ...task('completed', { result: { content: [] } }) });
    const out = ep.handleHttpAnswer(
      3300,
      again.id,
      { status: 200, headers: { 'Content-Type': 'text/event-stream' } },
      `event: message\ndata: ${done}\n\n`,
    );
    assert.equal(out.find((e) => e.type === 'settled')?.outcome, 'succeeded');
  },

  '2026 task: transmit, create, poll, settled with the result as the server sent it (E-1)'({ lc, assert }) {
    const ep = lc.Endpoint.callTool('task-2026', 'render', { n: 1 }, null, CONFIG, null);
    const first = ep.pollEvents();
    assert.equal(first[0].type, 'transmit');
    assert.equal(first[0].kind, 'rpc');
    assert.equal(first[0].id, 1);
    assert.equal(first[0].headers['Mcp-Name'], 'render');
    assert.equal(JSON.parse(first[0].text).method, 'tools/call');
    assert.equal(first.at(-1).type, 'idle');
    const created = ep.handleMessage(5, answer(1, { resultType: 'task', ...task('working') }));
    const wake = created.at(-1);
    assert.equal(wake.type, 'wake_at');
    assert.ok(wake.at >= 105, `the server's interval is a floor: ${wake.at}`);
    assert.equal(ep.id, 't1');
    const poll = ep.handleTimeout(wake.at);
    const get = poll.find((e) => e.type === 'transmit');
    assert.equal(JSON.parse(get.text).method, 'tasks/get');
    const done = task('completed', { result: { content: [], structured_content: { snake_key: 1 } } });
    const bytes = new TextEncoder().encode(answer(get.id, { resultType: 'complete', ...done }));
    const out = ep.handleMessage(wake.at + 5, bytes);
    const settled = out.find((e) => e.type === 'settled');
    assert.equal(settled.outcome, 'succeeded');
    assert.equal(settled.status, 'completed');
    assert.deepEqual(settled.result.structured_content, { snake_key: 1 });
    assert.equal(ep.isDone, true);
  },

  "2025: the server's elicitation on the result stream is asked once and answered by a reply (I-10)"({ lc, assert }) {
    const ep = lc.Endpoint.watch('task-2025', 't1', CONFIG, null);
    const get = ep.pollEvents().find((e) => e.type === 'transmit');
    const t25 = (status) => ({ taskId: 't1', status, ttl: null, createdAt: T, lastUpdatedAt: T });
    const fetch = ep.handleMessage(1, answer(get.id, t25('input_required'))).find((e) => e.type === 'transmit');
    assert.equal(JSON.parse(fetch.text).method, 'tasks/result');
    const elicit = JSON.stringify({
      jsonrpc: '2.0',
      id: 'e-1',
      method: 'elicitation/create',
      params: { message: 'Delete a.txt?', _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't1' } } },
    });
    const asked = ep.handleMessage(2, elicit).filter((e) => e.type === 'ask_user');
    assert.equal(asked.length, 1);
    assert.equal(asked[0].key, 'elicitation/create#"e-1"');
    assert.deepEqual(asked[0].request.params.message, 'Delete a.txt?');
    assert.deepEqual(
      ep.handleMessage(3, elicit).filter((e) => e.type === 'ask_user'),
      [],
      'asked once',
    );
    const out = ep.answerInput(4, asked[0].key, { action: 'accept', content: { confirm: true } });
    const reply = out.find((e) => e.type === 'transmit');
    assert.equal(reply.kind, 'reply');
    assert.equal(reply.headers['MCP-Protocol-Version'], '2025-11-25');
    assert.deepEqual(JSON.parse(reply.text), {
      jsonrpc: '2.0',
      id: 'e-1',
      result: { action: 'accept', content: { confirm: true } },
    });
  },

  'watch starts with a poll and assumes no status (E-6)'({ lc, assert }) {
    const ep = lc.Endpoint.watch('task-2026', 't9', CONFIG, null);
    const events = ep.pollEvents();
    assert.equal(events.filter((e) => e.type === 'status').length, 0);
    assert.equal(JSON.parse(events[0].text).params.taskId, 't9');
    assert.equal(ep.status, undefined);
  },

  'an unreadable answer is reported and the poll asked again (E-2)'({ lc, assert }) {
    const ep = lc.Endpoint.watch('task-2026', 't9', CONFIG, null);
    ep.pollEvents();
    const out = ep.handleMessage(1, '<html>502</html>');
    assert.equal(out[0].type, 'violation');
    assert.equal(out[0].violation.rule, 'unreadable_answer');
    assert.equal(out.at(-1).type, 'wake_at');
  },

  'an answer that answers another request leaves its own unanswered (E-1)'({ lc, assert }) {
    // A server that could not read the poll answers with a null id.
    const parseError = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}';
    const unpaired = lc.Endpoint.watch('task-2026', 't9', CONFIG, null);
    unpaired.pollEvents();
    assert.equal(unpaired.handleMessage(1, parseError).at(-1).type, 'idle');
    const ep = lc.Endpoint.watch('task-2026', 't9', CONFIG, null);
    const [poll] = ep.pollEvents();
    const out = ep.handleAnswer(1, poll.id, parseError);
    assert.ok(
      out.some((e) => e.type === 'violation' && e.violation.rule === 'unknown_answer_id'),
      JSON.stringify(out),
    );
    const wake = out.at(-1);
    assert.equal(wake.type, 'wake_at', JSON.stringify(out));
    const again = ep.handleTimeout(wake.at);
    assert.equal(JSON.parse(again.find((e) => e.type === 'transmit').text).method, 'tasks/get');
  },

  'snapshot and restore: a tools/call in flight is never sent again (E-5)'({ lc, assert }) {
    const ep = lc.Endpoint.callTool('task-2026', 'paid', {}, null, null, null);
    ep.pollEvents();
    const back = lc.Endpoint.restore(ep.snapshot(), 10);
    const out = back.pollEvents();
    assert.equal(out.filter((e) => e.type === 'transmit').length, 0);
    assert.ok(out.some((e) => e.type === 'stopped' && e.reason === 'create_unanswered'));
  },

  'job transmits are HTTP requests with a requestRef (E-7)'({ lc, assert }) {
    const ep = lc.Endpoint.watch('job', 'job_1', null, { jobRoutes: { get: ['GET', '/jobs/{id}'] } });
    const [get] = ep.pollEvents();
    assert.equal(get.kind, 'http');
    assert.equal(get.requestRef, 1);
    assert.equal(get.path, '/jobs/job_1');
    const out = ep.handleHttp(2, get.requestRef, 200, null, JSON.stringify({ id: 'job_1', status: 'queued' }));
    assert.ok(out.some((e) => e.type === 'button' && e.state === 'available'));
  },

  'callTool takes its options as an object or positionally, to the same call'({ lc, assert }) {
    const wire = { maxBytes: 65_536 };
    const a = lc.Endpoint.callTool('task-2026', 'render', { n: 1 }, { ttlMs: null, config: CONFIG, wire, now: 5 });
    const b = lc.Endpoint.callTool('task-2026', 'render', { n: 1 }, null, CONFIG, wire, 5);
    const first = a.pollEvents();
    assert.deepEqual(first, b.pollEvents());
    // The TTL goes where the revision asks for one (2025: `task.ttl`).
    const ttl = lc.Endpoint.callTool('task-2025', 'render', {}, { ttlMs: 60_000 });
    assert.equal(JSON.parse(ttl.pollEvents()[0].text).params.task.ttl, 60_000);
    ttl.free();
    // A 2026 tools/call asks no TTL: one given is refused, never dropped (M-18).
    assert.throws(() => lc.Endpoint.callTool('task-2026', 'render', {}, { ttlMs: 60_000 }), {
      code: 'invalid_input',
      message: /^invalid input: ttlMs: a 2026 tools\/call asks no TTL/,
    });
    const created = answer(1, { resultType: 'task', ...task('working') });
    assert.deepEqual(a.handleMessage(5, created), b.handleMessage(5, created));
    for (const ep of [a, b]) ep.free();
    assert.throws(() => lc.Endpoint.callTool('task-2026', 'render', {}, { ttl: 5 }), {
      code: 'invalid_input',
      message:
        'Endpoint.callTool: unknown option "ttl" (did you mean "ttlMs"?); expected one of ttlMs, config, wire, now',
    });
    assert.throws(() => lc.Endpoint.callTool('task-2026', 'render', {}, { config: { poll: { capMS: 5 } } }), {
      code: 'invalid_config',
    });
    // A deadline already passed is refused before anything is sent, as with `now` positional.
    assert.throws(() => lc.Endpoint.callTool('task-2026', 'render', {}, { config: { deadlineMs: 4 }, now: 5 }), {
      code: 'invalid_config',
    });
  },

  'refusals are Errors with a code'({ lc, assert }) {
    assert.equal(
      codeOf(() => lc.Endpoint.callTool('job', 'x', {}, null, null, null)),
      'wrong_model',
    );
    assert.equal(
      codeOf(() => lc.Endpoint.callTool('nope', 'x', {}, null, null, null)),
      'unknown_model',
    );
    assert.equal(
      codeOf(() => lc.Endpoint.restore('junk', 0)),
      'snapshot_invalid',
    );
    assert.equal(
      codeOf(() => lc.Endpoint.watch('task-2026', 't', null, { maxByte: 1 })),
      'malformed',
    );
    const ep = lc.Endpoint.watch('task-2026', 't', null, null);
    assert.equal(
      codeOf(() => ep.handleMessage(-1, '{}')),
      'invalid_input',
    );
    assert.equal(
      codeOf(() => ep.handleMessage(0, 42)),
      'invalid_input',
    );
    assert.equal(
      codeOf(() => ep.answerInput(0, 'never-asked', { action: 'accept' })),
      'invalid_input',
    );
    assert.equal(
      codeOf(() => ep.pressCancel(0)),
      'cancel_refused',
    );
  },

  'a job submit carries the intent key; a 429 goes again with it after Retry-After (E-11)'({ lc, assert }) {
    const submit = {
      model: 'demo-image',
      kind: 'image',
      arguments: { prompt: 'x', camelArg: 1 },
      idempotencyKey: 'intent-1',
    };
    const ep = lc.Endpoint.submitJob(submit, CONFIG, { jobDialect: 'open_api' });
    assert.equal(ep.submitKey, 'intent-1');
    const [first] = ep.pollEvents();
    assert.equal(first.kind, 'http');
    assert.equal(first.method, 'POST');
    assert.equal(first.path, '/v1/image-router/generate');
    assert.equal(first.headers['Idempotency-Key'], 'intent-1');
    assert.deepEqual(JSON.parse(first.body), { model: 'demo-image', prompt: 'x', camelArg: 1 }, 'arguments as given');
    const refused = JSON.stringify({ error: { code: 'rate_limit_exceeded', message: 'slow down', retryable: true } });
    const out = ep.handleHttpAnswer(
      1000,
      first.requestRef,
      {
        status: 429,
        headers: [
          ['Retry-After', '3'],
          ['x-sume-request-id', 'req_9'],
        ],
      },
      refused,
    );
    const admission = out.find((e) => e.type === 'admission');
    assert.equal(admission.advice.advice, 'retry_after');
    assert.equal(admission.advice.notBeforeMs, 3000);
    assert.equal(admission.requestId, 'req_9');
    const wake = out.at(-1);
    assert.equal(wake.type, 'wake_at');
    assert.ok(wake.at >= 4000, `not before Retry-After: ${wake.at}`);
    const again = ep.handleTimeout(wake.at).find((e) => e.type === 'transmit');
    assert.equal(again.headers['Idempotency-Key'], 'intent-1', 'the same key');
    assert.equal(ep.submitTries, 2);
    const created = new TextEncoder().encode(JSON.stringify({ data: { request_id: 'job_1', sume_status: 'queued' } }));
    ep.handleHttpAnswer(wake.at + 5, again.requestRef, { status: 200, headers: {} }, created);
    assert.equal(ep.id, 'job_1');
    assert.equal(ep.submitKey, undefined);
    assert.equal(ep.button, 'available');
  },

  'a record vouches only for the job its intent submitted, watched again too, no sooner than its floor (E-66, E-6, P-16)'({
    lc,
    assert,
  }) {
    const submit = {
      model: 'demo-image',
      kind: 'image',
      arguments: { prompt: 'x', size: 2 },
      idempotencyKey: 'intent-2',
    };
    const ep = lc.Endpoint.submitJob(submit, CONFIG, null);
    const [first] = ep.pollEvents();
    ep.handleHttpAnswer(5, first.requestRef, { status: 200 }, JSON.stringify({ id: 'job_2', status: 'queued' }));
    ep.stopWatching(6);
    const record = lc.Endpoint.restore(ep.snapshot(), 7);
    ep.free();
    // The same job, its arguments in another order: the record's job.
    assert.equal(record.checkSubmit({ ...submit, arguments: { size: 2, prompt: 'x' } }), undefined);
    assert.equal(
      codeOf(() => record.checkSubmit({ ...submit, arguments: { prompt: 'y', size: 2 } })),
      'duplicate',
    );
    assert.equal(
      codeOf(() => record.checkSubmit({ ...submit, idempotencyKey: 'intent-3' })),
      'duplicate',
    );
    assert.equal(
      codeOf(() => record.checkSubmit({ ...submit, extra: 1 })),
      'malformed',
    );
    const again = record.watchAgain(CONFIG);
    record.free();
    // The submit was answered at 5: the first poll waits for the 500 ms floor after it, and
    // the status last seen stands until then.
    assert.deepEqual(again.pollEvents(), [
      { type: 'status', status: 'queued' },
      { type: 'button', state: 'available' },
      { type: 'wake_at', at: 505 },
    ]);
    const [poll] = again.handleTimeout(505);
    assert.deepEqual([poll.method, poll.path], ['GET', '/jobs/job_2']);
    assert.equal(
      codeOf(() => again.checkSubmit({ ...submit, model: 'demo-video' })),
      'duplicate',
    );
    again.handleHttpAnswer(
      9,
      poll.requestRef,
      { status: 200 },
      JSON.stringify({ id: 'job_2', status: 'completed', result: {} }),
    );
    assert.equal(again.outcome, 'succeeded');
    assert.equal(
      codeOf(() => again.watchAgain(CONFIG)),
      'invalid_input',
      'settled: nothing to watch',
    );
    again.free();
  },

  'a job submit in the MCP tools dialect, and refused arguments (E-10)'({ lc, assert }) {
    const ep = lc.Endpoint.submitJob({ model: 'm', kind: 'video', idempotencyKey: 'k' }, null, null);
    const [first] = ep.pollEvents();
    assert.equal(first.path, '/jobs');
    assert.deepEqual(JSON.parse(first.body), { model: 'm', idempotency_key: 'k' });
    assert.equal(
      codeOf(() => lc.Endpoint.submitJob({ model: 'm', kind: 'image', idempotencyKey: 'k', intent: 1 })),
      'malformed',
    );
    assert.equal(
      codeOf(() => lc.Endpoint.submitJob({ model: 'm', kind: 'audio', idempotencyKey: 'k' })),
      'invalid_input',
    );
    assert.equal(
      codeOf(() => lc.Endpoint.submitJob({ model: 'm', kind: 'image', idempotencyKey: '' })),
      'invalid_input',
    );
    assert.equal(
      codeOf(() =>
        lc.Endpoint.submitJob({ model: 'm', kind: 'image', idempotencyKey: 'k' }, null, { jobDialect: 'soap' }),
      ),
      'malformed',
    );
    assert.equal(
      codeOf(() => ep.handleHttpAnswer(1, first.requestRef, { status: 200, header: {} }, '{}')),
      'malformed',
    );
    assert.equal(
      codeOf(() => ep.handleHttpAnswer(1, first.requestRef, { status: 200, headers: [['a', 1]] }, '{}')),
      'invalid_input',
    );
    assert.equal(
      codeOf(() => ep.handleHttpAnswer(1, first.requestRef, { status: 70000 }, '{}')),
      'invalid_input',
    );
  },
  'a look asked for brings the next poll to the floor after the last one, and no nearer (P-15)'({ lc, assert }) {
    const config = { poll: { jitter: 'none', initialMs: 8000, capMs: 8000, minIntervalMs: 500 } };
    const ep = lc.Endpoint.submitJob(
      { model: 'demo-image', kind: 'image', arguments: {}, idempotencyKey: 'intent-look' },
      config,
      null,
    );
    const [create] = ep.pollEvents();
    const queued = JSON.stringify({ id: 'job_3', status: 'queued' });
    ep.handleHttpAnswer(100, create.requestRef, { status: 200 }, queued);
    const wakeOf = (events) => events.find((e) => e.type === 'wake_at')?.at;
    assert.equal(wakeOf(ep.pollEvents()), 8100, 'the backoff looks again in 8 s');
    const back = lc.Endpoint.restore(ep.snapshot(), 300);
    ep.free();
    assert.equal(wakeOf(back.pollEvents()), 8100, 'restored: the record keeps its schedule');
    assert.equal(wakeOf(back.refresh(300)), 600, 'asked for: the floor after the last answer');
    assert.equal(wakeOf(back.refresh(400)), 600, 'asked again: no nearer');
    assert.equal(wakeOf(back.refresh(5000)), 600, 'never later than it was');
    assert.equal(
      codeOf(() => back.refresh(-1)),
      'invalid_input',
    );
    back.free();
  },
};
