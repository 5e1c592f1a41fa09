// longcall/store: where a Node host keeps its run records, so that a restart, or another host
// process, continues from the last record instead of starting over.
//
// The core decides everything (what a record holds, when a call is due, what a restart may send);
// a store only loads, saves and leases. Two implementations share one contract:
//
//   sqliteStore(path)   embedded, no server: Node's built-in `node:sqlite` (Node 22.13+).
//   pgStore({ pool })   a fleet of host processes on one PostgreSQL table (npm `pg`).
//
// A row is one watched call: `{ call, record, dueAt, done, version, owner, leaseUntil }`.
// `record` is the core's snapshot (JSON); `dueAt` the core's next wake in ms (null when nothing
// is due: settled, or waiting on the user); `version` grows by one on every write.
//
// Leases (for fleets; a single process can ignore them):
// * `claimDue({ owner, now, leaseMs, limit })` leases up to `limit` due calls that nobody holds
//   (or whose lease ran out) to `owner` until `now + leaseMs`, earliest due first. Two hosts
//   never get the same call while a lease is live (PostgreSQL: `FOR UPDATE SKIP LOCKED`;
//   SQLite: one write transaction).
// * `put(call, row, { owner, now })` is fenced: with an `owner`, it writes only while that
//   owner holds a live lease, so a host that stalled past its lease cannot overwrite the record
//   of the host that took the call over. It returns `false` then, and the stalled host must drop
//   the call. Without an owner, it writes only a call that nobody leases.
// * `renew({ owner, now, leaseMs })` extends every live lease of `owner`; `release(call, owner)`
//   gives one back. A host that dies simply stops renewing: its calls are claimable once
//   `leaseMs` has passed.
//
// Time is passed in (ms), as everywhere in longcall: the store never reads a clock.

/** An Error with a stable `code`, like the core's errors. */
export class StoreError extends Error {
  /** @param {string} code @param {string} message @param {unknown} [cause] */
  constructor(code, message, cause) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'StoreError';
    this.code = code;
  }
}

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

function callId(call) {
  if (typeof call !== 'string' || call.length === 0 || call.length > 512) {
    throw new StoreError('invalid_input', 'call: expected a non-empty string of at most 512 characters');
  }
  return call;
}

function ms(value, field, { nullable = false } = {}) {
  if (nullable && (value === null || value === undefined)) return null;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new StoreError('invalid_input', `${field}: expected an integer number of milliseconds from 0 to 2^53-1`);
  }
  return value;
}

function rowFields(row) {
  if (row === null || typeof row !== 'object') throw new StoreError('invalid_input', 'row: expected an object');
  for (const key of Object.keys(row)) {
    if (!['record', 'dueAt', 'done'].includes(key)) {
      throw new StoreError(
        'invalid_input',
        `row: unknown key ${JSON.stringify(key.slice(0, 40))} (expected record, dueAt, done)`,
      );
    }
  }
  if (row.record === undefined) throw new StoreError('invalid_input', "row.record: required (the core's snapshot)");
  return {
    record: JSON.stringify(row.record),
    dueAt: ms(row.dueAt, 'row.dueAt', { nullable: true }),
    done: row.done === true,
  };
}

function toRow(r) {
  return {
    call: r.call,
    record: typeof r.record === 'string' ? JSON.parse(r.record) : r.record,
    dueAt: r.due_at === null ? null : Number(r.due_at),
    done: Boolean(r.done),
    version: Number(r.version),
    owner: r.lease_owner ?? null,
    leaseUntil: r.lease_until === null ? null : Number(r.lease_until),
  };
}

// ---- SQLite ---------------------------------------------------------------------------------

/**
 * The embedded store: one SQLite file (WAL mode), no server to start. Several processes may
 * share the file; leases work the same as on PostgreSQL.
 * @param {string} path a file path, or ':memory:'
 * @param {{ table?: string }} [options]
 */
