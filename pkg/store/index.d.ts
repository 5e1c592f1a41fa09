/**
 * `longcall/store` (Node only): the run records of a {@link WatchList} in a store, written in the
 * order the core asks, so that a restart or another host process continues from the last record.
 * The core decides; a store only loads, saves and leases. Two stores, one {@link Store} contract:
 * {@link sqliteStore} (embedded default, Node 22.13+) and {@link pgStore} (a fleet, npm `pg`).
 * @packageDocumentation
 */
import type { Camelized, Json, Model, RunRecord, TrackerConfig, TrackerInput, TrackerOutput } from '../index.js';

/** What a new call creates, recorded before the request leaves (core rule R-1). */
export interface Intent {
  model: Model;
  request: Json;
  idempotencyKey?: string | null | undefined;
}

/** `WatchList` configuration. */
export interface WatchConfig {
  /** Hold each call's outputs behind its `persist` until the record is written (default true). */
  durable?: boolean | undefined;
  /**
   * How many times a create that got no answer is sent again, each after the poll policy's
   * retry wait, before the intent comes back as `create_unanswered` (default 3). A restart with
   * a create unanswered counts as one: a host that crashes while submitting gives up after as
   * many restarts.
   */
  maxCreateResends?: number | undefined;
}

/** What a watch list asks of its host; each names its call. */
export type WatchOutput =
  | { type: 'persist'; call: number }
  | { type: 'create'; call: number; intent: Intent; resend: boolean }
  | { type: 'create_unanswered'; call: number; intent: Intent }
  | { type: 'call'; call: number; output: TrackerOutput }
  | { type: 'removed'; call: number };

/** A call's record as a store writes it: `text` to keep, `version` to confirm. */
export interface SavedCall {
  call: number;
  version: number;
  model: Model;
  nextWakeAt: number | null;
  done: boolean;
  text: string;
}

/**
 * Many watched calls (the core's `longcall::watch`): one output stream, one next wake, and the
 * store order: a call's outputs wait behind `{type: 'persist'}` until `persisted(call, version)`
 * confirms its record (`saveCall(call)`) is written. Call ids are integers up to 2^53-1. Keys
 * are camelCase (inputs as `Tracker.handleInput` takes them); an unknown key is refused by name.
 */
export class WatchList {
  /** @throws {LongcallError} `invalid_input`, `malformed` (an unknown key, named). */
  constructor(config?: WatchConfig | null);
  /**
   * How long before a lease of `leaseMs` ends its holder stops acting on the calls it holds
   * (core rule R-10): a fenced store refuses writes made with less left.
   */
  static leaseMarginMs(leaseMs: number): number;
  readonly size: number;
  /** When `timeout` has work next (ms), if ever. */
  readonly pollTimeout: number | undefined;
  /**
   * A call about to be created. Unless `config` gives a `seed`, the call draws its own jitter seed
   * (as `longcall/mcp` and `longcall/jobs` calls do), so calls added together do not poll together.
   * @throws {LongcallError} `duplicate`, `invalid_input`, `invalid_config`.
   */
  addNew(call: number, intent: Intent, config?: TrackerConfig | null): void;
  /** Watches a handle persisted earlier. */
  addHandle(now: number, call: number, model: Model, handle: string, config?: TrackerConfig | null): void;
  /** A call from its stored record after a restart; returns its id. */
  resumeCall(now: number, text: string): number;
  /** An unanswered create was reconciled: watch what was found. */
  adoptHandle(now: number, call: number, handle: string, config?: TrackerConfig | null): void;
  /** Something happened to a call. @throws {LongcallError} (then nothing changed). */
  handle(now: number, call: number, input: TrackerInput): void;
  /** Drives every call due. */
  timeout(now: number): void;
  /** The record of `call` at `version` is written. */
  persisted(call: number, version: number): void;
  /** Ends a call for good (a `removed` output follows; `pump` deletes the record on it and does not hand it to `onOutput`). */
  remove(call: number): boolean;
  /** Drops a call from this list only; its record stays (a lease taken elsewhere). */
  unload(call: number): boolean;
  /** Every output queued now, in order. `pump` drains for you: a host that pumps must not drain too, or the `persist` outputs it takes are never written and the calls behind them wait. */
  drain(): WatchOutput[];
  saveCall(call: number): SavedCall;
  record(call: number): Camelized<RunRecord> | null;
  openPrompts(call: number): [string, Json][];
  snapshot(): string;
  static restore(text: string): WatchList;
  free(): void;
}

