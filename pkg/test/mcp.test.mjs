// longcall/mcp in Node with fake senders on a fake clock: the adapter does the I/O, the core decides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callTool, watchTask, resume, httpSender, listTools, McpCallError } from 'longcall/mcp';
import * as lc from 'longcall';
import { fakeClock, watchPromise } from './mcp-fakes.mjs';
import { createServer } from 'node:http';
import { closedPort } from './support/ports.mjs';

const T = '2026-11-29T15:07:54.708Z';
const FAST = { poll: { initialMs: 10, minIntervalMs: 10, capMs: 40, jitter: 'none' }, seed: 1 };
const task26 = (id, status, extra = {}) => ({
  taskId: id,
  status,
  createdAt: T,
  lastUpdatedAt: T,
  ttlMs: 60000,
  pollIntervalMs: 15,
  ...extra,
});
const task25 = (id, status, extra = {}) => ({
  taskId: id,
  status,
  createdAt: T,
  lastUpdatedAt: T,
  ttl: 60000,
  pollInterval: 15,
  ...extra,
});
const ok = (m, result) => ({ jsonrpc: '2.0', id: m.id, result });
const fail = (m, code, message = 'x') => ({ jsonrpc: '2.0', id: m.id, error: { code, message } });

/**
 * A scripted server: `handlers[method](message, state)` returns the answer (or throws = no
 * answer). Answers come on the next turn; `at` is the fake clock's time of sending.
 */
function fake(model, handlers, clock) {
  const sent = [];
  return {
    sent,
    model,
    async send(message, headers, opts) {
      sent.push({ message, headers, at: clock?.now() });
      await Promise.resolve();
      if (opts?.signal?.aborted) throw new Error('aborted');
      const h = handlers[message.method];
      if (!h) return fail(message, -32601);
      return h(message, sent);
    },
  };
}
const methods = (s) => s.sent.map((x) => x.message.method);
/** The watch options that put it on `clock`. */
const on = (clock) => ({ now: clock.now, timers: clock.timers });
/** A 2026 server whose tools/call creates task `id`, which stays `working`; `more` adds methods. */
const working = (id, clock, more = {}) =>
  fake(
    'task-2026',
    {
      'tools/call': (m) => ok(m, { ...task26(id, 'working'), resultType: 'task' }),
      'tasks/get': (m) => ok(m, { ...task26(id, 'working'), resultType: 'complete' }),
      ...more,
    },
    clock,
  );
/** Runs the fake clock until `p` settles (bounded), then returns its value or throws its error. */
async function until(clock, p) {
  const s = watchPromise(p);
  assert.ok(await clock.runUntil(() => s.done, { step: 5, limitMs: 30000 }), 'settles within 30 s of fake time');
  if (s.error) throw s.error;
  return s.value;
}

test('2026: create, input_required asked once, tasks/update, completed; headers and _meta on every tasks/*', async () => {
  let polls = 0,
    answered = null;
  const clock = fakeClock();
  const s = fake(
    'task-2026',
    {
      'tools/call': (m) => ok(m, { ...task26('t1', 'working'), resultType: 'task' }),
      'tasks/get': (m) => {
        polls++;
        if (answered)
          return ok(m, {
            ...task26('t1', 'completed'),
            resultType: 'complete',
            result: { content: [{ type: 'text', text: 'done' }] },
          });
        if (polls >= 2)
          return ok(m, {
            ...task26('t1', 'input_required'),
            resultType: 'complete',
            inputRequests: { 't1:ab': { method: 'elicitation/create', params: { message: 'go?' } } },
          });
        return ok(m, { ...task26('t1', 'working'), resultType: 'complete' });
      },
      'tasks/update': (m) => {
        answered = m.params.inputResponses;
        return ok(m, { resultType: 'complete' });
      },
    },
    clock,
  );
  const asked = [],
    buttons = [];
  const h = await callTool(s, {
    name: 'job',
    arguments: { a: 1 },
    config: FAST,
    ...on(clock),
    onInput: async (key, req) => {
      asked.push([key, req.params.message]);
      return { action: 'accept', content: { confirm: true } };
    },
    onButton: (b) => buttons.push(b),
  });
  assert.equal(h.id, 't1');
  const out = await until(clock, h.outcome);
  assert.equal(out.outcome, 'succeeded');
  assert.equal(out.status, 'completed');
  assert.deepEqual(out.result.content[0].text, 'done');
  assert.deepEqual(asked, [['t1:ab', 'go?']]);
  assert.deepEqual(answered, { 't1:ab': { action: 'accept', content: { confirm: true } } });
  assert.equal(methods(s)[0], 'tools/call');
  assert.equal(s.sent[0].headers['Mcp-Name'], 'job');
  for (const x of s.sent.slice(1)) {
    assert.equal(x.headers['Mcp-Name'], 't1');
    assert.equal(x.headers['Mcp-Method'], x.message.method);
    assert.equal(x.headers['MCP-Protocol-Version'], '2026-07-28');
  }
  // Rule M-21: the core writes every request's whole envelope; a sender only moves it.
  for (const x of s.sent) assert.deepEqual(x.message.params._meta, lc.requestMeta(), x.message.method);
  const gets = s.sent.filter((x) => x.message.method === 'tasks/get').map((x) => x.at);
  assert.ok(gets.length >= 3, `${gets.length} polls`);
  for (let i = 1; i < gets.length; i++)
    assert.ok(gets[i] - gets[i - 1] >= 15, `poll gap ${gets[i] - gets[i - 1]} < pollIntervalMs 15`);
  assert.equal(out.record.handle, 't1');
  // The record is spelled as the wire and the rest of the package spell data: camelCase.
  assert.equal(out.record.pollIntervalMs, 15);
  assert.equal(out.record.pollsSent, gets.length);
  assert.deepEqual(out.record.wireViolations, []);
  const snake = Object.keys(out.record).filter((k) => k.includes('_'));
  assert.deepEqual(snake, [], 'snake_case keys in the run record');
});

/**
 * A 2026 server whose task `t1` asks input `k` ("go?") until a tasks/update answers it, then
 * answers every poll with `after`; `answered()` is what the update carried.
 */
function asksOnce(clock, after) {
  let answered = null;
  const s = fake(
    'task-2026',
    {
      'tools/call': (m) => ok(m, { ...task26('t1', 'working'), resultType: 'task' }),
      'tasks/get': (m) =>
        answered
          ? ok(m, after)
          : ok(m, {
              ...task26('t1', 'input_required'),
              resultType: 'complete',
              inputRequests: { k: { method: 'elicitation/create', params: { message: 'go?' } } },
            }),
      'tasks/update': (m) => {
        answered = m.params.inputResponses;
        return ok(m, { resultType: 'complete' });
      },
    },
    clock,
  );
  return { s, answered: () => answered };
}

/**
 * `asksOnce` with `onInput` answering: what the update carried (`sent`), the violations seen
 * (`[rule, detail]`), the outcome, and the fake server.
 */
async function answeredBy(onInput) {
  const clock = fakeClock();
  const { s, answered } = asksOnce(clock, { ...task26('t1', 'cancelled'), resultType: 'complete' });
  const seen = [];
  const h = await callTool(s, { name: 'job', config: FAST, ...on(clock), onInput, onViolation: (v) => seen.push(v) });
  const out = await until(clock, h.outcome);
  return { s, sent: answered(), seen: seen.map((v) => [v.rule, v.detail]), out };
}

test('onSnapshot hands over the snapshot after every change: an answer on its way is in it, and resumes', async () => {
  const clock = fakeClock();
  const { s } = asksOnce(clock, { ...task26('t1', 'completed'), resultType: 'complete', result: { content: [] } });
  const snapshots = [];
  const h = await callTool(s, {
    name: 'job',
    config: FAST,
    ...on(clock),
    onInput: () => ({ action: 'accept', content: { ok: true } }),
    onSnapshot: (text) => snapshots.push(text),
  });
  await until(clock, h.outcome);
  assert.ok(snapshots.length >= 3, `${snapshots.length} snapshots`);
  // The snapshot taken as the answer went out holds it, so a restart then sends it again
  // instead of asking the person twice.
  const onItsWay = snapshots.find((t) => JSON.parse(t).state.tracker.unacked.length > 0);
  assert.ok(onItsWay?.includes('"ok":true'), 'a snapshot holds the answer while tasks/update is out');
  const clock2 = fakeClock();
  const { s: s2 } = asksOnce(clock2, { ...task26('t1', 'completed'), resultType: 'complete', result: { content: [] } });
  const asked = [];
  const again = resume(onItsWay, s2, { config: FAST, ...on(clock2), onInput: (k) => asked.push(k) });
  assert.equal((await until(clock2, again.outcome)).outcome, 'succeeded');
  assert.deepEqual(asked, [], 'the person is not asked again');
  assert.deepEqual(methods(s2)[0], 'tasks/update', 'the answer goes again first');
  await assert.rejects(callTool(s, { name: 'job', onSnapshot: 'x' }), {
    code: 'invalid_input',
    message: 'callTool: onSnapshot must be a function, got string',
  });
});

