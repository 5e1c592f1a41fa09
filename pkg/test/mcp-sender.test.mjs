// longcall/mcp senders over SDK-shaped clients (tests/mcp-fakes.mjs), on a fake clock: the
// Sender contract (hand over what arrived, throw only when nothing did, never cancel a request
// that has its answer) and the elicitation handler (optional, chained to the host's own).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callTool, resume, sdkSender, sdk2Sender } from 'longcall/mcp';
import { fakeClock, watchPromise, fakeSdk1Client, fakeSdk2Client, task25 } from './mcp-fakes.mjs';

const FAST = { poll: { initialMs: 100, minIntervalMs: 100, capMs: 400, jitter: 'none' }, seed: 1 };
const RELATED = 'io.modelcontextprotocol/related-task';

/** A 2025 server: one task that completes after `pollsToDone` polls, with a stored result. */
function server25(id, { pollsToDone = 2, omitTtl = false, status = 'completed', inputAt = null } = {}) {
  let polls = 0;
  const t = (s) => {
    const x = task25(id, s);
    if (omitTtl) delete x.ttl;
    return x;
  };
  return {
    'tools/call': () => ({ task: task25(id, 'working') }),
    'tasks/get': () => {
      polls++;
      if (inputAt !== null && polls === inputAt) return t('input_required');
      return t(polls >= pollsToDone ? status : 'working');
    },
    'tasks/result': () => ({ content: [{ type: 'text', text: 'done' }], _meta: { [RELATED]: { taskId: id } } }),
  };
}

/** The params of a server's `elicitation/create` about task `taskId` (its related-task `_meta`). */
const elicitation = (taskId, message) => ({
  message,
  requestedSchema: { type: 'object', properties: {} },
  _meta: { [RELATED]: { taskId } },
});

async function run(sender, clock, opts) {
  const h = await callTool(sender, { name: 'job', config: FAST, now: clock.now, timers: clock.timers, ...opts });
  const out = watchPromise(h.outcome);
  assert.ok(await clock.runUntil(() => out.done, { limitMs: 30000 }), 'the call settles');
  if (out.error) throw out.error;
  return { h, out: out.value };
}

