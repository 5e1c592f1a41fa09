// `longcall/store`: the run records of a `WatchList` in a store, so that a restart, or another
// host process, continues from the last record instead of starting over. Node only.
//
// The core decides everything (what a record holds, when a call is due, what a restart may send:
// rules R-1..R-11 of `longcall::watch`); a store only loads, saves and leases. Two stores keep one
// contract (async, since PostgreSQL is):
//
//   sqliteStore(path)                       embedded default: Node's built-in `node:sqlite`
//                                           (Node 22.13+), one file, no server to start.
//   pgStore({ pool | connectionString })    a fleet of host processes on one PostgreSQL table
//                                           (npm `pg`, an optional peer dependency).
//
// A row is one watched call, keyed by the WatchList's call id (an integer):
// `{ call, version, model, nextWakeAt, done, text, owner, leaseUntil }`, where `text` is the
// core's record (`saveCall`), opaque to the store.
//
// * Writes only move forward: a record never overwrites one of the same or a later version.
// * Leases (for fleets; one host alone passes none): `claim({ owner, now, leaseMs, limit })`
//   leases to `owner` until `now + leaseMs` the calls that need a host and have none: unleased
//   calls that are due or done (a done call is reported again, R-3), and every call whose lease
//   ran out (its host died: what it had in flight is reconciled by the core, R-6). Two hosts
//   never hold one call while a lease is live (PostgreSQL: `FOR UPDATE SKIP LOCKED`; SQLite: one
//   write transaction).
// * `write(saved, removed, lease)` is fenced: with a lease it writes (or deletes) only calls
//   that `owner` holds with more than the core's margin left (`WatchList.leaseMarginMs`, a
//   quarter of the lease: R-10), and creates new calls leased to it; without one, only calls
//   nobody leases. The margin covers the write and the sends it releases, which must be done
//   before another host can claim the call, or two hosts' polls land closer than the floor. The
//   calls it refused come back: another host has them, or the margin is reached, so this one
//   must `unload` them. `pump` does that.
// * `renew(lease)` extends every lease of `owner` with more than the margin left; a lease in its
//   margin runs out (the holder no longer acts on it, R-10, so a call whose write was refused
//   there, and unloaded, is claimed again once it ends). `release(calls, owner)` gives leases
//   back. A host that dies stops renewing: its calls are claimed elsewhere once `leaseMs` passed.
//
// Time is passed in (ms), as everywhere in longcall: a store never reads a clock.
import { wasmBytes } from '../node-wasm.js';
import * as glue from '../dist/longcall_watch.js';
import { configAt } from '../config.js';
import { checkOptions } from '../options.js';
import { bind } from '../runtime.js';

// A module of its own (bindings/wasm feature `watch`): hosts that never keep a store do not load
// it. Bound as every entry point is (runtime.js: coded errors, `free()` idempotent, `freed` and
// `unbound`), with a call's tracker configuration read as everywhere else (config.js).
const state = bind(glue, {
  entry: 'longcall/store',
  file: 'longcall_watch_bg.wasm',
  prepare: { WatchList: { addNew: configAt(2), addHandle: configAt(4), adoptHandle: configAt(3) } },
});
state.initSync(wasmBytes(new URL('../dist/longcall_watch_bg.wasm', import.meta.url)));

export const { WatchList, readJobAnswer } = state.api;

/** An Error with a stable `code`, like the core's errors. */
export class StoreError extends Error {
  /** @param {string} code @param {string} message @param {unknown} [cause] */
  constructor(code, message, cause) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'StoreError';
    this.code = code;
  }
}

const storeError = (code, message) => new StoreError(code, message);

const TABLE = /^[a-z_][a-z0-9_]{0,62}$/;

function tableName(table) {
  if (!TABLE.test(table)) {
    throw new StoreError(
      'invalid_input',
      `table: expected a lowercase SQL identifier, got ${JSON.stringify(String(table).slice(0, 40))}`,
    );
  }
  return table;
}

