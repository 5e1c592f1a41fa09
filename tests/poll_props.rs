//! Properties of poll scheduling, batch planning and admission (host only: proptest).
#![cfg(not(target_arch = "wasm32"))]

use std::collections::HashSet;

use longcall::admission::{classify, Advice, ErrorCode, SubmitAnswer, Submitted};
use longcall::batch::{plan_waits, WaitFor, MAX_IDS_PER_WAIT};
use longcall::poll::{plan, Jitter, PollPolicy, PollSchedule, PollStep};
use longcall::snapshot;
use longcall::time::later;
use proptest::prelude::*;

fn jitter() -> impl Strategy<Value = Jitter> {
    prop_oneof![
        Just(Jitter::None),
        Just(Jitter::Full),
        Just(Jitter::Equal),
        Just(Jitter::Decorrelated),
    ]
}

/// Valid policies, including extreme ones.
fn policy() -> impl Strategy<Value = PollPolicy> {
    (
        1u64..100_000,
        100u32..1000,
        0u64..1_000_000,
        jitter(),
        1u64..50_000,
        prop::option::of(1u32..50),
        any::<bool>(),
    )
        .prop_map(
            |(initial_ms, mult, extra_cap, jitter, min, max_polls, follow)| {
                let cap_ms = initial_ms.saturating_add(extra_cap);
                PollPolicy {
                    initial_ms,
                    multiplier_percent: mult,
                    cap_ms,
                    jitter,
                    min_interval_ms: min.min(cap_ms),
                    max_polls,
                    follow_server_interval: follow,
                }
            },
        )
}

