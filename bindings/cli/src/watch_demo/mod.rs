//! `longcall watch-demo`: a host that restarts and loses nothing. One `WatchList` watches a batch
//! of calls (MCP tasks of both revisions and paid jobs, some asking the user for input, some
//! cancelled by the user) against the core's reference servers driven in-process under a
//! simulated clock: no network, no server to start. Each call's run record lives in an embedded
//! SQLite file, written in the order the list asks for (rules R-1..R-7 of `longcall::watch`: a
//! record is committed before the outputs that follow from it are released). Part-way the host
//! dies with a poll in flight and its uncommitted writes lost; a new host reopens the file and
//! resumes every call from its record. The summary is checked from the servers' own counters
//! and the store, and the exit code says whether every invariant held.
//!
//! The host decides nothing: it writes what `Persist` names, sends what the list releases, feeds
//! back the answers and shows the user what the list asks.

mod servers;
mod store;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use longcall::poll::{Jitter, PollPolicy};
use longcall::tracker::{Input, Output, Request, TrackerConfig};
use longcall::watch::{CallId, Intent, WatchConfig, WatchList, WatchOutput};
use longcall::Model;
use serde::Serialize;
use serde_json::json;

use servers::{Ending, Script, Servers, SERVER_INTERVAL_MS};
use store::Store;

/// The host's own least gap between two polls of a call (the jobs have no server interval).
const HOST_MIN_INTERVAL_MS: u64 = 250;
/// How long the scripted user takes to answer a prompt.
const USER_ANSWER_MS: u64 = 800;
/// The simulated time after which the run is declared stuck.
const GIVE_UP_MS: u64 = 600_000;

/// `longcall watch-demo` options.
#[derive(clap::Args)]
pub struct DemoArgs {
    /// The SQLite file for the run records (created if missing; it must not hold another run's
    /// records). Default: a file in the temporary directory, removed afterwards.
    #[arg(long)]
    db: Option<PathBuf>,
    /// How many calls (a third each: MCP 2026 tasks, MCP 2025 tasks, jobs; at least 12).
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u64).range(12..=2_000))]
    calls: u64,
    /// When the host dies (simulated ms): at the first poll it sends from then on.
    #[arg(long, default_value_t = 3_000)]
    crash_at: u64,
    /// One JSON document on stdout instead of the human summary.
    #[arg(long)]
    json: bool,
}

/// What the run showed, each figure from the servers' counters or the store.
#[derive(Debug, Default, Serialize)]
pub struct Summary {
    db: String,
    calls: u64,
    by_model: BTreeMap<String, u64>,
    /// Simulated ms at which the host died, and the records it resumed from.
    died_at_ms: Option<u64>,
    records_resumed: u64,
    /// Calls with exactly one outcome in the store that matches what the server's worker wrote.
    settled_exactly_once: u64,
    /// Settled outputs reported again after the restart and dropped by call id.
    reports_deduplicated: u64,
    /// `tools/call` and job submits a server received beyond the first per call.
    resubmits: u64,
    tools_calls: u64,
    job_submits: u64,
    polls: u64,
    /// Polls of a call sooner after its previous poll than its floor.
    polls_under_floor: u64,
    /// Input keys the servers asked, prompts the host released, keys prompted more than once.
    input_keys_asked: u64,
    prompts_asked: u64,
    prompts_asked_twice: u64,
    /// Open prompts the resumed host showed again as state (not asked again, R-7).
    prompts_shown_again: u64,
    cancels_pressed: u64,
    /// Presses the cancel button refused (nothing sent), with why.
    cancels_refused: Vec<String>,
    /// Presses whose cancel reached the server.
    cancels_reached: u64,
    record_writes: u64,
    commits: u64,
    /// Records left in the store at the end (every settled call is removed).
    records_left: u64,
    host_errors: Vec<String>,
    outcomes: BTreeMap<String, u64>,
    simulated_ms: u64,
}

impl Summary {
    /// Every invariant the run must show.
    pub fn holds(&self) -> bool {
        self.settled_exactly_once == self.calls
            && self.resubmits == 0
            && self.polls_under_floor == 0
            && self.prompts_asked_twice == 0
            && self.prompts_asked == self.input_keys_asked
            && self.cancels_reached == self.cancels_pressed
            && self.records_left == 0
            && self.host_errors.is_empty()
    }
}