function uint(value, field) {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new StoreError('invalid_input', `${field}: expected an integer from 0 to 2^53-1`);
  }
  return value;
}

function lease(l, { required }) {
  if (l === undefined || l === null) {
    if (required) throw new StoreError('invalid_input', 'lease: expected { owner, now, leaseMs }');
    return null;
  }
  if (typeof l.owner !== 'string' || l.owner.length === 0 || l.owner.length > 200) {
    throw new StoreError('invalid_input', 'lease.owner: expected a non-empty string of at most 200 characters');
  }
  return { owner: l.owner, now: uint(l.now, 'lease.now'), leaseMs: uint(l.leaseMs, 'lease.leaseMs') };
}

function savedCall(s) {
  if (s === null || typeof s !== 'object') throw new StoreError('invalid_input', 'saved: expected saveCall() results');
  if (typeof s.text !== 'string' || typeof s.model !== 'string') {
    throw new StoreError('invalid_input', 'saved: expected { call, version, model, nextWakeAt, done, text }');
  }
  return {
    call: uint(s.call, 'saved.call'),
    version: uint(s.version, 'saved.version'),
    model: s.model,
    nextWakeAt: s.nextWakeAt === null || s.nextWakeAt === undefined ? null : uint(s.nextWakeAt, 'saved.nextWakeAt'),
    done: s.done === true,
    text: s.text,
  };
}

function toRow(r) {
  return {
    call: Number(r.call),
    version: Number(r.version),
    model: r.model,
    nextWakeAt: r.next_wake_at === null ? null : Number(r.next_wake_at),
    done: Boolean(r.done),
    text: r.record,
    owner: r.lease_owner ?? null,
    leaseUntil: r.lease_until === null ? null : Number(r.lease_until),
  };
}

// The one fence, written once for both SQL dialects: `$owner` (null without a lease) may write
// a row it holds until after `$at` (now plus the margin, R-10), or, without a lease, a row
// nobody holds.
const FENCE = (owner, at) =>
  `((${owner} IS NULL AND lease_owner IS NULL) OR (lease_owner = ${owner} AND lease_until > ${at}))`;

/** What a fenced write needs: the fence time (now plus the core's margin, R-10) and the lease
 * end of the calls it creates. */
function fenced(l) {
  if (!l) return { owner: null, at: 0, until: null };
  return { owner: l.owner, at: l.now + WatchList.leaseMarginMs(l.leaseMs), until: l.now + l.leaseMs };
}
// What a claim takes: no live host and something to do, or a host that stopped renewing.
const CLAIMABLE = (now) =>
  `((lease_owner IS NULL AND (done OR (next_wake_at IS NOT NULL AND next_wake_at <= ${now})))
    OR (lease_owner IS NOT NULL AND lease_until <= ${now}))`;
// A host starting under an owner id it had before: the leases that id still holds belong to a
// process that is gone, so they end now, claimable by any host (this one first).
const ENDED = (t, owner, now) =>
  `UPDATE ${t} SET lease_until = ${now} WHERE lease_owner = ${owner} AND lease_until > ${now}`;

const CLAIM_OPTIONS = ['owner', 'now', 'leaseMs', 'limit', 'restart'];

// ---- SQLite ---------------------------------------------------------------------------------

/**
 * The embedded store: one SQLite file (WAL, synchronous FULL: a confirmed write survives a
 * power cut). Several processes may share the file; leases work as on PostgreSQL.
 * @param {string} path a file (`:memory:` only for tests that never restart)
 * @param {{ table?: string }} [options]
 */
