// JavaScript that reads like the wire: camelCase keys in and out of the structured tracker and
// the wave (`taskId`, `pollIntervalMs`, `idempotencyKey`), camelCase configuration, an unknown key
// anywhere is an error naming it; the wave scheduler; lite's cancel-answer reader.
const lite = () => import('longcall/lite');

function errorOf(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return null;
}

export const cases = {
  async 'configuration: camelCase keys honoured, unknown keys rejected by name'({ lc, assert }) {
    for (const mod of [lc, await lite()]) {
      const t = new mod.Tracker('job', { poll: { jitter: 'none', initialMs: 2500 }, deadlineMs: null });
      const outs = mod.decodeFast(t, t.fastCreated('job_1', 0, 5, NaN));
      assert.deepEqual(outs.at(-1), { type: 'wake_at', at: 2500 });
      for (const [config, key] of [
        [{ capMs: 1000 }, 'capMs'],
        [{ poll: { cap_ms: 1000 } }, 'poll.cap_ms'],
        [{ pol: {} }, 'pol'],
        [{ deadline_ms: 5 }, 'deadline_ms'],
      ]) {
        const e = errorOf(() => new mod.Tracker('job', config));
        assert.ok(e, `${JSON.stringify(config)} accepted`);
        assert.equal(e.code, 'invalid_config');
        assert.ok(e.message.includes(key), e.message);
      }
      // The key it is but for case and underscores is told by name.
      assert.throws(() => new mod.Tracker('job', { deadline_ms: 5 }), {
        code: 'invalid_config',
        message: 'invalid configuration: deadline_ms: unknown key (did you mean "deadlineMs"?); expected one of',
      });
    }
  },

  async 'configuration: one reader, the same refusal from every entry point that takes one'({ lc, assert }) {
    const l = await lite();
    const said = (fn) => {
      const e = errorOf(fn);
      return e ? `${e.code}: ${e.message}` : 'accepted';
    };
    const job = { model: 'job', kind: 'video', arguments: {}, idempotencyKey: 'k' };
    const takers = {
      Tracker: (c) => new lc.Tracker('job', c).free(),
      'lite Tracker': (c) => new l.Tracker('job', c).free(),
      'Endpoint.callTool': (c) => lc.Endpoint.callTool('task-2026', 'render', {}, undefined, c).free(),
      'Endpoint.submitJob': (c) => lc.Endpoint.submitJob(job, c).free(),
      'Endpoint.watch': (c) => lc.Endpoint.watch('job', 'job_1', c).free(),
    };
    const pinned = [
      [
        { poll: { capMS: 1 } },
        'invalid_config: invalid configuration: poll.capMS: unknown key (did you mean "capMs"?); expected one of initialMs, multiplierPercent, capMs, jitter, minIntervalMs, maxPolls, followServerInterval',
      ],
      [
        { deadline: 5 },
        'invalid_config: invalid configuration: deadline: unknown key; expected one of poll, seed, deadlineMs',
      ],
      [
        { poll: { cap_ms: 1 } },
        'invalid_config: invalid configuration: poll.cap_ms: unknown key (did you mean "capMs"?); expected one of initialMs, multiplierPercent, capMs, jitter, minIntervalMs, maxPolls, followServerInterval',
      ],
      [7, 'malformed: malformed config: config: expected an object, got number'],
      [{ poll: [] }, 'malformed: malformed config: poll: expected an object, got array'],
      [{ poll: { initialMs: '5' } }, 'malformed: malformed config: poll.initialMs: expected a number, got string'],
      [
        { poll: { jitter: 'sideways' } },
        'malformed: malformed config: poll.jitter: expected one of none, full, equal, decorrelated',
      ],
      [
        { poll: { followServerInterval: 1 } },
        'malformed: malformed config: poll.followServerInterval: expected a boolean, got number',
      ],
      [
        { poll: { initialMs: 1.5 } },
        'malformed: malformed config: poll.initialMs: expected an integer from 0 to 2^53-1',
      ],
      [{ deadlineMs: NaN }, 'malformed: malformed config: deadlineMs: expected an integer from 0 to 2^53-1'],
      [{ seed: 2 ** 53 }, 'invalid_config: invalid configuration: seed: must be at most 2^53-1'],
      [{ poll: { maxPolls: 2 ** 32 } }, 'malformed: malformed config: poll.maxPolls: too large'],
      [
        { poll: { initialMs: 10, capMs: 1 } },
        'invalid_config: invalid configuration: poll.capMs: must not be below initialMs',
      ],
      [
        {
          get poll() {
            throw new Error('no');
          },
        },
        'malformed: malformed config: poll: cannot be read',
      ],
      [{ poll: { jitter: 'none' }, seed: 3, deadlineMs: 10 ** 12 }, 'accepted'],
    ];
    for (const [config, expected] of pinned) {
      for (const [who, take] of Object.entries(takers)) {
        assert.equal(
          said(() => take(config)),
          expected,
          `${who}: ${expected}`,
        );
      }
    }
  },

  'handleInput: camelCase in, camelCase out, pollIntervalMs honoured'({ lc, assert }) {
    const t = new lc.Tracker('task-2026', { poll: { jitter: 'none' } });
    const out = t.handleInput(0, {
      type: 'task_created',
      task: { taskId: 't-1', status: 'working', pollIntervalMs: 5000 },
    });
    assert.deepEqual(out.at(-1), { type: 'wake_at', at: 5000 });
    assert.deepEqual(
      t.handleTimeout(5000).find((o) => o.type === 'send'),
      { type: 'send', request: { kind: 'get', handle: 't-1' } },
    );
    const done = t.handleInput(5100, {
      type: 'task_polled',
      task: { taskId: 't-1', status: 'completed', result: { isError: false, value: { snake_case: 1 } } },
    });
    assert.deepEqual(
      done.find((o) => o.type === 'settled'),
      // The payload is the server's own JSON: its keys are never renamed.
      { type: 'settled', outcome: 'succeeded', status: 'completed', result: { snake_case: 1 } },
    );
    const r = t.runRecord();
    assert.equal(r.pollsSent, 1);
    assert.ok(!Object.keys(r).some((k) => k.includes('_')), Object.keys(r).join());
  },

  'handleInput: unknown and snake_case keys are malformed, naming the key; nothing changes'({ lc, assert }) {
    const t = new lc.Tracker('task-2026');
    for (const [input, key] of [
      [{ type: 'task_created', task: { taskId: 't', status: 'working', capMs: 1 } }, 'task.capMs'],
      [{ type: 'task_created', task: { task_id: 't', status: 'working' } }, 'task'],
      [{ type: 'task_created', task: { taskId: 't', status: 'working' }, extra: true }, 'extra'],
    ]) {
      const e = errorOf(() => t.handleInput(0, input));
      assert.ok(e, `${JSON.stringify(input)} accepted`);
      assert.equal(e.code, 'malformed');
      assert.ok(e.message.includes(key), e.message);
    }
    assert.equal(t.id, undefined, 'nothing was applied');
    assert.equal(
      t.handleInput(0, { type: 'task_created', task: { taskId: 't', status: 'working' } }).at(-1).type,
      'wake_at',
    );
  },

  'a job cancel: the send carries idempotencyKey; a 409 with an unlisted code is other'({ lc, assert }) {
    const t = new lc.Tracker('job', { poll: { jitter: 'none' } });
    t.handleInput(0, { type: 'job_created', job: { id: 'job_1', status: 'queued' } });
    const send = t.handleInput(10, { type: 'cancel_pressed' }).find((o) => o.type === 'send');
    assert.equal(send.request.kind, 'cancel');
    assert.equal(typeof send.request.idempotencyKey, 'string');
    const b = t.handleInput(20, {
      type: 'cancel_answered',
      answer: { kind: 'job_error', httpStatus: 409, code: 'other' },
    });
    assert.ok(
      b.some((o) => o.type === 'button'),
      JSON.stringify(b),
    );
  },

  async 'lite reads cancel answers: statuses, known and unknown codes, no body at all'({ lc, assert }) {
    for (const mod of [lc, await lite()]) {
      assert.equal(
        mod.JOB_ERROR_CODES[mod.jobErrorCode('job_generation_already_started')],
        'job_generation_already_started',
      );
      assert.equal(mod.JOB_ERROR_CODES[mod.jobErrorCode('job_already_finishing')], 'other');
      assert.equal(mod.JOB_ERROR_CODES[mod.jobErrorCode(undefined)], 'other');
      const press = (first) => {
        const b = new mod.CancelButton('job');
        b.handleStatus(first);
        b.press();
        return b;
      };
      assert.equal(press('queued').handleJobAnswer(409, 'job_generation_already_started'), 'too_late');
      assert.equal(press('queued').handleJobAnswer(200, 'canceled'), 'cancelled');
      const other = press('queued').handleJobAnswer(409, 'job_already_finishing');
      assert.ok(mod.BUTTON_STATES.includes(other), other);
      if (mod === lc) {
        // The structured readers read an unknown code the same way (C-22), however long.
        const verdict = (code) => lc.classifyCancelAnswer('job', { kind: 'job_error', httpStatus: 409, code });
        assert.equal(verdict('job_already_finishing'), verdict('other'));
        assert.equal(verdict('x'.repeat(1_000_000)), verdict('other'));
        const t = new lc.Tracker('job');
        t.handleInput(0, { type: 'job_created', job: { id: 'j', status: 'queued' } });
        t.handleInput(1, { type: 'cancel_pressed' });
        const outs = t.handleInput(2, {
          type: 'cancel_answered',
          answer: { kind: 'job_error', httpStatus: 409, code: 'job_already_finishing', cancelable: null },
        });
        assert.ok(Array.isArray(outs));
        t.free();
      }
      const html = press('queued').handleJobAnswer(502, undefined);
      assert.ok(mod.BUTTON_STATES.includes(html), html);
      // The whole error body where its code belongs is the host's mistake, not a code longcall
      // does not know: read as `other`, a 409 "too late, it bills" would say "try again".
      const body = { error: { code: 'job_generation_already_started' } };
      for (const wrong of [body, body.error, 409]) {
        const b = press('queued');
        assert.throws(() => b.handleJobAnswer(409, wrong), {
          code: 'invalid_input',
          message: `invalid input: code: expected a string, got ${typeof wrong}`,
        });
        assert.equal(b.state, 'requesting', 'the refused answer changed nothing');
      }
      assert.equal(errorOf(() => press('queued').handleJobAnswer(200, 'nope')).code, 'unknown_status');
      // A job's answer on a task's button is the host's slip: refused, and the press still
      // waits for its own answer.
      const task = new mod.CancelButton('task-2026');
      task.handleStatus('working');
      task.press();
      assert.throws(() => task.handleJobAnswer(409, 'job_generation_already_started'), {
        code: 'wrong_model',
        message: 'wrong model: expected job, got task-2026',
      });
      assert.equal(task.state, 'requesting');
      assert.equal(task.handleVerdict('acknowledged'), 'acknowledged_pending');
      task.free();
      // A 2xx that names no status (an empty body, a proxy's HTML page) decides nothing: the
      // button waits and the next status decides (D-9, C-20), never `cancelled` on a 200 alone.
      for (const none of [undefined, null]) {
        const b = press('queued');
        assert.equal(b.handleJobAnswer(200, none), 'requesting');
        assert.equal(b.handleStatus('queued'), 'available');
      }
      const q = new mod.Tracker('job', { poll: { jitter: 'none' } });
      q.fastCreated('job_1', 0, 5, NaN);
      assert.ok(q.fastCancelPressed(10) > 0);
      const said = mod.decodeFast(q, q.fastJobCancelAnswered(20, 200, undefined));
      assert.ok(
        said.some((o) => o.type === 'violation' && o.violation.rule === 'cancel_answer_breaks_revision'),
        JSON.stringify(said),
      );
      assert.ok(!said.some((o) => o.type === 'button'), JSON.stringify(said));
      const wake = said.find((o) => o.type === 'wake_at').at;
      assert.ok(mod.decodeFast(q, q.fastTimeout(wake)).some((o) => o.type === 'send'));
      const next = mod.decodeFast(q, q.fastPolled(wake + 50, 5, NaN, 0));
      assert.ok(
        next.some((o) => o.type === 'button' && o.state === 'available'),
        JSON.stringify(next),
      );
      q.free();
      // No answer at all (fetch threw): the cancel did not go through, the button is live again.
      assert.equal(press('queued').handleJobAnswer(0, undefined), 'available');
      assert.equal(errorOf(() => press('queued').handleJobAnswer(-1, undefined)).code, 'invalid_input');
      const t = new mod.Tracker('job', { poll: { jitter: 'none' } });
      t.fastCreated('job_1', 0, 5, NaN);
      assert.ok(t.fastCancelPressed(10) > 0);
      assert.equal(t.fastJobCancelAnswered(20, 409, body), -1);
      assert.equal(t.lastError, 'invalid_input');
      const n = t.fastJobCancelAnswered(20, 409, 'job_generation_already_started');
      assert.ok(mod.decodeFast(t, n).some((o) => o.type === 'button' && o.state === 'too_late'));
      assert.equal(t.fastJobCancelAnswered(30, Symbol('x'), 'x'), -1);
      // An interval the server did not give, as undefined or as JSON's null: none.
      for (const none of [undefined, null]) {
        const u = new mod.Tracker('job', { poll: { jitter: 'none', initialMs: 700 } });
        const count = u.fastCreated('job_1', 0, 5, none);
        assert.ok(count > 0, String(none));
        assert.ok(
          mod.decodeFast(u, count).some((o) => o.type === 'wake_at' && o.at === 700),
          String(none),
        );
      }
    }
  },

  'Wave: rounds of jobs_wait, per-job outputs, satisfied once; snapshot; unknown keys'({ lc, assert }) {
    const w = new lc.Wave({ waitFor: 'all', minRoundIntervalMs: 100, timeoutSeconds: 5 });
    w.addJob(0, { id: 'j1', status: 'queued' });
    w.addJob(0, { id: 'j2', status: 'queued' });
    let out = w.handleTimeout(0);
    const wait = out.find((o) => o.type === 'wait');
    assert.ok(wait, JSON.stringify(out));
    assert.deepEqual(wait.call.job_ids, ['j1', 'j2'], "the jobs_wait body is the wire's own spelling");
    assert.equal(w.roundInFlight, true);
    out = w.handleWaitAnswer(50, wait.callId, [
      { id: 'j1', status: 'completed', result: { image_url: 'x' } },
      { id: 'j2', status: 'processing' },
    ]);
    assert.ok(
      out.some((o) => o.type === 'job' && o.id === 'j1' && o.output.type === 'settled'),
      JSON.stringify(out),
    );
    assert.deepEqual(w.neededIds, ['j2']);
    const restored = lc.Wave.restore(w.snapshot());
    out = w.handleTimeout(w.pollTimeout);
    const next = out.find((o) => o.type === 'wait');
    assert.deepEqual(next.call.job_ids, ['j2']);
    out = w.handleWaitAnswer(w.pollTimeout ?? 200, next.callId, [{ id: 'j2', status: 'completed' }]);
    assert.ok(
      out.some((o) => o.type === 'satisfied'),
      JSON.stringify(out),
    );
    assert.equal(w.isSatisfied, true);
    assert.equal(restored.isSatisfied, false, 'the snapshot is independent');
    // Waves made without a seed draw one each, so waves started together do not poll together;
    // a given seed is kept.
    const seedOf = (wave) => JSON.parse(wave.snapshot()).state.config.seed;
    assert.notEqual(seedOf(new lc.Wave()), seedOf(new lc.Wave({ waitFor: 'any' })));
    assert.equal(seedOf(new lc.Wave({ seed: 42 })), 42);
    assert.equal(errorOf(() => new lc.Wave({ waitFor: 'any', capMs: 1 })).code, 'malformed');
    assert.equal(errorOf(() => new lc.Wave({ timeoutSeconds: 0 })).code, 'invalid_config');
    assert.equal(errorOf(() => w.addJob(0, { id: 'j3', status: 'queued', extra: 1 })).code, 'malformed');
    const r = w.release(300, 'j1');
    assert.equal(r.released, 'already_done');
  },
};
