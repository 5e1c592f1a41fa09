//! `longcall`: the command line of the longcall core, for people debugging misbehaving servers
//! and for CI.
//!
//! * `longcall check FILE...`: lint MCP task transcripts and job logs (exit 0 clean, 1 violations,
//!   2 unreadable input).
//! * `longcall replay VECTOR...`: run scenario vectors.
//! * `longcall plan ...`: print a poll schedule or a `jobs_wait` batch plan.
//! * `longcall serve-jobs`: run the reference Sume Open API job server on 127.0.0.1.
//! * `longcall probe URL`: fuzz a live MCP task server (or, with `--jobs`, a job API); the core
//!   judges every run.
//! * `longcall watch-demo`: a host watching many calls on a SQLite store dies part-way and
//!   resumes every call from its record (reference servers in-process, simulated clock).
//! * `longcall diagram`: print the mermaid state diagrams generated from the transition tables.
//! * `longcall` alone: check the bundled transcripts, replay the bundled vectors and run the watch
//!   demo on a temporary SQLite file.

/// `println!` that ignores a closed stdout.
macro_rules! outln {
    () => { $crate::emit("\n") };
    ($($t:tt)*) => { $crate::emit(&format!("{}\n", format_args!($($t)*))) };
}

/// `print!` that ignores a closed stdout.
macro_rules! out {
    ($($t:tt)*) => { $crate::emit(&format!($($t)*)) };
}

mod check;
mod diagram;
mod plan;
mod probe;
mod replay;
mod serve;
mod watch_demo;