test('an onInput that throws (a dialog closed) is reported and declines, so the task can end', async () => {
  const { s, sent, seen, out } = await answeredBy(() => {
    throw new Error('user closed dialog');
  });
  assert.deepEqual(sent, { k: { action: 'decline' } });
  assert.equal(out.status, 'cancelled');
  assert.deepEqual(seen, [['on_input_failed', 'user closed dialog; answered with a decline']]);
  // A hook that is not a function is refused before anything is sent.
  await assert.rejects(callTool(s, { name: 'job', onInput: { action: 'accept' } }), {
    code: 'invalid_input',
    message: 'callTool: onInput must be a function, got object',
  });
  assert.throws(() => watchTask(s, 't1', { signal: 'x' }), {
    code: 'invalid_input',
    message: 'watchTask: signal must be an AbortSignal',
  });
});

test('an onInput that answers something other than an object is reported and declines (I-9)', async () => {
  for (const [bare, what] of [
    ['yes', 'string'],
    [42, 'number'],
    [['accept'], 'an array'],
  ]) {
    const { sent, seen } = await answeredBy(async () => bare);
    assert.deepEqual(sent, { k: { action: 'decline' } }, `${what}: declined, never sent as it is`);
    assert.deepEqual(seen, [['on_input_failed', `onInput answered ${what}, not an object; answered with a decline`]]);
  }
});

test('onProgress: each new statusMessage once, on the fast tasks/get path and the general one, the last words included (E-61)', async () => {
  let polls = 0;
  const clock = fakeClock();
  const said = ['queued for a GPU', 'queued for a GPU', 'frame 40 of 90', 'frame 90 of 90'];
  const s = fake(
    'task-2026',
    {
      'tools/call': (m) => ok(m, { ...task26('t1', 'working'), resultType: 'task', statusMessage: 'accepted' }),
      'tasks/get': (m) => {
        const statusMessage = said[polls++];
        return statusMessage
          ? ok(m, { ...task26('t1', 'working'), resultType: 'complete', statusMessage })
          : ok(m, {
              ...task26('t1', 'completed'),
              resultType: 'complete',
              statusMessage: 'done',
              result: { content: [] },
            });
      },
    },
    clock,
  );
  const seen = [];
  const h = await callTool(s, { name: 'render', config: FAST, ...on(clock), onProgress: (m) => seen.push(m) });
  const out = await until(clock, h.outcome);
  assert.equal(out.outcome, 'succeeded');
  assert.deepEqual(seen, ['accepted', 'queued for a GPU', 'frame 40 of 90', 'frame 90 of 90', 'done']);
});

test('a plain tools/call result settles at once; a JSON-RPC error is protocol_failure with the error', async () => {
  const s = fake('task-2026', {
    'tools/call': (m) => ok(m, { content: [{ type: 'text', text: 'hi' }], resultType: 'complete' }),
  });
  const h = await callTool(s, { name: 'greet' });
  assert.equal(h.id, null);
  assert.equal((await h.outcome).outcome, 'succeeded');
  const e = fake('task-2026', { 'tools/call': (m) => fail(m, -32021, 'needs tasks') });
  const out = await (await callTool(e, { name: 'x' })).outcome;
  assert.equal(out.outcome, 'protocol_failure');
  assert.equal(out.error.code, -32021);
});

test('a misspelt option is refused by name before anything is sent, never dropped', async () => {
  const s = fake('task-2026', { 'tools/call': (m) => ok(m, { content: [], resultType: 'complete' }) });
  await assert.rejects(callTool(s, { name: 'slow_compute', args: { seconds: 0 } }), {
    name: 'McpCallError',
    code: 'invalid_input',
    message:
      /^callTool: unknown option "args" \(did you mean "arguments"\?\); expected one of name, tool, arguments, ttlMs, /,
  });
  assert.throws(() => watchTask(s, 't-1', { onstatus: () => {} }), {
    code: 'invalid_input',
    message: /^watchTask: unknown option "onstatus" \(did you mean "onStatus"\?\)/,
  });
  // The core's snake_case, as a Python or Rust habit writes it, is told the JavaScript spelling.
  assert.throws(() => watchTask(s, 't-1', { on_status: () => {} }), {
    code: 'invalid_input',
    message: /^watchTask: unknown option "on_status" \(did you mean "onStatus"\?\)/,
  });
  assert.throws(() => resume('{}', s, { retries: 5 }), {
    code: 'invalid_input',
    message: /^resume: unknown option "retries"; /,
  });
  assert.throws(() => httpSender({ url: 'http://127.0.0.1:1', timeout: 5 }), {
    code: 'invalid_input',
    message: /^httpSender: unknown option "timeout" \(did you mean "timeoutMs"\?\)/,
  });
  assert.deepEqual(s.sent, []);
  // Every documented option is taken.
  const h = await callTool(s, { name: 'greet', arguments: {}, config: null, wire: null, onStatus: () => {} });
  assert.equal((await h.outcome).outcome, 'succeeded');
});

test("every refusal is an McpCallError, the core's too (its error the cause)", async () => {
  const s = fake('task-2026', { 'tools/call': (m) => ok(m, { content: [], resultType: 'complete' }) });
  const refused = async (call, code, message) => {
    const e = await Promise.resolve()
      .then(call)
      .then(
        () => null,
        (err) => err,
      );
    assert.ok(e instanceof McpCallError, `${e?.name}: ${e?.message}`);
    assert.equal(e.code, code);
    assert.match(e.message, message);
    return e;
  };
  // A deadline already passed (the core refuses it) and arguments that are no JSON.
  const late = await refused(
    () => callTool(s, { name: 'greet', config: { deadlineMs: 1000 }, now: () => 5000 }),
    'invalid_config',
    /deadlineMs/,
  );
  assert.equal(late.cause?.code, 'invalid_config');
  await refused(() => callTool(s, { name: 'greet', arguments: { n: 1n } }), 'malformed', /JSON/);
  await refused(() => resume('not a snapshot', s), 'snapshot_invalid', /snapshot/);
  await refused(() => watchTask(s, 't-1', { config: { seed: -1 } }), 'malformed', /seed/);
  assert.deepEqual(s.sent, []);
  // A URL fetch cannot take is refused when the sender is made, not read later as a call that
  // got no answer and "may have started".
  await refused(
    () => httpSender({ url: 'not a url' }),
    'invalid_input',
    /url is not an http\(s\) URL \(outside a page/,
  );
  await refused(() => httpSender({ url: 'localhost:3000/mcp' }), 'invalid_input', /url is not an http\(s\) URL/);
  // So is a timeout no timer can take (a string from the environment, too long a wait).
  const url = 'http://127.0.0.1:1/mcp';
  for (const timeoutMs of ['5000', -1, 0, Number.NaN, null, 1e12, 2.5])
    await refused(
      () => httpSender({ url, timeoutMs: /** @type {any} */ (timeoutMs) }),
      'invalid_input',
      /^httpSender: timeoutMs must be a whole number of milliseconds from 1 to 2147483647, got /,
    );
  assert.equal(httpSender({ url, timeoutMs: 2 ** 31 - 1 }).model, 'task-2026');
  // In a page, a path of its own origin is a URL (a dev server's proxy, README "In a page").
  const seen = [];
  globalThis.location = { href: 'http://127.0.0.1:5173/app/' };
  try {
    const sender = httpSender({
      url: '/mcp',
      fetch: async (url) => {
        seen.push(url);
        throw new Error('offline');
      },
    });
    await assert.rejects(sender.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} }, {}));
  } finally {
    delete globalThis.location;
  }
  assert.deepEqual(seen, ['/mcp'], 'fetch resolves it against the page');
});

// Rule E-63: a tasks/get that fails is said (with what the sender threw), and so is the first
// answer after; the watch goes on by its backoff.
test('a failed tasks/get is said to onRequestFailed, the next answer to onRecovered', async () => {
  const clock = fakeClock();
  let polls = 0;
  const s = working('t-1', clock, {
    'tasks/get': (m) => {
      polls++;
      if (polls === 1) throw new Error('socket hang up');
      if (polls < 3) return ok(m, { ...task26('t-1', 'working'), resultType: 'complete' });
      return ok(m, { ...task26('t-1', 'completed'), resultType: 'complete', result: { content: [] } });
    },
  });
  const seen = [];
  const h = await callTool(s, {
    name: 'slow',
    ...on(clock),
    onRequestFailed: (f) => seen.push(['failed', f.request, f.failure.kind, f.cause?.message, f.message]),
    onRecovered: () => seen.push(['recovered', polls]),
  });
  const out = await until(clock, h.outcome);
  assert.equal(out.outcome, 'succeeded');
  // Said with the first answer after, a plain `working` one: not only when the task ends.
  assert.deepEqual(seen, [
    ['failed', 'get', 'transport', 'socket hang up', 'tasks/get got no answer: socket hang up; asking again'],
    ['recovered', 2],
  ]);
});

test('a JSON-RPC error to tasks/get is said to onRequestFailed in words', async () => {
  const clock = fakeClock();
  let polls = 0;
  const s = working('t-1', clock, {
    'tasks/get': (m) => {
      polls++;
      if (polls === 1) return { jsonrpc: '2.0', id: m.id, error: { code: -32603, message: 'busy' } };
      return ok(m, { ...task26('t-1', 'completed'), resultType: 'complete', result: { content: [] } });
    },
  });
  const seen = [];
  const h = await callTool(s, { name: 'slow', ...on(clock), onRequestFailed: (f) => seen.push(f) });
  assert.equal((await until(clock, h.outcome)).outcome, 'succeeded');
  assert.equal(seen.length, 1);
  assert.equal(seen[0].failure.kind, 'rpc');
  assert.equal(seen[0].cause, undefined, 'an error answer is an answer: nothing was thrown');
  assert.equal(seen[0].message, 'tasks/get answered JSON-RPC error -32603: busy; asking again');
});

