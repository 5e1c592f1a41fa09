// `longcall/store`: the run records of a `WatchList` in a store, written in the order the core
// asks (rules R-1..R-9 of `longcall::watch`). The core decides everything; a store only loads,
// saves and deletes records. One store is here: SQLite through Node's built-in `node:sqlite`
// (Node 22.13 and later): nothing to install, no server to start, one file on disk.
//
//   import { SqliteStore, openWatchList, pump } from 'longcall/store';
//   const store = new SqliteStore('watches.db');
//   const list = openWatchList(store, Date.now());        // every stored call resumed
//   list.addNew(7, { model: 'job', request: {...}, idempotency_key: 'render-7' });
//   pump(list, store, (out) => { /* create, call, create_unanswered */ });
//
// `pump` drains the list, writes every record it asks for in one transaction, confirms them and
// drains again (a confirmed record releases the outputs that waited for it), until nothing is
// left; every other output goes to `onOutput` in order, already safe to act on.
import { readFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { initSync, WatchList } from '../dist/longcall_watch.js';

// A module of its own (bindings/wasm feature `watch`): hosts that never keep a store do not load it.
initSync({ module: readFileSync(new URL('../dist/longcall_watch_bg.wasm', import.meta.url)) });

export { WatchList };

const SCHEMA = `
CREATE TABLE IF NOT EXISTS longcall_watches (
  call INTEGER PRIMARY KEY,
  version INTEGER NOT NULL,
  model TEXT NOT NULL,
  next_wake_at INTEGER,
  done INTEGER NOT NULL,
  record TEXT NOT NULL
)`;

/** Records in one SQLite file (WAL, synchronous FULL: a confirmed write survives a power cut). */
export class SqliteStore {
  /** @param {string} path a file (`:memory:` only for tests that never restart) */
  constructor(path) {
    this.db = new DatabaseSync(path);
    this.db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
    this.db.exec(SCHEMA);
    // A record only moves forward: an older version never overwrites a newer one.
    this.upsert = this.db.prepare(`INSERT INTO longcall_watches (call, version, model, next_wake_at, done, record)
      VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT(call) DO UPDATE SET version = excluded.version, model = excluded.model,
        next_wake_at = excluded.next_wake_at, done = excluded.done, record = excluded.record
      WHERE excluded.version > longcall_watches.version`);
    this.del = this.db.prepare('DELETE FROM longcall_watches WHERE call = ?');
    this.all = this.db.prepare('SELECT record FROM longcall_watches ORDER BY call');
  }

  /** Every stored record's text. */
  load() {
    return this.all.all().map((r) => r.record);
  }

  /**
   * Writes records and deletes removed calls in one transaction.
   * @param {{call:number, version:number, model:string, next_wake_at:number|null, done:boolean, text:string}[]} saved
   * @param {number[]} removed
   */
  write(saved, removed) {
    if (!saved.length && !removed.length) return;
    this.db.exec('BEGIN IMMEDIATE');
    try {
      for (const call of removed) this.del.run(call);
      for (const s of saved) this.upsert.run(s.call, s.version, s.model, s.next_wake_at, s.done ? 1 : 0, s.text);
      this.db.exec('COMMIT');
    } catch (e) {
      this.db.exec('ROLLBACK');
      throw e;
    }
  }

  close() {
    this.db.close();
  }
}

/**
 * A watch list holding every call of the store, each resumed from its record (an ending is
 * reported again, a create without an answer reconciled, requests in flight counted as lost).
 * @param {{load(): string[]}} store
 * @param {number} now
 * @param {import('./index.js').WatchConfig} [config]
 */
export function openWatchList(store, now, config) {
  const list = new WatchList(config ?? null);
  for (const text of store.load()) list.resumeCall(now, text);
  return list;
}

/**
 * Drains `list` until nothing is left: records asked for are written (one transaction per round)
 * and confirmed, removed calls deleted, every other output handed to `onOutput` in order.
 * `onOutput` may feed the list (`handle`, `remove`, ...); what that queues is drained too.
 * @param {WatchList} list
 * @param {{write(saved: object[], removed: number[]): void}} store
 * @param {(out: import('./index.js').WatchOutput) => void} onOutput
 */
export function pump(list, store, onOutput) {
  for (;;) {
    const outs = list.drain();
    if (!outs.length) return;
    const persist = new Set();
    const removed = [];
    for (const o of outs) {
      if (o.type === 'persist') persist.add(o.call);
      else if (o.type === 'removed') {
        persist.delete(o.call);
        removed.push(o.call);
      } else onOutput(o);
    }
    // Read after onOutput ran: a record read now covers what it fed in as well.
    const saved = [];
    for (const call of persist) {
      try {
        saved.push(list.saveCall(call));
      } catch (e) {
        if (e?.code !== 'invalid_input') throw e; // removed meanwhile: its `removed` follows
      }
    }
    store.write(saved, removed);
    for (const s of saved) list.persisted(s.call, s.version);
  }
}
