// longcall/store: run records that survive restarts and are shared by a fleet of hosts.
// The core decides; a store only loads, saves and leases. See store/index.js for the contract.

/** One watched call as stored. */
export interface StoredCall<R = unknown> {
  /** The host's id for the call. */
  call: string;
  /** The core's snapshot of the call (its run record). */
  record: R;
  /** When the core next wants to wake for this call (ms); `null` when nothing is due. */
  dueAt: number | null;
  /** The call settled and its outcome is recorded: never claimed again. */
  done: boolean;
  /** Grows by one on every write. */
  version: number;
  /** The host process holding the lease, if any. */
  owner: string | null;
  /** Until when (ms) the lease holds. */
  leaseUntil: number | null;
}

/** What `put` writes. Unknown keys are rejected by name. */
export interface CallRow<R = unknown> {
  record: R;
  dueAt?: number | null;
  done?: boolean;
}

/** The one small interface both stores implement. Every time is ms passed in by the host. */
export interface Store<R = unknown> {
  readonly kind: 'sqlite' | 'postgres';
  get(call: string): Promise<StoredCall<R> | null>;
  /**
   * Writes the call's row. With `owner`, fenced: writes only while `owner` holds a live lease
   * (a new call is created leased to `owner` until `now + leaseMs`). Without `owner`, writes only
   * a call nobody leases. `false` means the write was refused: drop the call, another host has it.
   */
  put(
    call: string,
    row: CallRow<R>,
    lease?: { owner?: string | null; now?: number; leaseMs?: number },
  ): Promise<boolean>;
  /** Leases up to `limit` (default 100) due, unfinished calls nobody holds, earliest first. */
  claimDue(options: { owner: string; now: number; leaseMs: number; limit?: number }): Promise<StoredCall<R>[]>;
  /** Extends every live lease of `owner` to `now + leaseMs`; resolves to how many. */
  renew(options: { owner: string; now: number; leaseMs: number }): Promise<number>;
  /** Gives one lease back; `false` when `owner` did not hold it. */
  release(call: string, owner: string): Promise<boolean>;
  list(): Promise<StoredCall<R>[]>;
  close(): Promise<void>;
}

/** Errors from a store: `code` is `invalid_input` or `unsupported`. */
export class StoreError extends Error {
  readonly code: 'invalid_input' | 'unsupported';
}

/** The embedded store on Node's built-in `node:sqlite` (Node 22.13 or later). */
export function sqliteStore<R = unknown>(path: string, options?: { table?: string }): Promise<Store<R>>;

/** The fleet store on PostgreSQL (npm `pg`): pass a `pg.Pool` or a connection string. */
export function pgStore<R = unknown>(options: {
  pool?: unknown;
  connectionString?: string;
  table?: string;
}): Promise<Store<R>>;
