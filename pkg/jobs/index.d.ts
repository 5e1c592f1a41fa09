// Types of `longcall/jobs`: the job host on the longcall core.
import type {
  ButtonState,
  EndpointEvent,
  EndpointRequestFailed,
  EndpointWireOptions,
  ErrorCode,
  JobDialect,
  JobKind,
  JobStatus,
  Json,
  JsonObject,
  Outcome,
  StopReason,
  TrackerConfig,
  TrackerOutput,
  WaveConfig,
} from '../index.js';

/** The first artifact's URL in a settled job's result, in either dialect's shape (`longcall`'s). */
export { artifactUrl } from '../index.js';

/**
 * Where a {@link JobHost} keeps each intent's record (the endpoint's snapshot, the idempotency
 * key inside): written before a request leaves, deleted once the job settled (or its submit went
 * unanswered). A `Map` fits, and
 * so does a three-line adapter on `localStorage` or a database table. Methods may return
 * promises.
 */
export interface JobStore {
  get(intent: string): string | null | undefined | Promise<string | null | undefined>;
  set(intent: string, text: string): unknown;
  delete(intent: string): unknown;
}

/** What the application is told while a job runs (each optional; a throwing callback is ignored, but one on the ending keeps the record). */
export interface JobHooks {
  /** What the cancel button shows now (the core's state; show a label for each). A job resumed from its record gets the state the core held first. */
  onButton?(state: ButtonState, job: Job): void;
  /** The job's status changed. */
  onStatus?(status: JobStatus, job: Job): void;
  /**
   * The job settled (also the value `settled` resolves to). Called before the store's record is
   * deleted: a promise it returns (your own save of the outcome) is awaited first, and if it
   * rejects the record is kept, so a restart reports the ending again.
   */
  onSettled?(end: JobSettled, job: Job): void | Promise<unknown>;
  /**
   * Watching ended without an outcome (the job goes on): a stop, a deadline, a submit never
   * answered, `close()`, or a store write that failed (`host_stopped` with the store's `error`).
   */
  onStopped?(end: JobStopped, job: Job): void | Promise<unknown>;
  /**
   * A status poll got no usable answer (the server is down, a 503, a proxy's error page) and
   * the core polls again later, by its backoff. Called for each failed poll: show that the
   * server is not answering. With no answer at all, `cause` is what `fetch` threw. A failed
   * fetch of a completed job's result (`GET /result`) is said as `request: 'get'` too: it
   * counts as a failed poll, and the status is asked again before the result (rule D-10).
   * `message` says it in words to log (`the status poll of job job_1 got no answer: fetch
   * failed: connect ECONNREFUSED 127.0.0.1:9; asking again`).
   * @example
   * onRequestFailed: (f) => (note.textContent = f.failure.kind === 'http' ? `Server error ${f.failure.status}` : 'Server unreachable, retrying…'),
   * onRecovered: () => (note.textContent = ''),
   */
  onRequestFailed?(failed: EndpointRequestFailed & { message: string; cause?: unknown }, job: Job): void;
  /** The server answered again after {@link JobHooks.onRequestFailed}. */
  onRecovered?(job: Job): void;
  /**
   * Any other event: `admission` (a submit refused, sent again with the same key), `violation`.
   * An `admission` with `httpStatus` 0 (the submit got no answer) carries in `cause` what `fetch`
   * threw (`TypeError: fetch failed`, the socket's error in its own `cause`).
   */
  onEvent?(event: EndpointEvent & { cause?: unknown }, job: Job): void;
}

/**
 * A settled job: the outcome, and the result or error as the server sent them (`error.code` is
 * the API's code either way).
 *
 * `outcome: 'failed'` with `status: null` is a submit the API refused for good (a 400, a 401, a
 * 404 such as a `baseUrl` with one path segment too many, an unknown model): no job was made and
 * nothing was billed; `error` is the API's error object (`{code, message}`, the `error` of its
 * envelope), or its JSON body as it came when that has none (a text or HTML body leaves it out),
 * and `httpStatus` the status of the answer that refused it.
 */
export interface JobSettled {
  type: 'settled';
  outcome: Outcome;
  status: JobStatus | null;
  result?: Json;
  error?: Json;
  /** A submit refused for good (`status` null): the HTTP status that refused it. */
  httpStatus?: number;
}
/**
 * Watching ended without an outcome; `reason` says why. No job id yet (`create_unanswered`: no
 * answer to any try of the submit, a retry refused after a try that may have made the job (rule
 * A-10); or a stop while it was unanswered): no job is known and the record is gone: submit the
 * same intent again later (the server answers with the job it has, if any). With a job id: the job
 * goes on and its record stays; `resume(intent)` watches it again.
 */
