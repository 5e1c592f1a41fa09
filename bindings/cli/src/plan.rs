//! `longcall plan`: a poll schedule (`poll::plan`) or a `jobs_wait` batch plan
//! (`batch::plan_waits`), printed as a table.

use std::collections::HashSet;
use std::fmt::Write;

use clap::{Args, ValueEnum};
use longcall::batch::{plan_waits, WaitFor};
use longcall::poll::{plan, Jitter, PollPolicy};

/// Arguments of `longcall plan`.
#[derive(Args, Debug)]
pub struct PlanArgs {
    /// First backoff delay, ms.
    #[arg(long, default_value_t = 1000)]
    initial: u64,
    /// Growth per poll (2 doubles; 1.5 is allowed).
    #[arg(long, default_value_t = 2.0)]
    multiplier: f64,
    /// Largest backoff delay, ms.
    #[arg(long, default_value_t = 30_000)]
    cap: u64,
    /// How delays are randomized.
    #[arg(long, value_enum, default_value_t = JitterArg::Full)]
    jitter: JitterArg,
    /// Seed of the jitter (schedules are reproducible).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Global minimum between two polls, ms.
    #[arg(long, default_value_t = 500)]
    min_interval: u64,
    /// The server's interval hint (pollIntervalMs / pollInterval), ms: a floor.
    #[arg(long)]
    server_interval: Option<u64>,
    /// How many polls to print.
    #[arg(long, default_value_t = 10)]
    count: u32,
    /// Plan jobs_wait calls for these job ids instead of a poll schedule.
    #[arg(long, num_args = 1.., value_name = "ID")]
    wait: Vec<String>,
    /// Plan jobs_wait calls for a wave of N generated ids (job_1 .. job_N).
    #[arg(long, value_name = "N", conflicts_with = "wait")]
    wave: Option<usize>,
    /// Ids already known terminal (left out of the plan).
    #[arg(long, num_args = 1.., value_name = "ID")]
    terminal: Vec<String>,
    /// Wait for any or all.
    #[arg(long, value_enum, default_value_t = WaitForArg::All)]
    wait_for: WaitForArg,
    /// timeout_seconds per jobs_wait call.
    #[arg(long, default_value_t = 50)]
    timeout_seconds: u32,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum JitterArg {
    None,
    Full,
    Equal,
    Decorrelated,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum WaitForArg {
    All,
    Any,
}

/// Runs `longcall plan`; returns the exit code (2 for parameters the core refuses).
pub fn run(a: &PlanArgs) -> u8 {
    match if a.wait.is_empty() && a.wave.is_none() {
        poll_table(a)
    } else {
        wait_table(a)
    } {
        Ok(s) => {
            out!("{s}");
            0
        }
        Err(e) => {
            eprintln!("longcall plan: {e}");
            2
        }
    }
}

fn poll_table(a: &PlanArgs) -> Result<String, String> {
    if !(a.multiplier.is_finite() && a.multiplier >= 1.0 && a.multiplier <= 1000.0) {
        return Err("--multiplier must be between 1 and 1000".into());
    }
    let policy = PollPolicy {
        initial_ms: a.initial,
        multiplier_percent: (a.multiplier * 100.0).round() as u32,
        cap_ms: a.cap,
        jitter: match a.jitter {
            JitterArg::None => Jitter::None,
            JitterArg::Full => Jitter::Full,
            JitterArg::Equal => Jitter::Equal,
            JitterArg::Decorrelated => Jitter::Decorrelated,
        },
        min_interval_ms: a.min_interval,
        max_polls: None,
        follow_server_interval: true,
    };
    let times = plan(policy, a.seed, 0, a.count, a.server_interval)
        .map_err(|e| format!("{} ({})", e, e.code()))?;
    if a.json {
        let rows: Vec<_> = times
            .iter()
            .enumerate()
            .scan(0u64, |prev, (i, &at)| {
                let d = at - *prev;
                *prev = at;
                Some(serde_json::json!({"poll": i + 1, "at_ms": at, "delay_ms": d}))
            })
            .collect();
        return Ok(format!(
            "{}\n",
            serde_json::to_string_pretty(&serde_json::json!({"policy": policy, "seed": a.seed,
                "server_interval_ms": a.server_interval, "polls": rows}))
            .unwrap_or_default()
        ));
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "poll schedule: initial {} ms, x{}, cap {} ms, jitter {}, seed {}, min {} ms, server interval {}",
        a.initial,
        a.multiplier,
        a.cap,
        format!("{:?}", a.jitter).to_lowercase(),
        a.seed,
        a.min_interval,
        a.server_interval.map_or("none".into(), |v| format!("{v} ms (a floor)"))
    );
    let _ = writeln!(s, "{:>5}  {:>10}  {:>10}", "poll", "at (ms)", "delay (ms)");
    let mut prev = 0;
    for (i, at) in times.iter().enumerate() {
        let _ = writeln!(s, "{:>5}  {:>10}  {:>10}", i + 1, at, at - prev);
        prev = *at;
    }
    Ok(s)
}

fn wait_table(a: &PlanArgs) -> Result<String, String> {
    let generated: Vec<String> = match a.wave {
        Some(n) => (1..=n).map(|i| format!("job_{i}")).collect(),
        None => a.wait.clone(),
    };
    let terminal: HashSet<&str> = a.terminal.iter().map(String::as_str).collect();
    let wait_for = match a.wait_for {
        WaitForArg::All => WaitFor::All,
        WaitForArg::Any => WaitFor::Any,
    };
    let p = plan_waits(
        generated.iter().map(String::as_str),
        |id| terminal.contains(id),
        wait_for,
        Some(a.timeout_seconds),
        true,
    )
    .map_err(|e| format!("{} ({})", e, e.code()))?;
    if a.json {
        return Ok(format!(
            "{}\n",
            serde_json::to_string_pretty(&p).unwrap_or_default()
        ));
    }
    let mut s = String::new();
    let planned: usize = p.calls.iter().map(|c| c.job_ids.len()).sum();
    let _ = writeln!(
        s,
        "jobs_wait plan: {} id(s) given, {} planned in {} call(s) of at most 20, wait_for {}, timeout_seconds {}",
        generated.len(),
        planned,
        p.calls.len(),
        format!("{:?}", a.wait_for).to_lowercase(),
        a.timeout_seconds
    );
    let _ = writeln!(s, "{:>5}  {:>4}  ids", "call", "n");
    for (i, c) in p.calls.iter().enumerate() {
        let _ = writeln!(
            s,
            "{:>5}  {:>4}  {}",
            i + 1,
            c.job_ids.len(),
            c.job_ids.join(" ")
        );
    }
    if !p.duplicates.is_empty() {
        let _ = writeln!(s, "duplicates removed: {}", p.duplicates.join(" "));
    }
    if !p.already_terminal.is_empty() {
        let _ = writeln!(
            s,
            "already terminal, left out: {}",
            p.already_terminal.join(" ")
        );
    }
    if matches!(wait_for, WaitFor::Any) && p.calls.len() > 1 {
        let _ = writeln!(s, "any: send the calls concurrently; the first answer with a terminal job satisfies the wave");
    }
    Ok(s)
}
