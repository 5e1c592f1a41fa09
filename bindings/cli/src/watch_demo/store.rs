//! The run-record store of the watch demo: one SQLite file, embedded (rusqlite, SQLite compiled
//! in), so nothing is installed or started. It only loads, saves and deletes what the watch list
//! says; the order (which record, when) is the core's (rules R-1..R-7 of `longcall::watch`).

use std::path::Path;

use longcall::watch::{CallId, SavedCall};
use rusqlite::{params, Connection, OptionalExtension};

/// The records of one host, in one SQLite file.
pub struct Store {
    conn: Connection,
    /// Record writes (upserts) committed.
    pub writes: u64,
    /// Transactions committed (each drain round writes its records in one).
    pub commits: u64,
}

const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS watch_record (
        call         INTEGER PRIMARY KEY,
        version      INTEGER NOT NULL,
        model        TEXT    NOT NULL,
        next_wake_at INTEGER,
        done         INTEGER NOT NULL,
        record       TEXT    NOT NULL
    );
    CREATE TABLE IF NOT EXISTS call_outcome (
        call        INTEGER PRIMARY KEY,
        outcome     TEXT    NOT NULL,
        status      TEXT,
        reported_at INTEGER NOT NULL
    );";

/// SQLite integers are signed: a call id, version or time above `i64::MAX` is refused, never
/// wrapped.
fn int(v: u64) -> rusqlite::Result<i64> {
    i64::try_from(v).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
}

impl Store {
    /// Opens (creating if needed) the file at `path`.
    ///
    /// WAL with `synchronous = NORMAL`: a committed transaction survives the process dying at any
    /// point (what the demo's crash is); only a power cut may lose the last few commits.
    pub fn open(path: &Path) -> rusqlite::Result<Store> {
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.execute_batch(SCHEMA)?;
        Ok(Store {
            conn,
            writes: 0,
            commits: 0,
        })
    }

    /// How many run records and reported outcomes the file holds.
    pub fn counts(&self) -> rusqlite::Result<(u64, u64)> {
        let count = |table: &str| -> rusqlite::Result<u64> {
            let n: i64 =
                self.conn
                    .query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))?;
            Ok(n.unsigned_abs())
        };
        Ok((count("watch_record")?, count("call_outcome")?))
    }

    /// Writes `saved` and deletes `removed` in one transaction. A record is never replaced by an
    /// older version of itself.
    pub fn write(&mut self, saved: &[SavedCall], removed: &[CallId]) -> rusqlite::Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut upsert = tx.prepare_cached(
                "INSERT INTO watch_record (call, version, model, next_wake_at, done, record)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (call) DO UPDATE SET
                     version = excluded.version, model = excluded.model,
                     next_wake_at = excluded.next_wake_at, done = excluded.done,
                     record = excluded.record
                 WHERE excluded.version > watch_record.version",
            )?;
            for s in saved {
                let wake = s.next_wake_at.map(int).transpose()?;
                upsert.execute(params![
                    int(s.call.0)?,
                    int(s.version)?,
                    s.model.as_str(),
                    wake,
                    s.done,
                    s.text
                ])?;
            }
            let mut delete = tx.prepare_cached("DELETE FROM watch_record WHERE call = ?1")?;
            for call in removed {
                delete.execute(params![int(call.0)?])?;
            }
        }
        tx.commit()?;
        self.writes += saved.len() as u64;
        self.commits += 1;
        Ok(())
    }

    /// Every stored record, by call.
    pub fn records(&self) -> rusqlite::Result<Vec<String>> {
        let mut q = self
            .conn
            .prepare("SELECT record FROM watch_record ORDER BY call")?;
        let rows = q.query_map([], |r| r.get(0))?;
        rows.collect()
    }

    /// Records that `call` was reported settled. False when it already was: the call id makes
    /// an at-least-once report exactly once.
    pub fn report(
        &self,
        call: CallId,
        outcome: &str,
        status: Option<&str>,
        now: u64,
    ) -> rusqlite::Result<bool> {
        let n = self.conn.execute(
            "INSERT INTO call_outcome (call, outcome, status, reported_at) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (call) DO NOTHING",
            params![int(call.0)?, outcome, status, int(now)?],
        )?;
        Ok(n == 1)
    }

    /// The outcome reported for `call`, if any.
    pub fn outcome(&self, call: CallId) -> rusqlite::Result<Option<String>> {
        self.conn
            .query_row(
                "SELECT outcome FROM call_outcome WHERE call = ?1",
                params![int(call.0)?],
                |r| r.get(0),
            )
            .optional()
    }
}
