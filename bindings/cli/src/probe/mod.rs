//! `longcall probe`: drives a live MCP task server with seeded random sequences of what a real
//! client does, and judges every run with the core. The probe itself decides nothing: every
//! verdict comes from [`judge`], which reads the recorded transcript with the same code as
//! `longcall check` (the lifecycle, cancel and codec rules, and `longcall::probe_rules` for the
//! properties only a prober can test). A failing run is shrunk to a shortest action list that
//! still fails, replayed against a fresh session, and written as a transcript `longcall check`
//! reproduces and a scenario a person can paste into an issue.

mod drive;
mod jobs;
mod shrink;
mod wire;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;
use longcall::server::gate::TaskSupport;
use longcall::{Level, Model, Violation};
use serde::Serialize;
use serde_json::{json, Map, Value};

use drive::{Action, Driver, Limits, Rng, Tool};
use wire::{Principal, Session, Target};

/// `longcall probe` arguments.
#[derive(Args, Debug, Clone)]
pub struct ProbeArgs {
    /// The server's Streamable HTTP endpoint (`http://127.0.0.1:8000/mcp`).
    #[arg(required_unless_present_any = ["stdio", "jobs"])]
    pub url: Option<String>,
    /// Probe a job API instead: its base URL (`http://127.0.0.1:8080`), the Sume Open API and,
    /// where served, the MCP job tools' `POST /jobs/wait`. Needs `--auth 'Bearer KEY'`.
    #[arg(long, conflicts_with_all = ["url", "stdio"])]
    pub jobs: Option<String>,
    /// A job model to submit, optionally with its arguments: `NAME` or `NAME={"json":"args"}`
    /// (with --jobs; default: `demo-image`, the reference server's).
    #[arg(long = "model", value_parser = named_args)]
    pub models: Vec<String>,
    /// The submit argument that makes each job intent distinct (with --jobs).
    #[arg(long, default_value = "prompt")]
    pub vary: String,
    /// Start this server command and speak JSON-RPC on its stdio instead (the rest of the line).
    #[arg(long, num_args = 1.., allow_hyphen_values = true, conflicts_with = "url")]
    pub stdio: Option<Vec<String>>,
    /// The seed; a run with the same seed against the same server does the same things.
    #[arg(long)]
    pub seed: Option<u64>,
    /// At most this many steps.
    #[arg(long, default_value_t = 1000)]
    pub max_steps: usize,
    /// At most this many seconds of probing (shrinking has its own budget).
    #[arg(long, default_value_t = 30)]
    pub max_seconds: u64,
    /// At most this many seconds of shrinking a failing run (0: no shrinking).
    #[arg(long, default_value_t = 25)]
    pub shrink_seconds: u64,
    /// How long to wait for each answer. A request the server leaves unanswered that long ends
    /// the run as unusable (exit 2), naming the request: a server that stops answering is not a
    /// clean pass. (A 2025 `tasks/result` is asked only once its task is terminal.)
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    pub answer_seconds: u64,
    /// The MCP revision: 2026 or 2025 (default: 2026 when `server/discover` lists it).
    #[arg(long, value_parser = ["2026", "2025"])]
    pub revision: Option<String>,
    /// A tool to drive, optionally with its arguments: `NAME` or `NAME={"json":"args"}`.
    #[arg(long = "tool", value_parser = named_args)]
    pub tools: Vec<String>,
    /// A JSON file `{"tools": {"NAME": {arguments}}}` choosing the tools to drive.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// An `Authorization` value per principal (give two to probe foreign task ids).
    #[arg(long = "auth")]
    pub auth: Vec<String>,
    /// The poll floor when the server gives none, in ms.
    #[arg(long, default_value_t = 500)]
    pub default_interval_ms: u64,
    /// The least time between any two requests, in ms.
    #[arg(long, default_value_t = 10)]
    pub min_gap_ms: u64,
    /// Directory for the run transcript, the shrunk transcript and the scenario.
    #[arg(long, default_value = "longcall-probe")]
    pub out: PathBuf,
    /// SHOULD-level findings fail too.
    #[arg(long)]
    pub strict: bool,
    /// One JSON document on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Checks `NAME` or `NAME={"json":"args"}` as the command line is read, so arguments that are
/// not JSON are a usage error before anything is started or sent.
fn named_args(text: &str) -> Result<String, String> {
    match text.split_once('=') {
        Some((name, args)) => serde_json::from_str::<Value>(args)
            .map(|_| text.to_string())
            .map_err(|e| format!("the arguments of {name} are not JSON: {e}")),
        None => Ok(text.to_string()),
    }
}

/// One broken rule on a transcript line.
#[derive(Clone, Debug, Serialize)]
pub struct Judged {
    /// 1-based transcript line.
    pub line: usize,
    /// The task, when the rule is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The rule, its level and what was seen.
    #[serde(flatten)]
    pub violation: Violation,
}

/// Every verdict of the probe comes from here: the recorded transcript, judged by the core's
/// observer (`longcall::endpoint::observer`, the engine of `longcall check`: lifecycle, cancel,
/// codec, gate and `probe_rules` rules).
pub fn judge(model: Model, transcript: &[Value]) -> Vec<Judged> {
    let text = to_jsonl(transcript);
    match longcall::endpoint::observer::check_text(&text, Some(model)) {
        Ok(report) => report
            .findings
            .into_iter()
            .map(|f| Judged {
                line: f.line,
                task_id: f.handle,
                violation: Violation::new(f.rule, f.detail),
            })
            .collect(),
        Err(_) => Vec::new(),
    }
}

fn to_jsonl(lines: &[Value]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn fails(j: &Judged, strict: bool) -> bool {
    strict || j.violation.level == Level::Must
}

/// `tools/call`s that made no task after which a run stops: the server makes none.
const NO_TASK_TRIES: usize = 5;

/// How the probe reached the server.
struct Setup {
    target: Target,
    model: Option<Model>,
    principals: Vec<Principal>,
    timeout: Duration,
    limits: Limits,
}

impl Setup {
    fn open(&self) -> Result<Session, String> {
        Session::open(
            &self.target,
            self.model,
            self.principals.clone(),
            self.timeout,
        )
    }
}

/// The outcome of playing a list of actions on a fresh session.
pub struct Replay<A = Action> {
    pub applied: Vec<A>,
    pub transcript: Vec<Value>,
    pub model: Model,
    /// Each handle the server gave, by the step that made it.
    pub handles: BTreeMap<String, usize>,
}

fn replay(setup: &Setup, tools: &[Tool], actions: &[Action]) -> Result<Replay, String> {
    let session = setup.open()?;
    let mut d = Driver::new(session, tools, setup.limits.clone());
    let mut applied = Vec::new();
    for a in actions {
        if d.run(a)? {
            applied.push(a.clone());
        }
    }
    Ok(Replay {
        applied,
        model: d.session.model,
        handles: d.handles(),
        transcript: std::mem::take(&mut d.session.lines),
    })
}

fn default_args(schema: Option<&Value>) -> Value {
    let mut args = Map::new();
    let required: Vec<&str> = schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for name in required {
        let ty = schema
            .and_then(|s| s.pointer(&format!("/properties/{name}/type")))
            .and_then(Value::as_str);
        let v = match ty {
            Some("number" | "integer") => json!(1),
            Some("boolean") => json!(true),
            Some("object") => json!({}),
            Some("array") => json!([]),
            _ => json!("probe"),
        };
        args.insert(name.into(), v);
    }
    Value::Object(args)
}

/// Reads `tools/list` and picks the tools to drive (flags, then config, then every tool that may
/// run as a task).
fn choose_tools(session: &mut Session, args: &ProbeArgs) -> Result<Vec<Tool>, String> {
    let listed = session.list_tools()?;
    let by_name = |n: &str| {
        listed
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(n))
    };
    let mut wanted: Vec<(String, Option<Value>)> = Vec::new();
    for t in &args.tools {
        match t.split_once('=') {
            Some((n, a)) => {
                let v: Value = serde_json::from_str(a)
                    .map_err(|e| format!("--tool {n}: the arguments are not JSON: {e}"))?;
                wanted.push((n.to_string(), Some(v)));
            }
            None => wanted.push((t.clone(), None)),
        }
    }
    if let Some(path) = &args.config {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let v: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
        for (n, a) in v
            .get("tools")
            .and_then(Value::as_object)
            .ok_or_else(|| format!("{}: expected {{\"tools\": {{NAME: ARGS}}}}", path.display()))?
        {
            wanted.push((n.clone(), Some(a.clone())));
        }
    }
    if wanted.is_empty() {
        for t in &listed {
            if let Some(n) = runs_as_task(session.model, t) {
                wanted.push((n, None));
            }
        }
    }
    let mut tools = Vec::new();
    for (name, a) in wanted {
        let listed =
            by_name(&name).ok_or_else(|| format!("the server lists no tool \"{name}\""))?;
        let arguments = a.unwrap_or_else(|| default_args(listed.get("inputSchema")));
        tools.push(Tool { name, arguments });
    }
    if tools.is_empty() {
        return Err("no tool to drive (tools/list is empty)".into());
    }
    Ok(tools)
}

/// The name of a `tools/list` entry the probe may drive as a task, as the core reads it (rule
/// E-64): on 2025 only a tool listed `optional` or `required`, since a client may ask for a task
/// of no other; on 2026, where the server decides per call, any tool.
fn runs_as_task(model: Model, tool: &Value) -> Option<String> {
    let (name, support) = longcall::wire::mcp2025::listed_tool(tool).ok()?;
    (model != Model::Task2025 || support != TaskSupport::Forbidden).then_some(name)
}

#[derive(Serialize)]
struct Shrunk {
    steps: usize,
    from_steps: usize,
    actions: Value,
    transcript: String,
    scenario: String,
    text: String,
    replays: usize,
    seconds: f64,
    /// When the shortest failing replay was found: how much of the budget the result needed.
    best_seconds: f64,
}

/// A duration in seconds to the millisecond, as the JSON report gives it (not 5.0372868650000004).
pub(crate) fn secs(d: Duration) -> f64 {
    (d.as_secs_f64() * 1000.0).round() / 1000.0
}

/// `longcall probe`: returns the exit code (0 clean, 1 findings, 2 unusable).
pub fn run(args: &ProbeArgs) -> u8 {
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    // The seed first, on stderr too when stdout carries JSON, so a crash still leaves it.
    if args.json {
        eprintln!("longcall probe: seed {seed}");
    } else {
        outln!("longcall probe: seed {seed} (repeat with --seed {seed})");
    }
    if let Some(base) = &args.jobs {
        return jobs::run(args, seed, base);
    }
    let target = match (&args.url, &args.stdio) {
        (_, Some(cmd)) => Target::Stdio(cmd.clone()),
        (Some(url), None) => Target::Http(url.clone()),
        (None, None) => return unusable(args, seed, "give a URL or --stdio CMD"),
    };
    let principals: Vec<Principal> = if args.auth.is_empty() {
        vec![Principal {
            label: String::new(),
            authorization: None,
        }]
    } else {
        args.auth
            .iter()
            .enumerate()
            .map(|(i, a)| Principal {
                label: char::from(b'a' + (i % 26) as u8).to_string(),
                authorization: Some(a.clone()),
            })
            .collect()
    };
    let setup = Setup {
        target,
        model: match args.revision.as_deref() {
            Some("2026") => Some(Model::Task2026),
            Some("2025") => Some(Model::Task2025),
            _ => None,
        },
        principals,
        timeout: Duration::from_secs(args.answer_seconds),
        limits: Limits {
            default_interval_ms: args.default_interval_ms,
            min_gap_ms: args.min_gap_ms,
        },
    };
    let t0 = Instant::now();
    let mut session = match setup.open() {
        Ok(s) => s,
        Err(e) => return unusable(args, seed, &e),
    };
    let tools = match choose_tools(&mut session, args) {
        Ok(t) => t,
        Err(e) => {
            // What was exchanged up to the failure, so it can be read without a proxy.
            let _ = std::fs::create_dir_all(&args.out);
            let file = args.out.join(format!("probe-{seed}-unusable.jsonl"));
            let kept = std::fs::write(&file, to_jsonl(&session.lines)).is_ok();
            let why = if kept {
                format!("{e} (the exchange: {})", file.display())
            } else {
                e
            };
            return unusable(args, seed, &why);
        }
    };
    let model = session.model;
    // The handshake and tools/list are not part of the run: replays start without them too.
    let mut d = Driver::new(session, &tools, setup.limits.clone());
    let mut rng = Rng::new(seed);
    let mut actions: Vec<Action> = Vec::new();
    let mut findings = Vec::new();
    let mut transport_error = None;
    let deadline = t0 + Duration::from_secs(args.max_seconds);
    for step in 0..args.max_steps {
        if Instant::now() >= deadline {
            break;
        }
        let a = drive::next_action(&mut rng, &d, step);
        match d.run(&a) {
            Ok(true) => actions.push(a),
            Ok(false) => continue,
            Err(e) => {
                transport_error = Some(e);
                break;
            }
        }
        // Calls that make no task leave nothing to probe: a few tries say so, rather than
        // calling the server's tools for the whole run.
        let calls = actions
            .iter()
            .filter(|a| matches!(a, Action::Call { .. }))
            .count();
        if d.calls().is_empty() && calls >= NO_TASK_TRIES {
            break;
        }
        findings = judge(model, &d.session.lines);
        if findings.iter().any(|f| fails(f, args.strict)) {
            break;
        }
    }
    let probe_seconds = secs(t0.elapsed());
    let focus = focus(
        &findings,
        args.strict,
        &actions,
        |t| d.step_of(t),
        Action::call,
    );
    let transcript = std::mem::take(&mut d.session.lines);
    let tasks = d.calls().len();
    drop(d);
    let server = match &setup.target {
        Target::Http(u) => u.clone(),
        Target::Stdio(c) => c.join(" "),
    };
    let probed = Probed {
        revision: match model {
            Model::Task2026 => "2026-07-28",
            _ => "2025-11-25",
        },
        drives: ("tools", serde_json::to_value(&tools).unwrap_or_default()),
        drive_names: tools.iter().map(|t| t.name.clone()).collect(),
        handles: ("tasks", tasks),
        server: server.clone(),
        actions,
        transcript,
        findings,
        transport_error,
        focus,
        model,
        seconds: probe_seconds,
    };
    conclude(
        args,
        seed,
        probed,
        |cand| replay(&setup, &tools, cand),
        |best, verdicts, from, file| {
            scenario(&server, &found_by(args, seed), best, verdicts, from, file)
        },
    )
}

/// The command that repeats a run: the server it probed, its seed and [`replay_flags`].
pub(crate) fn found_by(args: &ProbeArgs, seed: u64) -> String {
    let target = match (&args.url, &args.jobs, &args.stdio) {
        (Some(url), _, _) => format!(" {url}"),
        (_, Some(base), _) => format!(" --jobs {base}"),
        (_, _, Some(command)) => format!(" --stdio {}", command.join(" ")),
        _ => String::new(),
    };
    format!("longcall probe{target} --seed {seed}{}", replay_flags(args))
}

/// The flags besides the server and the seed that decide what a run does and how it is judged,
/// as a person repeating it types them (`--auth` values are secrets: their count is what
/// matters). A run's length counts too: with fewer steps it would stop before the finding.
fn replay_flags(args: &ProbeArgs) -> String {
    let mut flags = String::new();
    for m in &args.models {
        flags += &format!(" --model '{m}'");
    }
    if let Some(r) = &args.revision {
        flags += &format!(" --revision {r}");
    }
    if let Some(c) = &args.config {
        flags += &format!(" --config {}", c.display());
    }
    for t in &args.tools {
        flags += &format!(" --tool '{t}'");
    }
    for _ in &args.auth {
        flags += " --auth ...";
    }
    if args.strict {
        flags += " --strict";
    }
    if args.max_steps != 1000 {
        flags += &format!(" --max-steps {}", args.max_steps);
    }
    flags
}

/// The handle (task or job) of the first failing finding, as the step that made it, and the
/// actions about it: shrinking tries them alone first. `step_of` names a handle by the step
/// that made it, `about` the step an action is about.
pub fn focus<A: Clone>(
    findings: &[Judged],
    strict: bool,
    actions: &[A],
    step_of: impl Fn(&str) -> Option<usize>,
    about: impl Fn(&A) -> Option<usize>,
) -> Option<Focus<A>> {
    let step = findings
        .iter()
        .find(|f| fails(f, strict))
        .and_then(|f| f.task_id.as_deref())
        .and_then(step_of)?;
    Some(Focus {
        step,
        actions: actions
            .iter()
            .filter(|a| about(a) == Some(step))
            .cloned()
            .collect(),
    })
}

/// See [`focus`].
pub struct Focus<A> {
    /// The step that made the handle.
    pub step: usize,
    /// The actions about it.
    pub actions: Vec<A>,
}

/// What a probing run left, whatever it drove.
pub struct Probed<A> {
    pub server: String,
    /// The revision or API the run spoke.
    pub revision: &'static str,
    /// What it drove (`("tools", [...])`, `("models", [...])`).
    pub drives: (&'static str, Value),
    pub drive_names: Vec<String>,
    /// How many handles it made (`("tasks", n)`, `("jobs", n)`).
    pub handles: (&'static str, usize),
    pub actions: Vec<A>,
    pub transcript: Vec<Value>,
    pub findings: Vec<Judged>,
    pub transport_error: Option<String>,
    /// The handle of the first failing finding and the actions about it ([`focus`]).
    pub focus: Option<Focus<A>>,
    pub model: Model,
    pub seconds: f64,
}

/// Writes the run, shrinks a failing one (replaying candidates with `replay`), prints the
/// report and returns the exit code. Verdicts come from [`judge`] only.
pub fn conclude<A: Clone + Serialize>(
    args: &ProbeArgs,
    seed: u64,
    p: Probed<A>,
    mut replay: impl FnMut(&[A]) -> Result<Replay<A>, String>,
    scenario: impl Fn(&Replay<A>, &[Judged], usize, &std::path::Path) -> String,
) -> u8 {
    let Probed {
        server,
        revision,
        drives,
        drive_names,
        handles,
        actions,
        transcript,
        findings,
        transport_error,
        focus,
        model,
        seconds: probe_seconds,
    } = p;
    let requests = transcript
        .iter()
        .filter(|l| {
            l.get("dir") == Some(&json!("c2s"))
                && (l.pointer("/msg/method").is_some() || l.get("body").is_some())
        })
        .count();
    let failing: Vec<&Judged> = findings.iter().filter(|f| fails(f, args.strict)).collect();
    let _ = std::fs::create_dir_all(&args.out);
    let run_file = args.out.join(format!("probe-{seed}.jsonl"));
    let _ = std::fs::write(&run_file, to_jsonl(&transcript));

    let mut shrunk = None;
    if let Some(first) = failing.first().filter(|_| args.shrink_seconds > 0) {
        let rule = first.violation.rule;
        let strict = args.strict;
        let s0 = Instant::now();
        let budget = s0 + Duration::from_secs(args.shrink_seconds);
        let mut best = Replay {
            applied: actions.clone(),
            transcript: transcript.clone(),
            model,
            handles: BTreeMap::new(),
        };
        let focus_step = focus.as_ref().map(|f| f.step);
        let mut replays = 0;
        let mut best_at = 0.0;
        // A candidate still fails when it breaks the same rule, or any rule about the same task
        // or job (named by the step that made it): a timing edge can turn one symptom of a
        // broken server into another (a job read completed a few milliseconds before its cancel
        // was refused, or after), and requiring the very rule would then throw good candidates
        // away.
        let mut test = |cand: &[A]| {
            replays += 1;
            match replay(cand) {
                Ok(r) => {
                    let same_handle = |f: &Judged| {
                        focus_step.is_some()
                            && f.task_id.as_deref().and_then(|t| r.handles.get(t)).copied()
                                == focus_step
                    };
                    let still = judge(r.model, &r.transcript)
                        .iter()
                        .any(|f| fails(f, strict) && (f.violation.rule == rule || same_handle(f)));
                    if still && r.applied.len() <= best.applied.len() {
                        if r.applied.len() < best.applied.len() {
                            best_at = secs(s0.elapsed());
                        }
                        best = r;
                    }
                    still
                }
                Err(_) => false,
            }
        };
        // First the failing handle's own actions alone (one replay, often enough), then ddmin.
        let mut start = actions.clone();
        if let Some(only) = focus.map(|f| f.actions) {
            if only.len() < actions.len() && test(&only) {
                start = only;
            }
        }
        let _ = shrink::ddmin(start, budget, &mut test);
        let file = args.out.join(format!("probe-{seed}-shrunk.jsonl"));
        let _ = std::fs::write(&file, to_jsonl(&best.transcript));
        let verdicts = judge(best.model, &best.transcript);
        let text = scenario(&best, &verdicts, actions.len(), &file);
        let sfile = args.out.join(format!("probe-{seed}-scenario.txt"));
        let _ = std::fs::write(&sfile, &text);
        shrunk = Some(Shrunk {
            steps: best.applied.len(),
            from_steps: actions.len(),
            actions: serde_json::to_value(&best.applied).unwrap_or_default(),
            transcript: file.display().to_string(),
            scenario: sfile.display().to_string(),
            text,
            replays,
            seconds: secs(s0.elapsed()),
            best_seconds: best_at,
        });
    }

    let code = if !failing.is_empty() {
        1
    } else if transport_error.is_some() || handles.1 == 0 {
        2
    } else {
        0
    };
    let unusable_reason = match (&transport_error, handles.1) {
        (Some(e), _) => Some(e.clone()),
        (None, 0) => Some(format!(
            "no request made a {}: nothing was probed",
            handles.0.trim_end_matches('s')
        )),
        _ => None,
    };
    if args.json {
        let mut doc = json!({
            "seed": seed,
            "server": server,
            "revision": revision,
            "steps": actions.len(),
            "requests": requests,
            "tasks": handles.1,
            "seconds": probe_seconds,
            "strict": args.strict,
            "transcript": run_file.display().to_string(),
            "findings": findings,
            "shrunk": shrunk,
            "unusable": unusable_reason,
            "exit": code,
        });
        doc[drives.0] = drives.1;
        doc[handles.0] = json!(handles.1);
        outln!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    } else {
        outln!(
            "server: {server} ({revision}); {}: {}",
            drives.0,
            drive_names.join(", ")
        );
        outln!(
            "ran {} step(s), {requests} request(s), {} {} in {probe_seconds:.1} s; transcript {}",
            actions.len(),
            handles.1,
            handles.0,
            run_file.display()
        );
        // An unusable run found nothing because it probed nothing: said below, not as "no finding".
        if findings.is_empty() && unusable_reason.is_none() {
            outln!("no finding");
        }
        for f in &findings {
            outln!(
                "  line {}: {} {}{}: {}",
                f.line,
                if f.violation.level == Level::Must {
                    "MUST"
                } else {
                    "SHOULD"
                },
                f.violation.rule.code(),
                f.task_id
                    .as_deref()
                    .map(|t| format!(" [{t}]"))
                    .unwrap_or_default(),
                f.violation.detail
            );
        }
        if let Some(s) = &shrunk {
            outln!(
                "shrunk from {} to {} step(s) in {:.1} s ({} replays, the shortest after {:.1} s): {}\nreproduce: longcall check {}{}\n",
                s.from_steps,
                s.steps,
                s.seconds,
                s.replays,
                s.best_seconds,
                s.transcript,
                s.transcript,
                if args.strict { " --strict" } else { "" }
            );
            out!("{}", s.text);
        }
        if let Some(r) = &unusable_reason {
            outln!("unusable: {r}");
        }
        outln!(
            "probe: {} failing finding(s) ({} total){}",
            failing.len(),
            findings.len(),
            if args.strict {
                " (strict: warnings fail)"
            } else {
                ""
            }
        );
    }
    code
}

pub fn unusable(args: &ProbeArgs, seed: u64, why: &str) -> u8 {
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&json!({"seed": seed, "unusable": why, "exit": 2}))
                .unwrap_or_default()
        );
    } else {
        outln!("unusable: {why}");
    }
    2
}

