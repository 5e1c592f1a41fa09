/**
 * `longcall/store` (Node 22.13+): the run records of a {@link WatchList} in SQLite through the
 * built-in `node:sqlite`, written in the order the core asks.
 * @packageDocumentation
 */
import type { Input, Json, Model, Output, RunRecord, TrackerConfig } from '../index.js';

/** What a new call creates, recorded before the request leaves (core rule R-1). */
export interface Intent { model: Model; request: Json; idempotency_key?: string | null }

/** `WatchList` configuration: `durable` (default true) holds outputs behind `persist`. */
export interface WatchConfig { durable?: boolean; max_create_resends?: number }

/** What a watch list asks of its host; each names its call. */
export type WatchOutput =
  | { type: 'persist'; call: number }
  | { type: 'create'; call: number; intent: Intent; resend: boolean }
  | { type: 'create_unanswered'; call: number; intent: Intent }
  | { type: 'call'; call: number; output: Output }
  | { type: 'removed'; call: number };

/** A call's record as a store writes it: `text` to keep, `version` to confirm. */
export interface SavedCall { call: number; version: number; model: Model; next_wake_at: number | null; done: boolean; text: string }

/**
 * Many watched calls (the core's `longcall::watch`): one output stream, one next wake, and the
 * store order: a call's outputs wait behind `{type: 'persist'}` until `persisted(call, version)`
 * confirms its record (`saveCall(call)`) is written. Call ids are integers up to 2^53-1.
 */
export class WatchList {
  /** @throws {LongcallError} `invalid_input`. */
  constructor(config?: WatchConfig | null);
  readonly size: number;
  /** When `timeout` has work next (ms), if ever. */
  readonly pollTimeout: number | undefined;
  /** A call about to be created. @throws {LongcallError} `duplicate`, `invalid_input`, `invalid_config`. */
  addNew(call: number, intent: Intent, config?: TrackerConfig | null): void;
  /** Watches a handle persisted earlier. */
  addHandle(now: number, call: number, model: Model, handle: string, config?: TrackerConfig | null): void;
  /** A call from its stored record after a restart; returns its id. */
  resumeCall(now: number, text: string): number;
  /** An unanswered create was reconciled: watch what was found. */
  adoptHandle(now: number, call: number, handle: string, config?: TrackerConfig | null): void;
  /** Something happened to a call. @throws {LongcallError} (then nothing changed). */
  handle(now: number, call: number, input: Input): void;
  /** Drives every call due. */
  timeout(now: number): void;
  /** The record of `call` at `version` is written. */
  persisted(call: number, version: number): void;
  /** Ends a call for good (a `removed` output follows). */
  remove(call: number): boolean;
  /** Drops a call from this list only; its record stays. */
  unload(call: number): boolean;
  /** Every output queued now, in order. */
  drain(): WatchOutput[];
  saveCall(call: number): SavedCall;
  record(call: number): RunRecord | null;
  openPrompts(call: number): [string, Json][];
  snapshot(): string;
  static restore(text: string): WatchList;
  free(): void;
}

/** What `pump` and `openWatchList` need of a store. */
export interface Store {
  /** Every stored record's text. */
  load(): string[];
  /** Writes records and deletes removed calls, in one transaction. */
  write(saved: SavedCall[], removed: number[]): void;
}

/** Records in one SQLite file (WAL, synchronous FULL). */
export class SqliteStore implements Store {
  constructor(path: string);
  load(): string[];
  write(saved: SavedCall[], removed: number[]): void;
  close(): void;
}

/** A watch list holding every stored call, each resumed from its record. */
export function openWatchList(store: Pick<Store, 'load'>, now: number, config?: WatchConfig): WatchList;

/**
 * Drains `list` until nothing is left: records asked for are written and confirmed, removed
 * calls deleted, every other output handed to `onOutput` in order (already safe to act on).
 */
export function pump(list: WatchList, store: Pick<Store, 'write'>, onOutput: (out: WatchOutput) => void): void;
