// longcall/jobs: a job host on the longcall core's endpoint (`Endpoint`, one paid job end to end)
// and its `Wave` (many jobs through `jobs_wait`). The core builds every request (the submit with
// the intent's idempotency key, each poll, the cancel), reads every answer (status, headers,
// body), decides when to poll, when and with which key a submit goes again, what a cancel answer
// means and what the cancel button shows. This file moves bytes with `fetch`, owns the clock
// (wake-at timers), writes the endpoint's snapshot to the store the application gives, and calls
// the application's callbacks.
//
//   import { JobHost } from 'longcall/jobs';
//   const host = new JobHost({ baseUrl, headers: { authorization: `Bearer ${key}` }, store: new Map() });
//   const job = await host.submit('intent-7f3a', { model: 'demo-image', kind: 'image', arguments: { prompt } },
//     { onButton: (state) => render(state) });
//   const end = await job.settled; // {type: 'settled', outcome, status, result, error} or {type: 'stopped', reason}
//
// What this file still decides (transport only): a `fetch` that throws is "no answer"
// (`handleTransportFailure`), and what it threw is kept as the `cause` of what that led to;
// request bodies are sent as `application/json`. `jobs_wait` answers go to the core's `Wave` as
// they arrived (`handleWaitHttp`).
import * as lc from 'longcall';
import { checkJson, checkOptions, isHttpUrl } from '../options.js';
import { mergeHeaders, ownHeaders } from '../headers.js';
import { failureText, transportDetail } from '../failure.js';

// The first artifact's URL of a settled result, in either dialect's shape (the core reads it).
export { artifactUrl } from 'longcall';

/** An Error with a stable `code`, like the core's errors. */
export class JobHostError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {{cause?: unknown}} [options]
   */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'JobHostError';
    this.code = code;
  }
}

const call = (fn, ...args) => {
  try {
    fn?.(...args);
  } catch {
    /* a callback's own failure is the application's */
  }
};
/** `call`, resolving once what `fn` returned has: true, or false when it threw or rejected. */
const callAndWait = (fn, ...args) => {
  try {
    return Promise.resolve(fn?.(...args)).then(
      () => true,
      () => false,
    );
  } catch {
    return Promise.resolve(false);
  }
};

/**
 * Sends one request and reads its answer as it arrived; `{error}` (what fetch threw) when no
 * answer arrived, the whole answer, body included, within `timeoutMs` (a body that trickles in
 * for ever is no answer either).
 * @returns {Promise<{status: number, headers: [string, string][], body: Uint8Array} | {error: unknown}>}
 */
async function exchange(f, url, method, headers, body, timeoutMs) {
  try {
    const signal = AbortSignal.timeout(timeoutMs);
    const r = await f(url, { method, headers, body: body ?? undefined, signal });
    return { status: r.status, headers: [...r.headers], body: new Uint8Array(await r.arrayBuffer()) };
  } catch (error) {
    return { error };
  }
}

// How `JobHost.wait` takes a job from its own loop and settles it (module-private members).
const WAVE_ENTRY = Symbol('waveEntry');
const HAND_OVER = Symbol('handOver');
const WAVE_OUTPUT = Symbol('waveOutput');
const HAND_BACK = Symbol('handBack');
const JOIN = Symbol('join');
const WAVE_SETTLING = Symbol('waveSettling');
const SETTLED_END = Symbol('settledEnd');
const START = Symbol('start');
const RUNNING = Symbol('running');

/**
 * The core's refusals (a configuration or job it cannot take, a deadline already passed, a
 * record it cannot read) as this module's own error, so `instanceof JobHostError` catches every
 * refusal of its functions; the core's error is the `cause`, its code and message kept.
 */
function fromCore(fn) {
  try {
    return fn();
  } catch (e) {
    throw asJobError(e);
  }
}
const asJobError = (e) =>
  e instanceof JobHostError ? e : new JobHostError(e?.code ?? 'invalid_input', String(e?.message ?? e), { cause: e });

/** The host's `duplicate` for a record, or a watched job, of another submit under the intent (E-66). */
const duplicateIntent = (e) => {
  if (e?.code !== 'duplicate') return asJobError(e);
  return new JobHostError(
    'duplicate',
    'submit: this intent already names another job (another model or other arguments), in the ' +
      'store or watched here; a new job needs a new intent key, and resume(intent) continues the one there',
    { cause: e },
  );
};

// Each request kind of the core, in words (the status poll is `get`, a failed result fetch too:
// rule D-10).
const JOB_REQUESTS = { get: 'the status poll', cancel: 'the cancel', fetch_result: 'the result fetch' };