/// The calls of the run: what each is and what its server's worker will do.
fn scripts(calls: u64) -> BTreeMap<CallId, Script> {
    (0..calls)
        .map(|i| {
            let model = match i % 3 {
                0 => Model::Task2026,
                1 => Model::Task2025,
                _ => Model::Job,
            };
            let ending = match (model, i % 5) {
                (Model::Job, 2) => Ending::Error,
                (Model::Task2025, 1) | (Model::Task2026, 4) => Ending::ToolError,
                (Model::Task2025, 4) => Ending::Error,
                _ => Ending::Result,
            };
            let script = Script {
                model,
                work_ms: 1_200 + (i * 977) % 4_000,
                ending,
                // Half of the asking tools ask just before the host dies, so a prompt is open
                // across the restart.
                asks_after_ms: match i % 12 {
                    0 => Some(600),
                    6 => Some(2_200),
                    _ => None,
                },
            };
            (CallId(i), script)
        })
        .collect()
}

/// The user's cancel presses: `(at, call)`. A 2026 task (cooperative cancel), a 2025 task
/// (settled by the cancel), a queued job (cancelled) and a running job (409: it runs on).
fn presses(calls: u64) -> Vec<(u64, CallId)> {
    let last_job = (0..calls).rev().find(|i| i % 3 == 2).unwrap_or(2);
    vec![
        (800, CallId(last_job)),
        (900, CallId(5)),
        (1_500, CallId(3)),
        (2_000, CallId(4)),
    ]
}

fn intent(call: CallId, model: Model) -> Intent {
    match model {
        Model::Job => Intent {
            model,
            request: json!({"prompt": format!("a red bicycle, take {call}")}),
            idempotency_key: Some(format!("render-{call}")),
        },
        _ => Intent {
            model,
            request: json!({"name": "render", "arguments": {"scene": call.0}}),
            idempotency_key: None,
        },
    }
}

fn tracker_config(call: CallId) -> TrackerConfig {
    TrackerConfig {
        poll: PollPolicy {
            initial_ms: 500,
            cap_ms: 2_000,
            jitter: Jitter::Full,
            min_interval_ms: HOST_MIN_INTERVAL_MS,
            ..PollPolicy::default()
        },
        seed: call.0,
        deadline_ms: None,
    }
}

/// The host died: everything in memory is gone.
struct Died;

/// One host process: its watch list and its store.
struct Host {
    list: WatchList,
    store: Store,
}

/// Everything outside the host: the servers, the user, the clock, and what was reported.
struct World {
    now: u64,
    servers: Servers,
    models: BTreeMap<CallId, Model>,
    /// The user's pending answers `(at, call, key)` and presses.
    answers: BTreeSet<(u64, CallId, String)>,
    presses: Vec<(u64, CallId)>,
    /// Prompts released per `(call, key)`, over both host lives.
    prompts: BTreeMap<(CallId, String), u64>,
    cancels_pressed: BTreeSet<CallId>,
    cancels_refused: Vec<(CallId, String)>,
    /// Armed at the crash time: the host dies at the next poll it sends.
    die_at_next_poll: bool,
    summary: Summary,
}

/// `longcall watch-demo`: returns the exit code (0 every invariant held, 1 one did not, 2 the
/// store could not be used).
pub fn run(args: &DemoArgs) -> u8 {
    let (path, temporary) = match &args.db {
        Some(p) => (p.clone(), false),
        None => {
            let path = temp_db();
            remove_db(&path); // a leftover of an earlier process with the same id
            (path, true)
        }
    };
    let result = drive(&path, args.calls, args.crash_at);
    if temporary {
        remove_db(&path);
    }
    match result {
        Ok(summary) => {
            if args.json {
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&summary).unwrap_or_default()
                );
            } else {
                out!("{}", human(&summary, temporary));
            }
            if summary.holds() {
                0
            } else {
                1
            }
        }
        Err(e) => {
            outln!("watch-demo: {}: {e}", path.display());
            2
        }
    }
}

/// The main command's part: the default run on a temporary file, summarised. Returns the exit
/// code as [`run`].
pub fn default_run() -> u8 {
    run(&DemoArgs {
        db: None,
        calls: 24,
        crash_at: 3_000,
        json: false,
    })
}

fn temp_db() -> PathBuf {
    std::env::temp_dir().join(format!("longcall-watch-demo-{}.sqlite", std::process::id()))
}

fn remove_db(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
}