test('a sender whose send() resolves with undefined: no answer, said, never a call left in flight', async () => {
  const clock = fakeClock();
  let polls = 0;
  const s = working('t-1', clock, {
    'tasks/get': (m) => {
      polls++;
      if (polls === 1) return undefined;
      return ok(m, { ...task26('t-1', 'completed'), resultType: 'complete', result: { content: [] } });
    },
  });
  const seen = [];
  const h = await callTool(s, {
    name: 'slow',
    ...on(clock),
    onRequestFailed: (f) => seen.push([f.request, f.failure.kind, f.cause?.message]),
  });
  assert.equal((await until(clock, h.outcome)).outcome, 'succeeded');
  assert.deepEqual(seen, [
    [
      'get',
      'transport',
      "the sender's send() resolved with undefined for tasks/get: resolve with the answer, or throw when none came",
    ],
  ]);
  // The tools/call itself: unanswered, the cause said.
  const none = working('t-2', clock, { 'tools/call': () => undefined });
  await assert.rejects(callTool(none, { name: 'slow', ...on(clock) }), (e) => {
    assert.equal(e.code, 'create_unanswered');
    assert.match(e.message, /resolved with undefined for tools\/call/);
    return true;
  });
});

test('a lost tools/call answer rejects create_unanswered and is never resubmitted', async () => {
  const clock = fakeClock();
  const s = fake(
    'task-2026',
    {
      'tools/call': () => {
        throw new Error('socket hang up');
      },
    },
    clock,
  );
  await assert.rejects(
    callTool(s, { name: 'paid', ...on(clock) }),
    (e) => e instanceof McpCallError && e.code === 'create_unanswered' && /reconcile/i.test(e.message),
  );
  await clock.advance(60000);
  assert.equal(clock.pending, 0, 'no wake-up left armed');
  assert.deepEqual(methods(s), ['tools/call']);
});

test('2026 cancel: the core presses, ack then cancelled; pressing after settle is cancel_refused', async () => {
  let cancelled = false;
  const clock = fakeClock();
  const s = fake(
    'task-2026',
    {
      'tools/call': (m) => ok(m, { ...task26('t2', 'working'), resultType: 'task' }),
      'tasks/get': (m) => ok(m, { ...task26('t2', cancelled ? 'cancelled' : 'working'), resultType: 'complete' }),
      'tasks/cancel': (m) => {
        cancelled = true;
        return ok(m, { resultType: 'complete' });
      },
    },
    clock,
  );
  const buttons = [];
  const h = await callTool(s, { name: 'slow', config: FAST, ...on(clock), onButton: (b) => buttons.push(b) });
  assert.equal(h.button, 'available');
  const state = await until(clock, h.cancel());
  assert.equal(state, 'acknowledged_pending');
  const out = await until(clock, h.outcome);
  assert.equal(out.outcome, 'cancelled');
  assert.deepEqual(buttons, ['available', 'requesting', 'acknowledged_pending', 'cancelled']);
  await assert.rejects(
    h.cancel(),
    (e) =>
      e instanceof McpCallError &&
      e.code === 'cancel_refused' &&
      e.cause?.code === 'cancel_refused' &&
      e.taskId === h.id,
  );
  assert.equal(methods(s).filter((m) => m === 'tasks/cancel').length, 1);
});

test('a 2026 cancel answered with the whole task, already completed: reported, and the result is kept (C-23, O-13)', async () => {
  const clock = fakeClock();
  let done = false;
  const completed = () => ({
    ...task26('t3', 'completed'),
    resultType: 'complete',
    result: { content: [{ type: 'text', text: 'paid' }] },
  });
  const s = fake(
    'task-2026',
    {
      'tools/call': (m) => ok(m, { ...task26('t3', 'working'), resultType: 'task' }),
      'tasks/get': (m) => ok(m, done ? completed() : { ...task26('t3', 'working'), resultType: 'complete' }),
      // Off the 2026 wire, which answers a cancel with the ack: the task itself, finished first.
      'tasks/cancel': (m) => {
        done = true;
        return ok(m, completed());
      },
    },
    clock,
  );
  const vs = [];
  const h = await callTool(s, { name: 'render', config: FAST, ...on(clock), onViolation: (v) => vs.push(v.rule) });
  assert.equal(await until(clock, h.cancel()), 'finished_first');
  const out = await until(clock, h.outcome);
  assert.equal(out.outcome, 'succeeded');
  assert.deepEqual(out.result, { content: [{ type: 'text', text: 'paid' }] });
  assert.ok(vs.includes('cancel_answer_breaks_revision'), JSON.stringify(vs));
});

test('a listed tool runs as a task on the 2025 wire only where its taskSupport allows (E-64)', async () => {
  const clock = fakeClock();
  // A server that answers a plain call with its result and a task request with a task.
  const server = () =>
    fake(
      'task-2025',
      {
        'tools/call': (m) =>
          m.params.task
            ? ok(m, { task: { taskId: 't1', status: 'working', createdAt: T, lastUpdatedAt: T, ttl: 60_000 } })
            : ok(m, { content: [{ type: 'text', text: 'hi' }] }),
      },
      clock,
    );
  const echo = { name: 'echo', inputSchema: { type: 'object' } };
  const s = server();
  const h = await callTool(s, { tool: echo, arguments: { message: 'hi' }, ...on(clock) });
  assert.equal(s.sent[0].message.params.task, undefined, 'a plain tools/call');
  const out = await until(clock, h.outcome);
  assert.equal(out.outcome, 'succeeded');
  assert.deepEqual(out.result.content, [{ type: 'text', text: 'hi' }]);
  assert.equal(out.record.name, 'echo');
  // A tool that may run as a task is asked for one.
  const t = server();
  const task = await callTool(t, {
    tool: { name: 'render', execution: { taskSupport: 'optional' } },
    ttlMs: 60_000,
    config: FAST,
    ...on(clock),
  });
  assert.deepEqual(t.sent[0].message.params.task, { ttl: 60_000 });
  assert.equal(task.id, 't1');
  task.stop();
  // The name or the entry, one of the two; a plain call asks no TTL.
  for (const opts of [{}, { name: 'echo', tool: echo }]) {
    await assert.rejects(callTool(server(), opts), { code: 'invalid_input', message: /one of the two/ });
  }
  // A name given as the entry has no taskSupport to decide by: refused, nothing sent.
  const named = server();
  await assert.rejects(callTool(named, { tool: 'echo' }), {
    code: 'invalid_input',
    message: /opts\.tool is the tool's tools\/list entry .*not a string; give a name as opts\.name/,
  });
  assert.equal(named.sent.length, 0);
  // Arguments JSON.stringify would change without a word are refused, nothing sent.
  const mapped = server();
  await assert.rejects(callTool(mapped, { name: 'echo', arguments: { when: new Map() } }), {
    code: 'malformed',
    message: /^callTool: opts\.arguments\.when: a Map is not JSON/,
  });
  assert.equal(mapped.sent.length, 0);
  // A name that is no string is said as such, not as a tool missing.
  await assert.rejects(callTool(server(), { name: 42 }), {
    code: 'invalid_input',
    message: "callTool: opts.name is the tool's name, a string, not a number",
  });
  await assert.rejects(callTool(server(), { tool: echo, ttlMs: 5 }), { code: 'invalid_input', message: /asks no TTL/ });
  // Rule M-22: a TTL of 0 would let the server delete the task before its first poll.
  const zero = server();
  await assert.rejects(callTool(zero, { name: 'render', ttlMs: 0 }), {
    code: 'invalid_input',
    message: /ttlMs: a TTL of 0 ms lets the server delete the task before it is polled/,
  });
  assert.equal(zero.sent.length, 0, 'nothing sent');
});

test('calls started together poll apart: each gets a jitter seed of its own unless one is given', async () => {
  const clock = fakeClock();
  const seedOf = async (config) => {
    const h = await callTool(working('t1', clock), { name: 'slow', config, ...on(clock) });
    const seed = JSON.parse(h.snapshot()).state.config.tracker.seed;
    h.stop();
    return seed;
  };
  const drawn = [await seedOf(undefined), await seedOf({ poll: { jitter: 'full' } }), await seedOf(null)];
  assert.equal(new Set(drawn).size, 3, `three seeds: ${drawn}`);
  assert.ok(drawn.every((seed) => Number.isSafeInteger(seed) && seed >= 0));
  assert.deepEqual([await seedOf({ seed: 9 }), await seedOf({ seed: 9 })], [9, 9]);
});

test('resume puts an input asked before the snapshot and never answered to onInput again (R-7)', async () => {
  const clock = fakeClock();
  const { s, answered } = asksOnce(clock, {
    ...task26('t1', 'completed'),
    resultType: 'complete',
    result: { content: [] },
  });
  const first = [];
  const h = await callTool(s, {
    name: 'job',
    config: FAST,
    ...on(clock),
    // The person never answers before the process goes away.
    onInput: (key) => {
      first.push(key);
      return new Promise(() => {});
    },
  });
  assert.ok(await clock.runUntil(() => first.length > 0, { step: 10, limitMs: 2000 }));
  assert.deepEqual(first, ['k']);
  const saved = h.snapshot();
  h.stop();
  const again = [];
  const back = resume(saved, s, {
    ...on(clock),
    // Reads the handle resume returns: the prompt is re-asked after resume has returned it.
    onInput: (key, request) => {
      again.push([key, request.params.message, back.id]);
      return { action: 'accept', content: { ok: true } };
    },
  });
  const out = await until(clock, back.outcome);
  assert.deepEqual(again, [['k', 'go?', 't1']], 'asked once more, after the restart');
  assert.deepEqual(answered(), { k: { action: 'accept', content: { ok: true } } });
  assert.equal(out.outcome, 'succeeded');
});