export async function sqliteStore(path, options = {}) {
  // A path left out would open a file named "undefined" or fail as cannot_open.
  if (typeof path !== 'string' || path === '')
    throw new StoreError(
      'invalid_input',
      `sqliteStore: path must be the database file's path (or ':memory:'), got ${path === '' ? 'an empty string' : typeof path}`,
    );
  checkOptions(options, ['table'], 'sqliteStore', storeError);
  const t = tableName(options?.table ?? 'longcall_watches');
  let sqlite;
  try {
    sqlite = await import('node:sqlite');
  } catch (e) {
    throw new StoreError(
      'unsupported',
      `sqliteStore needs node:sqlite (Node 22.13 or later); this is Node ${process.versions.node}`,
      e,
    );
  }
  let db;
  try {
    db = new sqlite.DatabaseSync(path);
  } catch (e) {
    // SQLite's own message names no file ("unable to open database file").
    throw new StoreError('cannot_open', `sqliteStore cannot open ${JSON.stringify(String(path))}: ${e?.message}`, e);
  }
  try {
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;');
    db.exec(`CREATE TABLE IF NOT EXISTS ${t} (
      call INTEGER PRIMARY KEY,
      version INTEGER NOT NULL,
      model TEXT NOT NULL,
      next_wake_at INTEGER,
      done INTEGER NOT NULL,
      record TEXT NOT NULL,
      lease_owner TEXT,
      lease_until INTEGER
    ) STRICT`);
    db.exec(`CREATE INDEX IF NOT EXISTS ${t}_wake ON ${t} (next_wake_at)`);
  } catch (e) {
    db.close();
    // "file is not a database", a table of the same name made otherwise: the path is named.
    throw new StoreError('cannot_open', `sqliteStore cannot use ${JSON.stringify(String(path))}: ${e?.message}`, e);
  }
  const fence = FENCE('?1', '?2');
  const q = {
    insert: db.prepare(`INSERT INTO ${t} (call, version, model, next_wake_at, done, record, lease_owner, lease_until)
      VALUES (?3, ?4, ?5, ?6, ?7, ?8, ?1, ?9)
      ON CONFLICT (call) DO NOTHING`),
    update: db.prepare(`UPDATE ${t} SET version = ?4, model = ?5, next_wake_at = ?6, done = ?7, record = ?8
      WHERE call = ?3 AND version < ?4 AND ${fence}`),
    same: db.prepare(`SELECT 1 FROM ${t} WHERE call = ?3 AND record = ?4 AND ${fence}`),
    del: db.prepare(`DELETE FROM ${t} WHERE call = ?3 AND ${fence}`),
    gone: db.prepare(`SELECT 1 FROM ${t} WHERE call = ?`),
    due: db.prepare(`SELECT call FROM ${t} WHERE ${CLAIMABLE('?1')}
      ORDER BY coalesce(next_wake_at, 0), call LIMIT ?2`),
    lease: db.prepare(`UPDATE ${t} SET lease_owner = ?, lease_until = ? WHERE call = ? RETURNING *`),
    renew: db.prepare(`UPDATE ${t} SET lease_until = ? WHERE lease_owner = ? AND lease_until > ?`),
    release: db.prepare(`UPDATE ${t} SET lease_owner = NULL, lease_until = NULL WHERE call = ? AND lease_owner = ?`),
    ended: db.prepare(ENDED(t, '?1', '?2')),
    all: db.prepare(`SELECT * FROM ${t} ORDER BY call`),
    one: db.prepare(`SELECT * FROM ${t} WHERE call = ?`),
  };
  let closed = false;
  const tx = (fn) => {
    open();
    db.exec('BEGIN IMMEDIATE');
    try {
      const r = fn();
      db.exec('COMMIT');
      return r;
    } catch (e) {
      db.exec('ROLLBACK');
      throw e;
    }
  };
  const open = () => {
    if (closed) throw new StoreError('closed', 'sqliteStore: the store is closed');
  };
  const all = async () => {
    open();
    return q.all.all().map(toRow);
  };
  return {
    kind: 'sqlite',
    load: all,
    list: all,
    async get(call) {
      const c = uint(call, 'call');
      open();
      const row = q.one.get(c);
      return row ? toRow(row) : null;
    },
    async claim(options) {
      const l = lease(options, { required: true });
      checkOptions(options, CLAIM_OPTIONS, 'claim', storeError);
      const limit = uint(options.limit ?? 100, 'limit');
      return tx(() => {
        if (options.restart) q.ended.run(l.owner, l.now);
        return q.due.all(l.now, limit).map((r) => toRow(q.lease.get(l.owner, l.now + l.leaseMs, r.call)));
      });
    },
    async write(saved, removed = [], options = undefined) {
      const rows = saved.map(savedCall);
      const gone = removed.map((c) => uint(c, 'removed'));
      const { owner, at, until } = fenced(lease(options, { required: false }));
      return tx(() => {
        const refused = [];
        for (const c of gone) {
          if (q.del.run(owner, at, c).changes === 0 && q.gone.get(c)) refused.push(c);
        }
        for (const s of rows) {
          const args = [owner, at, s.call, s.version, s.model, s.nextWakeAt, s.done ? 1 : 0, s.text];
          if (q.insert.run(...args, until).changes === 1) continue;
          // Not written: the same record is already there (fine), or another host holds the
          // call or wrote it since this host last read it (refused: this host's state is stale).
          if (q.update.run(...args).changes === 0 && !q.same.get(owner, at, s.call, s.text)) refused.push(s.call);
        }
        return refused;
      });
    },
    async renew(options) {
      const l = lease(options, { required: true });
      open();
      return Number(q.renew.run(l.now + l.leaseMs, l.owner, fenced(l).at).changes);
    },
    async release(calls, owner) {
      return tx(() => calls.reduce((n, c) => n + Number(q.release.run(uint(c, 'call'), owner).changes), 0));
    },
    async close() {
      if (!closed) db.close();
      closed = true;
    },
  };
}