/// Prints to stdout, ignoring a closed pipe (`longcall check | head` must not panic).
pub fn emit(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use longcall::Model;

#[derive(Parser)]
#[command(
    name = "longcall",
    version,
    about = "Lifecycle rules for MCP tasks and paid jobs: lint transcripts, replay vectors, plan polls.",
    long_about = "Lifecycle rules for MCP tasks (2026-07-28 extension, 2025-11-25 experimental) and \
                  Sume-style paid jobs.\n\nWith no subcommand: check the bundled transcripts, \
                  replay the bundled vectors and run the watch demo, then print a summary.",
    // The reference MCP tasks server lives in the npm package, not here: say where.
    after_help = "The reference MCP tasks server is the npm package's: \
                  node node_modules/longcall/examples/mcp-tasks-server.mjs --port 3000 where the package is \
                  installed, pkg/examples/mcp-tasks-server.mjs in a longcall checkout (without --port it \
                  takes a free port and prints its URL; add --serve-2025 for the 2025-11-25 wire the MCP \
                  SDK clients speak)."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Lint MCP wire transcripts and job logs (JSON Lines) against the lifecycle rules.
    ///
    /// MUST violations fail (exit 1), SHOULD violations warn. Exit 2: a file is missing, is not
    /// JSON Lines, or has a line without `dir` ("c2s"/"s2c") or `t_ms`.
    ///
    /// An MCP transcript line: {"seq", "t_ms", "dir", "http"?: {"mcpMethod", "mcpName",
    /// "mcpProtocolVersion"}, "msg": JSON-RPC message}. A job log line: {"t_ms", "dir",
    /// "http": {"method", "path"} on requests, {"status", "retry_after"?} on answers, "body"}.
    /// `longcall serve-jobs --log FILE` writes job logs; bindings/cli/README.md has examples.
    Check {
        /// Transcript or job-log files (`*.jsonl`); directories are searched for `*.jsonl`.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Treat SHOULD-level warnings as failures.
        #[arg(long)]
        strict: bool,
        /// One JSON document on stdout instead of the human report.
        #[arg(long)]
        json: bool,
        /// Read MCP transcripts as this revision instead of detecting it.
        #[arg(long, value_enum)]
        revision: Option<Revision>,
        /// Also print notes (correctly rejected probes, lost handles, unfinished tasks).
        #[arg(long, short)]
        verbose: bool,
    },
    /// Run scenario vectors (JSON, format of `longcall::vector`) and report pass/fail.
    Replay {
        /// Vector files; directories are searched for `*.json`.
        #[arg(required = true)]
        vectors: Vec<PathBuf>,
        /// One JSON document on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Print a poll schedule, or with --wait/--wave a jobs_wait batch plan.
    Plan(plan::PlanArgs),
    /// Run the reference Sume Open API job server on 127.0.0.1 (prints its URL).
    ///
    /// Any bearer key is an account with its own credits (100): a submit reserves one; a
    /// canceled, failed or expired job gives it back (a queued job's cancel answer says
    /// `refunded` and the key's `credits`). Models, each on its kind's route
    /// (`/v1/image-router/generate`, `/v1/video-router/generate`): `demo-image` and `demo-video`
    /// complete with a placeholder PNG URL, `demo-nsfw` ends `nsfw`, `demo-rejected` fails with
    /// `content_policy_rejected`, `demo-fail` fails; any other model is a 400. The MCP job tools
    /// (`POST /jobs`, `/jobs/wait`, ...) are served beside them. A burst of more than four new
    /// connections at once may see one wait a few seconds, until a kept-alive one closes (the
    /// worker pool of tiny_http 0.12).
    ServeJobs(serve::ServeArgs),
    /// Fuzz a live MCP task server (or, with `--jobs`, a job API) with seeded client sequences;
    /// the core judges every run.
    ///
    /// It sends only well-formed requests, as a client does: how the server refuses a malformed
    /// one (bad params, a missing capability, an unknown method or tool) is not tested, so a
    /// clean run says nothing about it; `longcall check` judges a log that holds such requests.
    ///
    /// Exit 0: no finding; 1: findings (a shrunk transcript and scenario are written);
    /// 2: the server could not be probed.
    Probe(probe::ProbeArgs),
    /// Watch many calls in one watch list with run records in a SQLite file; the host dies
    /// part-way and resumes every call from its record (reference servers in-process, simulated
    /// clock: nothing to start).
    ///
    /// Exit 0: every invariant held (each call settled exactly once, no resubmit, no poll under
    /// its floor, each prompt asked once, every cancel reached the server); 1: one did not;
    /// 2: the file could not be used.
    WatchDemo(watch_demo::DemoArgs),
    /// Print the mermaid stateDiagram-v2 of each model, generated from the transition tables.
    Diagram {
        /// Only this model: task or job.
        #[arg(long, value_enum)]
        model: Option<diagram::DiagramModel>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Revision {
    #[value(name = "2026")]
    R2026,
    #[value(name = "2025")]
    R2025,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        None => default_run(),
        Some(Command::Check {
            files,
            strict,
            json,
            revision,
            verbose,
        }) => {
            let revision = revision.map(|r| match r {
                Revision::R2026 => Model::Task2026,
                Revision::R2025 => Model::Task2025,
            });
            match found(&files, "jsonl") {
                Some(files) => run_check(&files, strict, json, revision, verbose),
                None => 2,
            }
        }
        Some(Command::Replay { vectors, json }) => match found(&vectors, "json") {
            Some(files) => replay::run(&files, json),
            None => 2,
        },
        Some(Command::ServeJobs(args)) => serve::run(&args),
        Some(Command::Plan(args)) => plan::run(&args),
        Some(Command::Probe(args)) => probe::run(&args),
        Some(Command::WatchDemo(args)) => watch_demo::run(&args),
        Some(Command::Diagram { model }) => {
            out!("{}", diagram::render(model));
            0
        }
    };
    ExitCode::from(code)
}

/// [`expand`], or `None` after saying so when that finds no file: a folder without any
/// `*.ext` (a wrong folder, transcripts saved as `.json`) checks nothing, which is no pass.
fn found(paths: &[PathBuf], ext: &str) -> Option<Vec<PathBuf>> {
    let files = expand(paths, ext);
    if files.is_empty() {
        let given: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        eprintln!("no *.{ext} file in {}: nothing to check", given.join(", "));
        return None;
    }
    Some(files)
}

/// Files as given; a directory becomes its `*.ext` files (recursively, sorted; `_*` skipped).
fn expand(paths: &[PathBuf], ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, ext, &mut found);
            found.sort();
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    out
}

fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let skip = p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('_') || n.starts_with('.'));
        if skip {
            continue;
        }
        if p.is_dir() {
            walk(&p, ext, out);
        } else if p.extension().and_then(|x| x.to_str()) == Some(ext) {
            out.push(p);
        }
    }
}

/// `longcall check`: returns the exit code.
fn run_check(
    files: &[PathBuf],
    strict: bool,
    json: bool,
    revision: Option<Model>,
    verbose: bool,
) -> u8 {
    let mut reports = Vec::new();
    let mut unreadable = Vec::new();
    for f in files {
        match check::check_path(&f.display().to_string(), revision) {
            Ok(r) => reports.push(r),
            Err(e) => unreadable.push(e),
        }
    }
    let failed = reports.iter().any(|r| r.fails(strict));
    let code = if !unreadable.is_empty() {
        2
    } else if failed {
        1
    } else {
        0
    };
    if json {
        let doc = serde_json::json!({
            "strict": strict,
            "exit": code,
            "files": reports,
            "unreadable": unreadable,
        });
        outln!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    } else {
        out!("{}", human(&reports, &unreadable, strict, verbose));
    }
    code
}

fn level_word(l: longcall::Level) -> &'static str {
    match l {
        longcall::Level::Must => "MUST",
        longcall::Level::Should => "SHOULD",
    }
}