/** A lease: `owner` holds what it claims or writes until `now + leaseMs` (ms, passed in). */
export interface Lease {
  owner: string;
  now: number;
  leaseMs: number;
}

/** One watched call as stored; `text` is the core's record, opaque to the store. */
export interface StoredCall {
  call: number;
  /** Only moves forward: a write never replaces a record of the same or a later version. */
  version: number;
  model: Model;
  /** The core's next wake for the call (ms), `null` when nothing is due. */
  nextWakeAt: number | null;
  /** The call has ended (its ending is in the record, reported again on resume until removed). */
  done: boolean;
  text: string;
  /** The host process holding the lease, if any. */
  owner: string | null;
  /** Until when (ms) the lease holds. */
  leaseUntil: number | null;
}

/** The one small interface both stores implement. Every time is ms passed in by the host. */
export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** Every stored call (one host alone, no leases). */
  load(): Promise<StoredCall[]>;
  /**
   * Leases to `owner` up to `limit` (default 100) calls that need a host and have none: unleased
   * calls due or done, and every call whose lease ran out. Earliest wake first. With `restart`,
   * the leases `owner` still holds end first (a host restarted under the same owner id: they
   * belong to a process that is gone), so it takes those calls back at once.
   */
  claim(lease: Lease & { limit?: number; restart?: boolean }): Promise<StoredCall[]>;
  /**
   * Writes records (version-monotonic) and deletes removed calls, in one transaction. With a
   * lease, only calls `owner` holds with more than `WatchList.leaseMarginMs(leaseMs)` left
   * (rule R-10; new calls are created leased to it); without, only
   * calls nobody leases. Resolves to the calls refused: another host holds them, or stored a
   * different record of the same or a later version since (this host's state is stale).
   */
  write(saved: SavedCall[], removed: number[], lease?: Lease): Promise<number[]>;
  /**
   * Extends every lease of `owner` with more than `WatchList.leaseMarginMs(leaseMs)` left to
   * `now + leaseMs`; resolves to how many. A lease in its margin runs out (rule R-10): renew
   * more often than that.
   */
  renew(lease: Lease): Promise<number>;
  /** Gives leases back; resolves to how many `owner` held. */
  release(calls: number[], owner: string): Promise<number>;
  /** Every row, for inspection. */
  list(): Promise<StoredCall[]>;
  /**
   * The row of `call`, whoever holds it, or `null` when the store has none: in a fleet, where
   * `list.record(call)` knows only the calls this host has loaded, this is how to tell a call
   * that is new from one another host is watching. @throws {StoreError} `invalid_input` (no call id).
   */
  get(call: number): Promise<StoredCall | null>;
  /** Closes the store (a store made from your own `pg.Pool` leaves it open); again is a no-op. */
  close(): Promise<void>;
}

/**
 * Errors from a store: `code` is `invalid_input` (an unknown option is named), `unsupported` (no
 * `node:sqlite` in this Node, no npm `pg`), `cannot_open` (the SQLite file cannot be opened or is
 * no database, the message naming the path; PostgreSQL refused the connection) or `closed` (a
 * call after `close()`). An error of the database itself while open passes through as it came.
 */
export class StoreError extends Error {
  readonly code: 'invalid_input' | 'unsupported' | 'cannot_open' | 'closed';
}