// ---- PostgreSQL -----------------------------------------------------------------------------

/**
 * The fleet store: every host process opens one on the same PostgreSQL database.
 * @param {{ pool?: import('pg').Pool, connectionString?: string, table?: string }} options
 *   your own `pg.Pool`, or a connection string (then the store owns and closes its pool)
 */
export async function pgStore(options = {}) {
  checkOptions(options, ['pool', 'connectionString', 'table'], 'pgStore', storeError);
  let { pool, connectionString, table = 'longcall_watches' } = options ?? {};
  const t = tableName(table);
  let owned = false;
  if (!pool) {
    if (!connectionString)
      throw new StoreError(
        'invalid_input',
        `pgStore: pass { pool } or { connectionString } (connectionString is ${connectionString === '' ? 'empty' : String(connectionString)})`,
      );
    let pg;
    try {
      pg = (await import('pg')).default;
    } catch (e) {
      throw new StoreError('unsupported', 'pgStore needs the npm package `pg` (npm install pg)', e);
    }
    pool = new pg.Pool({ connectionString, max: 4 });
    // An idle connection the server closes (a restart, a failover) must not crash the host:
    // the next query opens a new one.
    pool.on('error', () => {});
    owned = true;
  }
  // Several hosts may start at once: the DDL runs under an advisory lock so they do not race.
  let client;
  try {
    client = await pool.connect();
  } catch (e) {
    if (owned) await pool.end().catch(() => {});
    throw new StoreError('cannot_open', `pgStore cannot connect: ${e?.message}`, e);
  }
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [t]);
    await client.query(`CREATE TABLE IF NOT EXISTS ${t} (
      call bigint PRIMARY KEY,
      version bigint NOT NULL,
      model text NOT NULL,
      next_wake_at bigint,
      done boolean NOT NULL,
      record text NOT NULL,
      lease_owner text,
      lease_until bigint
    )`);
    await client.query(`CREATE INDEX IF NOT EXISTS ${t}_wake ON ${t} (next_wake_at)`);
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [t]).catch(() => {});
    client.release();
  }
  const fence = FENCE('$1::text', '$2::bigint');
  let closed = false;
  // pg's own error after `end()` names no store: said as the SQLite store says it.
  const open = () => {
    if (closed) throw new StoreError('closed', 'pgStore: the store is closed');
  };
  const all = async () => {
    open();
    return (await pool.query(`SELECT * FROM ${t} ORDER BY call`)).rows.map(toRow);
  };

  return {
    kind: 'postgres',
    load: all,
    list: all,
    async get(call) {
      const c = uint(call, 'call');
      open();
      const { rows } = await pool.query(`SELECT * FROM ${t} WHERE call = $1`, [c]);
      return rows.length ? toRow(rows[0]) : null;
    },
    async claim(options) {
      const l = lease(options, { required: true });
      checkOptions(options, CLAIM_OPTIONS, 'claim', storeError);
      open();
      if (options.restart) await pool.query(ENDED(t, '$1', '$2::bigint'), [l.owner, l.now]);
      const { rows } = await pool.query(
        `WITH due AS (
           SELECT call FROM ${t} WHERE ${CLAIMABLE('$2::bigint')}
           ORDER BY coalesce(next_wake_at, 0), call LIMIT $4
           FOR UPDATE SKIP LOCKED)
         UPDATE ${t} w SET lease_owner = $1, lease_until = $2::bigint + $3::bigint
         FROM due WHERE w.call = due.call RETURNING w.*`,
        [l.owner, l.now, l.leaseMs, uint(options.limit ?? 100, 'limit')],
      );
      return rows.map(toRow).sort((a, b) => (a.nextWakeAt ?? 0) - (b.nextWakeAt ?? 0) || a.call - b.call);
    },
    async write(saved, removed = [], options = undefined) {
      const rows = saved.map(savedCall);
      const gone = removed.map((c) => uint(c, 'removed'));
      const { owner, at, until } = fenced(lease(options, { required: false }));
      open();
      if (!rows.length && !gone.length) return [];
      // Rows are locked in ascending call order, as `renew` locks them: two transactions that
      // lock in one order cannot deadlock (`claim` skips locked rows and never waits).
      rows.sort((a, b) => a.call - b.call);
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        await c.query(`SELECT 1 FROM ${t} WHERE call = ANY($1::bigint[]) ORDER BY call FOR UPDATE`, [
          [...rows.map((r) => r.call), ...gone],
        ]);
        const refused = [];
        if (gone.length) {
          // Deleted, or already gone: fine. Still there: another host holds it.
          const { rows: left } = await c.query(
            `WITH d AS (DELETE FROM ${t} WHERE call = ANY($3::bigint[]) AND ${fence} RETURNING call)
             SELECT call FROM ${t} WHERE call = ANY($3::bigint[]) AND call NOT IN (SELECT call FROM d)`,
            [owner, at, gone],
          );
          for (const r of left) refused.push(Number(r.call));
        }
        if (rows.length) {
          // One statement for the round: insert new calls (leased to the writer), move known
          // ones forward where the writer holds them; report the calls it may not touch or
          // whose stored record is not this one and not older (written by another host since).
          const { rows: bad } = await c.query(
            `WITH v AS (
               SELECT * FROM unnest($3::bigint[], $4::bigint[], $5::text[], $6::bigint[], $7::boolean[], $8::text[])
                 AS v(call, version, model, next_wake_at, done, record)),
             up AS (
               INSERT INTO ${t} AS w (call, version, model, next_wake_at, done, record, lease_owner, lease_until)
               SELECT v.*, $1::text, $9::bigint FROM v
               ON CONFLICT (call) DO UPDATE SET version = EXCLUDED.version, model = EXCLUDED.model,
                 next_wake_at = EXCLUDED.next_wake_at, done = EXCLUDED.done, record = EXCLUDED.record
               WHERE w.version < EXCLUDED.version AND (($1::text IS NULL AND w.lease_owner IS NULL)
                 OR (w.lease_owner = $1::text AND w.lease_until > $2::bigint))
               RETURNING w.call)
             SELECT v.call FROM v WHERE v.call NOT IN (SELECT call FROM up)
               AND NOT EXISTS (SELECT 1 FROM ${t} w WHERE w.call = v.call AND w.record = v.record
                 AND ${fence.replaceAll('lease_', 'w.lease_')})`,
            [
              owner,
              at,
              rows.map((s) => s.call),
              rows.map((s) => s.version),
              rows.map((s) => s.model),
              rows.map((s) => s.nextWakeAt),
              rows.map((s) => s.done),
              rows.map((s) => s.text),
              until,
            ],
          );
          for (const r of bad) refused.push(Number(r.call));
        }
        await c.query('COMMIT');
        return refused;
      } catch (e) {
        await c.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        c.release();
      }
    },
    async renew(options) {
      const l = lease(options, { required: true });
      open();
      const { rowCount } = await pool.query(
        `UPDATE ${t} SET lease_until = $2::bigint + $3::bigint WHERE call IN (
           SELECT call FROM ${t} WHERE lease_owner = $1 AND lease_until > $4 ORDER BY call FOR UPDATE)`,
        [l.owner, l.now, l.leaseMs, fenced(l).at],
      );
      return rowCount;
    },
    async release(calls, owner) {
      open();
      const { rowCount } = await pool.query(
        `UPDATE ${t} SET lease_owner = NULL, lease_until = NULL WHERE call IN (
           SELECT call FROM ${t} WHERE call = ANY($1::bigint[]) AND lease_owner = $2 ORDER BY call FOR UPDATE)`,
        [calls.map((c) => uint(c, 'call')), owner],
      );
      return rowCount;
    },
    async close() {
      if (owned && !closed) await pool.end();
      closed = true;
    },
  };
}