test('watchTask on an unknown id ends lost (-32602)', async () => {
  const clock = fakeClock();
  const s = fake('task-2026', { 'tasks/get': (m) => fail(m, -32602, 'Task nope not found') }, clock);
  const out = await until(clock, watchTask(s, 'nope', { config: FAST, ...on(clock) }).outcome);
  assert.equal(out.outcome, 'lost');
  assert.equal(out.record.cancel, 'unavailable');
  // Why: the server's answer is the call's error (O-6), so a host can say "Task nope not found".
  assert.deepEqual(out.error, { code: -32602, message: 'Task nope not found' });
});

test('an AbortSignal stops watching, never the task: no cancel is sent, outcome rejects watch_stopped', async () => {
  const clock = fakeClock();
  const s = working('t3', clock);
  const ac = new AbortController();
  const h = await callTool(s, { name: 'slow', config: FAST, ...on(clock), signal: ac.signal });
  await clock.advance(60);
  assert.ok(methods(s).filter((m) => m === 'tasks/get').length >= 2, 'polled before the abort');
  ac.abort();
  await assert.rejects(until(clock, h.outcome), (e) => e.code === 'watch_stopped' && e.taskId === 't3');
  const n = s.sent.length;
  await clock.advance(80);
  assert.equal(s.sent.length, n, 'no request after the abort');
  assert.ok(!methods(s).includes('tasks/cancel'));
});

test('an abort while the tools/call is out waits for its answer: the task it created is kept (E-62)', async () => {
  const clock = fakeClock();
  const s = working('t5', clock);
  const ac = new AbortController();
  const call = callTool(s, { name: 'slow', config: FAST, ...on(clock), signal: ac.signal });
  ac.abort(); // the tools/call is on its way
  const h = await call;
  assert.equal(h.id, 't5', 'the created task is known');
  await assert.rejects(
    until(clock, h.outcome),
    (e) => e.code === 'watch_stopped' && e.taskId === 't5' && /the task t5 goes on/.test(e.message),
  );
  await clock.advance(80);
  assert.deepEqual(methods(s), ['tools/call'], 'no poll and no cancel after the stop');
  // Resumable: the snapshot names the task.
  assert.match(h.snapshot(), /"t5"/);
});

test('a TTL for a 2026 call is refused before anything is sent, never dropped (M-18)', async () => {
  const s = fake('task-2026', { 'tools/call': (m) => ok(m, { ...task26('t7', 'working'), resultType: 'task' }) });
  await assert.rejects(callTool(s, { name: 'slow', ttlMs: 5000 }), {
    code: 'invalid_input',
    message: /ttlMs: a 2026 tools\/call asks no TTL/,
  });
  assert.equal(s.sent.length, 0);
});

test('a signal aborted before callTool sends nothing', async () => {
  const s = fake('task-2026', { 'tools/call': (m) => ok(m, { ...task26('t6', 'working'), resultType: 'task' }) });
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(
    callTool(s, { name: 'slow', signal: ac.signal }),
    (e) => e.code === 'watch_stopped' && e.reason === 'host_stopped' && /nothing was sent/.test(e.message),
  );
  assert.equal(s.sent.length, 0);
});

test('snapshot then resume in a new process-like watch: continues from the handle, no tools/call', async () => {
  let done = false;
  const clock = fakeClock();
  const handlers = {
    'tools/call': (m) => ok(m, { ...task26('t4', 'working'), resultType: 'task' }),
    'tasks/get': (m) =>
      ok(m, {
        ...task26('t4', done ? 'completed' : 'working'),
        resultType: 'complete',
        ...(done ? { result: { content: [] } } : {}),
      }),
  };
  const s1 = fake('task-2026', handlers, clock);
  const ac = new AbortController();
  const h = await callTool(s1, { name: 'slow', config: FAST, ...on(clock), signal: ac.signal });
  await clock.advance(30);
  const snap = h.snapshot();
  ac.abort();
  done = true;
  const s2 = fake('task-2026', handlers, clock);
  const r = resume(snap, s2, on(clock));
  assert.equal(r.id, 't4');
  assert.equal(r.record().name, 'slow', 'the tool name survives the snapshot');
  const out = await until(clock, r.outcome);
  assert.equal(out.outcome, 'succeeded');
  assert.ok(!methods(s2).includes('tools/call'));
  // A snapshot taken once settled resumes to the same outcome, its result with it.
  const settled = resume(r.snapshot(), fake('task-2026', handlers, clock), on(clock));
  assert.deepEqual(await settled.outcome, out, 'the result and error are not dropped');
  assert.deepEqual(out.result, { content: [] });
  // A snapshot taken after the watch was stopped resumes by the task id, still named.
  await h.outcome.catch(() => {});
  const stopped = resume(h.snapshot(), fake('task-2026', handlers, clock), on(clock));
  assert.equal(stopped.record().name, 'slow');
  assert.equal((await until(clock, stopped.outcome)).outcome, 'succeeded');
  assert.throws(
    () => resume('junk', s2),
    (e) => e.code === 'snapshot_invalid',
  );
  assert.throws(
    () => resume(snap, fake('task-2025', {})),
    (e) => e.code === 'wrong_model',
  );
});

test('a resumed call tells what it holds, then polls as soon as the floor allows (P-15)', async () => {
  const clock = fakeClock();
  // No stated interval: the host's backoff decides, a minute at first; the floor is 100 ms.
  const handlers = {
    'tools/call': (m) => ok(m, { ...task26('t9', 'working', { pollIntervalMs: undefined }), resultType: 'task' }),
    'tasks/get': (m) => ok(m, { ...task26('t9', 'working', { pollIntervalMs: undefined }), resultType: 'complete' }),
  };
  const config = { poll: { jitter: 'none', initialMs: 60_000, capMs: 60_000, minIntervalMs: 100 }, seed: 1 };
  const ac = new AbortController();
  const h = await callTool(fake('task-2026', handlers, clock), {
    name: 'slow',
    config,
    ...on(clock),
    signal: ac.signal,
  });
  await clock.advance(30);
  const snap = h.snapshot();
  ac.abort();
  const s2 = fake('task-2026', handlers, clock);
  const told = [];
  const r = resume(snap, s2, {
    ...on(clock),
    onStatus: (s) => told.push(`status ${s}`),
    onButton: (b) => told.push(`button ${b}`),
  });
  assert.deepEqual(told, ['status working', 'button available'], 'the view is drawn from the snapshot at once');
  await clock.advance(100);
  assert.deepEqual(methods(s2), ['tasks/get'], 'polled at the floor after the create, not a minute later');
  await clock.advance(1000);
  assert.deepEqual(methods(s2), ['tasks/get'], 'then the backoff again');
  assert.equal(told.length, 2, 'the same status is not told again');
  r.stop();
});

test('a stopped watch resumed from its snapshot keeps its floors: no poll sooner than the server asked (P-16)', async () => {
  const clock = fakeClock();
  const handlers = {
    'tools/call': (m) => ok(m, { ...task26('t8', 'working', { pollIntervalMs: 5000 }), resultType: 'task' }),
    'tasks/get': (m) => ok(m, { ...task26('t8', 'working', { pollIntervalMs: 5000 }), resultType: 'complete' }),
  };
  const ac = new AbortController();
  const s1 = fake('task-2026', handlers, clock);
  const h = await callTool(s1, { name: 'render', config: FAST, ...on(clock), signal: ac.signal });
  await clock.advance(5010);
  const polled = s1.sent.filter((x) => x.message.method === 'tasks/get');
  assert.equal(polled.length, 1, 'one poll at the stated interval');
  ac.abort();
  await h.outcome.catch(() => {});
  const s2 = fake('task-2026', handlers, clock);
  const r = resume(h.snapshot(), s2, { config: FAST, ...on(clock) });
  assert.equal(r.record().name, 'render', 'still named');
  assert.deepEqual([r.status, r.button], ['working', 'available'], 'the status last seen stands until then');
  await clock.advance(4000);
  assert.deepEqual(methods(s2), [], 'resuming is no reason to poll sooner than the server asked');
  await clock.advance(1500);
  assert.deepEqual(methods(s2), ['tasks/get']);
  assert.ok(s2.sent[0].at - polled[0].at >= 5000, `${s2.sent[0].at - polled[0].at} ms after the last poll`);
  r.stop();
});

test('2025: nested create, failed, tasks/result isError -> tool_error with the result', async () => {
  const clock = fakeClock();
  const s = fake(
    'task-2025',
    {
      'tools/call': (m) => {
        assert.deepEqual(m.params.task, { ttl: 5000 });
        return ok(m, { task: task25('u1', 'working') });
      },
      'tasks/get': (m) => ok(m, task25('u1', 'failed')),
      'tasks/result': (m) =>
        ok(m, {
          content: [{ type: 'text', text: 'bad' }],
          isError: true,
          _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'u1' } },
        }),
    },
    clock,
  );
  const out = await until(
    clock,
    (await callTool(s, { name: 'failing_job', ttlMs: 5000, config: FAST, ...on(clock) })).outcome,
  );
  assert.equal(out.outcome, 'tool_error');
  assert.equal(out.status, 'failed');
  assert.equal(out.result.isError, true);
  assert.deepEqual(methods(s), ['tools/call', 'tasks/get', 'tasks/result']);
});