fn drive(path: &Path, calls: u64, crash_at: u64) -> Result<Summary, String> {
    let scripts = scripts(calls);
    let store = Store::open(path).map_err(|e| e.to_string())?;
    let (records, outcomes) = store.counts().map_err(|e| e.to_string())?;
    if records + outcomes > 0 {
        return Err(format!(
            "holds another run ({records} records, {outcomes} outcomes); this demo's servers live \
             in memory and cannot resume it: give a new file"
        ));
    }
    let mut world = World {
        now: 0,
        models: scripts.iter().map(|(c, s)| (*c, s.model)).collect(),
        // Two jobs at a time for a small run (so one waits in the queue when it is cancelled),
        // more for a large one so it ends in simulated minutes.
        servers: Servers::new(scripts, (calls / 12).max(2) as usize),
        answers: BTreeSet::new(),
        presses: presses(calls),
        prompts: BTreeMap::new(),
        cancels_pressed: BTreeSet::new(),
        cancels_refused: Vec::new(),
        die_at_next_poll: false,
        summary: Summary {
            db: path.display().to_string(),
            calls,
            ..Summary::default()
        },
    };
    for model in world.models.values() {
        *world
            .summary
            .by_model
            .entry(model.as_str().into())
            .or_default() += 1;
    }
    let mut host = Host {
        list: WatchList::new(WatchConfig::default()),
        store,
    };
    // every intent is in the store before its create is released.
    for (&call, &model) in &world.models {
        host.list
            .add_new(call, intent(call, model), tracker_config(call))
            .map_err(|e| e.to_string())?;
    }
    let mut result = world.drain(&mut host);
    loop {
        if result.is_err() {
            // Died: drop the list and the connection, reopen the file, resume every call.
            let (writes, commits) = (host.store.writes, host.store.commits);
            drop(host);
            host = world.restart(path, writes, commits)?;
            result = world.drain(&mut host);
            continue;
        }
        if host.list.is_empty() {
            break;
        }
        let next = [
            host.list.poll_timeout(),
            world.servers.next_event(world.now),
            world.answers.first().map(|a| a.0),
            world.presses.iter().map(|p| p.0).min(),
            (world.summary.died_at_ms.is_none() && !world.die_at_next_poll).then_some(crash_at),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(next) = next else {
            world
                .summary
                .host_errors
                .push(format!("{} calls wait for nothing", host.list.len()));
            break;
        };
        if next > GIVE_UP_MS {
            world.summary.host_errors.push(format!(
                "{} calls unsettled after {GIVE_UP_MS} ms",
                host.list.len()
            ));
            break;
        }
        world.now = world.now.max(next);
        if world.summary.died_at_ms.is_none() && world.now >= crash_at {
            world.die_at_next_poll = true;
        }
        world.servers.work(world.now);
        world.user(&mut host.list);
        host.list.handle_timeout(world.now);
        result = world.drain(&mut host);
    }
    world.summary.record_writes = host.store.writes;
    world.summary.commits = host.store.commits;
    world.finish(&host.store)?;
    Ok(world.summary)
}

impl World {
    /// The user acts: presses due, answers due.
    fn user(&mut self, list: &mut WatchList) {
        let now = self.now;
        let due: Vec<(u64, CallId)> = self
            .presses
            .iter()
            .copied()
            .filter(|p| p.0 <= now)
            .collect();
        self.presses.retain(|p| p.0 > now);
        for (_, call) in due {
            // The button decides: a press it refuses (a job already generating, a call that
            // ended) sends nothing.
            match list.handle_input(now, call, Input::CancelPressed) {
                Ok(()) => {
                    self.cancels_pressed.insert(call);
                }
                Err(e) => self.cancels_refused.push((call, e.to_string())),
            }
        }
        while let Some(first) = self.answers.first().cloned() {
            if first.0 > now {
                break;
            }
            self.answers.remove(&first);
            let (_, call, key) = first;
            let response = json!({"action": "accept", "content": {"confirm": true}});
            // Refused when the call no longer waits for it (cancelled meanwhile): nothing to do.
            let _ = list.handle_input(
                now,
                call,
                Input::InputAnswered {
                    key,
                    response: response.into(),
                },
            );
        }
    }

    /// Drains the list like a host: acts on every output, writes the records it names in one
    /// transaction per round, confirms them, and goes on until nothing is left.
    fn drain(&mut self, host: &mut Host) -> Result<(), Died> {
        loop {
            let mut persist = Vec::new();
            let mut removed = Vec::new();
            while let Some(out) = host.list.poll_output() {
                match out {
                    WatchOutput::Persist { call } => persist.push(call),
                    WatchOutput::Removed { call } => removed.push(call),
                    WatchOutput::Create { call, intent, .. } => {
                        let answer = self.servers.create(self.now, call, &intent);
                        self.feed(&mut host.list, call, answer);
                    }
                    WatchOutput::CreateUnanswered { call, .. } => {
                        // Never re-sent: the host would look the call up; here nothing
                        // may reach this, and the summary says so.
                        self.summary
                            .host_errors
                            .push(format!("call {call}: create unanswered"));
                        host.list.remove(call);
                    }
                    WatchOutput::Call { call, output } => {
                        self.call_output(host, call, output)?;
                    }
                    _ => {}
                }
            }
            if persist.is_empty() && removed.is_empty() {
                return Ok(());
            }
            let mut saved = Vec::with_capacity(persist.len());
            for call in persist {
                match host.list.save_call(call) {
                    Ok(s) => saved.push(s),
                    Err(e) => self.summary.host_errors.push(e.to_string()),
                }
            }
            if let Err(e) = host.store.write(&saved, &removed) {
                self.summary.host_errors.push(format!("store: {e}"));
                return Ok(());
            }
            for s in saved {
                if let Err(e) = host.list.handle_persisted(s.call, s.version) {
                    self.summary.host_errors.push(e.to_string());
                }
            }
        }
    }

    fn call_output(&mut self, host: &mut Host, call: CallId, output: Output) -> Result<(), Died> {
        let model = self.models.get(&call).copied().unwrap_or(Model::Job);
        match output {
            Output::Send { request } => {
                let answer = self.servers.answer(self.now, call, model, &request);
                if self.die_at_next_poll && matches!(request, Request::Get { .. }) {
                    // The poll reached the server; the host dies before reading the answer.
                    self.die_at_next_poll = false;
                    self.summary.died_at_ms = Some(self.now);
                    return Err(Died);
                }
                if let Some(answer) = answer {
                    self.feed(&mut host.list, call, answer);
                }
            }
            Output::AskUser { key, .. } => {
                *self.prompts.entry((call, key.clone())).or_default() += 1;
                self.answers.insert((self.now + USER_ANSWER_MS, call, key));
            }
            Output::Settled {
                outcome, status, ..
            } => {
                let status = status.map(|s| s.as_str());
                match host.store.report(call, outcome.as_str(), status, self.now) {
                    Ok(true) => {}
                    Ok(false) => {
                        // A repeat after the restart must repeat the same outcome.
                        self.summary.reports_deduplicated += 1;
                        if let Ok(Some(first)) = host.store.outcome(call) {
                            if first != outcome.as_str() {
                                self.summary.host_errors.push(format!(
                                    "call {call}: reported {first}, then {}",
                                    outcome.as_str()
                                ));
                            }
                        }
                    }
                    Err(e) => self.summary.host_errors.push(format!("store: {e}")),
                }
                host.list.remove(call);
            }
            Output::Stopped { reason } => {
                self.summary
                    .host_errors
                    .push(format!("call {call}: stopped watching ({reason:?})"));
                host.list.remove(call);
            }
            Output::Violation { violation } => {
                self.summary.host_errors.push(format!(
                    "call {call}: the server broke a rule: {violation:?}"
                ));
            }
            _ => {}
        }
        Ok(())
    }

    fn feed(&mut self, list: &mut WatchList, call: CallId, input: Input) {
        if let Err(e) = list.handle_input(self.now, call, input) {
            self.summary.host_errors.push(format!("call {call}: {}", e));
        }
    }

    /// A new host process: the file reopened, every call resumed from its record.
    fn restart(&mut self, path: &Path, writes: u64, commits: u64) -> Result<Host, String> {
        let mut store = Store::open(path).map_err(|e| e.to_string())?;
        store.writes = writes;
        store.commits = commits;
        let mut list = WatchList::new(WatchConfig::default());
        let records = store.records().map_err(|e| e.to_string())?;
        self.summary.records_resumed = records.len() as u64;
        for text in &records {
            let call = list
                .resume_call(self.now, text)
                .map_err(|e| e.to_string())?;
            let open = list.open_prompts(call);
            self.summary.prompts_shown_again += open.len() as u64;
            for (key, _) in open {
                // The user still sees the prompt; an answer typed into the dead host is typed
                // again.
                if !self.answers.iter().any(|a| a.1 == call && a.2 == *key) {
                    self.answers
                        .insert((self.now + USER_ANSWER_MS, call, key.clone()));
                }
            }
        }
        Ok(Host { list, store })
    }

    /// The checks, from the servers' own counters and the store.
    fn finish(&mut self, store: &Store) -> Result<(), String> {
        let s = &mut self.summary;
        s.simulated_ms = self.now;
        for (&call, &model) in &self.models {
            let sent = self.servers.creates.get(&call).copied().unwrap_or(0);
            s.resubmits += u64::from(sent.saturating_sub(1));
            if model == Model::Job {
                s.job_submits += u64::from(sent);
            } else {
                s.tools_calls += u64::from(sent);
            }
            let stored = store.outcome(call).map_err(|e| e.to_string())?;
            if let Some(outcome) = &stored {
                *s.outcomes.entry(outcome.clone()).or_default() += 1;
            }
            let expected = self.servers.ended(call).map(|e| expected(model, e));
            if stored.is_some() && stored.as_deref() == expected {
                s.settled_exactly_once += 1;
            }
            let floor = match model {
                Model::Job => HOST_MIN_INTERVAL_MS,
                _ => SERVER_INTERVAL_MS,
            };
            if let Some(times) = self.servers.polls.get(&call) {
                s.polls += times.len() as u64;
                s.polls_under_floor +=
                    times.windows(2).filter(|w| w[1] - w[0] < floor).count() as u64;
            }
        }
        s.input_keys_asked = self.servers.keys_asked.len() as u64;
        s.prompts_asked = self.prompts.values().sum();
        s.prompts_asked_twice = self.prompts.values().filter(|n| **n > 1).count() as u64;
        s.cancels_pressed = self.cancels_pressed.len() as u64;
        s.cancels_refused = self
            .cancels_refused
            .iter()
            .map(|(c, e)| format!("call {c}: {e}"))
            .collect();
        s.cancels_reached = self
            .cancels_pressed
            .iter()
            .filter(|c| self.servers.cancels.contains(c))
            .count() as u64;
        s.records_left = store.counts().map_err(|e| e.to_string())?.0;
        Ok(())
    }
}

/// The outcome a call must report for what its server's worker wrote.
fn expected(model: Model, ending: Ending) -> &'static str {
    use longcall::outcome::Outcome;
    match (model, ending) {
        (_, Ending::Result) => Outcome::Succeeded,
        (_, Ending::Cancelled) => Outcome::Cancelled,
        (Model::Job, _) => Outcome::Failed,
        (_, Ending::ToolError) => Outcome::ToolError,
        (_, Ending::Error) => Outcome::ProtocolFailure,
    }
    .as_str()
}