/// Something a host may do between two polls.
#[derive(Clone, Debug)]
enum Event {
    Interval(Option<u64>),
    RetryAfter(u64),
    Progress,
    Deadline(Option<u64>),
    Ttl(Option<u64>),
    /// The answer arrives this long after the scheduled time.
    Late(u64),
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        prop::option::of(0u64..120_000).prop_map(Event::Interval),
        (0u64..120_000).prop_map(Event::RetryAfter),
        Just(Event::Progress),
        prop::option::of(0u64..2_000_000).prop_map(Event::Deadline),
        prop::option::of(0u64..2_000_000).prop_map(Event::Ttl),
        (0u64..10_000).prop_map(Event::Late),
        // Extremes: host numbers may be anything.
        Just(Event::Interval(Some(u64::MAX))),
        Just(Event::RetryAfter(u64::MAX)),
        Just(Event::Deadline(Some(u64::MAX))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    /// No poll before now + floor (min_interval, server hint) or before not_before; none after
    /// the watch deadline; the poll budget is never exceeded.
    ///
    /// Rules P-3, P-6.
    #[test]
    fn floors_and_deadlines_hold(
        p in policy(),
        seed in any::<u64>(),
        start in prop_oneof![0u64..1_000_000, Just(u64::MAX - 1_000), Just(u64::MAX)],
        events in prop::collection::vec(event(), 0..60),
    ) {
        let mut s = PollSchedule::new(p, seed).unwrap();
        let mut now = start;
        let mut polls = 0u32;
        for e in events {
            match e {
                Event::Interval(i) => s.handle_server_interval(i),
                Event::RetryAfter(d) => s.handle_retry_after(now, d),
                Event::Progress => s.handle_progress(),
                Event::Deadline(d) => s.set_deadline(d.map(|d| start.saturating_add(d))),
                Event::Ttl(t) => s.set_ttl_deadline(t.map(|t| start.saturating_add(t))),
                Event::Late(l) => now = now.saturating_add(l),
            }
            let floor = p.min_interval_ms.max(s.server_interval_ms().unwrap_or(0));
            match s.next(now) {
                PollStep::At(at) => {
                    polls += 1;
                    // The floor holds up to the latest time the core hands out (time::LATEST).
                    prop_assert!(at >= later(now, floor), "at {at} now {now} floor {floor}");
                    prop_assert!(at >= later(now, p.min_interval_ms));
                    if let Some(nb) = s.not_before() {
                        prop_assert!(at >= nb);
                    }
                    if let Some(d) = s.deadline() {
                        prop_assert!(at <= d, "at {at} after deadline {d}");
                    }
                    if let Some(ttl) = s.ttl_deadline() {
                        prop_assert!(now < ttl);
                    }
                    now = at;
                }
                PollStep::Stop(_) => {}
            }
            if let Some(max) = p.max_polls {
                prop_assert!(polls <= max);
            }
        }
    }

    /// A look asked for moves the armed poll only earlier, never before the floor counted from
    /// the end of the last poll or before `Retry-After`; asked again at once, it moves nothing.
    ///
    /// Rule P-15.
    #[test]
    fn a_look_asked_for_polls_early_but_never_below_the_floor(
        p in policy(),
        seed in any::<u64>(),
        events in prop::collection::vec(event(), 0..30),
        look_after in 0u64..200_000,
    ) {
        let mut s = PollSchedule::new(p, seed).unwrap();
        let start = 1_000_000u64;
        let mut now = start;
        s.handle_poll_answered();
        s.handle_poll_ended(now);
        for e in events {
            match e {
                Event::Interval(i) => s.handle_server_interval(i),
                Event::RetryAfter(d) => s.handle_retry_after(now, d),
                Event::Progress => s.handle_progress(),
                Event::Deadline(_) | Event::Ttl(_) => {}
                Event::Late(l) => now = now.saturating_add(l),
            }
        }
        prop_assume!(s.arm(now).is_none());
        let Some(armed) = s.armed() else { return Ok(()) };
        let look = now.saturating_add(look_after);
        s.handle_refresh(look);
        let moved = s.armed().unwrap();
        prop_assert!(moved <= armed, "moved later: {armed} -> {moved}");
        // The last poll ended at `start`.
        prop_assert!(moved >= later(start, s.floor_ms()).min(armed), "below the floor: {moved}");
        prop_assert!(moved >= look.min(armed));
        // As early as those allow: the present, not the backoff's next look.
        let earliest = look.max(later(start, s.floor_ms())).max(s.not_before().unwrap_or(0));
        prop_assert_eq!(moved, armed.min(earliest));
        if let Some(nb) = s.not_before() {
            prop_assert!(moved >= nb.min(armed));
        }
        s.handle_refresh(look);
        prop_assert_eq!(s.armed(), Some(moved));
        // Before any poll ended, the floor counts from the look itself.
        let mut fresh = PollSchedule::new(p, seed).unwrap();
        if fresh.arm(look).is_none() {
            if let Some(first) = fresh.armed() {
                fresh.handle_refresh(look);
                prop_assert_eq!(fresh.armed(), Some(first.min(later(look, p.min_interval_ms))));
            }
        }
    }

    /// Same seed, same schedule; a snapshot taken at any point continues identically.
    ///
    /// Rules P-2, P-8, S-4.
    #[test]
    fn deterministic_and_snapshot_exact(
        p in policy(),
        seed in any::<u64>(),
        hint in prop::option::of(0u64..60_000),
        split in 0usize..40,
    ) {
        let a = plan(p, seed, 0, 80, hint).unwrap();
        let b = plan(p, seed, 0, 80, hint).unwrap();
        prop_assert_eq!(&a, &b);

        let mut x = PollSchedule::new(p, seed).unwrap();
        x.handle_server_interval(hint);
        let mut now = 0;
        for _ in 0..split {
            if let PollStep::At(t) = x.next(now) { now = t; }
        }
        let mut y: PollSchedule = snapshot::restore(&snapshot::save(&x).unwrap()).unwrap();
        prop_assert_eq!(&x, &y);
        for _ in 0..40 {
            let (sx, sy) = (x.next(now), y.next(now));
            prop_assert_eq!(sx, sy);
            if let PollStep::At(t) = sx { now = t; }
        }
    }

    /// Every chunk holds 1 to 20 distinct ids; no id is lost or duplicated; terminal ids are
    /// never planned; duplicates and terminal ids are reported.
    ///
    /// Rules B-2, B-3.
    #[test]
    fn batch_plans_are_exact(
        raw in prop::collection::vec(0u32..80, 0..200),
        terminal in prop::collection::hash_set(0u32..80, 0..40),
        any_mode in any::<bool>(),
        timeout in prop::option::of(0u32..600),
    ) {
        let ids: Vec<String> = raw.iter().map(|n| format!("job_{n}")).collect();
        let terminal: HashSet<String> = terminal.iter().map(|n| format!("job_{n}")).collect();
        let wait_for = if any_mode { WaitFor::Any } else { WaitFor::All };
        let plan = plan_waits(
            ids.iter().map(String::as_str),
            |id| terminal.contains(id),
            wait_for,
            timeout,
            true,
        ).unwrap();

        let mut planned = Vec::new();
        for c in &plan.calls {
            prop_assert!(!c.job_ids.is_empty() && c.job_ids.len() <= MAX_IDS_PER_WAIT);
            prop_assert_eq!(c.wait_for, wait_for);
            prop_assert_eq!(c.timeout_seconds, timeout);
            planned.extend(c.job_ids.iter().cloned());
        }
        // Only the last chunk may be short.
        for c in plan.calls.iter().rev().skip(1) {
            prop_assert_eq!(c.job_ids.len(), MAX_IDS_PER_WAIT);
        }
        let mut want = Vec::new();
        let mut seen = HashSet::new();
        for id in &ids {
            if seen.insert(id.clone()) && !terminal.contains(id) {
                want.push(id.clone());
            }
        }
        prop_assert_eq!(&planned, &want, "first-seen order, no loss, no duplicate");
        for id in &plan.already_terminal {
            prop_assert!(terminal.contains(id) && !planned.contains(id));
        }
        let dup_count = ids.len() - seen.len();
        prop_assert_eq!(plan.duplicates.is_empty(), dup_count == 0);
        prop_assert!(plan.satisfied(|id| terminal.contains(id) || planned.iter().any(|p| p == id))
            || (wait_for == WaitFor::Any && planned.is_empty() && plan.already_terminal.is_empty()));
    }

    /// Whatever the answer, nothing advises a resubmit; a lost answer always reconciles.
    ///
    /// Rules.
    #[test]
    fn admission_never_resubmits(
        status in any::<u16>(),
        code in prop_oneof![
            Just("".to_string()), Just("queue_full".to_string()), Just("insufficient_credits".to_string()),
            Just("rate_limit_exceeded".to_string()), Just("not_found".to_string()), "[a-z_]{0,24}",
        ],
        retry_after in prop::option::of(any::<u64>()),
    ) {
        let answer = Submitted::Answer(SubmitAnswer {
            http_status: status,
            error_code: ErrorCode::parse(&code),
            retry_after_ms: retry_after,
        });
        let advice = classify(&answer);
        let text = serde_json::to_string(&advice).unwrap();
        prop_assert!(!text.contains("resubmit"));
        if code == "queue_full" {
            prop_assert!(matches!(advice, Advice::QueueFull { .. }), "{text}");
        }
        prop_assert_eq!(classify(&Submitted::LocalTimeout), Advice::Reconcile);
        prop_assert_eq!(classify(&Submitted::TransportError), Advice::Reconcile);
    }
}