test('violations from the wire are reported, the call goes on', async () => {
  const vs = [];
  const s = fake('task-2026', {
    'tools/call': (m) => ok(m, { ...task26('t5', 'completed'), resultType: 'complete', result: { content: [] } }),
  });
  // resultType "complete" on a tools/call is a plain result: not a task.
  const out = await (await callTool(s, { name: 'x', onViolation: (v) => vs.push(v) })).outcome;
  assert.equal(out.outcome, 'succeeded');
  const clock = fakeClock();
  const s2 = fake(
    'task-2026',
    {
      'tools/call': (m) =>
        ok(m, { taskId: 't6', status: 'working', createdAt: T, lastUpdatedAt: T, resultType: 'task' }),
      'tasks/get': (m) => ok(m, { ...task26('t6', 'completed'), resultType: 'complete', result: { content: [] } }),
    },
    clock,
  );
  const out2 = await until(
    clock,
    (await callTool(s2, { name: 'x', config: FAST, ...on(clock), onViolation: (v) => vs.push(v) })).outcome,
  );
  assert.equal(out2.outcome, 'succeeded');
  assert.ok(
    vs.some((v) => v.source === 'wire' && v.rule === 'missing_field'),
    JSON.stringify(vs),
  );
});

test("httpSender: the message sent as the core built it, naming the sender's client; the HTTP answer handed back whole", async () => {
  const seen = [];
  const fakeFetch = async (url, init) => {
    seen.push({ url, init });
    return new Response('bad gateway', { status: 502 });
  };
  const studio = { name: 'studio', version: '2.1.0' };
  const s = httpSender({ url: 'http://127.0.0.1:1/mcp', fetch: fakeFetch, clientInfo: studio });
  assert.deepEqual(s.clientInfo, studio);
  // A request of the host's own goes out as given: the sender adds no _meta.
  const mine = { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'x', _meta: lc.requestMeta(studio) } };
  const res = await s.send(mine, { 'Mcp-Name': 'x' }, {});
  assert.ok(res instanceof Response, 'a 502 is handed back, not thrown: the core reads it');
  assert.equal(res.status, 502);
  assert.equal(seen[0].init.headers['Mcp-Name'], 'x');
  assert.equal(seen[0].init.headers['Mcp-Method'], 'tools/call');
  assert.deepEqual(JSON.parse(seen[0].init.body), mine);
  // Rule M-21: the core names the sender's client in every request it builds.
  const clock = fakeClock();
  await assert.rejects(
    callTool(s, { name: 'x', now: clock.now, timers: clock.timers }),
    (e) => e.code === 'create_unanswered',
  );
  const meta = JSON.parse(seen[1].init.body).params._meta;
  assert.equal(meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
  assert.deepEqual(meta['io.modelcontextprotocol/clientInfo'], studio);
  await assert.rejects(listTools(s), (e) => e.code === 'tools_list_failed' || e.code === 'transport');
  assert.deepEqual(JSON.parse(seen[2].init.body).params._meta['io.modelcontextprotocol/clientInfo'], studio);
  // declareTasks: false strips the extension from what the core wrote, nothing else.
  const bare = httpSender({ url: 'http://127.0.0.1:1/mcp', fetch: fakeFetch, declareTasks: false });
  await bare.send(mine, {}, {});
  const stripped = JSON.parse(seen[3].init.body).params._meta;
  assert.deepEqual(stripped['io.modelcontextprotocol/clientCapabilities'].extensions, {});
  assert.deepEqual(stripped['io.modelcontextprotocol/clientInfo'], studio);
  assert.deepEqual(mine.params._meta, lc.requestMeta(studio), 'the message given is not changed');
  assert.throws(
    () => httpSender({ url: 'http://127.0.0.1:1/mcp', clientInfo: { name: 'studio' } }),
    (e) => e.code === 'malformed' && /version/.test(e.message),
  );
});

test('httpSender: the core reads SSE answers and HTTP 400 JSON-RPC errors; a 502 page fails the request with its words', async () => {
  const clock = fakeClock();
  let gets = 0;
  const fakeFetch = async (_url, init) => {
    const m = JSON.parse(init.body);
    const sse = (...messages) =>
      new Response(messages.map((x) => `event: message\ndata: ${JSON.stringify(x)}\n\n`).join(': keep-alive\n\n'), {
        headers: { 'content-type': 'text/event-stream' },
      });
    if (m.method === 'tools/call')
      return sse(
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
        { jsonrpc: '2.0', id: m.id, result: { ...task26('t', 'working'), resultType: 'task' } },
      );
    if (m.method === 'tasks/cancel' || gets++ === 0)
      return new Response('<h1>bad gateway</h1>', { status: 502, headers: { 'content-type': 'text/html' } });
    return new Response(
      JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'unknown task' } }),
      {
        status: 400,
        headers: { 'content-type': 'application/json' },
      },
    );
  };
  const failed = [];
  const exchanges = [];
  const h = await callTool(httpSender({ url: 'http://127.0.0.1:1/mcp', fetch: fakeFetch }), {
    name: 'x',
    config: FAST,
    ...on(clock),
    onRequestFailed: (f) => failed.push(f),
    onExchange: (x) => exchanges.push(x),
  });
  assert.equal(h.id, 't', 'the task named in an event stream');
  assert.equal(exchanges[0].http.status, 200);
  assert.match(String(exchanges[0].answer), /^event: message/, 'onExchange hears the body as it came');
  assert.equal(await until(clock, h.cancel()), 'available', 'a 502 page is no cancel answer');
  await clock.runUntil(() => failed.length === 1, { step: 5, limitMs: 1000 });
  assert.equal(failed[0].request, 'get');
  assert.equal(failed[0].failure.kind, 'http');
  assert.equal(failed[0].failure.status, 502);
  assert.equal(
    failed[0].cause.message,
    'HTTP 502 (text/html) from the server without a readable JSON-RPC answer to tasks/get: "<h1>bad gateway</h1>"',
  );
  assert.equal(failed[0].message, `tasks/get got no answer: ${failed[0].cause.message}; asking again`);
  assert.equal(await until(clock, h.cancel()), 'available', 'a 502 page is no cancel answer');
  assert.equal(exchanges.at(-1).http.status, 502);
  const out = await until(clock, h.outcome);
  assert.equal(out.outcome, 'lost', 'a 400 -32602 to tasks/get is the answer "no such task"');
});

test('httpSender: a tools/call answered by a proxy page is unanswered, said with the page', async () => {
  const fakeFetch = async () => new Response('upstream timed out', { status: 504 });
  const e = await callTool(httpSender({ url: 'http://127.0.0.1:1/mcp', fetch: fakeFetch }), { name: 'render' }).then(
    () => assert.fail('callTool resolved'),
    (x) => x,
  );
  assert.equal(e.code, 'create_unanswered');
  assert.equal(e.cause.code, 'transport');
  assert.equal(e.cause.httpStatus, 504);
  assert.equal(
    e.cause.message,
    'HTTP 504 (text/plain) from the server without a readable JSON-RPC answer to tools/call: "upstream timed out"',
  );
  assert.ok(e.message.includes(`got no JSON-RPC answer (${e.cause.message}): the tool may have started`), e.message);
});

test('a sender of its own hands back {status, headers, body}: SSE bytes, a 429 with Retry-After, header objects and lists', async () => {
  const clock = fakeClock();
  const gets = [];
  const sse = (m) =>
    new TextEncoder().encode(
      `: ping\n\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { ...task26('t2', 'working'), resultType: 'task' } })}\n\n`,
    );
  const sender = {
    model: 'task-2026',
    async send(message) {
      if (message.method === 'tools/call')
        return { status: 200, headers: { 'content-type': ['text/event-stream'] }, body: sse(message) };
      gets.push(clock.now());
      if (gets.length === 1)
        return { status: 429, headers: { 'retry-after': '2', 'content-type': 'text/plain' }, body: 'slow down' };
      // A Response-like whose headers can only be walked with forEach.
      const headers = new Map([['content-type', 'application/json']]);
      const body = {
        jsonrpc: '2.0',
        id: message.id,
        result: { ...task26('t2', 'completed'), resultType: 'complete', result: { content: [] } },
      };
      return { status: 200, headers: { forEach: (fn) => headers.forEach(fn) }, text: async () => JSON.stringify(body) };
    },
  };
  const violations = [];
  const failed = [];
  const h = await callTool(sender, {
    name: 'x',
    config: FAST,
    ...on(clock),
    onViolation: (v) => violations.push(v),
    onRequestFailed: (f) => failed.push(f),
  });
  assert.equal(h.id, 't2');
  assert.equal((await until(clock, h.outcome)).outcome, 'succeeded');
  assert.ok(gets[1] - gets[0] >= 2000, `polled again ${gets[1] - gets[0]} ms after a 429 saying 2 s`);
  assert.equal(failed[0].failure.retryAfterMs, 2000);
  assert.equal(
    failed[0].cause.message,
    'HTTP 429 (text/plain) from the server without a readable JSON-RPC answer to tasks/get: "slow down"',
  );
  assert.deepEqual(violations, []);
});