/** One job watched by a {@link JobHost}: see index.d.ts `Job`. */
class Job {
  #host;
  #ep;
  #intent;
  // Each submit or resume of this job's intent that got this Job adds its hooks (a double
  // click, a component mounted twice): every set hears every event.
  /** @type {object[]} */
  #hooks;
  #timer = undefined;
  #closed = false;
  #end = null;
  #resolve;
  #created;
  #saving = Promise.resolve();
  #forgotten = false;
  // What fetch threw for the latest request left unanswered (null once one is answered): the
  // cause of a stop it led to, and of the admission event that says so.
  #transportError = null;
  // The HTTP status of the latest submit answer that was a refusal (its `admission` event): a
  // submit refused for good settles with it, though its body (a text 404) had no error object.
  #refusedWith = 0;
  // Presses waiting for the button to leave `requesting` (or the job to end).
  #cancelWaiters = [];
  // The events being acted on, with the write each waits for; null between batches.
  #acting = null;
  // Set while a wave (`JobHost.wait`) watches this job instead of its own loop, and kept once
  // the wave ended it: what the wave last said of it, and how to take it out of the wave.
  /** @type {{status: string | undefined, button: string, outcome: string | undefined, leave: () => void} | null} */
  #wave = null;
  // The last status the hooks were told: the endpoint restored at a wave's hand-back may be a
  // status behind what the wave saw, and its next poll must not tell that status again.
  #status = undefined;

  constructor(host, ep, intent, hooks) {
    this.#host = host;
    this.#ep = ep;
    this.#intent = intent;
    this.#hooks = [hooks ?? {}];
    /** @type {Promise<object>} */
    this.settled = new Promise((ok) => {
      this.#resolve = ok;
    });
    /** @type {Promise<{id: string, status: string} | null>} */
    this.created = new Promise((ok) => {
      this.#created = ok;
    });
  }

  get intent() {
    return this.#intent;
  }
  get id() {
    return this.#ep.id;
  }
  get status() {
    return this.#wave ? this.#wave.status : (this.#status ?? this.#ep.status);
  }
  get button() {
    return this.#wave ? this.#wave.button : this.#ep.button;
  }
  get outcome() {
    return this.#wave ? this.#wave.outcome : this.#ep.outcome;
  }

  /**
   * Starts the loop with the events already queued (the first transmit among them). A job
   * restored from its record shows first what the core held (its button, its status).
   */
  [START](restored = false) {
    this.#host[RUNNING](this);
    if (restored) {
      // Told in the order a live job's events come: the status, then the button it allows.
      const status = this.#ep.status;
      if (status) {
        if (this.#ep.id) this.#created({ id: this.#ep.id, status });
        this.#status = status;
        this.#tell('onStatus', status);
      }
      this.#tell('onButton', this.#ep.button);
    }
    // Resumed, the job is shown to a person afresh: its status is as old as the record, so the
    // next poll goes as soon as the floors allow (P-15), not where the old backoff had put it.
    this.#run(restored ? this.#ep.refresh(this.#host.now()) : this.#ep.pollEvents());
    if (restored && this.#ep.isDone && !this.#end) {
      // Settled before the record could go: its events were drained then; say it again.
      const r = this.#ep.runRecord();
      this.#finish(
        r.outcome
          ? { type: 'settled', outcome: r.outcome, status: r.status ?? null, result: r.result, error: r.error }
          : { type: 'stopped', reason: r.stopped ?? 'host_stopped' },
      );
    }
    return this;
  }