export interface JobStopped {
  type: 'stopped';
  reason: StopReason;
  /** `create_unanswered` after an HTTP refusal that did not settle it (rule A-10): its status and code. */
  failure?: { kind: 'http'; status: number; code?: string | null; retryAfterMs?: number | null };
  /**
   * Set when the store refused a record (nothing more was sent), or when the host is set up
   * wrong (a `now` that does not give ms: the core's coded error); the record is kept.
   */
  error?: unknown;
  /**
   * What `fetch` threw, when the latest request got no answer and that led to this stop
   * (`create_unanswered` after every try failed to connect, say). Absent after `stop()`.
   */
  cause?: unknown;
}

/** One job a {@link JobHost} watches. */
export interface Job {
  /** The intent key (`null` for {@link JobHost.watch}). */
  readonly intent: string | null;
  /** The job id, once the server gave one. */
  readonly id: string | undefined;
  readonly status: JobStatus | undefined;
  readonly button: ButtonState;
  readonly outcome: Outcome | undefined;
  /** Resolves once, when the job settled or watching stopped. */
  readonly settled: Promise<JobSettled | JobStopped>;
  /** Resolves when the job id is known (`null` if the job ended without one). */
  readonly created: Promise<{ id: string; status: JobStatus } | null>;
  /**
   * The user pressed cancel: resolves with the button state once the cancel was answered
   * (`cancelled`, `too_late`, `acknowledged_pending`, ...; also when the job ended first;
   * `available` again when the cancel did not go through, e.g. a 502 or an unlisted 409: the job
   * goes on, and the person may press again). Pressed while the submit is unanswered, the core
   * keeps the press, in the record too, and makes it once the answer names the job (rule E-65:
   * a queued job is then cancelled, after a restart as well); this promise waits for that, and
   * resolves `unavailable` when {@link Job.close} comes first.
   * Rejects with a {@link JobHostError} of code `cancel_refused` when the core refuses the press
   * (nothing is sent; the core's error is its `cause`), or `closed` after {@link Job.close}.
   */
  cancel(): Promise<ButtonState>;
  /**
   * Stops watching (the job goes on); `settled` resolves with `stopped`. While the submit is
   * unanswered, the stop waits for its answer, so the job it names is kept in the store and
   * `JobHost.resume(intent)` finds it (rule E-62).
   */
  stop(): void;
  /**
   * A person looks again (the tab is shown again, a view comes back): the next status poll goes
   * as soon as the floors allow, instead of where the backoff had put it (up to its cap away; rule
   * P-15). Calling it often polls no faster than the floor. A job resumed from its record is
   * refreshed so already. Does nothing while a poll is out, in a wave, or once the job ended.
   */
  refresh(): void;
  /**
   * Ends this host's loop and leaves the record in the store, as a process exit would;
   * `settled` resolves with `{type: 'stopped', reason: 'host_stopped'}`, and `onStopped` hears it
   * (unless the job had ended already).
   */
  close(): void;
}

export interface JobHostOptions {
  /** The job API's base URL (`http://127.0.0.1:PORT`, `location.origin`, or in a page a path of its own origin such as `'/api'`, behind a proxy). */
  baseUrl: string | URL;
  /** Headers on every request (`authorization`). */
  headers?: Record<string, string> | Iterable<readonly [string, string]> | undefined;
  /** `open_api` (default: the Sume Open API) or `mcp_tools` (the MCP job tools over HTTP). */
  dialect?: JobDialect | undefined;
  /** Where each intent's record goes; without one a job does not survive a restart. */
  store?: JobStore | undefined;
  fetch?: typeof fetch | undefined;
  /** The tracker's poll policy, seed and watch deadline. */
  config?: TrackerConfig | null | undefined;
  /** The endpoint's limits and job routes. */
  wire?: Omit<EndpointWireOptions, 'jobDialect'> | undefined;
  /** The clock (ms); `Date.now` by default. */
  now?: (() => number) | undefined;
  /**
   * How long one request may take, its whole answer read (default 30000 ms): a server that never
   * answers, or whose body trickles in, is no answer then, and the core decides what follows
   * (a poll again, a submit with the same key). Never a cancel.
   */
  timeoutMs?: number | undefined;
}

/** What {@link JobHost.wait} gives back. */
export interface WaitRun {
  /**
   * Resolves once the wave is satisfied (its `waitFor` holds: a job whose watching stopped, at a
   * deadline say, counts as ended) or has nothing left to do. `settled` holds the jobs that
   * settled, `stopped` those whose watching stopped first (`{type: 'stopped', reason}`; they go
   * on at the server), so a satisfied wave whose jobs are all in `stopped` saw none finish;
   * `failedRounds` counts the `jobs_wait` calls with no usable answer (an HTTP error such as a
   * 404 from a server without the route, a body that is not a wave answer, no answer at all;
   * the core reads each answer; a `404 not_found` names an id the server does not know, and the
   * wave finds it: that job settles `lost`), and `lastFailure` says the last
   * one's HTTP status and the API's error `code` when the body names one (`not_found`), why a
   * 2xx answer could not be read (`reason`), or 0 for no answer, with what `fetch` threw in
   * `cause`. Calls that fail are tried again with backoff, never before a 429's `Retry-After`:
   * bound a wave with `deadline` (or `backoff.maxPolls`), or end it with {@link WaitRun.stop}.
   */
  done: Promise<{
    satisfied: boolean;
    settled: Map<string, TrackerOutput>;
    stopped: Map<string, TrackerOutput>;
    rounds: number;
    failedRounds: number;
    lastFailure: { httpStatus: number; code?: string; reason?: string; cause?: unknown } | null;
  }>;
  /**
   * Stops watching every job still watched (each goes to `stopped` with `host_stopped`; the jobs
   * go on at the server), so `done` resolves now. Nothing after `done` resolved.
   */
  stop(): void;
}

