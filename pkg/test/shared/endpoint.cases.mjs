// CallEndpoint (src/endpoint/client.rs through bindings/wasm/src/wire.rs), in Node and Chromium:
// bytes in, transmits and events out, the same as the native tests.
const T = '2026-11-29T15:07:54.708861+00:00';
const res = (id, result) => JSON.stringify({ jsonrpc: '2.0', id, result });
const task = (extra) => ({ taskId: 't1', createdAt: T, lastUpdatedAt: T, ttlMs: null, ...extra });
const last = (events) => events[events.length - 1];
const transmits = (events) => events.filter((e) => e.type === 'transmit');
const config = { tracker: { poll: { jitter: 'none' } } };

export const cases = {
  'CallEndpoint: tools/call, a task, a poll, settled with the result'({ lc, assert }) {
    const ep = lc.CallEndpoint.callTool('task-2026', 'render', { n: 1 }, null, config);
    let ev = ep.events();
    const call = transmits(ev)[0];
    assert.equal(call.kind, 'rpc');
    assert.equal(call.id, 1);
    assert.equal(JSON.parse(call.text).method, 'tools/call');
    assert.ok(call.headers.some(([k, v]) => k === 'Mcp-Name' && v === 'render'));
    ev = ep.handleMessage(5, res(1, { ...task({ status: 'working', pollIntervalMs: 1000 }), resultType: 'task' }));
    assert.deepEqual(last(ev), { type: 'wake_at', at: 1005 });
    ev = ep.timeout(1005);
    const get = transmits(ev)[0];
    assert.equal(JSON.parse(get.text).method, 'tasks/get');
    const done = res(get.id, { ...task({ status: 'completed', result: { content: [] } }), resultType: 'complete' });
    ev = ep.handleMessage(1010, new TextEncoder().encode(done));
    const settled = ev.find((e) => e.type === 'settled');
    assert.equal(settled.outcome, 'succeeded');
    assert.deepEqual(settled.result, { content: [] });
    assert.equal(ep.record().outcome, 'succeeded');
  },
  'CallEndpoint: MRTR continuation carries requestState'({ lc, assert }) {
    const ep = lc.CallEndpoint.callTool('task-2026', 'confirm', {}, null, config);
    ep.events();
    let ev = ep.handleMessage(1, res(1, { resultType: 'input_required', requestState: 's1', inputRequests: { k: { method: 'elicitation/create', params: {} } } }));
    assert.equal(ev[0].type, 'ask_user');
    assert.equal(ev[0].call, true);
    ev = ep.answerInput(2, 'k', { action: 'accept' });
    const cont = JSON.parse(transmits(ev)[0].text);
    assert.equal(cont.method, 'tools/call');
    assert.equal(cont.params.requestState, 's1');
    assert.deepEqual(cont.params.inputResponses, { k: { action: 'accept' } });
  },
  'CallEndpoint: unknown ids are violations; resume re-arms a poll in flight'({ lc, assert }) {
    const ep = lc.CallEndpoint.watch('task-2026', 't1', config);
    assert.equal(JSON.parse(transmits(ep.events())[0].text).method, 'tasks/get');
    const ev = ep.handleMessage(1, res(99, {}));
    assert.equal(ev[0].violation.rule, 'unknown_answer_id');
    const back = lc.CallEndpoint.restore(ep.snapshot(), 100);
    assert.deepEqual(back.events(), [{ type: 'wake_at', at: 1100 }]);
  },
  'CallEndpoint: bad arguments throw coded errors'({ lc, assert }) {
    for (const fn of [
      () => lc.CallEndpoint.callTool('job', 'x'),
      () => lc.CallEndpoint.watch('task-2026', ''),
      () => lc.CallEndpoint.restore('{}', 0),
      () => lc.CallEndpoint.watch('task-2026', 't1').handleMessage(-1, '{}'),
    ]) {
      let code;
      try { fn(); } catch (e) { code = e.code; }
      assert.ok(typeof code === 'string', `threw a coded error: ${code}`);
    }
  },
};