fn human(s: &Summary, temporary: bool) -> String {
    use std::fmt::Write;
    let mut t = String::new();
    let models: Vec<String> = s.by_model.iter().map(|(m, n)| format!("{n} {m}")).collect();
    let _ = writeln!(
        t,
        "watch: {} calls in one watch list ({}), run records in SQLite{}",
        s.calls,
        models.join(", "),
        if temporary {
            String::new()
        } else {
            format!(" {}", s.db)
        }
    );
    match s.died_at_ms {
        Some(at) => {
            let _ = writeln!(
                t,
                "  the host died at {:.1} s (simulated) with a poll in flight; {} records reopened, every call resumed",
                at as f64 / 1000.0,
                s.records_resumed
            );
        }
        None => {
            let _ = writeln!(
                t,
                "  the host never died: every call settled before --crash-at"
            );
        }
    }
    let _ = writeln!(
        t,
        "  settled exactly once: {}/{} (outcome in the store matches the server's worker; {} repeat report(s) dropped by call id)",
        s.settled_exactly_once, s.calls, s.reports_deduplicated
    );
    let _ = writeln!(
        t,
        "  resubmits: {} (tools/call {}, job submits {}: one per call)",
        s.resubmits, s.tools_calls, s.job_submits
    );
    let _ = writeln!(
        t,
        "  polls: {}, {} sooner than the server's interval or the host's minimum",
        s.polls, s.polls_under_floor
    );
    let _ = writeln!(
        t,
        "  prompts: {} asked for {} input key(s), {} asked twice; {} open at the restart shown again, not asked again",
        s.prompts_asked, s.input_keys_asked, s.prompts_asked_twice, s.prompts_shown_again
    );
    let _ = writeln!(
        t,
        "  cancels: {} pressed, {} reached the server",
        s.cancels_pressed, s.cancels_reached
    );
    for refused in &s.cancels_refused {
        let _ = writeln!(t, "    refused by the button: {refused}");
    }
    let _ = writeln!(
        t,
        "  store: {} record writes in {} transactions, {} left at the end",
        s.record_writes, s.commits, s.records_left
    );
    for (outcome, n) in &s.outcomes {
        let _ = writeln!(t, "  {outcome:<16} {n}");
    }
    for e in &s.host_errors {
        let _ = writeln!(t, "  error: {e}");
    }
    let _ = writeln!(
        t,
        "  {} ({:.1} s simulated)",
        if s.holds() {
            "every invariant held"
        } else {
            "AN INVARIANT BROKE"
        },
        s.simulated_ms as f64 / 1000.0
    );
    t
}
