//! Invariants of the reference servers over arbitrary operation sequences (proptest, host only).
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};

use longcall::ownership::Owner;
use longcall::server::{
    CancelMode, JobBook, JobBookConfig, RegistryConfig, TaskRegistry, WaitFor, WriteOutcome,
    TASK_NOT_FOUND_MESSAGE,
};
use longcall::snapshot::{restore, save};
use longcall::view::{RpcError, ToolResult};
use longcall::{Model, Status};
use proptest::prelude::*;
use serde_json::json;

// ---- task registry ------------------------------------------------------------------------------

const PRINCIPALS: [&str; 2] = ["alice", "bob"];
const TASK_IDS: [&str; 3] = ["t0", "t1", "t2"];

#[derive(Clone, Debug)]
enum Op {
    Create(usize, usize),
    Ask(usize, u8),
    Complete(usize, bool),
    Fail(usize),
    Settle(usize),
    Message(usize, bool),
    Get(usize, usize),
    Update(usize, usize, Vec<u8>),
    Cancel(usize, usize),
    Result(usize, usize),
    List(usize),
    Tick(u16),
}

fn op() -> impl Strategy<Value = Op> {
    let p = 0..PRINCIPALS.len();
    let t = || 0..TASK_IDS.len();
    prop_oneof![
        (p.clone(), t()).prop_map(|(p, t)| Op::Create(p, t)),
        (t(), 0u8..5).prop_map(|(t, k)| Op::Ask(t, k)),
        (t(), any::<bool>()).prop_map(|(t, e)| Op::Complete(t, e)),
        t().prop_map(Op::Fail),
        t().prop_map(Op::Settle),
        (t(), any::<bool>()).prop_map(|(t, b)| Op::Message(t, b)),
        (p.clone(), t()).prop_map(|(p, t)| Op::Get(p, t)),
        (p.clone(), t(), prop::collection::vec(0u8..5, 0..3))
            .prop_map(|(p, t, k)| Op::Update(p, t, k)),
        (p.clone(), t()).prop_map(|(p, t)| Op::Cancel(p, t)),
        (p.clone(), t()).prop_map(|(p, t)| Op::Result(p, t)),
        p.prop_map(Op::List),
        (0u16..400).prop_map(Op::Tick),
    ]
}

fn registry() -> impl Strategy<Value = TaskRegistry> {
    (
        prop_oneof![Just(Model::Task2026), Just(Model::Task2025)],
        any::<bool>(),
        prop::option::of(100u64..1_000),
        prop::option::of(0u64..500),
        1usize..3,
    )
        .prop_map(|(model, immediate, ttl, retention, page)| {
            let config = RegistryConfig {
                ttl_ms: ttl,
                max_ttl_ms: None,
                poll_interval_ms: Some(100),
                retention_ms: retention,
                max_tasks_per_principal: None,
                cancel: if immediate {
                    CancelMode::Immediate
                } else {
                    CancelMode::Cooperative
                },
                page_size: page,
            };
            TaskRegistry::new(model, config).unwrap()
        })
}

fn key(k: u8) -> String {
    format!("k{k}")
}