export async function sqliteStore(path, { table = 'longcall_watches' } = {}) {
  const t = tableName(table);
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
  const db = new sqlite.DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;');
  db.exec(`CREATE TABLE IF NOT EXISTS ${t} (
    call TEXT PRIMARY KEY,
    record TEXT NOT NULL,
    due_at INTEGER,
    done INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 1,
    lease_owner TEXT,
    lease_until INTEGER
  ) STRICT`);
  db.exec(`CREATE INDEX IF NOT EXISTS ${t}_due ON ${t} (due_at) WHERE done = 0`);

  const q = {
    get: db.prepare(`SELECT * FROM ${t} WHERE call = ?`),
    insert:
      db.prepare(`INSERT INTO ${t} (call, record, due_at, done, lease_owner, lease_until) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (call) DO NOTHING`),
    update: db.prepare(`UPDATE ${t} SET record = ?, due_at = ?, done = ?, version = version + 1
      WHERE call = ? AND ((? IS NULL AND lease_owner IS NULL) OR (lease_owner = ? AND lease_until > ?))`),
    due: db.prepare(`SELECT call FROM ${t} WHERE done = 0 AND due_at IS NOT NULL AND due_at <= ?
      AND (lease_owner IS NULL OR lease_until <= ?) ORDER BY due_at, call LIMIT ?`),
    lease: db.prepare(`UPDATE ${t} SET lease_owner = ?, lease_until = ? WHERE call = ? RETURNING *`),
    renew: db.prepare(`UPDATE ${t} SET lease_until = ? WHERE lease_owner = ? AND lease_until > ?`),
    release: db.prepare(`UPDATE ${t} SET lease_owner = NULL, lease_until = NULL WHERE call = ? AND lease_owner = ?`),
    all: db.prepare(`SELECT * FROM ${t} ORDER BY call`),
  };
  const tx = (fn) => {
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

  return {
    kind: 'sqlite',
    async get(call) {
      const r = q.get.get(callId(call));
      return r ? toRow(r) : null;
    },
    async put(call, row, { owner = null, now = 0, leaseMs = 0 } = {}) {
      const c = callId(call);
      const f = rowFields(row);
      ms(now, 'now');
      return tx(() => {
        const inserted = q.insert.run(
          c,
          f.record,
          f.dueAt,
          f.done ? 1 : 0,
          owner,
          owner === null ? null : now + ms(leaseMs, 'leaseMs'),
        );
        if (inserted.changes === 1) return true;
        return q.update.run(f.record, f.dueAt, f.done ? 1 : 0, c, owner, owner, now).changes === 1;
      });
    },
    async claimDue({ owner, now, leaseMs, limit = 100 }) {
      if (typeof owner !== 'string' || owner.length === 0)
        throw new StoreError('invalid_input', 'owner: expected a non-empty string');
      ms(now, 'now');
      ms(leaseMs, 'leaseMs');
      return tx(() => {
        const calls = q.due.all(now, now, ms(limit, 'limit')).map((r) => r.call);
        return calls.map((c) => toRow(q.lease.get(owner, now + leaseMs, c)));
      });
    },
    async renew({ owner, now, leaseMs }) {
      return Number(q.renew.run(ms(now, 'now') + ms(leaseMs, 'leaseMs'), owner, now).changes);
    },
    async release(call, owner) {
      return q.release.run(callId(call), owner).changes === 1;
    },
    async list() {
      return q.all.all().map(toRow);
    },
    async close() {
      db.close();
    },
  };
}

// ---- PostgreSQL -----------------------------------------------------------------------------

/**
 * The fleet store: every host process opens one on the same PostgreSQL database.
 * @param {{ pool?: import('pg').Pool, connectionString?: string, table?: string }} options
 *   pass your own `pg.Pool`, or a connection string (then the store owns and closes the pool)
 */
export async function pgStore({ pool, connectionString, table = 'longcall_watches' } = {}) {
  const t = tableName(table);
  let owned = false;
  if (!pool) {
    if (!connectionString) throw new StoreError('invalid_input', 'pgStore: pass { pool } or { connectionString }');
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
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [t]);
    await client.query(`CREATE TABLE IF NOT EXISTS ${t} (
      call text PRIMARY KEY,
      record jsonb NOT NULL,
      due_at bigint,
      done boolean NOT NULL DEFAULT false,
      version bigint NOT NULL DEFAULT 1,
      lease_owner text,
      lease_until bigint
    )`);
    await client.query(`CREATE INDEX IF NOT EXISTS ${t}_due ON ${t} (due_at) WHERE NOT done`);
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [t]).catch(() => {});
    client.release();
  }

  return {
    kind: 'postgres',
    async get(call) {
      const { rows } = await pool.query(`SELECT * FROM ${t} WHERE call = $1`, [callId(call)]);
      return rows[0] ? toRow(rows[0]) : null;
    },
    async put(call, row, { owner = null, now = 0, leaseMs = 0 } = {}) {
      const f = rowFields(row);
      const { rowCount } = await pool.query(
        `INSERT INTO ${t} AS w (call, record, due_at, done, lease_owner, lease_until)
         VALUES ($1, $2, $3, $4, $5, CASE WHEN $5::text IS NULL THEN NULL ELSE $6::bigint + $7::bigint END)
         ON CONFLICT (call) DO UPDATE SET record = EXCLUDED.record, due_at = EXCLUDED.due_at,
           done = EXCLUDED.done, version = w.version + 1
         WHERE ($5::text IS NULL AND w.lease_owner IS NULL) OR (w.lease_owner = $5 AND w.lease_until > $6::bigint)`,
        [callId(call), f.record, f.dueAt, f.done, owner, ms(now, 'now'), ms(leaseMs, 'leaseMs')],
      );
      return rowCount === 1;
    },
    async claimDue({ owner, now, leaseMs, limit = 100 }) {
      if (typeof owner !== 'string' || owner.length === 0)
        throw new StoreError('invalid_input', 'owner: expected a non-empty string');
      const { rows } = await pool.query(
        `WITH due AS (
           SELECT call FROM ${t}
           WHERE NOT done AND due_at IS NOT NULL AND due_at <= $2
             AND (lease_owner IS NULL OR lease_until <= $2)
           ORDER BY due_at, call LIMIT $4
           FOR UPDATE SKIP LOCKED)
         UPDATE ${t} w SET lease_owner = $1, lease_until = $2::bigint + $3::bigint
         FROM due WHERE w.call = due.call RETURNING w.*`,
        [owner, ms(now, 'now'), ms(leaseMs, 'leaseMs'), ms(limit, 'limit')],
      );
      return rows.map(toRow).sort((a, b) => a.dueAt - b.dueAt || (a.call < b.call ? -1 : 1));
    },
    async renew({ owner, now, leaseMs }) {
      const { rowCount } = await pool.query(
        `UPDATE ${t} SET lease_until = $2::bigint + $3::bigint WHERE lease_owner = $1 AND lease_until > $2`,
        [owner, ms(now, 'now'), ms(leaseMs, 'leaseMs')],
      );
      return rowCount;
    },
    async release(call, owner) {
      const { rowCount } = await pool.query(
        `UPDATE ${t} SET lease_owner = NULL, lease_until = NULL WHERE call = $1 AND lease_owner = $2`,
        [callId(call), owner],
      );
      return rowCount === 1;
    },
    async list() {
      const { rows } = await pool.query(`SELECT * FROM ${t} ORDER BY call`);
      return rows.map(toRow);
    },
    async close() {
      if (owned) await pool.end();
    },
  };
}