// ---- the watch list on a store --------------------------------------------------------------

// Per list, the record version of each call last confirmed written to (or read from) the store.
// Versions only move forward and a host writes before it acts, so a stored version equal
// to it means no other host acted on the call since.
const written = new WeakMap();
function writtenOf(list) {
  let m = written.get(list);
  if (!m) {
    m = new Map();
    written.set(list, m);
  }
  return m;
}

/**
 * A watch list holding the store's calls, each resumed from its record (an ending is reported
 * again, a create without an answer reconciled, requests in flight counted as lost).
 * Without `lease`, every stored call (one host alone); with it, the calls `claim` gives
 * this host (a fleet; call `claimInto` again later for more).
 * @param {{load(): Promise<{text:string}[]>, claim(l: object): Promise<{text:string}[]>}} store
 * @param {number} now
 * @param {{ config?: object, lease?: { owner: string, leaseMs: number, limit?: number } }} [options]
 */
export async function openWatchList(store, now, options = {}) {
  checkOptions(options, ['config', 'lease'], 'openWatchList', storeError, {
    owner: 'inside lease: { lease: { owner, leaseMs } }',
    leaseMs: 'inside lease: { lease: { owner, leaseMs } }',
  });
  uint(now, 'now');
  const { config, lease: l } = options ?? {};
  if (l != null) checkOptions(l, ['owner', 'leaseMs', 'limit'], 'openWatchList: lease', storeError);
  const list = new WatchList(config ?? null);
  // A host restarted under its old owner id takes back at once what that id still held.
  if (l) await claimInto(list, store, { ...l, now, restart: true });
  else {
    for (const row of await store.load()) {
      list.resumeCall(now, row.text);
      writtenOf(list).set(row.call, row.version);
    }
  }
  return list;
}