/** The embedded store on Node's built-in `node:sqlite` (Node 22.13 or later): one file. */
export function sqliteStore(path: string, options?: { table?: string | undefined } | undefined): Promise<Store>;

/** The fleet store on PostgreSQL (npm `pg`): pass a `pg.Pool` or a connection string. */
export function pgStore(options: {
  pool?: unknown;
  connectionString?: string | undefined;
  table?: string | undefined;
}): Promise<Store>;

/**
 * A watch list holding the store's calls, each resumed from its record: every call without
 * `lease` (one host), the calls claimed for `lease.owner` with it (a fleet). Opening with a lease
 * ends the leases that owner id still held (`claim` with `restart`): one id per running host, and
 * a host restarted under its id takes its calls back at once.
 */
export function openWatchList(
  store: Pick<Store, 'load' | 'claim'>,
  now: number,
  options?: {
    config?: WatchConfig | null | undefined;
    lease?: (Omit<Lease, 'now'> & { limit?: number | undefined }) | undefined;
  },
): Promise<WatchList>;

/** Claims calls that need a host and resumes them in `list`; resolves to their ids. */
export function claimInto(
  list: WatchList,
  store: Pick<Store, 'claim'>,
  lease: Lease & { limit?: number },
): Promise<number[]>;

/**
 * Drains `list` until nothing is left: records asked for are written and confirmed, removed
 * calls deleted, every other output handed to `onOutput` in order (already safe to act on).
 * With `lease`, a call another host holds, or whose lease has less than the margin left (rule
 * R-10), is unloaded (rule R-9); resolves to those calls. A function `lease` is read at every
 * round, so each write is fenced with the time it is made. An `onOutput` that throws loses
 * nothing: the round's other outputs are still handed over and its records written, then the
 * promise rejects with the first error.
 *
 * `onOutput` runs synchronously: it starts what an output asks (a request) and returns; a
 * promise it returns is not awaited, so catch its failures inside it (an `async` one that
 * rejects is an unhandled rejection). A `pump` called while one of the same list runs joins it:
 * the running one's `onOutput` gets every output.
 */
export function pump(
  list: WatchList,
  store: Pick<Store, 'write'>,
  onOutput: (out: WatchOutput) => void,
  lease?: Lease | (() => Lease),
): Promise<number[]>;

/** An answer of the Sume Open API, as {@link readJobAnswer} takes it. */
export interface JobAnswer {
  /** Which request it answers. */
  request: 'submit' | 'status' | 'result' | 'cancel';
  /** The job id asked about (unused for a submit). */
  handle?: string;
  /** The HTTP status; 0 when no answer came (fetch threw, a local timeout). */
  status: number;
  /** The response headers (`Retry-After` is read from them). */
  headers?: [string, string][];
  /** The parsed JSON body; null when there was none (a proxy's HTML page). */
  body?: Json | null;
}

/**
 * The tracker input a Sume Open API answer stands for, as {@link WatchList.handle} (and
 * `Tracker.handleInput`) take it: `job_created`, `job_polled` (`nsfw` read as `failed`),
 * `cancel_answered`, or `request_failed` with the envelope's code and `Retry-After` (a date
 * read against `now`, ms). `longcall/jobs` does this for you; a host that drives a watch list
 * itself hands each answer here instead of reading the envelopes on its own.
 * A submit with no answer (status 0) or a proxy's 5xx page instead of the API's error is
 * `{type: 'create_unanswered'}`: the job may exist, and the list sends it again with its key.
 * @throws {LongcallError} `invalid_input` (a submit the API refused: it made no job, and
 * admission decides what follows, not a tracker), `malformed` (an answer it cannot read, the
 * member named).
 * @example readJobAnswer({ request: 'status', handle: 'job_1', status: 200, body: { data: { sume_status: 'processing' } } }, Date.now()).type // 'job_polled'
 */
export function readJobAnswer(answer: JobAnswer, now: number): TrackerInput;