for (const [line, make, sender] of [
  ['1.x', fakeSdk1Client, (c) => sdkSender(c, { types: c.types })],
  ['2.x', fakeSdk2Client, (c) => sdk2Sender(c)],
]) {
  test(`${line}: after a settled call, no notifications/cancelled for a request that has its answer`, async () => {
    const clock = fakeClock();
    const c = make(server25('a1'));
    const ac = new AbortController();
    const { out } = await run(sender(c), clock, { signal: ac.signal });
    assert.equal(out.outcome, 'succeeded');
    // The caller's signal stops watching; the call is over, so nothing may be cancelled now.
    ac.abort();
    await clock.advance(1000);
    assert.deepEqual(
      c.sent.filter((m) => m.method === 'notifications/cancelled'),
      [],
    );
    assert.deepEqual(
      c.sent.map((m) => m.method),
      ['tools/call', 'tasks/get', 'tasks/get', 'tasks/result'],
    );
  });

  test(`${line}: an answer the SDK's schema would reject (a 2025 Task without ttl) reaches the core`, async () => {
    const clock = fakeClock();
    const c = make(server25('a2', { omitTtl: true }));
    const vs = [];
    const { out } = await run(sender(c), clock, { onViolation: (v) => vs.push(v) });
    assert.equal(out.outcome, 'succeeded');
    assert.equal(out.status, 'completed');
    assert.ok(
      vs.some((v) => v.source === 'wire' && v.rule === 'missing_field' && /ttl/.test(v.detail)),
      JSON.stringify(vs),
    );
    assert.equal(c.sent.filter((m) => m.method === 'tasks/get').length, 2, 'no polling past the terminal answer');
  });

  test(`${line}: a JSON-RPC error is an answer with the server's code, message and data`, async () => {
    const c = make({
      'tasks/get': () => {
        throw { rpc: { code: -32602, message: 'Task x not found', data: { taskId: 'x' } } };
      },
    });
    const a = await sender(c).send(
      { jsonrpc: '2.0', id: 7, method: 'tasks/get', params: { taskId: 'x' } },
      {},
      { kind: 'get' },
    );
    assert.deepEqual(a, {
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32602, message: 'Task x not found', data: { taskId: 'x' } },
    });
  });

  test(`${line}: a JSON-RPC error sent with an HTTP error status is an answer; an HTML 502 is none`, async () => {
    // The SDKs raise a 4xx/5xx answer as an exception with the body's text; a server that sends
    // its JSON-RPC errors as HTTP 400 (the reference server's 2025 mode did) answered all the same.
    const body = (code, message) =>
      JSON.stringify({ jsonrpc: '2.0', id: 3, error: { code, message, data: { tool: 'nope' } } });
    const c = make({
      'tasks/get': () => {
        throw { http: { status: 400, text: body(-32602, 'Task x not found') } };
      },
      'tasks/cancel': () => {
        throw { http: { status: 502, text: '<html><body>Bad Gateway</body></html>' } };
      },
    });
    const s = sender(c);
    assert.deepEqual(await s.send({ jsonrpc: '2.0', id: 7, method: 'tasks/get', params: { taskId: 'x' } }, {}, {}), {
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32602, message: 'Task x not found', data: { tool: 'nope' } },
    });
    await assert.rejects(
      s.send({ jsonrpc: '2.0', id: 8, method: 'tasks/cancel', params: { taskId: 'x' } }, {}, {}),
      /Bad Gateway/,
    );

    // Through a call: an unknown tool refused with HTTP 400 is the server's answer (nothing
    // started), not `create_unanswered` ("the tool may have started").
    const refused = make({
      'tools/call': () => {
        throw { http: { status: 400, text: body(-32602, 'Unknown tool: nope') } };
      },
    });
    const h = await callTool(sender(refused), { name: 'nope' });
    const out = await h.outcome;
    assert.equal(out.outcome, 'protocol_failure');
    assert.deepEqual(out.error, { code: -32602, message: 'Unknown tool: nope', data: { tool: 'nope' } });
  });

  test(`${line}: a closed Client stops the watch at its next request, saying so; the task goes on`, async () => {
    const clock = fakeClock();
    const c = make(server25('c1', { pollsToDone: 1000 }));
    const h = await callTool(sender(c), { name: 'job', config: FAST, now: clock.now, timers: clock.timers });
    const out = watchPromise(h.outcome);
    await clock.advance(250);
    const polled = c.sent.length;
    assert.ok(polled >= 2, 'polled before the close');
    c.close();
    assert.ok(await clock.runUntil(() => out.done, { limitMs: 60000 }), 'the watch ends');
    assert.equal(out.error?.code, 'watch_stopped');
    assert.equal(out.error.reason, 'host_stopped');
    assert.match(out.error.message, /client is closed \(Not connected\).*task c1 goes on/);
    assert.equal(c.sent.length, polled, 'nothing more reached the closed client');
    await assert.rejects(h.cancel(), (e) => e.code === 'sender_closed');
  });

  test(`${line}: callTool on a closed Client rejects with sender_closed; nothing was sent`, async () => {
    const clock = fakeClock();
    const c = make(server25('c2'));
    c.close();
    await assert.rejects(
      callTool(sender(c), { name: 'job', config: FAST, now: clock.now, timers: clock.timers }),
      (e) =>
        e.code === 'sender_closed' &&
        e.taskId === null &&
        e.cause?.message === 'Not connected' &&
        /client is closed \(Not connected\): tools\/call job was not sent/.test(e.message),
    );
    assert.equal(c.sent.length, 0);
  });

  test(`${line}: a cancel pressed on a Client closed since rejects with sender_closed`, async () => {
    const clock = fakeClock();
    const c = make(server25('c3', { pollsToDone: 1000 }));
    const h = await callTool(sender(c), { name: 'job', config: FAST, now: clock.now, timers: clock.timers });
    const out = watchPromise(h.outcome);
    c.close();
    const press = watchPromise(h.cancel());
    assert.ok(await clock.runUntil(() => press.done && out.done, { limitMs: 60000 }), 'the press and the watch end');
    assert.equal(press.error?.code, 'sender_closed', `the press resolved ${press.value}`);
    assert.equal(out.error?.code, 'watch_stopped');
    await assert.rejects(h.cancel(), (e) => e.code === 'sender_closed');
  });

  test(`${line}: a Client without elicitation works until a task asks for input, then input_unsupported`, async () => {
    const clock = fakeClock();
    const plain = make(server25('a3'), { capabilities: {} });
    const s = sender(plain);
    assert.equal(s.routeInput, undefined);
    assert.equal((await run(s, clock, {})).out.outcome, 'succeeded');

    const asking = make(server25('a4', { inputAt: 1, pollsToDone: 2 }), { capabilities: {} });
    const vs = [];
    const { out } = await run(sender(asking), clock, { onViolation: (v) => vs.push(v) });
    assert.equal(out.outcome, 'succeeded');
    const said = vs.filter((v) => v.rule === 'input_unsupported');
    assert.equal(said.length, 1, JSON.stringify(vs));
    assert.equal(said[0].source, 'adapter');
    assert.match(said[0].detail, /a4.*elicitation/);
  });

  test(`${line}: a Client without elicitation refuses an onInput before anything is sent`, async () => {
    const c = make(server25('a6'), { capabilities: {} });
    await assert.rejects(
      callTool(sender(c), { name: 'job', onInput: () => ({ action: 'accept', content: {} }) }),
      (e) => e.code === 'invalid_input' && /onInput is given.*capabilities\.elicitation/.test(e.message),
    );
    assert.deepEqual(c.sent, []);
  });

  test(`${line}: a handler registered after the sender replaced its own: onInput refused, input_unsupported said`, async () => {
    const clock = fakeClock();
    const c = make(server25('a7', { inputAt: 1, pollsToDone: 2 }));
    const s = sender(c);
    const host = async () => ({ action: 'decline' });
    if (line === '1.x') c.setRequestHandler(c.types.ElicitRequestSchema, host);
    else c.setRequestHandler('elicitation/create', host);
    await assert.rejects(
      callTool(s, { name: 'job', onInput: () => ({ action: 'accept', content: {} }) }),
      (e) => e.code === 'invalid_input' && /registered after the sender was made/.test(e.message),
    );
    assert.deepEqual(c.sent, []);
    // Without onInput the call goes on, and a task that asks for input is reported once.
    const vs = [];
    const { out } = await run(s, clock, { onViolation: (v) => vs.push(v) });
    assert.equal(out.outcome, 'succeeded');
    const said = vs.filter((v) => v.rule === 'input_unsupported');
    assert.equal(said.length, 1, JSON.stringify(vs));
    assert.match(said[0].detail, /a7.*registered after the sender/);
  });

  test(`${line}: the core decides a task's elicitation: an answer after a cancel press is declined, and no prompt after it (I-6, I-10)`, async () => {
    const clock = fakeClock();
    const c = make({
      ...server25('a6', { pollsToDone: 1000 }),
      'tasks/cancel': () => task25('a6', 'cancelled'),
    });
    const asked = [];
    let h;
    h = await callTool(sender(c), {
      name: 'job',
      config: FAST,
      now: clock.now,
      timers: clock.timers,
      onInput: async (key, req) => {
        asked.push([key, req.params.message]);
        h.cancel(); // the person pressed cancel while the dialog was open
        return { action: 'accept', content: { ok: true } };
      },
    });
    const about = (message) => elicitation('a6', message);
    // The answer is refused by the endpoint (the task is being cancelled): the server hears a decline.
    assert.deepEqual(await c.elicit(about('first?'), 41), { action: 'decline' });
    assert.deepEqual(asked, [['elicitation/create#41', 'first?']]);
    // A request after the press is not put to the person at all.
    assert.deepEqual(await c.elicit(about('second?'), 42), { action: 'decline' });
    assert.equal(asked.length, 1);
    const out = watchPromise(h.outcome);
    await clock.runUntil(() => out.done);
    assert.equal(out.value.outcome, 'cancelled');
  });

  test(`${line}: after a restart, a 2025 prompt is shown when its request comes again, and one asked anew once`, async () => {
    const clock = fakeClock();
    const about = (message) => elicitation('a9', message);
    const old = make(server25('a9', { pollsToDone: 1000 }));
    const firstAsked = [];
    const h = await callTool(sender(old), {
      name: 'job',
      config: FAST,
      now: clock.now,
      timers: clock.timers,
      onInput: (key) => {
        firstAsked.push(key);
        return new Promise(() => {}); // the process dies with the dialog open
      },
    });
    void old.elicit(about('first?'), 41);
    await clock.runUntil(() => firstAsked.length === 1);
    const snapshot = h.snapshot();

    const c = make(server25('a9', { pollsToDone: 1000 }));
    const asked = [];
    const back = resume(snapshot, sender(c), {
      config: FAST,
      now: clock.now,
      timers: clock.timers,
      onInput: async (key, req) => {
        asked.push([key, req.params.message]);
        return { action: 'accept', content: { n: asked.length } };
      },
    });
    await clock.advance(1000);
    assert.deepEqual(asked, [], 'the request it answers ended with the old connection: nothing to show yet');
    const answer = async (message, id) => {
      const got = watchPromise(c.elicit(about(message), id));
      assert.ok(await clock.runUntil(() => got.done), `${message} answered`);
      return got.value;
    };
    // A server that asks anew: one prompt, under the new request's key, answered on it.
    assert.deepEqual(await answer('again?', 43), { action: 'accept', content: { n: 1 } });
    // A server that sends the old request again: shown now, answered on that request.
    assert.deepEqual(await answer('first?', 41), { action: 'accept', content: { n: 2 } });
    assert.deepEqual(asked, [
      ['elicitation/create#43', 'again?'],
      ['elicitation/create#41', 'first?'],
    ]);
    // Sent again a second time (its reply lost), it is not asked again: the same answer again.
    assert.deepEqual(await answer('first?', 41), { action: 'accept', content: { n: 2 } });
    assert.equal(asked.length, 2);
    back.stop();
  });

  test(`${line}: a 2025 request sent twice before it is answered is asked once, and both copies get the answer (I-10)`, async () => {
    const clock = fakeClock();
    const c = make(server25('a8', { pollsToDone: 1000 }));
    const asked = [];
    let answer;
    const h = await callTool(sender(c), {
      name: 'job',
      config: FAST,
      now: clock.now,
      timers: clock.timers,
      onInput: (key) => {
        asked.push(key);
        return new Promise((r) => {
          answer = r;
        });
      },
    });
    const about = elicitation('a8', 'sure?');
    const first = watchPromise(c.elicit(about, 51));
    await clock.runUntil(() => asked.length === 1);
    const second = watchPromise(c.elicit(about, 51));
    await clock.advance(100);
    assert.deepEqual(asked, ['elicitation/create#51'], 'one prompt');
    answer({ action: 'accept', content: { sure: true } });
    assert.ok(await clock.runUntil(() => first.done && second.done), 'both copies answered');
    assert.deepEqual(
      [first.value, second.value],
      [
        { action: 'accept', content: { sure: true } },
        { action: 'accept', content: { sure: true } },
      ],
    );
    h.stop();
  });

  test(`${line}: the host's own elicitation handler still answers elicitations about no watched task`, async () => {
    const clock = fakeClock();
    const c = make(server25('a5', { pollsToDone: 3 }));
    const hostSaw = [];
    if (line === '1.x')
      c.setRequestHandler(c.types.ElicitRequestSchema, async (req) => {
        hostSaw.push(req.params.message);
        return { action: 'accept', content: { ok: 1 } };
      });
    else
      c.setRequestHandler('elicitation/create', async (req) => {
        hostSaw.push(req.params.message);
        return { action: 'accept', content: { ok: 1 } };
      });
    const asked = [];
    const h = await callTool(sender(c), {
      name: 'job',
      config: FAST,
      now: clock.now,
      timers: clock.timers,
      onInput: async (_key, req) => {
        asked.push(req.params.message);
        return { action: 'accept', content: { fromTask: true } };
      },
    });
    // An ordinary elicitation (no related task) goes to the host's handler...
    assert.deepEqual(await c.elicit({ message: 'plain?', requestedSchema: { type: 'object', properties: {} } }), {
      action: 'accept',
      content: { ok: 1 },
    });
    // ...and one about the watched task to the call's onInput.
    assert.deepEqual(await c.elicit(elicitation('a5', 'task?')), { action: 'accept', content: { fromTask: true } });
    assert.deepEqual(hostSaw, ['plain?']);
    assert.deepEqual(asked, ['task?']);
    const out = watchPromise(h.outcome);
    await clock.runUntil(() => out.done);
    assert.equal(out.value.outcome, 'succeeded');
    // Without a host handler, an ordinary elicitation is declined.
    const bare = make({});
    sender(bare);
    assert.deepEqual(await bare.elicit({ message: 'plain?', requestedSchema: { type: 'object', properties: {} } }), {
      action: 'decline',
    });
  });
}