/**
 * Claims calls that need a host and resumes them in `list`; resolves to the ids claimed. A call the
 * list already holds (this host stalled past its lease and got it back) is kept when the stored
 * record is the one this host last wrote (nobody acted on it since: what this host has not
 * written yet is still its own); otherwise another host moved it on meanwhile, and it is unloaded
 * and resumed from the stored record (what this host had not written counts as lost, R-6).
 * @param {WatchList} list
 * @param {{claim(l: object): Promise<{call:number, text:string}[]>}} store
 * @param {{ owner: string, now: number, leaseMs: number, limit?: number }} lease
 */
export async function claimInto(list, store, lease) {
  const got = [];
  const versions = writtenOf(list);
  for (const row of await store.claim(lease)) {
    try {
      list.resumeCall(lease.now, row.text);
    } catch (e) {
      if (e?.code !== 'duplicate') throw e;
      if (versions.get(row.call) !== row.version) {
        list.unload(row.call);
        list.resumeCall(lease.now, row.text);
      }
    }
    versions.set(row.call, row.version);
    got.push(row.call);
  }
  return got;
}

const pumping = new WeakMap();

/**
 * Drains `list` until nothing is left: records asked for are written (one transaction per
 * round) and confirmed, removed calls deleted, every other output handed to `onOutput` in
 * order, already safe to act on. `onOutput` may feed the list; what that queues is drained too.
 * With `lease`, writes are fenced: a call another host holds now, or whose lease has less than
 * the margin left, is unloaded from `list` and its id is in the resolved array,
 * never confirmed. Pass `lease` as a function to have its `now` read at every round: a pump
 * of several rounds must not fence its later writes with the time of the first, and a write
 * that took the margin or longer (a slow database, a stalled process) is not confirmed, since
 * the lease may have passed on meanwhile: its calls are written again in the next round, with
 * a fresh fence, before anything they released is acted on.
 *
 * Calls made while a pump of the same list runs join it (one pump per list at a time, so
 * records are confirmed in the order written). An `onOutput` that throws loses nothing: the
 * round's other outputs are still handed to it and its records written, then the pump rejects
 * with the first error; what the list still holds waits for the next pump.
 * @param {WatchList} list
 * @param {{write(saved: object[], removed: number[], lease?: object): Promise<number[]>}} store
 * @param {(out: object) => void} onOutput
 * @param {{ owner: string, now: number, leaseMs: number } | (() => { owner: string, now: number, leaseMs: number })} [lease]
 * @returns {Promise<number[]>} the calls unloaded because another host holds them
 */
