// The server gate (`longcall/server`: gateRequest, gateTaskSupport, httpStatusFor), in Node and
// in Chromium: the same answers as the core's Rust tests (src/server/gate.rs).
const withServer = async (client) => ({ ...client, ...(await import('longcall/server')) });

const CAPS = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };
const HEADERS = { 'mcp-method': 'tasks/get', 'mcp-name': 't1', 'mcp-protocol-version': '2026-07-28' };

export const cases = {
  async 'gate: capability, headers, removed methods, HTTP status'({ lc: client, assert }) {
    const lc = await withServer(client);
    assert.equal(lc.gateRequest('task-2026', 'tasks/get', { taskId: 't1', _meta: CAPS }, HEADERS), null);
    assert.equal(
      lc.gateRequest('task-2026', 'tasks/get', { taskId: 't1', _meta: CAPS }, null),
      null,
      'stdio: no headers',
    );
    // A worker runtime's Fetch Headers, and pairs, read as the plain object they hold.
    if (typeof Headers === 'function')
      assert.equal(lc.gateRequest('task-2026', 'tasks/get', { taskId: 't1', _meta: CAPS }, new Headers(HEADERS)), null);
    assert.equal(
      lc.gateRequest('task-2026', 'tasks/get', { taskId: 't1', _meta: CAPS }, new Map(Object.entries(HEADERS))),
      null,
    );
    const noCaps = lc.gateRequest('task-2026', 'tasks/get', { taskId: 't1' }, HEADERS);
    assert.deepEqual(
      [noCaps.rule, noCaps.kind, noCaps.error.code, noCaps.httpStatus],
      ['E-20', 'missing_capability', -32021, 400],
    );
    assert.ok(noCaps.error.data.requiredCapabilities.extensions['io.modelcontextprotocol/tasks']);
    const name = lc.gateRequest(
      'task-2026',
      'tasks/get',
      { taskId: 't1', _meta: CAPS },
      { ...HEADERS, 'mcp-name': 'other' },
    );
    assert.deepEqual([name.rule, name.error.code], ['E-22', -32020]);
    const removed = lc.gateRequest(
      'task-2026',
      'tasks/result',
      { taskId: 't1', _meta: CAPS },
      { ...HEADERS, 'mcp-method': 'tasks/result' },
    );
    assert.deepEqual([removed.rule, removed.error.code, removed.httpStatus], ['E-25', -32601, 404]);
    assert.equal(lc.gateRequest('task-2025', 'tasks/update', {}, null).error.code, -32601);
    assert.deepEqual(lc.gateTaskSupport('task-2026', 'x', 'required', { name: 'x', _meta: CAPS }), {
      ok: true,
      value: true,
    });
    assert.equal(lc.gateTaskSupport('task-2026', 'x', 'required', { name: 'x' }).error.error.code, -32021);
    assert.deepEqual(lc.gateTaskSupport('task-2026', 'x', 'never', { name: 'x', _meta: CAPS }), {
      ok: true,
      value: false,
    });
    assert.deepEqual(
      [lc.httpStatusFor(-32601), lc.httpStatusFor(-32603), lc.httpStatusFor(-32021), lc.httpStatusFor(0.5)],
      [404, 500, 400, 400],
    );
    assert.throws(() => lc.gateTaskSupport('task-2026', 'x', 'sometimes', null), { code: 'invalid_input' });
    assert.throws(() => lc.gateRequest('task-2027', 'tasks/get', null, null));
  },

  async 'server answers: envelope, params, not served, MRTR, resultType, discovery (E-53..E-58)'({
    lc: client,
    assert,
  }) {
    const lc = await withServer(client);
    assert.deepEqual(lc.readRequest('{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"t"}}'), {
      kind: 'request',
      id: 4,
      method: 'tasks/get',
      params: { taskId: 't' },
    });
    const parse = lc.readRequest('{nope');
    assert.deepEqual([parse.kind, parse.httpStatus, JSON.parse(parse.body).error.code], ['refused', 400, -32700]);
    const invalid = lc.readRequest('{"jsonrpc":"1.0","id":"a","method":"ping"}');
    assert.deepEqual([JSON.parse(invalid.body).id, JSON.parse(invalid.body).error.code], ['a', -32600]);
    assert.equal(lc.readRequest('{"jsonrpc":"2.0","method":"notifications/initialized"}').kind, 'no_answer');
    assert.equal(lc.readRequest('{"jsonrpc":"2.0","id":1,"result":{}}').kind, 'no_answer');
    assert.equal(lc.readRequest('x'.repeat((4 << 20) + 1)).httpStatus, 413);
    assert.equal(lc.checkParams('task-2026', 'tasks/get', { taskId: 't' }), null);
    const params = lc.checkParams('task-2026', 'tasks/update', { taskId: 't', inputResponses: [] });
    assert.deepEqual([params.rule, params.kind, params.error.code], ['E-54', 'params', -32602]);
    const method = lc.methodNotServed('foo/bar');
    assert.deepEqual(
      [method.rule, method.error.code, method.error.data, method.httpStatus],
      ['E-55', -32601, 'foo/bar', 404],
    );
    assert.equal(lc.unknownTool('nope').error.message, 'Unknown tool: nope');
    assert.deepEqual(lc.inputResponses({ inputResponses: { k: { action: 'accept' } } }), { k: { action: 'accept' } });
    assert.deepEqual(lc.inputResponses({}), {});
    assert.deepEqual(lc.inputRequiredResult({ k: { method: 'elicitation/create' } }, 's'), {
      resultType: 'input_required',
      inputRequests: { k: { method: 'elicitation/create' } },
      requestState: 's',
    });
    assert.throws(() => lc.inputRequiredResult({}), { code: 'invalid_input' });
    // E-69: still waiting, nothing asked: the state alone.
    assert.deepEqual(lc.inputRequiredResult(null, 'still'), { resultType: 'input_required', requestState: 'still' });
    assert.deepEqual(lc.inputRequiredResult({}, 'still'), { resultType: 'input_required', requestState: 'still' });
    assert.deepEqual(lc.completeResult({ content: [], resultType: 'task' }), { content: [], resultType: 'complete' });
    assert.deepEqual(lc.completeResult(), { resultType: 'complete' });
    const d = lc.discoverResult('task-2026', { name: 's', version: '1' }, { tools: {} });
    assert.deepEqual(d.supportedVersions, ['2026-07-28']);
    assert.ok(d.capabilities.extensions['io.modelcontextprotocol/tasks']);
    assert.equal(lc.initializeResult('task-2026', { name: 's', version: '1' }, null).protocolVersion, '2026-07-28');
    assert.deepEqual(lc.toolsListResult([{ name: 't' }]).tools, [{ name: 't' }]);
    const ok = lc.answerText(1, { resultType: 'complete' });
    assert.deepEqual([ok.httpStatus, JSON.parse(ok.body).result], [200, { resultType: 'complete' }]);
    const err = lc.answerText('x', null, { code: -32603, message: 'm' });
    assert.deepEqual([err.httpStatus, JSON.parse(err.body).id], [500, 'x']);
  },
};