/**
 * A job host: submits with the user's intent key, watches with the core's schedule, presses the
 * honest cancel button, and watches many jobs through `jobs_wait` waves. Node 22+ and browsers
 * (fetch only). In a browser, `await init()` from `longcall` first.
 */
export class JobHost {
  /**
   * Checks every option now, `config` and `wire` by the engine that will take them (a misspelt
   * `poll.intialMs` or `jobRoutes` with the `open_api` dialect throws here, with the core's
   * code), so in a browser `await init()` from `longcall` before constructing one. One check
   * waits for `submit`: a `config.deadlineMs` that has passed (an absolute time, often a
   * duration given by mistake) is refused when a job would be made with it.
   */
  constructor(options: JobHostOptions);
  /**
   * Submits the job of `intent` (its idempotency key: one per user decision, kept by the
   * application), or continues it from the store when a record of it is there. While this host
   * watches the job of `intent` (a double click, a component mounted twice), another submit or
   * resume of it gets the same `Job`, with its `hooks` added: one loop, every hook set told.
   * @throws {LongcallError} `invalid_input`, `malformed`.
   * @throws {JobHostError} `duplicate` when the store's record of `intent` is of another job
   * (another model or other arguments, rule E-66): nothing is sent; a new job needs a new intent.
   */
  submit(
    intent: string,
    job: { model: string; kind: JobKind; arguments?: JsonObject | undefined },
    hooks?: JobHooks,
  ): Promise<Job>;
  /** The job of `intent` from the store, continued (watched again if watching had stopped); `null` when there is no record. */
  resume(intent: string, hooks?: JobHooks): Promise<Job | null>;
  /** Watches a job id kept elsewhere; its first poll assumes no status. */
  watch(jobId: string, hooks?: JobHooks): Job;
  /**
   * Ends every job's loop and every wave on this host, as a process exit would: each job's
   * `settled` resolves `{type: 'stopped', reason: 'host_stopped'}`, its record stays in the
   * store, and the jobs go on at the server; a new host continues them with `resume`. Later
   * calls of `submit`, `resume`, `watch` and `wait` throw `closed`.
   */
  close(): void;
  /**
   * Watches many created jobs together through `jobs_wait` rounds (`POST /jobs/wait` by default).
   * Hand it the {@link Job}s themselves: the wave takes over each one's loop (its own polling
   * stops; its `status`, `outcome` and `onStatus` follow the wave) and ends it as the loop would:
   * `settled` resolves, `onSettled` or `onStopped` is called, and a settled job's record is
   * deleted. A job the wave has not ended when it is done (`waitFor: 'any'` satisfied by
   * another) goes back to its own loop, and so does one whose {@link Job.cancel} is pressed (the
   * wave lists it in `stopped`; its own loop sends the cancel). Such a press is decided by the
   * wave's core, which holds the job's latest status: a job it saw start is refused
   * (`cancel_refused`), stays in the wave, and nothing is sent. A job that settled before the
   * wave (a key sent again for a finished job) counts as settled at once, its ending in
   * `done.settled` as the job told it. An `{id, status}` is a job
   * watched nowhere else (its ending is only in {@link WaitRun.done}).
   * An empty list sends nothing and `done` resolves at once, with `satisfied: false` (no job
   * ended).
   * @throws {JobHostError} `invalid_input` for an unknown option (naming it), or a `Job` not
   * created yet or already ended. The core's `invalid_input` for a `deadline` already passed (it
   * is a time, not a duration) and its codes for a job it cannot take.
   */
  wait(
    jobs: (Job | { id: string; status: JobStatus })[],
    options?: WaveConfig & {
      deadline?: number | null;
      path?: string;
      onJob?(id: string, output: TrackerOutput): void;
    },
  ): WaitRun;
}

/**
 * An Error with a stable `code`: the host's own (`invalid_input`, `closed`, `duplicate` for an
 * intent that names another job), or the core's refusal it passes on (`cancel_refused` from
 * {@link Job.cancel}; `invalid_config`, `malformed`, `invalid_input` for a configuration, job or
 * deadline it cannot take; `snapshot_invalid` for a store record it cannot read), with the
 * core's error as `cause`. Every refusal of `JobHost`'s and `Job`'s functions is one.
 */
export class JobHostError extends Error {
  readonly code: 'closed' | ErrorCode;
}
