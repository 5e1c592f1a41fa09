//! `longcall replay`: run scenario vectors through the tracker and show the first mismatch.

use std::fmt::Write;
use std::path::PathBuf;

use longcall::vector::{self, Report, Vector};
use serde_json::{json, Value};

enum Outcome {
    Ran(Box<Vector>, Report),
    Unusable(String),
}

fn run_one(path: &PathBuf) -> Outcome {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return Outcome::Unusable(format!("cannot read: {e}")),
    };
    let v = match vector::parse(&text) {
        Ok(v) => v,
        Err(e) => return Outcome::Unusable(format!("{}: {e}", e.code())),
    };
    match vector::run(&v) {
        Ok(r) => Outcome::Ran(Box::new(v), r),
        Err(e) => Outcome::Unusable(format!("{}: {e}", e.code())),
    }
}

/// (passed, total) over `paths`.
pub fn summary(paths: &[PathBuf]) -> (usize, usize) {
    let passed = paths
        .iter()
        .filter(|p| matches!(run_one(p), Outcome::Ran(_, ref r) if r.passed))
        .count();
    (passed, paths.len())
}

fn pretty(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// The first mismatching step, as a readable diff.
fn diff(v: &Vector, r: &Report) -> String {
    let mut s = String::new();
    if let Some(step) = r.steps.iter().find(|s| !s.ok) {
        let want = v.steps.get(step.index);
        let at = want.map_or(0, |w| w.at);
        let _ = writeln!(s, "    first mismatch: step {} (at {} ms)", step.index, at);
        if let Some(w) = want {
            if let Some(input) = &w.input {
                let _ = writeln!(
                    s,
                    "    input: {}",
                    serde_json::to_string(input).unwrap_or_default()
                );
            } else if w.timeout {
                let _ = writeln!(s, "    input: timeout");
            }
            if w.error != step.error {
                let _ = writeln!(
                    s,
                    "    error: expected {}, got {}",
                    w.error.as_deref().unwrap_or("none"),
                    step.error.as_deref().unwrap_or("none")
                );
            }
            let n = w.expect.len().max(step.outputs.len());
            for i in 0..n {
                match (w.expect.get(i), step.outputs.get(i)) {
                    (Some(a), Some(b)) if a == b => {
                        let _ = writeln!(s, "        {}", pretty(a));
                    }
                    (a, b) => {
                        if let Some(a) = a {
                            let _ = writeln!(s, "      - {}", pretty(a));
                        }
                        if let Some(b) = b {
                            let _ = writeln!(s, "      + {}", pretty(b));
                        }
                    }
                }
            }
            let _ = writeln!(s, "    (- expected, + got)");
        }
    } else if !r.record_ok {
        let _ = writeln!(s, "    run record mismatch");
        if let Some(want) = &v.record {
            for (k, val) in want {
                let got = r.record.get(k).cloned().unwrap_or(Value::Null);
                if &got != val {
                    let _ = writeln!(
                        s,
                        "      {k}: expected {}, got {}",
                        pretty(val),
                        pretty(&got)
                    );
                }
            }
        }
    }
    s
}

/// `longcall replay`: the exit code (1 on any failure or unusable vector).
pub fn run(paths: &[PathBuf], as_json: bool) -> u8 {
    let mut failed = 0;
    let mut out = String::new();
    let mut docs = Vec::new();
    for p in paths {
        let name = p.display().to_string();
        match run_one(p) {
            Outcome::Ran(v, r) => {
                if r.passed {
                    let _ = writeln!(out, "pass {name} ({})", r.name);
                } else {
                    failed += 1;
                    let _ = writeln!(out, "FAIL {name} ({})", r.name);
                    out.push_str(&diff(&v, &r));
                }
                let first = r.steps.iter().find(|s| !s.ok).map(|s| s.index);
                docs.push(json!({"file": name, "name": r.name, "passed": r.passed,
                    "first_mismatch": first, "record_ok": r.record_ok, "report": r}));
            }
            Outcome::Unusable(why) => {
                failed += 1;
                let _ = writeln!(out, "FAIL {name}: {why}");
                docs.push(json!({"file": name, "passed": false, "error": why}));
            }
        }
    }
    let _ = writeln!(
        out,
        "{} of {} vector(s) pass",
        paths.len() - failed,
        paths.len()
    );
    if as_json {
        let doc = json!({"passed": paths.len() - failed, "failed": failed, "vectors": docs});
        outln!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    } else {
        out!("{out}");
    }
    u8::from(failed > 0)
}