fn human(
    reports: &[check::FileReport],
    unreadable: &[check::Unreadable],
    strict: bool,
    verbose: bool,
) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let (mut musts, mut shoulds) = (0, 0);
    for r in reports {
        for f in &r.findings {
            let handle = f
                .handle
                .as_deref()
                .map(|h| format!(" [{h}]"))
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "{}:{}: {} {}{}: {}",
                r.file,
                f.line,
                level_word(f.level),
                f.rule.code(),
                handle,
                f.detail
            );
            match f.level {
                longcall::Level::Must => musts += 1,
                longcall::Level::Should => shoulds += 1,
            }
        }
        if verbose {
            let _ = writeln!(
                s,
                "{}: read as {} ({}), {} handle(s)",
                r.file, r.model, r.revision_basis, r.handles
            );
            for n in &r.notes {
                let _ = writeln!(s, "{}:{}: note: {}", r.file, n.line, n.text);
            }
        }
    }
    for u in unreadable {
        let _ = writeln!(s, "{}: unreadable: {}", u.file, u.reason);
    }
    let failing = reports.iter().filter(|r| r.fails(strict)).count();
    let _ = writeln!(
        s,
        "{} file(s) checked: {} failing, {} MUST violation(s), {} SHOULD warning(s){}{}",
        reports.len(),
        failing,
        musts,
        shoulds,
        if strict {
            " (strict: warnings fail)"
        } else {
            ""
        },
        if unreadable.is_empty() {
            String::new()
        } else {
            format!(", {} unreadable", unreadable.len())
        }
    );
    s
}

/// The data bundled at build time: the repository's `tests/traces` and `tests/vectors`.
fn bundled(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests")
        .join(dir)
}

/// `longcall` with no arguments.
fn default_run() -> u8 {
    let existing = |d: &str| {
        let p = bundled(d);
        if p.is_dir() {
            vec![p]
        } else {
            Vec::new()
        }
    };
    let traces = expand(&existing("traces"), "jsonl");
    let vectors = expand(&existing("vectors"), "json");
    outln!("longcall: lifecycle rules for MCP tasks and paid jobs\n");
    let mut code = 0;
    if traces.is_empty() {
        outln!(
            "no bundled transcripts found under {}",
            bundled("traces").display()
        );
    } else {
        let mut reports = Vec::new();
        let mut unreadable = Vec::new();
        for f in &traces {
            match check::check_path(&f.display().to_string(), None) {
                Ok(r) => reports.push(r),
                Err(e) => unreadable.push(e),
            }
        }
        outln!(
            "check: {} bundled transcript(s)",
            reports.len() + unreadable.len()
        );
        let root = bundled("traces").display().to_string();
        let mut folder = String::new();
        for r in &reports {
            let name = r
                .file
                .strip_prefix(&root)
                .unwrap_or(&r.file)
                .trim_start_matches('/');
            let (dir, file) = name.rsplit_once('/').unwrap_or(("", name));
            if dir != folder {
                outln!("  {dir}/ ({})", r.model);
                folder = dir.to_string();
            }
            let mut codes: Vec<&str> = r.findings.iter().map(|f| f.rule.code()).collect();
            codes.sort_unstable();
            codes.dedup();
            // `must`, not a failure of this run: the software recorded broke a MUST rule.
            let verdict = if r.fails(false) {
                "must"
            } else if r.findings.is_empty() {
                "ok  "
            } else {
                "warn"
            };
            outln!(
                "    {verdict} {file}{}",
                if codes.is_empty() {
                    String::new()
                } else {
                    format!(": {}", codes.join(", "))
                }
            );
        }
        for u in &unreadable {
            outln!("  ???  {}: {}", u.file, u.reason);
        }
        outln!(
            "  {} clean, {} with warnings only, {} with MUST violations (findings about the software recorded, not failures of this run; details: `longcall check -v FILE`, from this repository `cargo run -p longcall-cli --release -- check -v FILE`)\n",
            reports.iter().filter(|r| r.findings.is_empty()).count(),
            reports.iter().filter(|r| !r.findings.is_empty() && !r.fails(false)).count(),
            reports.iter().filter(|r| r.fails(false)).count(),
        );
        if !unreadable.is_empty() {
            code = 2;
        }
    }
    if vectors.is_empty() {
        outln!(
            "no bundled vectors found under {}",
            bundled("vectors").display()
        );
    } else {
        let (passed, total) = replay::summary(&vectors);
        outln!("replay: {passed}/{total} bundled vector(s) pass");
        if passed != total {
            code = code.max(1);
        }
    }
    outln!();
    code = code.max(watch_demo::default_run());
    outln!("\nmore: longcall check FILE... | longcall replay VECTOR... | longcall watch-demo --db FILE | longcall plan | longcall diagram");
    code
}
