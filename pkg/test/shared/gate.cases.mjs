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
};