/// Applies one op at `*now` and returns its answer as text (for equality across registries).
fn apply(r: &mut TaskRegistry, now: &mut u64, op: &Op) -> String {
    let n = *now;
    let tool = |e: bool| ToolResult {
        is_error: e,
        value: json!({"isError": e}).into(),
    };
    match op {
        Op::Create(p, t) => format!("{:?}", r.create(n, PRINCIPALS[*p], TASK_IDS[*t], None)),
        Op::Ask(t, k) => format!(
            "{:?}",
            r.request_input(n, TASK_IDS[*t], &key(*k), json!({"method": "roots/list"}))
        ),
        Op::Complete(t, e) => format!("{:?}", r.complete(n, TASK_IDS[*t], tool(*e))),
        Op::Fail(t) => format!(
            "{:?}",
            r.fail(
                n,
                TASK_IDS[*t],
                RpcError {
                    code: -32000,
                    message: "x".into(),
                    data: None
                }
            )
        ),
        Op::Settle(t) => format!("{:?}", r.settle_cancelled(n, TASK_IDS[*t])),
        Op::Message(t, b) => format!(
            "{:?}",
            r.set_status_message(n, TASK_IDS[*t], b.then(|| "m".to_string()))
        ),
        Op::Get(p, t) => format!("{:?}", r.get(n, PRINCIPALS[*p], TASK_IDS[*t])),
        Op::Update(p, t, ks) => format!(
            "{:?}",
            r.update(
                n,
                PRINCIPALS[*p],
                TASK_IDS[*t],
                ks.iter().map(|k| (key(*k), json!(*k))).collect()
            )
        ),
        Op::Cancel(p, t) => format!("{:?}", r.cancel(n, PRINCIPALS[*p], TASK_IDS[*t])),
        Op::Result(p, t) => format!("{:?}", r.result(n, PRINCIPALS[*p], TASK_IDS[*t])),
        Op::List(p) => format!("{:?}", r.list(n, PRINCIPALS[*p], None)),
        Op::Tick(dt) => {
            *now += u64::from(*dt);
            format!("{:?}", r.handle_timeout(*now))
        }
    }
}

/// What the test remembers about the current incarnation of each task id.
#[derive(Default, Clone)]
struct Seen {
    owner: Option<usize>,
    terminal: Option<Status>,
    keys: BTreeSet<String>,
}