  /**
   * The user pressed cancel: resolves with the button state once the cancel is answered; rejects
   * with the core's coded refusal (nothing goes on the wire then).
   */
  cancel() {
    if (this.#wave && this.#end)
      // Ended by a wave (its endpoint never heard the ending): refused as the core refuses a
      // press on an ended job.
      return Promise.reject(
        new JobHostError(
          'cancel_refused',
          `cancel refused: the job has ended (${this.#end.outcome ?? this.#end.reason})`,
        ),
      );
    if (this.#wave) {
      // In a wave: the wave's tracker holds the job's latest status, so it decides the press (a
      // job it saw start is refused, and nothing is sent). Allowed, the job leaves the wave for
      // its own loop, whose endpoint sends the cancel and reads its answer.
      try {
        this.#wave.press();
      } catch (e) {
        return Promise.reject(asJobError(e));
      }
      this.#wave.leave();
      this[HAND_BACK]();
    }
    if (this.#closed) return Promise.reject(new JobHostError('closed', 'this job is closed'));
    // Pressed while the submit is unanswered, the core keeps the press (in the record too) and
    // makes it once the answer names the job (E-65): the promise waits for that answer.
    let events;
    try {
      events = this.#ep.pressCancel(this.#host.now());
    } catch (e) {
      // The core's refusal (`cancel_refused`): nothing goes on the wire.
      return Promise.reject(asJobError(e));
    }
    const answered = new Promise((ok) => this.#cancelWaiters.push(ok));
    this.#run(events);
    return answered;
  }

  #flushCancel(state) {
    const waiters = this.#cancelWaiters;
    this.#cancelWaiters = [];
    for (const ok of waiters) ok(state);
  }

  /** Stops watching (the job goes on); `settled` resolves with the core's `stopped`. */
  stop() {
    if (this.#closed) return;
    this.#run(this.#ep.stopWatching(this.#host.now()));
  }

  /** A person looks again: the next poll goes as soon as the floors allow (P-15). */
  refresh() {
    if (this.#closed || this.#wave) return;
    this.#run(this.#ep.refresh(this.#host.now()));
  }

  /**
   * Ends this host's loop and leaves the record in the store, as a process exit would:
   * `JobHost.resume(intent)` continues the job there.
   */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#flushCancel(this.#ep.button);
    // Nothing more will happen here: whoever awaits `settled` or listens on `onStopped` hears
    // that watching stopped (unless the job had ended already).
    if (!this.#end) this.#stopped({ type: 'stopped', reason: 'host_stopped' });
    this.#resolve(this.#end);
  }

  /**
   * How this job settled, once a terminal status settled it (its `settled` value); else
   * undefined (still going, stopped, lost, or refused before it was made).
   */
  [SETTLED_END]() {
    const end = this.#end;
    return end?.type === 'settled' && end.outcome !== 'lost' && end.status && this.#ep.id ? end : undefined;
  }

  /** The `{id, status}` a wave watches this job by; throws unless its own loop still watches it, created. */
  [WAVE_ENTRY]() {
    const why = this.#end
      ? 'it has ended'
      : this.#wave
        ? 'a wave watches it already'
        : this.#closed
          ? 'it is closed'
          : !this.#ep.id
            ? 'it is not created yet (await job.created first)'
            : null;
    if (why) throw new JobHostError('invalid_input', `wait: job ${this.#ep.id ?? `of intent ${this.#intent}`}: ${why}`);
    return { id: this.#ep.id, status: this.#ep.status };
  }

  /**
   * The wave watches this job from now on: its own loop stops (what it has in flight is
   * dropped); `press` asks the wave's core whether a cancel press is allowed (throws when not);
   * `leave` makes the wave stop waiting for it.
   */
  [HAND_OVER](press, leave) {
    this.#wave = { status: this.#ep.status, button: this.#ep.button, outcome: undefined, press, leave };
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  /**
   * The wave's batch settles this job: its outcome is known before the batch's status event is
   * told, as with its own loop, whose endpoint has settled when its events are read.
   */
  [WAVE_SETTLING](outcome) {
    if (this.#wave && !this.#end) this.#wave.outcome = outcome;
  }

  /** One of the wave's outputs for this job, heard as its own loop's would be. */
  [WAVE_OUTPUT](o) {
    const w = this.#wave;
    if (!w || this.#end) return;
    switch (o.type) {
      case 'status':
        w.status = o.status;
        this.#status = o.status;
        this.#tell('onStatus', o.status);
        break;
      case 'button':
        w.button = o.state;
        this.#tell('onButton', o.state);
        break;
      case 'settled':
        w.outcome = o.outcome;
        w.status = o.status ?? w.status;
        this.#finish(o);
        break;
      case 'stopped':
        this.#finish(o);
        break;
      default:
        this.#tell('onEvent', o);
    }
  }

  /**
   * The wave ended (satisfied by other jobs, say) or was left with this job still going: its own
   * loop takes it back from its record's state (what was in flight when it left is asked again,
   * E-5).
   */
  [HAND_BACK]() {
    if (this.#end || !this.#wave) return;
    const ep = lc.Endpoint.restore(this.#ep.snapshot(), this.#host.now());
    this.#ep.free();
    this.#ep = ep;
    this.#wave = null;
    this.#closed = false;
    this.#run(ep.pollEvents());
  }

  /** Calls hook `name` of every set with `args` and this job. */
  #tell(name, ...args) {
    for (const h of this.#hooks) call(h[name], ...args, this);
  }

  /**
   * Another submit (or resume) of this job's intent while this host watches it: the same Job,
   * with `hooks` added (told the status and button now, as a resumed job's are), once `submit`
   * is found to be its job (E-66).
   */
  [JOIN](submit, hooks) {
    if (submit) {
      try {
        this.#ep.checkSubmit(submit);
      } catch (e) {
        throw duplicateIntent(e);
      }
    }
    if (hooks) {
      this.#hooks.push(hooks);
      if (this.status) call(hooks.onStatus, this.status, this);
      call(hooks.onButton, this.button, this);
    }
    return this;
  }

  #stopped(end) {
    this.#end = end;
    this.#tell('onStopped', end);
  }

  /** Writes the snapshot now (queued behind earlier writes). */
  #save() {
    const store = this.#host.store;
    // Once deleted, a late answer does not write the record back.
    if (!store || this.#intent == null || this.#forgotten) return this.#saving;
    const text = this.#ep.snapshot();
    const intent = this.#intent;
    this.#saving = this.#saving.then(() => store.set(intent, text));
    this.#saving.catch((err) => this.#fail(err));
    return this.#saving;
  }

  /** Deletes the record once `told` resolves true: the application has the ending. */
  #forget(told) {
    const store = this.#host.store;
    if (!store || this.#intent == null) return;
    this.#forgotten = true;
    const intent = this.#intent;
    this.#saving = this.#saving
      .then(() => told)
      .then((ok) => ok && store.delete(intent))
      .catch(() => {});
  }

  /**
   * Acts on one batch of events: transmits go out once the snapshot holding them is written. A
   * batch that comes while one is being acted on (a hook pressed cancel or stopped the job)
   * waits for it, so hooks see the events in the order the core gave them.
   */
  #run(events) {
    if (this.#closed) return;
    const saved = this.#save();
    const batch = events.map((e) => [e, saved]);
    if (this.#acting) {
      this.#acting.push(...batch);
      return;
    }
    this.#acting = batch;
    try {
      while (this.#acting.length > 0 && !this.#closed) {
        const [e, written] = this.#acting.shift();
        this.#event(e, written);
      }
    } finally {
      this.#acting = null;
    }
  }

  #event(e, saved) {
    switch (e.type) {
      case 'transmit':
        saved.then(
          () => this.#send(e),
          () => {}, // not recorded: not sent (#fail stopped the job)
        );
        break;
      case 'button':
        this.#tell('onButton', e.state);
        // A press waits for the button the core holds now to leave `requesting` (a hook
        // may have pressed again since this event).
        if (this.#ep.button !== 'requesting') this.#flushCancel(this.#ep.button);
        break;
      case 'status':
        if (this.#ep.id) this.#created({ id: this.#ep.id, status: e.status });
        if (e.status !== this.#status) {
          this.#status = e.status;
          this.#tell('onStatus', e.status);
        }
        break;
      case 'wake_at':
        clearTimeout(this.#timer);
        this.#timer = setTimeout(
          () => this.#guard(() => this.#run(this.#ep.handleTimeout(this.#host.now()))),
          lc.timerDelay(e.at, this.#host.now()),
        );
        break;
      case 'settled':
      case 'stopped':
        this.#finish(e);
        break;
      case 'idle':
        break;
      case 'request_failed': {
        const unanswered = e.failure.kind === 'transport';
        const detail = unanswered && this.#transportError ? transportDetail(this.#transportError) : null;
        const what = `${JOB_REQUESTS[e.request] ?? e.request} of job ${this.#ep.id}`;
        const message = `${what} ${failureText(e.failure, detail)}; asking again`;
        this.#tell('onRequestFailed', { ...this.#withCause(e, unanswered), message });
        break;
      }
      case 'recovered':
        this.#tell('onRecovered');
        break;
      case 'admission':
        this.#refusedWith = e.httpStatus;
        // httpStatus 0: the submit got no answer.
        this.#tell('onEvent', this.#withCause(e, e.httpStatus === 0));
        break;
      default:
        this.#tell('onEvent', e);
    }
  }

  /** `e`, with what `fetch` threw as its `cause` when `e` is about a request that got no answer. */
  #withCause(e, unanswered) {
    return unanswered && this.#transportError ? { ...e, cause: this.#transportError } : e;
  }

  #finish(e) {
    if (this.#end) return;
    // A stop the application asked for is not the transport's doing, even after a lost answer.
    e = this.#withCause(e, e.type === 'stopped' && e.reason !== 'host_stopped');
    // A submit refused for good (no job: `status` null) says the status that refused it.
    if (e.type === 'settled' && e.status == null && this.#refusedWith) e = { ...e, httpStatus: this.#refusedWith };
    this.#end = e;
    clearTimeout(this.#timer);
    this.#flushCancel(this.button);
    this.#created(this.#ep.id ? { id: this.#ep.id, status: this.#ep.status } : null);
    // Settled, or watching ended before the server named a job (no try of the submit answered,
    // or a stop while it was unanswered): a record with no job id has nothing to watch, and the
    // application submits the same intent again (the same key: the server answers with the job
    // it has).
    // The hook hears the ending before the record goes: one that returns a promise (the
    // application saving the outcome) is awaited, and if it throws or rejects the record is
    // kept, so a restart reports the ending again rather than losing it.
    const name = e.type === 'settled' ? 'onSettled' : 'onStopped';
    const told = Promise.all(this.#hooks.map((h) => callAndWait(h[name], e, this))).then((all) => all.every(Boolean));
    if (e.type === 'settled' || !this.#ep.id) this.#forget(told);
    const done = () => this.#resolve(e);
    this.#saving.then(done, done);
  }

  #fail(err) {
    // The store refused the record (nothing more goes out: a request not recorded could be
    // lost), or the host is set up wrong (#guard): stopped, with the error, the record kept.
    if (this.#closed) return;
    if (!this.#end) this.#stopped({ type: 'stopped', reason: 'host_stopped', error: err });
    this.close();
  }

  async #send(t) {
    if (this.#closed) return;
    const h = this.#host;
    const ep = this.#ep;
    const a = await exchange(
      h.fetch,
      h.url(t.path),
      t.method,
      mergeHeaders(t.body, h.headers, t.headers),
      t.body,
      h.timeoutMs,
    );
    // Sent by the endpoint a wave's hand-back replaced: the new one asked again for itself.
    if (ep !== this.#ep) return;
    this.#transportError = 'error' in a ? a.error : null;
    this.#guard(() => {
      const now = h.now();
      this.#run(
        'error' in a
          ? this.#ep.handleTransportFailure(now, t.requestRef)
          : this.#ep.handleHttpAnswer(now, t.requestRef, { status: a.status, headers: a.headers }, a.body),
      );
    });
  }

  // What the loop does on its own (an answer, a timer) may throw only when the host is set up
  // wrong (a `now` that is not a number of ms): the job then stops with that error, its record
  // kept, instead of an unhandled rejection.
  #guard(step) {
    if (this.#closed) return;
    try {
      step();
    } catch (err) {
      this.#fail(err);
    }
  }
}

const HOST_OPTIONS = ['baseUrl', 'headers', 'dialect', 'store', 'fetch', 'config', 'wire', 'now', 'timeoutMs'];
const HOOKS = ['onButton', 'onStatus', 'onSettled', 'onStopped', 'onRequestFailed', 'onRecovered', 'onEvent'];
const JOB_KEYS = ['model', 'kind', 'arguments'];
// `wait`'s own options, then the core's `WaveConfig` (checked here for a "did you mean"; the core
// refuses the same keys without one).
const WAIT_OPTIONS = [
  'deadline',
  'path',
  'onJob',
  'waitFor',
  'timeoutSeconds',
  'includeResults',
  'minRoundIntervalMs',
  'seed',
  'backoff',
];
const jobError = (code, message) => new JobHostError(code, message);

/** See index.d.ts `JobHost`. */
export class JobHost {
  // The Job of each intent this host watches, from the first submit or resume until it ends.
  /** @type {Map<string, Promise<Job | null>>} */
  #live = new Map();
  // What runs on this host until it ends: the jobs' loops and the waves, which `close()` ends.
  /** @type {Set<{close(): void} | {stop(): void}>} */
  #running = new Set();
  #closed = false;

  /**
   * @param {{baseUrl: string|URL, headers?: Record<string,string> | Iterable<[string,string]>, dialect?: 'open_api'|'mcp_tools',
   *   store?: {get(k: string): any, set(k: string, v: string): any, delete(k: string): any},
   *   fetch?: typeof fetch, config?: object, wire?: object, now?: () => number, timeoutMs?: number}} options
   */
  constructor(options = {}) {
    checkOptions(options, HOST_OPTIONS, 'JobHost', jobError, {
      apiKey: 'send it as a header: headers: {authorization: `Bearer ${key}`}',
    });
    const {
      baseUrl,
      headers = {},
      dialect = 'open_api',
      store,
      fetch: f = globalThis.fetch,
      config = null,
      wire = {},
      now = Date.now,
      timeoutMs = 30_000,
    } = options ?? {};
    if (baseUrl == null) throw new JobHostError('invalid_input', 'JobHost: baseUrl is required');
    // A timer's whole milliseconds, as httpSender takes them.
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 2 ** 31 - 1)
      throw new JobHostError(
        'invalid_input',
        `JobHost: timeoutMs must be a whole number of milliseconds from 1 to 2147483647, got ${JSON.stringify(String(timeoutMs).slice(0, 40))}`,
      );
    // A page may give a path of its own origin ('/v1'); anything else must be a whole URL.
    if (!isHttpUrl(baseUrl))
      throw new JobHostError(
        'invalid_input',
        `JobHost: baseUrl ${JSON.stringify(String(baseUrl).slice(0, 80))} is not an http(s) URL nor a path from the page's root (e.g. "https://api.example.com", "/api")`,
      );
    // Checked here, by the name the caller wrote (the core would name its own `wire.jobDialect`).
    if (!lc.JOB_DIALECTS.includes(dialect))
      throw new JobHostError(
        'invalid_input',
        `JobHost: dialect ${JSON.stringify(String(dialect).slice(0, 40))} is not one of ${lc.JOB_DIALECTS.join(', ')}`,
      );
    const missing = store == null ? [] : ['get', 'set', 'delete'].filter((m) => typeof store[m] !== 'function');
    if (missing.length)
      throw new JobHostError(
        'invalid_input',
        `JobHost: store needs get, set and delete (sync or async); it has no ${missing.join(', ')}`,
      );
    this.base = String(baseUrl).replace(/\/+$/, '');
    this.headers = ownHeaders(headers, 'JobHost', (code, message) => new JobHostError(code, message));
    this.store = store;
    this.fetch = f;
    this.timeoutMs = timeoutMs;
    this.config = config;
    this.wire = { ...wire, jobDialect: dialect };
    this.now = now;
    // The configuration and wire options, checked now by the engine that will take them (a
    // misspelt `poll.intialMs` fails here, not at the first submit).
    fromCore(() => lc.Endpoint.watch('job', 'job', config, this.wire)).free();
  }

  /** @param {string} path */
  url(path) {
    return `${this.base}${path}`;
  }

  /**
   * Ends every job's loop and every wave on this host, as a process exit would: each job's
   * `settled` resolves `stopped` (`host_stopped`), its record stays in the store, and the jobs
   * go on at the server. A `submit`, `resume`, `watch` or `wait` after it is refused (`closed`).
   * For a clean shutdown; a new host continues from the store.
   */
  close() {
    this.#closed = true;
    for (const running of this.#running) 'close' in running ? running.close() : running.stop();
    this.#running.clear();
  }

  /** A job's own loop started (`Job[START]`): kept until it ends, for `close()`. */
  [RUNNING](job) {
    // Started by a submit that was under way when the host closed: it ends at once.
    if (this.#closed) queueMicrotask(() => job.close());
    this.#running.add(job);
    job.settled.then(() => this.#running.delete(job));
  }

  /** @param {string} what */
  #open(what) {
    if (this.#closed) throw new JobHostError('closed', `${what}: this JobHost is closed; make a new one`);
  }

  /**
   * Submits the job of `intent` (its idempotency key), or continues it from the store when a
   * record of that intent is there: a submit answered before is never sent again, one in flight
   * goes again with the same key (the server answers with the job it has). A record of another
   * job under the same intent is refused (`duplicate`, E-66): the key names that job.
   */
  async submit(intent, job, hooks) {
    this.#open('submit');
    if (typeof intent !== 'string' || intent === '')
      throw new JobHostError('invalid_input', 'submit: the intent key must be a non-empty string');
    checkOptions(hooks, HOOKS, 'submit: hooks', jobError);
    // The job's keys (the core's JobSubmit less the key, which is the intent), checked here for
    // a "did you mean" (`args` for `arguments`); the core refuses the same keys without one.
    checkOptions(job, JOB_KEYS, 'submit: job', jobError, {
      idempotencyKey: 'the intent is the key: submit(intent, job)',
    });
    // A Map of arguments would go out as {}: a paid submit without its prompt.
    checkJson(job?.arguments, 'submit: job.arguments', jobError);
    const submit = { ...job, idempotencyKey: intent };
    return this.#once(intent, hooks, submit, async () => {
      const resumed = await this.#resume(intent, hooks, submit);
      if (resumed) return resumed;
      const ep = fromCore(() => lc.Endpoint.submitJob(submit, this.config, this.wire, this.now()));
      return new Job(this, ep, intent, hooks)[START]();
    });
  }

  /** The job of `intent` from the store, continued; `null` when the store has no record of it. */
  resume(intent, hooks) {
    this.#open('resume');
    checkOptions(hooks, HOOKS, 'resume: hooks', jobError);
    return this.#once(intent, hooks, null, () => this.#resume(intent, hooks, null));
  }

  /**
   * The Job this host already watches for `intent`, joined (`submit` checked against it, `hooks`
   * added); otherwise what `start` makes, watched as the intent's Job until it ends. So a
   * double click, or a component mounted twice, gets one Job and one loop.
   */
  #once(intent, hooks, submit, start) {
    const live = this.#live.get(intent);
    const again = () => this.#once(intent, hooks, submit, start);
    if (live) return live.then((job) => (job ? job[JOIN](submit, hooks) : again()), again);
    const starting = start();
    this.#live.set(intent, starting);
    const drop = () => {
      if (this.#live.get(intent) === starting) this.#live.delete(intent);
    };
    starting.then((job) => (job ? job.settled.then(drop) : drop()), drop);
    return starting;
  }

  /** `resume`, checking first that the record is of `submit` when one is given. */
  async #resume(intent, hooks, submit) {
    const text = this.store ? await this.store.get(intent) : undefined;
    if (text == null) return null;
    const ep = fromCore(() => lc.Endpoint.restore(text, this.now()));
    try {
      if (submit) ep.checkSubmit(submit);
    } catch (e) {
      ep.free();
      throw duplicateIntent(e);
    }
    if (ep.isDone && !ep.outcome) {
      // Watching had stopped (a deadline, `stop()`) and the job goes on: watch it again.
      let again = null;
      try {
        if (ep.id) again = ep.watchAgain(this.config, this.wire);
      } finally {
        ep.free();
      }
      if (again) return new Job(this, again, intent, hooks)[START]();
      // Stopped before the server named a job (a record an earlier version kept): no record.
      await this.store.delete(intent);
      return null;
    }
    return new Job(this, ep, intent, hooks)[START](true);
  }

  /** Watches a job id persisted elsewhere (no store record: the id is the application's). */
  watch(jobId, hooks) {
    this.#open('watch');
    checkOptions(hooks, HOOKS, 'watch: hooks', jobError);
    const ep = fromCore(() => lc.Endpoint.watch('job', jobId, this.config, this.wire));
    return new Job(this, ep, null, hooks)[START]();
  }

  /**
   * Watches many jobs together with `jobs_wait` rounds (the MCP job tools' `POST /jobs/wait`),
   * through the core's `Wave`. `jobs`: created {@link Job}s, whose own loops the wave takes over
   * (each one's `settled`, hooks and record end as its loop would end them; one not ended when
   * the wave is done, or cancelled meanwhile, goes back to its loop), or `{id, status}` of jobs
   * watched nowhere else.
   */
  wait(jobs, options = {}) {
    this.#open('wait');
    checkOptions(options, WAIT_OPTIONS, 'wait', jobError);
    const { deadline = null, path = '/jobs/wait', onJob, ...config } = options ?? {};
    const w = fromCore(() => new lc.Wave(config));
    /** @type {Map<string, object>} */
    const settled = new Map();
    // Jobs whose watching stopped unsettled (a deadline, max polls): they count as ended for
    // `waitFor`, so a satisfied wave may hold no finished job at all, and `done` must say so.
    /** @type {Map<string, object>} */
    const stopped = new Map();
    // Rounds with no usable answer (an HTTP error, a body that is not the wave's, no answer):
    // the wave goes on, and the caller learns why from `done`.
    let failedRounds = 0;
    let lastFailure = null;
    let timer;
    let over = false;
    let finish;
    const done = new Promise((ok) => {
      finish = ok;
    });
    // Jobs handed over whole: the wave ends each (its `settled`, its hooks, its record).
    /** @type {Map<string, Job>} */
    const handed = new Map();
    // Jobs that had settled before the wave (a key sent again for a job that had finished): the
    // wave's core takes each by its last status and counts it at once; `done` keeps its ending
    // as the job told it, result included.
    /** @type {Map<string, object>} */
    const before = new Map();
    const entries = [...jobs].map((j) => {
      if (!(j instanceof Job)) return j;
      const end = j[SETTLED_END]();
      if (end) {
        before.set(j.id, end);
        return { id: j.id, status: end.status };
      }
      const entry = j[WAVE_ENTRY]();
      handed.set(entry.id, j);
      return entry;
    });
    // A hook may act on the wave while its outputs are being told (a cancel pressed in
    // `onStatus` takes its job out): what that gives is told after the batch in hand, and the
    // wave is judged once all are told, never freed under a batch still being read.
    let telling = false;
    const later = [];
    const run = (outputs) => {
      if (over) return;
      if (telling) {
        later.push(outputs);
        return;
      }
      telling = true;
      try {
        for (let batch = outputs; batch && !over; batch = later.shift()) tell(batch);
      } finally {
        telling = false;
        later.length = 0;
      }
      if (over) return;
      if (w.isSatisfied || (!w.roundInFlight && w.pollTimeout === undefined)) {
        over = true;
        clearTimeout(timer);
        finish({ satisfied: w.isSatisfied, settled, stopped, rounds: w.roundsSent, failedRounds, lastFailure });
        w.free();
        // Jobs the wave did not end (it was satisfied by others) go back to their own loops.
        for (const j of handed.values()) j[HAND_BACK]();
      }
    };
    const tell = (outputs) => {
      for (const o of outputs)
        if (o.type === 'job' && o.output.type === 'settled') handed.get(o.id)?.[WAVE_SETTLING](o.output.outcome);
      for (const o of outputs) {
        if (o.type === 'wait') void round(o.callId, o.call);
        else if (o.type === 'call_failed') {
          failedRounds++;
          const f = o.failure;
          lastFailure =
            f.kind === 'http'
              ? {
                  httpStatus: f.status,
                  ...(f.code == null ? {} : { code: f.code }),
                  ...(o.reason ? { reason: o.reason } : {}),
                }
              : { httpStatus: 0, cause: transportCause };
        } else if (o.type === 'job') {
          if (o.output.type === 'settled') settled.set(o.id, before.get(o.id) ?? o.output);
          else if (o.output.type === 'stopped') stopped.set(o.id, o.output);
          call(onJob, o.id, o.output);
          handed.get(o.id)?.[WAVE_OUTPUT](o.output);
        } else if (o.type === 'wake_at') {
          clearTimeout(timer);
          timer = setTimeout(() => run(w.handleTimeout(this.now())), lc.timerDelay(o.at, this.now()));
        }
      }
    };
    // What `fetch` threw for the last call that got no answer (the core only hears "none").
    let transportCause;
    // The answer goes to the core as it arrived: it reads the body, the error code and
    // `Retry-After`, and says when a call failed (`call_failed`).
    const round = async (callId, body) => {
      const text = JSON.stringify(body);
      const a = await exchange(
        this.fetch,
        this.url(path),
        'POST',
        mergeHeaders(text, this.headers),
        text,
        this.timeoutMs,
      );
      if (over) return; // ended (stopped, say) while the round was out: the wave is freed
      const now = this.now();
      if ('error' in a) {
        transportCause = a.error;
        run(w.handleWaitFailed(now, callId, { kind: 'transport' }));
      } else run(w.handleWaitHttp(now, callId, { status: a.status, headers: a.headers }, a.body));
    };
    const now = this.now();
    try {
      for (const j of entries) run(w.addJob(now, { id: j.id, status: j.status }, deadline));
    } catch (e) {
      // A job the core refuses (a deadline already passed, a status of another model): no wave.
      over = true;
      clearTimeout(timer);
      w.free();
      throw asJobError(e);
    }
    // Taken from their own loops only once the wave holds them all.
    for (const [id, j] of handed)
      j[HAND_OVER](
        // What the press gives (the button `requesting`, the cancel to send) is not told: the
        // job leaves the wave at once, and its own loop presses and sends.
        () => void w.pressCancel(this.now(), id),
        () => {
          handed.delete(id);
          run(w.handleJobInput(this.now(), id, { type: 'stop_watching' }));
        },
      );
    run(w.handleTimeout(now));
    // Stops watching every job still watched: each ends in `stopped` (`host_stopped`), and `done`
    // resolves. The jobs go on at the server.
    const stop = () => {
      if (over) return;
      const at = this.now();
      for (const j of entries) {
        if (over) return;
        if (settled.has(j.id) || stopped.has(j.id)) continue;
        run(w.handleJobInput(at, j.id, { type: 'stop_watching' }));
      }
    };
    const wave = { stop };
    this.#running.add(wave);
    done.then(() => this.#running.delete(wave));
    return { done, stop };
  }
}