test("1.x: the SDK's own timeout and closed connection are no answer (thrown), other McpErrors are answers", async () => {
  const c = fakeSdk1Client({
    'tasks/get': () => {
      throw { rpc: { code: -32001, message: 'Request timed out' } };
    },
    'tasks/cancel': () => {
      throw { rpc: { code: -32603, message: 'boom' } };
    },
  });
  const s = sdkSender(c, { types: c.types });
  await assert.rejects(
    s.send({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: 'x' } }, {}, { kind: 'get' }),
    (e) => e.code === -32001,
  );
  const a = await s.send(
    { jsonrpc: '2.0', id: 2, method: 'tasks/cancel', params: { taskId: 'x' } },
    {},
    { kind: 'cancel' },
  );
  assert.deepEqual(a.error, { code: -32603, message: 'boom' });
});

test('2.x: an SdkError (local timeout) is no answer: thrown, and tools/call ends create_unanswered', async () => {
  const c = fakeSdk2Client({ 'tools/call': 'timeout' });
  await assert.rejects(callTool(sdk2Sender(c), { name: 'paid' }), (e) => e.code === 'create_unanswered');
  assert.deepEqual(
    c.sent.map((m) => m.method),
    ['tools/call'],
  );
});

test('sdk2Sender refuses what is not a 2.x Client; sdkSender without types points a 2.x Client to it', () => {
  assert.throws(
    () => sdk2Sender({}),
    (e) => e.code === 'invalid_input',
  );
  assert.throws(
    () => sdk2Sender({ request() {} }),
    (e) => e.code === 'invalid_input',
  );
  assert.throws(
    () => sdkSender(fakeSdk2Client({})),
    (e) => e.code === 'invalid_input' && /sdk2Sender/.test(e.message),
  );
  // Each line's Client given to the other line's sender: the handler registration fails in the
  // SDK's words, and the sender says which one fits.
  assert.throws(
    () => sdkSender(fakeSdk2Client({}), { types: fakeSdk1Client({}).types }),
    (e) => e.code === 'invalid_input' && /use sdk2Sender\(client\)/.test(e.message) && e.cause instanceof Error,
  );
  assert.throws(
    () => sdk2Sender(fakeSdk1Client({})),
    (e) =>
      e.code === 'invalid_input' && /use sdkSender\(client, \{types\}\)/.test(e.message) && e.cause instanceof Error,
  );
});

test('any sender: the signal of a request that has its answer is never aborted when the call settles', async () => {
  const clock = fakeClock();
  const signals = [];
  let polls = 0;
  const sender = {
    model: 'task-2025',
    async send(message, _headers, { signal }) {
      signals.push({ method: message.method, signal });
      const ok = (result) => ({ jsonrpc: '2.0', id: message.id, result });
      if (message.method === 'tools/call') return ok({ task: task25('s1', 'working') });
      if (message.method === 'tasks/get') return ok(task25('s1', ++polls >= 2 ? 'completed' : 'working'));
      return ok({ content: [] });
    },
  };
  const ac = new AbortController();
  const { out } = await run(sender, clock, { signal: ac.signal });
  assert.equal(out.outcome, 'succeeded');
  ac.abort();
  assert.deepEqual(
    signals.filter((x) => x.signal?.aborted).map((x) => x.method),
    [],
  );
});