/// The shrunk run in words, for an issue on the server's tracker. It only renders what the
/// transcript holds and what [`judge`] said.
fn scenario(
    server: &str,
    found_by: &str,
    run: &Replay,
    verdicts: &[Judged],
    from_steps: usize,
    file: &std::path::Path,
) -> String {
    use std::fmt::Write;
    let mut labels: Vec<String> = Vec::new();
    let mut label = |id: &str| -> String {
        let i = labels.iter().position(|l| l == id).unwrap_or_else(|| {
            labels.push(id.to_string());
            labels.len() - 1
        });
        format!("T{}", i + 1)
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Scenario against {server} ({}), found by `{found_by}` and shrunk from {from_steps} to {} step(s):\n",
        match run.model {
            Model::Task2026 => "MCP 2026-07-28 tasks extension",
            _ => "MCP 2025-11-25 tasks",
        },
        run.applied.len()
    );
    let lines = &run.transcript;
    let mut n = 0;
    let mut last_t = 0u64;
    for (i, l) in lines.iter().enumerate() {
        let Some(msg) = l.get("msg").filter(|m| m.is_object()) else {
            continue;
        };
        let (Some(method), Some(id)) = (msg.get("method").and_then(Value::as_str), msg.get("id"))
        else {
            continue;
        };
        if l.get("dir").and_then(Value::as_str) != Some("c2s") {
            continue;
        }
        let t = l.get("t_ms").and_then(Value::as_u64).unwrap_or(0);
        let who = l
            .pointer("/http/principal")
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty() && *p != "a")
            .map(|p| format!("as principal {p}: "))
            .unwrap_or_default();
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        let what = match (method, params.get("taskId").and_then(Value::as_str)) {
            ("tools/call", _) => format!(
                "tools/call {} {}{}",
                params.get("name").and_then(Value::as_str).unwrap_or("?"),
                params.get("arguments").cloned().unwrap_or(Value::Null),
                if params.get("inputResponses").is_some() {
                    " (with inputResponses)"
                } else {
                    ""
                }
            ),
            ("tasks/update", Some(tid)) => format!(
                "tasks/update {} answering {}",
                label(tid),
                params
                    .get("inputResponses")
                    .and_then(Value::as_object)
                    .map(|m| m.keys().cloned().collect::<Vec<_>>().join(", "))
                    .unwrap_or_default()
            ),
            (m, Some(tid)) => format!("{m} {}", label(tid)),
            (m, None) => m.to_string(),
        };
        // The answer: the next s2c line with this id.
        let answer = lines.iter().enumerate().skip(i + 1).find(|(_, a)| {
            a.get("dir").and_then(Value::as_str) == Some("s2c")
                && a.pointer("/msg/id") == Some(id)
                && a.pointer("/msg/method").is_none()
        });
        let said = match answer {
            None => "no answer".to_string(),
            Some((_, a)) => {
                let http = a
                    .pointer("/http/status")
                    .and_then(Value::as_u64)
                    .filter(|s| *s != 200)
                    .map(|s| format!("HTTP {s} "))
                    .unwrap_or_default();
                match (a.pointer("/msg/result"), a.pointer("/msg/error")) {
                    (Some(r), _) => {
                        let task = r.get("task").unwrap_or(r);
                        match (
                            task.get("taskId").and_then(Value::as_str),
                            task.get("status").and_then(Value::as_str),
                        ) {
                            (Some(tid), Some(st)) => {
                                let keys = task
                                    .get("inputRequests")
                                    .and_then(Value::as_object)
                                    .map(|m| {
                                        format!(
                                            " asking {}",
                                            m.keys().cloned().collect::<Vec<_>>().join(", ")
                                        )
                                    })
                                    .unwrap_or_default();
                                let iv = task
                                    .get("pollIntervalMs")
                                    .or_else(|| task.get("pollInterval"))
                                    .map(|v| format!(", poll interval {v} ms"))
                                    .unwrap_or_default();
                                format!("{http}task {} \"{st}\"{keys}{iv}", label(tid))
                            }
                            _ => match r.get("resultType").and_then(Value::as_str) {
                                Some(rt) => format!("{http}resultType \"{rt}\""),
                                None => format!("{http}a result"),
                            },
                        }
                    }
                    (None, Some(e)) => format!(
                        "{http}error {} ({})",
                        e.get("code").cloned().unwrap_or(Value::Null),
                        e.get("message").and_then(Value::as_str).unwrap_or("")
                    ),
                    _ => format!("{http}no JSON-RPC message"),
                }
            }
        };
        if matches!(method, "server/discover" | "initialize") {
            // The session's opening, before the steps the probe chose (and shrinking kept).
            let _ = writeln!(s, "0. opening: {what} -> {said}");
        } else {
            n += 1;
            let wait = if n > 1 {
                format!("after {} ms, ", t.saturating_sub(last_t))
            } else {
                String::new()
            };
            let _ = writeln!(s, "{n}. {wait}{who}{what} -> {said}");
        }
        last_t = t;
        let answer_line = answer.map_or(0, |(j, _)| j + 1);
        for v in verdicts
            .iter()
            .filter(|v| v.line == answer_line || v.line == i + 1)
        {
            let _ = writeln!(
                s,
                "   ^ {} {}: {}",
                if v.violation.level == Level::Must {
                    "MUST"
                } else {
                    "SHOULD"
                },
                v.violation.rule.code(),
                v.violation.detail
            );
        }
    }
    let _ = writeln!(
        s,
        "\nThe transcript of this run is {}; `longcall check` on it reports the same finding.",
        file.file_name().and_then(|n| n.to_str()).unwrap_or("")
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_reported_to_the_millisecond() {
        assert_eq!(secs(Duration::from_nanos(5_037_286_865)), 5.037);
        assert_eq!(
            serde_json::to_string(&secs(Duration::from_micros(1_500))).unwrap(),
            "0.002"
        );
    }

    #[test]
    fn a_scenario_names_the_flags_that_repeat_its_run() {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            probe: ProbeArgs,
        }
        let cli = <Cli as clap::Parser>::parse_from([
            "probe",
            "http://127.0.0.1:1/mcp",
            "--revision",
            "2025",
            "--auth",
            "Bearer secret",
            "--strict",
        ]);
        // The key itself is never written into a scenario meant for an issue tracker.
        assert_eq!(
            found_by(&cli.probe, 7),
            "longcall probe http://127.0.0.1:1/mcp --seed 7 --revision 2025 --auth ... --strict"
        );
        let jobs = <Cli as clap::Parser>::parse_from([
            "probe",
            "--jobs",
            "http://127.0.0.1:2",
            "--auth",
            "Bearer a",
            "--model",
            "demo-image={}",
            "--max-steps",
            "40",
        ]);
        assert_eq!(
            found_by(&jobs.probe, 9),
            "longcall probe --jobs http://127.0.0.1:2 --seed 9 --model 'demo-image={}' --auth ... --max-steps 40"
        );
    }

    #[test]
    fn a_2025_tool_runs_as_a_task_only_where_listed_so() {
        let tool = |execution: Value| json!({"name": "render", "execution": execution});
        let plain = json!({"name": "echo"});
        for (entry, on_2025) in [
            (plain.clone(), false),
            (tool(json!({"taskSupport": "forbidden"})), false),
            (tool(json!({"taskSupport": "sometimes"})), false),
            (tool(json!({"taskSupport": "optional"})), true),
            (tool(json!({"taskSupport": "required"})), true),
        ] {
            assert_eq!(
                runs_as_task(Model::Task2025, &entry).is_some(),
                on_2025,
                "{entry}"
            );
            // On 2026 the server decides per call: any listed tool may be driven.
            assert!(runs_as_task(Model::Task2026, &entry).is_some(), "{entry}");
        }
        assert_eq!(runs_as_task(Model::Task2025, &json!({"name": ""})), None);
    }
}
