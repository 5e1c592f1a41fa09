// The reference servers through the JS API (TaskRegistry, JobBook, renderTask2026,
// missingCapability2026), in Node and in Chromium: domain answers come back as {ok, value|error},
// bad input throws an Error with a `code`, snapshots restore exactly. Data is camelCase, as on the
// MCP wire and in the client API; the caller's own JSON inside it passes untouched.
// The servers are their own entry point (`longcall/server`); the cases see them beside the client API.
const withServer = async (client) => ({ ...client, ...(await import('longcall/server')) });

const ALICE = { workspace: 'w', member: 'alice' };
const BOB = { workspace: 'w', member: 'bob' };

function throwsCode(assert, fn, code) {
  let err;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof Error, `expected a thrown Error (${code})`);
  assert.equal(err.code, code, `${err?.message}`);
}

export const cases = {
  async 'registry restored at server start: unsettled names what to resume or fail; setConfig for new tasks (S-9)'({
    lc: client,
    assert,
  }) {
    const lc = await withServer(client);
    const reg = new lc.TaskRegistry('task-2026', { ttlMs: 60000 });
    for (const id of ['a', 'b', 'c']) reg.create(0, 'p', id);
    assert.deepEqual(reg.fail(5, 'c', { code: -32603, message: 'out of paint' }), { kind: 'applied' });
    const back = lc.TaskRegistry.restore(reg.snapshot());
    assert.deepEqual(back.unsettled(), ['a', 'b']);
    back.setConfig({ ttlMs: 5000 });
    assert.equal(back.create(6, 'p', 'd').ttlMs, 5000);
    assert.equal(back.peek('a').ttlMs, 60000, 'stored tasks keep theirs');
    throwsCode(assert, () => back.setConfig({ ttl_ms: 1 }), 'invalid_input');
    throwsCode(assert, () => back.setConfig({ pageSize: 0 }), 'invalid_config');
    assert.equal(back.config().ttlMs, 5000, 'a refused config changes nothing');
  },

  async 'a refused float is quoted whole (scripts/float-display.mjs empties the other formatter)'({
    lc: client,
    assert,
  }) {
    const lc = await withServer(client);
    const reg = new lc.TaskRegistry('task-2026', { ttlMs: 60000 });
    for (const [n, spelled] of [
      [1.5, '1.5'],
      [1e300, '1e+300'],
    ])
      assert.throws(() => reg.setConfig({ ttlMs: n }), {
        code: 'malformed',
        message: `malformed argument: config.ttlMs: invalid type: floating point \`${spelled}\`, expected an integer of 0 or more`,
      });
  },

  async 'registry 2026: create, get, wire render, principal binding'({ lc: client, assert }) {
    const lc = await withServer(client);
    const reg = new lc.TaskRegistry('task-2026', { pollIntervalMs: 200, ttlMs: 60000 });
    assert.equal(reg.model, 'task-2026');
    assert.equal(reg.config().pageSize, 50);
    assert.equal(reg.config().maxTasksPerPrincipal, null);
    const view = reg.create(1000, 'alice', 't1');
    assert.equal(view.status, 'working');
    assert.equal(reg.size, 1);
    const wire = lc.renderTask2026(view, 'task');
    assert.deepEqual(wire, {
      taskId: 't1',
      status: 'working',
      createdAt: '1970-01-01T00:00:01.000Z',
      lastUpdatedAt: '1970-01-01T00:00:01.000Z',
      ttlMs: 60000,
      pollIntervalMs: 200,
      resultType: 'task',
    });
    const got = reg.get(1001, 'alice', 't1');
    assert.equal(got.ok, true);
    assert.equal(got.value.taskId, 't1');
    assert.equal(got.value.pollIntervalMs, 200);
    assert.equal(got.value.createdAtMs, 1000);
    const foreign = reg.get(1001, 'bob', 't1');
    assert.equal(foreign.ok, false);
    assert.equal(foreign.error.code, -32602);
    assert.deepEqual(reg.get(1001, 'alice', 'nope'), foreign);
    assert.equal(reg.pollTimeout(), 61000);
  },

  async 'registry 2026: input round, partial update, complete with isError stays completed'({ lc: client, assert }) {
    const lc = await withServer(client);
    const reg = new lc.TaskRegistry('task-2026', null);
    reg.create(0, 'p', 't');
    const ask = { method: 'elicitation/create', params: { message: 'a?', requested_schema: { type: 'object' } } };
    assert.deepEqual(reg.requestInput(1, 't', 'a', ask), { kind: 'applied' });
    assert.deepEqual(reg.requestInput(1, 't', 'b', ask), { kind: 'applied' });
    throwsCode(assert, () => reg.requestInput(2, 't', 'a', ask), 'duplicate');
    const got = reg.get(2, 'p', 't').value;
    assert.equal(got.status, 'input_required');
    const wire = lc.renderTask2026(got, 'complete');
    assert.deepEqual(Object.keys(wire.inputRequests), ['a', 'b']);
    assert.deepEqual(wire.inputRequests.a, ask);
    assert.deepEqual(got.inputRequests[0], { key: 'a', request: ask });
    const ack = reg.update(3, 'p', 't', { a: { action: 'accept', content: { first_name: 'Ada' } }, zz: {} });
    assert.deepEqual(ack, { ok: true, value: { accepted: ['a'], ignored: ['zz'] } });
    assert.equal(reg.get(3, 'p', 't').value.status, 'input_required');
    assert.deepEqual(reg.takeInputResponses('t'), [['a', { action: 'accept', content: { first_name: 'Ada' } }]]);
    reg.update(4, 'p', 't', [['b', { action: 'decline' }]]);
    assert.equal(reg.get(4, 'p', 't').value.status, 'working');
    assert.deepEqual(reg.setStatusMessage(4, 't', 'almost'), { kind: 'applied' });
    const result = { content: [{ type: 'text', text: 'boom' }], isError: true };
    assert.deepEqual(reg.complete(5, 't', result), { kind: 'applied' });
    const done = reg.get(6, 'p', 't').value;
    assert.equal(done.status, 'completed');
    assert.deepEqual(lc.renderTask2026(done, 'complete').result, result);
    assert.equal(lc.renderTask2026(done, null).resultType, undefined);
    assert.throws(() => lc.renderTask2026(lc.renderTask2026(done, 'complete'), 'complete'), {
      code: 'invalid_input',
      message: 'this is a wire task already (it has createdAt): render the view the registry handed out',
    });
    assert.deepEqual(reg.fail(7, 't', { code: -32603, message: 'late' }), {
      kind: 'ignored_terminal',
      status: 'completed',
    });
  },

  async 'registry 2026: cancel modes, idempotent ack, removed methods'({ lc: client, assert }) {
    const lc = await withServer(client);
    const coop = new lc.TaskRegistry('task-2026', { cancel: 'cooperative' });
    coop.create(0, 'p', 'c');
    assert.deepEqual(coop.cancel(1, 'p', 'c'), { ok: true, value: { kind: 'ack' } });
    assert.equal(coop.cancelRequested('c'), true);
    assert.equal(coop.get(1, 'p', 'c').value.status, 'working');
    assert.deepEqual(coop.settleCancelled(2, 'c'), { kind: 'applied' });
    assert.equal(coop.get(2, 'p', 'c').value.status, 'cancelled');
    assert.deepEqual(coop.cancel(3, 'p', 'c'), { ok: true, value: { kind: 'ack' } });
    const imm = new lc.TaskRegistry('task-2026', { cancel: 'immediate' });
    imm.create(0, 'p', 'i');
    imm.cancel(1, 'p', 'i');
    assert.equal(imm.peek('i').status, 'cancelled');
    assert.deepEqual(imm.complete(2, 'i', { content: [] }), { kind: 'ignored_terminal', status: 'cancelled' });
    assert.equal(imm.result(3, 'p', 'i').error.code, -32601);
    assert.equal(imm.list(3, 'p', null).error.code, -32601);
    assert.equal(imm.cancel(3, 'p', 'unknown').error.code, -32602);
    assert.equal(imm.peek('unknown'), null);
  },

  async 'registry 2026: TTL expiry through handleTimeout, then retention purge'({ lc: client, assert }) {
    const lc = await withServer(client);
    const reg = new lc.TaskRegistry('task-2026', { ttlMs: 100, retentionMs: 50 });
    reg.create(0, 'p', 't');
    assert.equal(reg.pollTimeout(), 100);
    assert.deepEqual(reg.handleTimeout(99), { failed: [], purged: [] });
    assert.deepEqual(reg.handleTimeout(100), { failed: ['t'], purged: [] });
    const v = reg.get(101, 'p', 't').value;
    assert.equal(v.status, 'failed');
    assert.equal(typeof lc.renderTask2026(v, 'complete').error.code, 'number');
    assert.equal(reg.pollTimeout(), 150);
    assert.deepEqual(reg.handleTimeout(150), { failed: [], purged: ['t'] });
    assert.equal(reg.pollTimeout(), undefined);
    assert.ok(reg.isEmpty());
  },

  async 'registry 2025: cancel returns the task, terminal cancel is -32602, result and list'({ lc: client, assert }) {
    const lc = await withServer(client);
    const reg = new lc.TaskRegistry('task-2025', { pageSize: 1 });
    reg.create(0, 'p', 'a', 5000);
    reg.create(0, 'p', 'b');
    assert.equal(reg.peek('a').ttlMs, 5000);
    assert.deepEqual(reg.result(1, 'p', 'a').value, { kind: 'blocked', status: 'working', inputRequests: [] });
    const c = reg.cancel(1, 'p', 'a');
    assert.equal(c.value.kind, 'task');
    assert.equal(c.value.task.status, 'cancelled');
    assert.equal(reg.cancel(2, 'p', 'a').error.code, -32602);
    assert.deepEqual(reg.result(2, 'p', 'a').value, { kind: 'cancelled' });
    const page = reg.list(2, 'p', null).value;
    assert.equal(page.tasks.length, 1);
    assert.equal(typeof page.nextCursor, 'string');
    assert.equal(reg.list(2, 'p', page.nextCursor).value.tasks[0].taskId, 'b');
    assert.equal(reg.list(2, 'p', 'bogus').error.code, -32602);
  },

  async 'registry 2026: a task a call found expired is named by the next sweep, due at once'({ lc: client, assert }) {
    const lc = await withServer(client);
    const reg = new lc.TaskRegistry('task-2026', { ttlMs: 100 });
    reg.create(0, 'p', 'x');
    reg.create(0, 'p', 'y');
    assert.equal(reg.get(150, 'p', 'x').value.status, 'failed');
    assert.equal(reg.pollTimeout(), 100);
    // Its worker is stopped by the host on this list, so it must be there.
    assert.deepEqual(reg.handleTimeout(150), { failed: ['x', 'y'], purged: [] });
    assert.deepEqual(reg.handleTimeout(151).failed, []);
  },

  async 'registry: a member it does not have, or a request the client cannot read, is refused'({ lc: client, assert }) {
    const lc = await withServer(client);
    const reg = new lc.TaskRegistry('task-2026', null);
    reg.create(0, 'p', 't');
    assert.throws(() => reg.fail(1, 't', { code: -1, message: 'm', detail: 'x' }), {
      code: 'malformed',
      message: 'unknown key "detail"',
    });
    for (const request of ['please', [1, 2], { params: {} }])
      assert.throws(() => reg.requestInput(1, 't', 'k', request), { code: 'invalid_input', message: 'string method' });
    assert.throws(() => lc.answerText(1, null, { code: -1, message: 'm', extra: true }), {
      code: 'malformed',
      message: 'unknown key "extra"',
    });
    assert.deepEqual(JSON.parse(lc.answerText(1, null, { code: -1, message: 'm', data: { a_b: 1 } }).body).error, {
      code: -1,
      message: 'm',
      data: { a_b: 1 },
    });
    // A registry answer handed over whole would go out as the result, wrapper and all.
    for (const answer of [reg.get(1, 'p', 't'), reg.get(1, 'p', 'nope')])
      assert.throws(() => lc.answerText(1, answer), {
        code: 'invalid_input',
        message:
          'invalid input: result: this is a registry or job book answer ({ok, value} or {ok, error}), not a result',
      });
    // A result of the tool's own that has an `ok` among its members is a result.
    const own = { ok: true, value: 3, content: [] };
    assert.deepEqual(JSON.parse(lc.answerText(1, own).body).result, own);
    const view = reg.get(1, 'p', 't').value;
    assert.throws(() => lc.renderTask2026(view, 'result'), { code: 'invalid_input', message: 'resultType' });
    assert.throws(() => lc.renderTask2026({ taskId: 'a', status: 'working' }), {
      code: 'invalid_input',
      message: 'createdAtMs',
    });
    assert.equal(reg.get(1, 'p', 't').value.status, 'working', 'nothing changed');
    const book = new lc.JobBook();
    assert.throws(() => book.submit(0, { workspace: 'w', member: 'm', extra: 1 }, 'j'), {
      code: 'malformed',
      message: 'unknown key "extra"',
    });
    assert.equal(book.size, 0);
  },

  async 'registry: snapshot and restore continue exactly'({ lc: client, assert }) {
    const lc = await withServer(client);
    const reg = new lc.TaskRegistry('task-2026', { ttlMs: 1000 });
    reg.create(0, 'p', 't');
    reg.requestInput(1, 't', 'k', { method: 'roots/list' });
    const text = reg.snapshot();
    const back = lc.TaskRegistry.restore(text);
    assert.equal(back.snapshot(), text);
    assert.deepEqual(back.get(2, 'p', 't'), reg.get(2, 'p', 't'));
    throwsCode(assert, () => lc.TaskRegistry.restore('{"nope":1}'), 'snapshot_invalid');
  },

  async 'registry: bad inputs throw coded errors and change nothing'({ lc: client, assert }) {
    const lc = await withServer(client);
    throwsCode(assert, () => new lc.TaskRegistry('job', null), 'wrong_model');
    throwsCode(assert, () => new lc.TaskRegistry('nope', null), 'unknown_model');
    throwsCode(assert, () => new lc.TaskRegistry('task-2026', { bogus: 1 }), 'invalid_input');
    throwsCode(assert, () => new lc.TaskRegistry('task-2026', { cancel: 'sometimes' }), 'malformed');
    throwsCode(assert, () => new lc.TaskRegistry('task-2026', { pageSize: 0 }), 'invalid_config');
    assert.throws(() => new lc.TaskRegistry('task-2026', { pageSize: 0 }), { message: /pageSize/ });
    // The core's spelling is refused and told the JavaScript one, never read or dropped.
    assert.throws(() => new lc.TaskRegistry('task-2026', { ttl_ms: 1 }), {
      code: 'invalid_input',
      message: 'unknown key "ttl_ms" (did you mean "ttlMs"?)',
    });
    // A near miss is told the key it is closest to, and every key is listed.
    assert.throws(() => new lc.TaskRegistry('task-2026', { pollInterval: 1 }), {
      message:
        'invalid input: config: unknown key "pollInterval" (did you mean "pollIntervalMs"?); expected one of cancel, maxTasksPerPrincipal, maxTtlMs, pageSize, pollIntervalMs, retentionMs, ttlMs',
    });
    assert.throws(() => new lc.TaskRegistry('task-2026', { bogus: 1 }), {
      message: 'unknown key "bogus"; expected one of cancel,',
    });
    // A value of the wrong type names its key, in JavaScript's words.
    assert.throws(() => new lc.TaskRegistry('task-2026', { pageSize: 10, pollIntervalMs: '1000' }), {
      code: 'malformed',
      message:
        'malformed argument: config.pollIntervalMs: invalid type: string "1000", expected an integer of 0 or more',
    });
    assert.throws(() => new lc.JobBook({ concurrencyPerWorkspace: -1 }), {
      code: 'malformed',
      message:
        'malformed argument: config.concurrencyPerWorkspace: invalid value: integer `-1`, expected an integer of 0 or more',
    });
    throwsCode(assert, () => new lc.TaskRegistry('task-2026', [1]), 'invalid_input');
    const reg = new lc.TaskRegistry('task-2026', {});
    throwsCode(assert, () => reg.create(-1, 'p', 't'), 'invalid_input');
    throwsCode(assert, () => reg.create(0.5, 'p', 't'), 'invalid_input');
    throwsCode(assert, () => reg.create(0, 42, 't'), 'invalid_input');
    throwsCode(assert, () => reg.create(0, 'p', ''), 'invalid_input');
    throwsCode(assert, () => reg.create(0, 'p', undefined), 'invalid_input');
    throwsCode(assert, () => reg.create(0, 'p', 't', 'soon'), 'invalid_input');
    reg.create(0, 'p', 't');
    throwsCode(assert, () => reg.create(0, 'p', 't'), 'duplicate');
    throwsCode(assert, () => reg.get(NaN, 'p', 't'), 'invalid_input');
    throwsCode(assert, () => reg.complete(1, 't', 'not an object'), 'invalid_input');
    throwsCode(assert, () => reg.fail(1, 't', { message: 'no code' }), 'malformed');
    throwsCode(assert, () => reg.update(1, 'p', 't', 7), 'invalid_input');
    throwsCode(assert, () => reg.requestInput(1, 't', '', {}), 'invalid_input');
    const cyclic = {};
    cyclic.self = cyclic;
    throwsCode(assert, () => reg.requestInput(1, 't', 'k', cyclic), 'malformed');
    throwsCode(assert, () => reg.handleTimeout('now'), 'invalid_input');
    throwsCode(assert, () => lc.renderTask2026({ status: 'working' }, 'task'), 'malformed');
    throwsCode(assert, () => lc.renderTask2026({ taskId: 'x', status: 'queued' }, 'task'), 'status_not_in_model');
    assert.throws(() => lc.renderTask2026({ task_id: 'x', status: 'working' }, 'task'), {
      code: 'malformed',
      message: 'unknown key "task_id"',
    });
    assert.equal(reg.size, 1);
    assert.equal(reg.get(1, 'p', 't').value.status, 'working');
  },

  async 'missingCapability2026 names the extension'({ lc: client, assert }) {
    const lc = await withServer(client);
    const e = lc.missingCapability2026('declare the tasks extension');
    assert.equal(e.code, -32021);
    assert.ok(e.data.requiredCapabilities.extensions['io.modelcontextprotocol/tasks']);
    throwsCode(assert, () => lc.missingCapability2026(null), 'invalid_input');
  },

  async 'job book: queue-first admission, dispatch, cancel window, ownership'({ lc: client, assert }) {
    const lc = await withServer(client);
    const book = new lc.JobBook({ concurrencyPerWorkspace: 1, queueLimitPerWorkspace: 2 });
    assert.deepEqual(book.config(), { concurrencyPerWorkspace: 1, queueLimitPerWorkspace: 2, costPerJob: 1 });
    assert.equal(book.submit(0, ALICE, 'j1', 'k1').value.status, 'queued');
    assert.equal(book.submit(0, ALICE, 'j2', null).value.status, 'queued');
    const full = book.submit(0, ALICE, 'j3', undefined);
    assert.equal(full.ok, false);
    assert.equal(full.error.httpStatus, 429);
    assert.equal(full.error.code, 'queue_full');
    assert.deepEqual(book.dispatch(1), ['j1']);
    assert.equal(book.count('w', 'processing'), 1);
    assert.equal(book.submit(2, ALICE, 'j9', 'k1').value.id, 'j1'); // replay, not a new job
    const started = book.cancel(3, ALICE, 'j1', null);
    assert.equal(started.error.code, 'job_generation_already_started');
    assert.equal(started.error.httpStatus, 409);
    assert.equal(book.cancel(3, ALICE, 'j2', 'c1').value.status, 'canceled');
    assert.equal(book.cancel(4, ALICE, 'j2', 'c1').value.status, 'canceled');
    assert.equal(book.get(BOB, 'j1').error.httpStatus, 404);
    assert.equal(book.cancel(4, BOB, 'j1', null).error.code, 'not_found');
    assert.deepEqual(book.complete(5, 'j1', { url: 'x', file_name: 'a.mp4' }), { kind: 'applied' });
    assert.equal(book.cancel(6, ALICE, 'j1', null).error.code, 'job_not_cancelable');
    assert.deepEqual(book.complete(6, 'j1', {}), { kind: 'ignored_terminal', status: 'completed' });
    assert.deepEqual(book.get(ALICE, 'j1').value.result, { url: 'x', file_name: 'a.mp4' });
    assert.deepEqual(
      book.list(ALICE).map((j) => j.id),
      ['j1', 'j2'],
    );
    assert.deepEqual(book.list(BOB), []);
    assert.equal(book.peek('j1').owner.member, 'alice');
    assert.equal(book.peek('zz'), null);
  },

  async 'job book: wait snapshots, credits, fail and expire'({ lc: client, assert }) {
    const lc = await withServer(client);
    const book = new lc.JobBook(null);
    book.setCredits('w', 1);
    assert.equal(book.credits('w'), 1);
    assert.equal(book.submit(0, ALICE, 'a', null).ok, true);
    assert.equal(book.submit(0, ALICE, 'b', null).error.code, 'insufficient_credits');
    book.setCredits('w', null);
    assert.equal(book.credits('w'), undefined);
    book.submit(0, ALICE, 'b', null);
    book.dispatch(0);
    let w = book.wait(1, ALICE, ['a', 'b', 'ghost'], 'any', true);
    assert.equal(w.value.satisfied, true); // not_found counts as settled
    w = book.wait(1, ALICE, ['a', 'b'], 'all', false);
    assert.equal(w.value.satisfied, false);
    assert.deepEqual(book.fail(2, 'a', { code: 'oops' }), { kind: 'applied' });
    assert.deepEqual(book.expire(2, 'b'), { kind: 'applied' });
    w = book.wait(3, ALICE, ['a', 'b'], null, null);
    assert.equal(w.value.satisfied, true);
    assert.deepEqual(
      w.value.jobs.map((e) => e.job.status),
      ['failed', 'expired'],
    );
    assert.equal(book.wait(3, ALICE, [], 'all', true).error.httpStatus, 400);
    const text = book.snapshot();
    assert.equal(lc.JobBook.restore(text).snapshot(), text);
  },

  async 'job book: bad inputs throw coded errors'({ lc: client, assert }) {
    const lc = await withServer(client);
    throwsCode(assert, () => new lc.JobBook({ concurrencyPerWorkspace: 0 }), 'invalid_config');
    throwsCode(assert, () => new lc.JobBook({ concurrencyPerWorkspace: -1 }), 'malformed');
    assert.throws(() => new lc.JobBook({ cost_per_job: 0 }), {
      code: 'invalid_input',
      message: 'unknown key "cost_per_job" (did you mean "costPerJob"?)',
    });
    throwsCode(assert, () => new lc.JobBook('big'), 'invalid_input');
    const book = new lc.JobBook();
    throwsCode(assert, () => book.submit(0, { workspace: 'w' }, 'j', null), 'malformed');
    throwsCode(assert, () => book.submit(0, 'alice', 'j', null), 'malformed');
    throwsCode(assert, () => book.submit(0, ALICE, 5, null), 'invalid_input');
    throwsCode(assert, () => book.count('w', 'working'), 'status_not_in_model');
    throwsCode(assert, () => book.wait(0, ALICE, 'j', 'all', true), 'malformed');
    throwsCode(assert, () => book.wait(0, ALICE, ['j'], 'some', true), 'malformed');
    throwsCode(assert, () => book.wait(0, ALICE, ['j'], 'all', 'yes'), 'invalid_input');
    throwsCode(assert, () => book.dispatch(Infinity), 'invalid_input');
    throwsCode(assert, () => book.setCredits('w', -5), 'invalid_input');
    throwsCode(assert, () => lc.JobBook.restore(42), 'invalid_input');
    // invalid domain input is a domain answer, not a throw
    assert.equal(book.submit(0, { workspace: '', member: 'm' }, 'j', null).error.code, 'invalid_request');
    assert.equal(book.size, 0);
  },
};