test('listTools through httpSender: an event-stream answer is read; a 503 page is no answer', async () => {
  let status = 200;
  const fakeFetch = async (_url, init) => {
    const m = JSON.parse(init.body);
    if (status !== 200) return new Response('', { status, headers: { 'retry-after': '5' } });
    return new Response(
      `data: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'a' }], nextCursor: 'n' } })}\n\n`,
      {
        headers: { 'content-type': 'text/event-stream; charset=utf-8' },
      },
    );
  };
  const sender = httpSender({ url: 'http://127.0.0.1:1/mcp', fetch: fakeFetch });
  assert.deepEqual(await listTools(sender), { tools: [{ name: 'a' }], nextCursor: 'n' });
  status = 503;
  await assert.rejects(listTools(sender), {
    code: 'transport',
    httpStatus: 503,
    message: 'listTools: HTTP 503 (text/plain) from the server without a readable JSON-RPC answer to tools/list',
  });
});

test('httpSender: its headers go out given as an object, a Headers, a Map or pairs; a string is refused', async () => {
  for (const headers of [
    { authorization: 'Bearer k' },
    new Headers({ authorization: 'Bearer k' }),
    new Map([['authorization', 'Bearer k']]),
    [['authorization', 'Bearer k']],
    new Map([['authorization', 'Bearer k']]).entries(), // read once, where it is given
  ]) {
    const seen = [];
    const fakeFetch = async (_url, init) => {
      seen.push(new Headers(init.headers));
      const m = JSON.parse(init.body);
      return new Response(JSON.stringify(ok(m, { resultType: 'complete', content: [] })), {
        headers: { 'content-type': 'application/json' },
      });
    };
    const h = await callTool(httpSender({ url: 'http://127.0.0.1:1/mcp', fetch: fakeFetch, headers }), { name: 'now' });
    assert.equal((await h.outcome).outcome, 'succeeded');
    assert.equal(seen[0].get('authorization'), 'Bearer k', `${headers.constructor.name}`);
    assert.equal(seen[0].get('mcp-method'), 'tools/call');
  }
  assert.throws(() => httpSender({ url: 'http://127.0.0.1:1/mcp', headers: 'Bearer k' }), {
    name: 'McpCallError',
    code: 'invalid_input',
    message:
      /^httpSender: headers must be an object of names and values, a Headers, a Map or \[name, value\] pairs, got string$/,
  });
});

test('httpSender: a body that breaks off is no answer', async () => {
  const clock = fakeClock();
  let gets = 0;
  const fakeFetch = async (_url, init) => {
    const m = JSON.parse(init.body);
    if (m.method === 'tools/call')
      return new Response(
        JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { ...task26('t', 'working'), resultType: 'task' } }),
      );
    gets++;
    const broken = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0","id":'));
        c.error(new Error('socket hang up'));
      },
    });
    return new Response(
      gets === 1
        ? broken
        : JSON.stringify({
            jsonrpc: '2.0',
            id: m.id,
            result: { ...task26('t', 'completed'), resultType: 'complete', result: { content: [] } },
          }),
    );
  };
  const failed = [];
  const violations = [];
  const h = await callTool(httpSender({ url: 'http://127.0.0.1:1/mcp', fetch: fakeFetch }), {
    name: 'x',
    config: FAST,
    ...on(clock),
    onRequestFailed: (f) => failed.push(f),
    onViolation: (v) => violations.push(v),
  });
  assert.equal((await until(clock, h.outcome)).outcome, 'succeeded');
  assert.equal(failed.length, 1);
  assert.equal(failed[0].failure.kind, 'transport');
  assert.equal(failed[0].cause.message, 'socket hang up');
  assert.deepEqual(violations, [], 'half a body is no answer, not an unreadable one');
});

test("httpSender: a 429 page's Retry-After holds the next poll back, and breaks no rule (E-67)", async () => {
  const clock = fakeClock();
  const gets = [];
  const fakeFetch = async (_url, init) => {
    const m = JSON.parse(init.body);
    const json = (result) =>
      new Response(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }), {
        headers: { 'content-type': 'application/json' },
      });
    if (m.method === 'tools/call') return json({ ...task26('t9', 'working'), resultType: 'task' });
    gets.push(clock.now());
    if (gets.length === 1)
      return new Response('<h1>Too many requests</h1>', {
        status: 429,
        headers: { 'content-type': 'text/html', 'retry-after': '2' },
      });
    return json({ ...task26('t9', 'completed'), resultType: 'complete', result: { content: [] } });
  };
  const violations = [];
  const h = await callTool(httpSender({ url: 'http://127.0.0.1:1/mcp', fetch: fakeFetch }), {
    name: 'x',
    config: FAST,
    ...on(clock),
    onViolation: (v) => violations.push(v),
  });
  const out = await until(clock, h.outcome);
  assert.equal(out.outcome, 'succeeded');
  assert.equal(gets.length, 2);
  assert.ok(gets[1] - gets[0] >= 2000, `polled again ${gets[1] - gets[0]} ms after a 429 saying 2 s`);
  assert.deepEqual(violations, [], 'a 429 page is no unreadable MCP answer');
});

test('httpSender to a port nothing listens on: create_unanswered says and carries the connection error', async () => {
  const port = await closedPort();
  const exchanges = [];
  const e = await callTool(httpSender({ url: `http://127.0.0.1:${port}/mcp` }), {
    name: 'render_report',
    onExchange: (x) => exchanges.push(x),
  }).then(
    () => assert.fail('callTool resolved'),
    (x) => x,
  );
  assert.ok(e instanceof McpCallError);
  assert.equal(e.code, 'create_unanswered', 'the core cannot know whether the tool started');
  assert.ok(e.cause instanceof Error, 'the transport error is the cause');
  assert.equal(e.cause.message, 'fetch failed');
  assert.equal(e.cause.cause?.code, 'ECONNREFUSED');
  assert.ok(
    e.message.includes(
      `got no answer (fetch failed: connect ECONNREFUSED 127.0.0.1:${port}): the tool may have started`,
    ),
    e.message,
  );
  assert.match(exchanges[0].error, /ECONNREFUSED/, 'onExchange hears the same words');
});