export function pump(list, store, onOutput, lease) {
  const running = pumping.get(list);
  if (running) return running;
  const run = (async () => {
    const lost = [];
    // Started on the next microtask, so the pump is registered before it can finish.
    await null;
    // Calls whose last write came back too late to act on: written again.
    let again = [];
    try {
      for (;;) {
        const outs = list.drain();
        if (!outs.length && !again.length) return lost;
        const persist = new Set(again);
        again = [];
        const removed = [];
        // The outputs are out of the list now: one that onOutput throws on must not take the
        // rest with it (a `create` lost here is a submit never sent), nor the round's writes.
        let thrown = null;
        for (const o of outs) {
          if (o.type === 'persist') persist.add(o.call);
          else if (o.type === 'removed') {
            persist.delete(o.call);
            removed.push(o.call);
          } else {
            try {
              onOutput(o);
            } catch (e) {
              thrown ??= { e };
            }
          }
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
        const fence = typeof lease === 'function' ? lease() : lease;
        const refused = new Set(await store.write(saved, removed, fence));
        const late =
          typeof lease === 'function' && fence && lease().now - fence.now >= WatchList.leaseMarginMs(fence.leaseMs);
        const versions = writtenOf(list);
        for (const call of removed) versions.delete(call);
        for (const call of refused) {
          list.unload(call);
          versions.delete(call);
          lost.push(call);
        }
        for (const s of saved) {
          if (refused.has(s.call)) continue;
          versions.set(s.call, s.version);
          if (late) {
            again.push(s.call);
            continue;
          }
          try {
            list.persisted(s.call, s.version);
          } catch (e) {
            if (e?.code !== 'invalid_input') throw e; // removed or unloaded while written
          }
        }
        // Every output of the round handed over and its records written: now the first throw.
        if (thrown) throw thrown.e;
      }
    } finally {
      pumping.delete(list);
    }
  })();
  pumping.set(list, run);
  return run;
}