fn not_found() -> RpcError {
    RpcError {
        code: -32602,
        message: TASK_NOT_FOUND_MESSAGE.into(),
        data: None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn registry_invariants(mut r in registry(), ops in prop::collection::vec(op(), 1..60)) {
        let model = r.model();
        let mut now = 0u64;
        let mut seen: BTreeMap<usize, Seen> = BTreeMap::new();
        for op in &ops {
            let before_state = save(&r).unwrap();
            let before: Vec<Option<Status>> =
                TASK_IDS.iter().map(|id| r.peek(id).map(|v| v.status)).collect();
            // Ownership, from the test's own memory.
            let foreign = |p: usize, t: usize, seen: &BTreeMap<usize, Seen>| {
                seen.get(&t).and_then(|s| s.owner).is_none_or(|o| o != p)
            };
            match op {
                Op::Get(p, t) | Op::Cancel(p, t) | Op::Result(p, t) if foreign(*p, *t, &seen) => {
                    let got = apply(&mut r, &mut now, op);
                    let want = match op {
                        Op::Result(..) if model == Model::Task2026 => {
                            format!("{:?}", r.result(now, PRINCIPALS[*p], "never"))
                        }
                        _ => format!("{:?}", Err::<(), _>(not_found())),
                    };
                    prop_assert_eq!(got, want);
                    prop_assert_eq!(save(&r).unwrap(), before_state, "foreign call changed state");
                    continue;
                }
                Op::Update(p, t, _) if foreign(*p, *t, &seen) => {
                    let got = apply(&mut r, &mut now, op);
                    prop_assert_eq!(got, format!("{:?}", Err::<(), _>(not_found())));
                    prop_assert_eq!(save(&r).unwrap(), before_state, "foreign call changed state");
                    continue;
                }
                _ => {}
            }
            let answer = apply(&mut r, &mut now, op);
            match op {
                Op::Create(p, t) if answer.starts_with("Ok") => {
                    seen.insert(*t, Seen { owner: Some(*p), ..Seen::default() });
                }
                Op::Ask(t, k) => {
                    let s = seen.entry(*t).or_default();
                    let k = key(*k);
                    if answer.contains("Applied") {
                        prop_assert!(!s.keys.contains(&k), "input key reused: {}", k);
                        s.keys.insert(k);
                    } else if s.keys.contains(&k) && r.peek(TASK_IDS[*t]).is_some() {
                        prop_assert!(answer.contains("Duplicate"), "reuse not refused: {}", answer);
                    }
                }
                Op::Complete(t, _) | Op::Fail(t) | Op::Settle(t) => {
                    if before[*t].is_some_and(|s| s.is_terminal()) {
                        prop_assert!(!answer.contains("Applied"), "second terminal write applied");
                    }
                    if answer.contains("Applied") {
                        let want = match op {
                            Op::Complete(_, true) if model == Model::Task2025 => Status::Failed,
                            Op::Complete(..) => Status::Completed,
                            Op::Fail(_) => Status::Failed,
                            _ => Status::Cancelled,
                        };
                        prop_assert_eq!(r.peek(TASK_IDS[*t]).map(|v| v.status), Some(want));
                    }
                }
                Op::Get(..) if model == Model::Task2026 && answer.starts_with("Ok") => {
                    // Payload follows status (checked on the parsed view below).
                }
                Op::List(p) => {
                    if let Ok(page) = r.list(now, PRINCIPALS[*p], None) {
                        for t in page.tasks {
                            let i = TASK_IDS.iter().position(|id| *id == t.task_id).unwrap();
                            prop_assert_eq!(seen.get(&i).and_then(|s| s.owner), Some(*p));
                        }
                    }
                }
                _ => {}
            }
            // Terminal is absorbing; payload follows status.
            for (i, id) in TASK_IDS.iter().enumerate() {
                let cur = r.peek(id);
                let s = seen.entry(i).or_default();
                match &cur {
                    None => { *s = Seen::default(); }
                    Some(v) => {
                        if let Some(t) = s.terminal {
                            prop_assert_eq!(v.status, t, "terminal status changed for {}", id);
                        } else if v.status.is_terminal() {
                            s.terminal = Some(v.status);
                        }
                        if model == Model::Task2026 {
                            prop_assert_eq!(!v.input_requests.is_empty(), v.status == Status::InputRequired);
                            prop_assert_eq!(v.result.is_some(), v.status == Status::Completed);
                            prop_assert_eq!(v.error.is_some(), v.status == Status::Failed);
                        }
                        prop_assert!(v.last_updated_at_ms >= v.created_at_ms);
                    }
                }
            }
            if let Op::Tick(_) = op {
                prop_assert!(r.poll_timeout().is_none_or(|t| t > now));
            }
        }
    }

    #[test]
    fn registry_snapshot_gives_the_same_answers(
        r in registry(),
        ops in prop::collection::vec(op(), 1..50),
        split in 0usize..50,
    ) {
        let mut a = r;
        let mut now_a = 0u64;
        let split = split.min(ops.len());
        for op in &ops[..split] {
            apply(&mut a, &mut now_a, op);
        }
        let mut b: TaskRegistry = restore(&save(&a).unwrap()).unwrap();
        prop_assert_eq!(&a, &b);
        let mut now_b = now_a;
        for op in &ops[split..] {
            prop_assert_eq!(apply(&mut a, &mut now_a, op), apply(&mut b, &mut now_b, op));
        }
        prop_assert_eq!(save(&a).unwrap(), save(&b).unwrap());
    }
}

// ---- job book -----------------------------------------------------------------------------------

fn owners() -> [Owner; 4] {
    let o = |w: &str, m: &str| Owner {
        workspace: w.into(),
        member: m.into(),
    };
    [o("w0", "a"), o("w0", "b"), o("w1", "a"), o("w1", "b")]
}

#[derive(Clone, Debug)]
enum JOp {
    Submit(usize, Option<u8>),
    Dispatch,
    Complete(u8),
    Fail(u8),
    Expire(u8),
    Cancel(usize, u8, Option<u8>),
    Get(usize, u8),
    Wait(usize, Vec<u8>, bool, bool),
    Credits(usize, Option<u8>),
}

fn jop() -> impl Strategy<Value = JOp> {
    let o = || 0usize..4;
    let j = || 0u8..12;
    prop_oneof![
        3 => (o(), prop::option::of(0u8..3)).prop_map(|(o, k)| JOp::Submit(o, k)),
        2 => Just(JOp::Dispatch),
        1 => j().prop_map(JOp::Complete),
        1 => j().prop_map(JOp::Fail),
        1 => j().prop_map(JOp::Expire),
        2 => (o(), j(), prop::option::of(0u8..3)).prop_map(|(o, j, k)| JOp::Cancel(o, j, k)),
        1 => (o(), j()).prop_map(|(o, j)| JOp::Get(o, j)),
        1 => (o(), prop::collection::vec(j(), 0..4), any::<bool>(), any::<bool>())
            .prop_map(|(o, ids, any, inc)| JOp::Wait(o, ids, any, inc)),
        1 => (0usize..2, prop::option::of(0u8..4)).prop_map(|(w, b)| JOp::Credits(w, b)),
    ]
}

fn book() -> impl Strategy<Value = JobBook> {
    (1usize..3, 1usize..4, 0u64..2).prop_map(|(c, q, cost)| {
        JobBook::new(JobBookConfig {
            concurrency_per_workspace: c,
            queue_limit_per_workspace: q,
            cost_per_job: cost,
        })
        .unwrap()
    })
}

fn jid(j: u8) -> String {
    format!("j{j}")
}

/// Applies one op; `next` is the host's id counter.
fn japply(b: &mut JobBook, now: &mut u64, next: &mut u8, op: &JOp) -> String {
    *now += 1;
    let n = *now;
    let os = owners();
    match op {
        JOp::Submit(o, k) => {
            let id = jid(*next);
            *next = next.wrapping_add(1);
            let key = k.map(|k| format!("s{k}"));
            format!("{:?}", b.submit(n, &os[*o], &id, key.as_deref()))
        }
        JOp::Dispatch => format!("{:?}", b.dispatch(n)),
        JOp::Complete(j) => format!("{:?}", b.complete(n, &jid(*j), json!({"url": j}))),
        JOp::Fail(j) => format!("{:?}", b.fail(n, &jid(*j), json!({"code": "x"}))),
        JOp::Expire(j) => format!("{:?}", b.expire(n, &jid(*j))),
        JOp::Cancel(o, j, k) => {
            let key = k.map(|k| format!("c{k}"));
            format!("{:?}", b.cancel(n, &os[*o], &jid(*j), key.as_deref()))
        }
        JOp::Get(o, j) => format!("{:?}", b.get(&os[*o], &jid(*j))),
        JOp::Wait(o, ids, any, inc) => {
            let ids: Vec<String> = ids.iter().map(|j| jid(*j)).collect();
            let w = if *any { WaitFor::Any } else { WaitFor::All };
            format!("{:?}", b.wait(n, &os[*o], &ids, w, *inc))
        }
        JOp::Credits(w, bal) => {
            b.set_credits(&format!("w{w}"), bal.map(u64::from));
            String::new()
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn job_book_invariants(mut b in book(), ops in prop::collection::vec(jop(), 1..80)) {
        let os = owners();
        let limit = b.config().concurrency_per_workspace;
        let (mut now, mut next) = (0u64, 0u8);
        let mut status: BTreeMap<String, Status> = BTreeMap::new();
        let mut submit_keys: BTreeMap<(usize, u8), String> = BTreeMap::new();
        let mut cancel_keys: BTreeMap<(usize, u8), (u8, String)> = BTreeMap::new();
        for op in &ops {
            let before_state = save(&b).unwrap();
            let len_before = b.len();
            if let JOp::Cancel(o, j, None) = op {
                // A processing job of the caller: the answer is always the 409, never a cancel.
                if b.peek(&jid(*j)).is_some_and(|(owner, v)| {
                    owner == os[*o] && v.status.phase() == Status::Processing
                }) {
                    let a = b.clone().cancel(now + 1, &os[*o], &jid(*j), None);
                    prop_assert_eq!(a.unwrap_err().code, "job_generation_already_started");
                }
            }
            let answer = japply(&mut b, &mut now, &mut next, op);
            match op {
                JOp::Submit(o, Some(k)) => {
                    if let Some(orig) = submit_keys.get(&(*o, *k)) {
                        prop_assert!(answer.contains(&format!("id: {orig:?}")), "{}", answer);
                        prop_assert_eq!(b.len(), len_before, "a replayed key created a job");
                    } else if answer.starts_with("Ok") {
                        submit_keys.insert((*o, *k), jid(next.wrapping_sub(1)));
                    }
                }
                JOp::Get(o, j) | JOp::Cancel(o, j, None)
                    if b.peek(&jid(*j)).is_none_or(|(owner, _)| owner != os[*o]) =>
                {
                    let unknown = format!("{:?}", b.get(&os[*o], "never"));
                    prop_assert_eq!(&answer, &unknown);
                    prop_assert_eq!(save(&b).unwrap(), before_state, "foreign call changed state");
                }
                _ => {}
            }
            if let JOp::Cancel(o, j, Some(k)) = op {
                match cancel_keys.get(&(*o, *k)) {
                    Some((oj, first)) if oj == j => prop_assert_eq!(&answer, first),
                    Some(_) => prop_assert!(answer.contains("idempotency_key_mismatch")),
                    None => {
                        cancel_keys.insert((*o, *k), (*j, answer.clone()));
                    }
                }
            }
            if let JOp::Wait(o, ids, _, _) = op {
                if answer.starts_with("Ok") {
                    for j in ids {
                        let mine = b.peek(&jid(*j)).is_some_and(|(owner, _)| owner == os[*o]);
                        prop_assert_eq!(mine, !answer.contains(&format!("NotFound {{ id: {:?} }}", jid(*j))));
                    }
                }
            }
            // Concurrency never exceeds the limit; statuses move only along the table.
            for w in ["w0", "w1"] {
                prop_assert!(b.count(w, Status::Processing) <= limit);
            }
            for j in 0..next {
                let id = jid(j);
                let Some((_, v)) = b.peek(&id) else { continue };
                if let Some(prev) = status.get(&id) {
                    if prev.is_terminal() {
                        prop_assert_eq!(v.status, *prev, "terminal changed for {}", id);
                    }
                    prop_assert!(
                        !(prev.phase() == Status::Processing && v.status == Status::Canceled),
                        "processing -> canceled for {}", id
                    );
                    prop_assert!(longcall::lifecycle::observe(Model::Job, *prev, v.status)
                        .unwrap()
                        .is_consistent());
                }
                status.insert(id, v.status);
            }
            // Each submit key names at most one job.
            prop_assert!(submit_keys.len() <= b.len());
        }
    }

    #[test]
    fn job_book_snapshot_gives_the_same_answers(
        b in book(),
        ops in prop::collection::vec(jop(), 1..60),
        split in 0usize..60,
    ) {
        let mut a = b;
        let (mut now, mut next) = (0u64, 0u8);
        let split = split.min(ops.len());
        for op in &ops[..split] {
            japply(&mut a, &mut now, &mut next, op);
        }
        let mut c: JobBook = restore(&save(&a).unwrap()).unwrap();
        prop_assert_eq!(&a, &c);
        let (mut now_c, mut next_c) = (now, next);
        for op in &ops[split..] {
            prop_assert_eq!(
                japply(&mut a, &mut now, &mut next, op),
                japply(&mut c, &mut now_c, &mut next_c, op)
            );
        }
        prop_assert_eq!(save(&a).unwrap(), save(&c).unwrap());
    }
}

#[test]
fn write_outcome_is_reported_not_panicked() {
    // A smoke check that the outcome type round-trips through serde (hosts log it).
    let w = WriteOutcome::IgnoredTerminal {
        status: Status::Completed,
    };
    let text = serde_json::to_string(&w).unwrap();
    assert_eq!(text, r#"{"kind":"ignored_terminal","status":"completed"}"#);
    assert_eq!(serde_json::from_str::<WriteOutcome>(&text).unwrap(), w);
}