test('a tools/call answered by a 429 page: create_unanswered with its status and Retry-After, never resent (E-68)', async () => {
  const bodies = [];
  const fakeFetch = async (_url, init) => {
    bodies.push(JSON.parse(init.body));
    return new Response('<h1>Too many requests</h1>', {
      status: 429,
      headers: { 'retry-after': '30', 'content-type': 'text/html' },
    });
  };
  const e = await callTool(httpSender({ url: 'http://127.0.0.1:1/mcp', fetch: fakeFetch }), { name: 'render' }).then(
    () => assert.fail('callTool resolved'),
    (x) => x,
  );
  assert.equal(e.code, 'create_unanswered', 'the core still cannot know the tool did not start');
  assert.equal(e.httpStatus, 429);
  assert.equal(e.retryAfterMs, 30_000);
  assert.match(e.message, /do not resubmit\. The server asked to wait 30000 ms \(Retry-After\)\./);
  assert.equal(bodies.length, 1, 'the tools/call is never sent again');
  // Without a Retry-After there is no wait to say; the status is still there.
  const page = await callTool(
    httpSender({ url: 'http://127.0.0.1:1/mcp', fetch: async () => new Response('bad gateway', { status: 502 }) }),
    { name: 'render' },
  ).then(
    () => assert.fail('callTool resolved'),
    (x) => x,
  );
  assert.equal(page.httpStatus, 502);
  assert.equal(page.retryAfterMs, null);
  assert.doesNotMatch(page.message, /asked to wait/);
  assert.doesNotMatch(page.message, /MCP endpoint/, 'a gateway page is no sign of a wrong URL');
  // What a URL that is no MCP endpoint answers: the message asks whether the URL is one.
  for (const status of [404, 405, 501]) {
    const wrong = await callTool(
      httpSender({ url: 'http://127.0.0.1:1/', fetch: async () => new Response('nope', { status }) }),
      { name: 'render' },
    ).then(
      () => assert.fail('callTool resolved'),
      (x) => x,
    );
    assert.equal(wrong.code, 'create_unanswered');
    assert.match(
      wrong.message,
      /do not resubmit\. Is the URL the server's MCP endpoint \(its path, such as \/mcp\)\?$/,
    );
  }
  // A 2xx page (a login page) is no answer either, and its status is said the same way.
  const login = await callTool(
    httpSender({
      url: 'http://127.0.0.1:1/mcp',
      fetch: async () =>
        new Response('<h1>Please log in</h1>', { status: 200, headers: { 'content-type': 'text/html' } }),
    }),
    { name: 'render' },
  ).then(
    () => assert.fail('callTool resolved'),
    (x) => x,
  );
  assert.equal(login.code, 'create_unanswered');
  assert.equal(login.httpStatus, 200);
  assert.equal(login.retryAfterMs, null);
  assert.match(
    login.message,
    /got no JSON-RPC answer \(HTTP 200 \(text\/html\) from the server without a readable JSON-RPC answer to tools\/call/,
  );
});

test('a 2xx answer whose JSON-RPC result cannot be read: the failure says no readable answer, the violation why', async () => {
  const clock = fakeClock();
  const failed = [];
  const violations = [];
  const json = (body) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
  const fakeFetch = async (_url, init) => {
    const m = JSON.parse(init.body);
    if (m.method === 'tools/call') return json(ok(m, { ...task26('t1', 'working'), resultType: 'task' }));
    // The registry's answer handed back unrendered: a JSON-RPC answer with no task in it.
    return json(ok(m, { ok: true, value: { taskId: 't1' } }));
  };
  const h = await callTool(httpSender({ url: 'http://127.0.0.1:1/mcp', fetch: fakeFetch }), {
    name: 'render',
    config: { ...FAST, deadlineMs: clock.now() + 300 },
    ...on(clock),
    onRequestFailed: (f) => failed.push(f),
    onViolation: (v) => violations.push(v),
  });
  await assert.rejects(until(clock, h.outcome), { code: 'watch_stopped', reason: 'deadline' });
  assert.ok(failed.length >= 1);
  assert.match(
    failed[0].cause.message,
    /^HTTP 200 \(application\/json\) from .* without a readable JSON-RPC answer to tasks\/get: /,
  );
  assert.equal(failed[0].cause.httpStatus, 200);
  assert.equal(violations[0]?.rule, 'unreadable_answer', 'the violation says what was wrong with it');
  assert.match(violations[0].detail, /malformed task: missing taskId/);
});

test("an error naming no request (a 2025 server's 'not initialized') is the cause of create_unanswered, with the fix", async () => {
  const error = { code: -32000, message: 'Bad Request: Server not initialized' };
  const s = fake('task-2026', { 'tools/call': () => ({ jsonrpc: '2.0', id: null, error }) });
  const e = await callTool(s, { name: 'render_report' }).then(
    () => assert.fail('callTool resolved'),
    (x) => x,
  );
  assert.equal(e.code, 'create_unanswered');
  assert.deepEqual(e.cause, error);
  assert.match(
    e.message,
    /got no answer \(the server answered error -32000 "Bad Request: Server not initialized" to no request id; a 2025-11-25 server takes an SDK client's session: use sdkSender or sdk2Sender\)/,
  );
});

test('a deadline reached while polls get no answer: watch_stopped carries the last transport error', async () => {
  const clock = fakeClock();
  const lost = new Error('socket hang up');
  const s = fake(
    'task-2026',
    {
      'tools/call': (m) => ok(m, { ...task26('t9', 'working'), resultType: 'task' }),
      'tasks/get': () => {
        throw lost;
      },
    },
    clock,
  );
  const h = await callTool(s, { name: 'slow', config: { ...FAST, deadlineMs: clock.now() + 200 }, ...on(clock) });
  await assert.rejects(until(clock, h.outcome), (e) => {
    assert.equal(e.code, 'watch_stopped');
    assert.equal(e.reason, 'deadline');
    assert.equal(e.cause, lost);
    assert.match(e.message, /\(socket hang up\)/);
    return true;
  });
});

test('a deadline given as a duration is refused before tools/call is sent (E-60)', async () => {
  const clock = fakeClock();
  const s = fake(
    'task-2026',
    { 'tools/call': (m) => ok(m, { ...task26('t9', 'working'), resultType: 'task' }) },
    clock,
  );
  for (const deadlineMs of [4000, clock.now()]) {
    await assert.rejects(callTool(s, { name: 'slow', config: { deadlineMs }, ...on(clock) }), {
      code: 'invalid_config',
      message: new RegExp(`^invalid configuration: deadlineMs: ${deadlineMs} has passed \\(now is ${clock.now()}\\)`),
    });
  }
  assert.deepEqual(s.sent, []);
});

test('a stop the caller asked for carries no transport error, even after an unanswered poll', async () => {
  const clock = fakeClock();
  const s = fake(
    'task-2026',
    {
      'tools/call': (m) => ok(m, { ...task26('t10', 'working'), resultType: 'task' }),
      'tasks/get': () => {
        throw new Error('socket hang up');
      },
    },
    clock,
  );
  const ac = new AbortController();
  const h = await callTool(s, { name: 'slow', config: FAST, ...on(clock), signal: ac.signal });
  await clock.advance(60);
  assert.ok(methods(s).includes('tasks/get'), 'a poll went unanswered first');
  ac.abort();
  await assert.rejects(until(clock, h.outcome), (e) => e.code === 'watch_stopped' && e.cause === undefined);
});

test('a 2026 MRTR InputRequiredResult on tools/call: asked once through onInput, the endpoint sends the continuation with requestState (E-8)', async () => {
  const asked = [];
  const s = fake('task-2026', {
    'tools/call': (m) =>
      m.params.requestState
        ? ok(m, {
            content: [{ type: 'text', text: `hi ${m.params.inputResponses.user_name.content.name}` }],
            resultType: 'complete',
          })
        : ok(m, {
            resultType: 'input_required',
            requestState: 'opaque-1',
            inputRequests: { user_name: { method: 'elicitation/create', params: { message: 'name?' } } },
          }),
  });
  const h = await callTool(s, {
    name: 'greet',
    arguments: { lang: 'en' },
    // Uses the handle callTool returns: the input is asked before that, so it must not run inside it.
    onInput: (key, request, info) => {
      asked.push([key, request.params.message, info.call, h.record().name]);
      return { action: 'accept', content: { name: 'Ada' } };
    },
  });
  const out = await h.outcome;
  assert.equal(out.outcome, 'succeeded');
  assert.equal(out.result.content[0].text, 'hi Ada');
  assert.deepEqual(asked, [['user_name', 'name?', true, 'greet']]);
  assert.deepEqual(methods(s), ['tools/call', 'tools/call']);
  const cont = s.sent[1].message.params;
  assert.equal(cont.requestState, 'opaque-1');
  assert.equal(cont.name, 'greet');
  assert.deepEqual(cont.arguments, { lang: 'en' });
});

test('a 2026 InputRequiredResult with only a requestState asks nothing; its continuations wait for the poll schedule (E-69)', async () => {
  const clock = fakeClock();
  const asked = [];
  let round = 0;
  const s = fake(
    'task-2026',
    {
      'tools/call': (m) =>
        ++round < 3
          ? ok(m, { resultType: 'input_required', requestState: `still-${round}` })
          : ok(m, { content: [{ type: 'text', text: 'rendered' }], resultType: 'complete' }),
    },
    clock,
  );
  const h = await callTool(s, {
    name: 'render',
    config: FAST,
    ...on(clock),
    onInput: (key) => asked.push(key),
  });
  await clock.settle();
  assert.deepEqual(methods(s), ['tools/call'], 'the continuation is not sent at once');
  const out = await until(clock, h.outcome);
  assert.equal(out.outcome, 'succeeded');
  assert.equal(out.result.content[0].text, 'rendered');
  assert.deepEqual(asked, [], 'nothing was asked');
  assert.deepEqual(methods(s), ['tools/call', 'tools/call', 'tools/call']);
  const [first, second, third] = s.sent;
  assert.equal(second.message.params.requestState, 'still-1');
  assert.equal(third.message.params.requestState, 'still-2');
  assert.ok(!('inputResponses' in second.message.params), 'no answers to a round that asked nothing');
  // FAST: 10 ms, then the backoff's 20 ms.
  assert.ok(second.at - first.at >= 10, `${second.at - first.at} ms`);
  assert.ok(third.at - second.at >= 20, `${third.at - second.at} ms`);
});

test('a call stopped in an MRTR round resumes from it: the prompt asked again, the continuation with its state (E-70)', async () => {
  const clock = fakeClock();
  const handlers = {
    'tools/call': (m) =>
      m.params.requestState
        ? ok(m, {
            content: [{ type: 'text', text: `hi ${m.params.inputResponses.who.content.name}` }],
            resultType: 'complete',
          })
        : ok(m, {
            resultType: 'input_required',
            requestState: 'opaque-7',
            inputRequests: { who: { method: 'elicitation/create', params: { message: 'name?' } } },
          }),
  };
  const ac = new AbortController();
  let saved;
  const asked = [];
  const h = await callTool(fake('task-2026', handlers, clock), {
    name: 'greet',
    arguments: { lang: 'en' },
    config: FAST,
    ...on(clock),
    signal: ac.signal,
    onSnapshot: (t) => {
      saved = t;
    },
    onInput: (key) => {
      asked.push(key);
      return new Promise(() => {}); // the service shuts down with the prompt open
    },
  });
  await clock.advance(10);
  assert.deepEqual(asked, ['who']);
  ac.abort();
  await assert.rejects(until(clock, h.outcome), (e) => e.code === 'watch_stopped');
  const s2 = fake('task-2026', handlers, clock);
  const r = resume(saved, s2, {
    ...on(clock),
    onInput: (key) => {
      asked.push(key);
      return { action: 'accept', content: { name: 'Ada' } };
    },
  });
  const out = await until(clock, r.outcome);
  assert.equal(out.outcome, 'succeeded');
  assert.equal(out.result.content[0].text, 'hi Ada');
  assert.deepEqual(asked, ['who', 'who'], 'asked again after the restart');
  const cont = s2.sent[0].message.params;
  assert.deepEqual([cont.name, cont.arguments, cont.requestState], ['greet', { lang: 'en' }, 'opaque-7']);
});

test('watchTask assumes no status: the first status reported is the first the server gave (E-6)', async () => {
  const clock = fakeClock();
  const statuses = [];
  const s = fake(
    'task-2026',
    { 'tasks/get': (m) => ok(m, { ...task26('t7', 'completed'), resultType: 'complete', result: { content: [] } }) },
    clock,
  );
  const h = watchTask(s, 't7', { config: FAST, ...on(clock), onStatus: (x) => statuses.push(x) });
  assert.deepEqual(statuses, [], 'nothing observed before the poll answers');
  const out = await until(clock, h.outcome);
  assert.equal(out.outcome, 'succeeded');
  assert.deepEqual(statuses, ['completed']);
  assert.deepEqual(methods(s), ['tasks/get']);
});

test("an unreadable tools/call answer is the core's to judge: reported, the call unanswered, never re-sent (E-2)", async () => {
  const vs = [];
  const s = fake('task-2026', { 'tools/call': () => 'this is not JSON' });
  await assert.rejects(
    callTool(s, { name: 'paid', onViolation: (v) => vs.push(v) }),
    (e) => e.code === 'create_unanswered',
  );
  assert.ok(
    vs.some((v) => v.rule === 'unreadable_answer'),
    JSON.stringify(vs),
  );
  assert.deepEqual(methods(s), ['tools/call']);
});

test('resume of a snapshot taken with the tools/call in flight: create_unanswered, nothing sent (E-5)', async () => {
  const clock = fakeClock();
  // An endpoint that has emitted its tools/call and has no answer yet: the state a process
  // persisted just before it died.
  const { Endpoint } = await import('longcall');
  const ep = Endpoint.callTool('task-2026', 'paid', {}, null, null, null);
  assert.equal(ep.pollEvents()[0].type, 'transmit');
  const s = fake('task-2026', {}, clock);
  const r = resume(ep.snapshot(), s, on(clock));
  await assert.rejects(until(clock, r.outcome), (e) => e.code === 'create_unanswered');
  assert.deepEqual(methods(s), []);
});

test("a wake-up beyond setTimeout's limit (a Retry-After of 35 days) is capped and re-armed, never a spin", async () => {
  const clock = fakeClock();
  const delays = [];
  const timers = {
    setTimeout: (fn, ms) => {
      delays.push(ms);
      return clock.timers.setTimeout(fn, ms);
    },
    clearTimeout: clock.timers.clearTimeout,
  };
  const WAIT = 3_000_000_000; // about 35 days, past 2^31-1 ms (a server's interval is read as at most an hour: M-20)
  const sent = [];
  const fakeFetch = async (_url, init) => {
    const m = JSON.parse(init.body);
    sent.push(m.method);
    const json = (result) => new Response(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
    if (m.method === 'tools/call') return json({ ...task26('t1', 'working'), resultType: 'task' });
    if (sent.length === 2) return new Response('', { status: 429, headers: { 'retry-after': String(WAIT / 1000) } });
    return json({ ...task26('t1', 'completed'), resultType: 'complete', result: { content: [] } });
  };
  const sender = httpSender({ url: 'http://127.0.0.1:1/mcp', fetch: fakeFetch });
  const h = await callTool(sender, { name: 'job', arguments: {}, now: clock.now, timers });
  await clock.runUntil(() => sent.length === 2, { step: 5, limitMs: 10_000 });
  await clock.settle();
  const MAX = 2 ** 31 - 1;
  assert.equal(Math.max(...delays), MAX, 'the wake-up is capped at setTimeout’s limit');
  const armed = delays.length;
  await clock.advance(MAX);
  assert.deepEqual(sent, ['tools/call', 'tasks/get'], 'the early wake-up sends nothing');
  assert.ok(delays.length - armed <= 2, `${delays.length - armed} timers armed: a spin arms thousands`);
  assert.ok(delays.every((d) => d <= MAX));
  await clock.advance(WAIT - MAX);
  assert.equal((await until(clock, h.outcome)).outcome, 'succeeded');
  assert.deepEqual(sent, ['tools/call', 'tasks/get', 'tasks/get']);
});

test('a cancel that gets no answer resolves with the button open again, never as cancelled', async () => {
  const clock = fakeClock();
  const s = working('t1', clock, {
    'tasks/cancel': () => {
      throw new Error('ECONNREFUSED');
    },
  });
  const h = await callTool(s, { name: 'slow', config: FAST, ...on(clock) });
  assert.equal(await until(clock, h.cancel()), 'available');
  assert.equal(h.button, 'available');
  assert.equal(methods(s).filter((m) => m === 'tasks/cancel').length, 1);
  h.stop();
});

test('an answer over the reading limits: the error names the options to raise', async () => {
  const clock = fakeClock();
  const s = fake(
    'task-2026',
    {
      'tools/call': (m) => ok(m, { ...task26('t1', 'working'), resultType: 'task' }),
      'tasks/get': (m) => ok(m, { ...task26('t1', 'working'), resultType: 'complete', statusMessage: 'x'.repeat(500) }),
    },
    clock,
  );
  const h = await callTool(s, { name: 'slow', config: FAST, wire: { maxBytes: 400 }, ...on(clock) });
  await assert.rejects(until(clock, h.outcome), (e) => {
    assert.equal(e.code, 'watch_stopped');
    assert.equal(e.reason, 'answer_too_large');
    assert.match(
      e.message,
      /over the reading limits \(wire\.maxBytes, maxStringBytes, maxDepth\); the task t1 goes on/,
    );
    return true;
  });
});

test("onInput's signal aborts when the server accepts a cancel, or the call ends; the late answer is not sent", async () => {
  const clock = fakeClock();
  let cancelled = false;
  const { s } = asksOnce(clock, {});
  const server = {
    ...s,
    send: (m, headers, opts) => {
      if (m.method === 'tasks/cancel') {
        s.sent.push({ message: m, headers, at: clock.now() });
        cancelled = true;
        return Promise.resolve(ok(m, { resultType: 'complete' }));
      }
      if (m.method === 'tasks/get' && cancelled)
        return Promise.resolve(ok(m, { ...task26('t1', 'cancelled'), resultType: 'complete' }));
      return s.send(m, headers, opts);
    },
  };
  const reasons = [];
  const violations = [];
  let h;
  h = await callTool(server, {
    name: 'job',
    config: FAST,
    ...on(clock),
    onViolation: (v) => violations.push(v),
    // The dialog stays open until the person answers or the question is withdrawn.
    onInput: (_key, _request, { signal }) =>
      new Promise((resolve) => {
        h.cancel();
        signal.addEventListener('abort', () => {
          reasons.push([signal.reason.code, signal.reason.message]);
          resolve({ action: 'accept' }); // too late: not sent
        });
      }),
  });
  const out = await until(clock, h.outcome);
  assert.equal(out.outcome, 'cancelled');
  assert.deepEqual(reasons, [['input_withdrawn', 'input k is no longer asked: the server accepted the cancel']]);
  assert.equal(methods(s).filter((m) => m === 'tasks/update').length, 0, 'the late answer is not sent');
  assert.deepEqual(violations, [], "an answer to a withdrawn question is nobody's fault");

  // A call that ends while a question is open withdraws it too.
  const { s: s2 } = asksOnce(clock, {});
  const ended = [];
  const h2 = await callTool(s2, {
    name: 'job',
    config: FAST,
    ...on(clock),
    onInput: (_key, _request, { signal }) =>
      new Promise((resolve) => {
        signal.addEventListener('abort', () => {
          ended.push(signal.reason.message);
          resolve(undefined);
        });
        h2.stop();
      }),
  });
  await assert.rejects(until(clock, h2.outcome), { code: 'watch_stopped' });
  assert.deepEqual(ended, ['input k is no longer asked: the call ended']);
});

// A server that keeps each event stream open after the answer (closing it is a SHOULD): the
// answer is acted on when its event arrives, not at the stream's end, which never comes. Waiting
// for the end lost the tools/call's task id to the timeout, and every poll's answer after it.
test('httpSender: an event stream kept open after its answer is read up to the answer', async () => {
  const open = new Set();
  let gets = 0;
  const server = createServer(async (req, res) => {
    let raw = '';
    for await (const c of req) raw += c;
    const m = JSON.parse(raw);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    open.add(res);
    const send = (msg) => res.write(`event: message\ndata: ${JSON.stringify(msg)}\n\n`);
    send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
    if (m.method === 'tools/call')
      send({ jsonrpc: '2.0', id: m.id, result: { ...task26('t-open', 'working'), resultType: 'task' } });
    else if (++gets < 2)
      send({ jsonrpc: '2.0', id: m.id, result: { ...task26('t-open', 'working'), resultType: 'complete' } });
    else
      send({
        jsonrpc: '2.0',
        id: m.id,
        result: {
          ...task26('t-open', 'completed'),
          resultType: 'complete',
          result: { content: [{ type: 'text', text: 'done' }] },
        },
      });
    res.write(': keep-alive\n\n'); // and the stream stays open
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    const sender = httpSender({ url: `http://127.0.0.1:${server.address().port}/mcp`, timeoutMs: 5_000 });
    const t0 = Date.now();
    const h = await callTool(sender, {
      name: 'slow',
      config: { poll: { initialMs: 20, capMs: 40, minIntervalMs: 10 } },
    });
    assert.equal(h.id, 't-open');
    const out = await h.outcome;
    assert.equal(out.outcome, 'succeeded');
    assert.deepEqual(out.result.content, [{ type: 'text', text: 'done' }]);
    assert.ok(Date.now() - t0 < 4_000, `settled after ${Date.now() - t0} ms, not at a timeout`);
  } finally {
    for (const res of open) res.destroy();
    server.closeAllConnections();
    server.close();
  }
});
