//! The bad-input catalogue: every file in `tests/bad-inputs/` is one bad input, the typed error
//! code it must get, and a follow-up that must still work afterwards (the value stays usable).
//! The format is data only (see `tests/bad-inputs/README.md`) so the npm package can run the
//! same files through its JavaScript API.

use std::fs;
use std::path::Path;

use longcall::batch::{plan_waits, WaitFor};
use longcall::cancel::{classify_answer, CancelAnswer, CancelButton};
use longcall::outcome::{classify, Payload};
use longcall::poll::{plan, PollPolicy, PollSchedule};
use longcall::snapshot::{restore, save};
use longcall::tracker::{Input, Tracker, TrackerConfig};
use longcall::{Error, Model, Status};
use serde_json::Value;

/// `input_text`: a string, or a list of parts (strings, `{"repeat": s, "times": n}`).
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().map(text_of).collect(),
        Value::Object(o) => {
            let s = o["repeat"].as_str().expect("repeat");
            s.repeat(o["times"].as_u64().expect("times") as usize)
        }
        other => panic!("bad input_text part {other}"),
    }
}

/// Bytes of a wire input: `input_base64` (for invalid UTF-8), else the text.
fn bad_bytes(case: &Value) -> Vec<u8> {
    match case.get("input_base64").and_then(Value::as_str) {
        Some(b) => base64_decode(b),
        None => bad_text(case).into_bytes(),
    }
}

fn base64_decode(s: &str) -> Vec<u8> {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes().filter(|&c| c != b'=') {
        acc = (acc << 6) | A.iter().position(|&a| a == c).expect("base64") as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// Wire readers by name: `message` (JSON-RPC), `mcp2026_get_response` (bytes), and the JSON
/// readers (`mcp2026.read_get`, `sume.read_job`, ...) on the parsed value.
fn wire(reader: &str, bytes: &[u8]) -> Result<(), Error> {
    use longcall::wire::{mcp2025, mcp2026, sume, Limits, Message};
    match reader {
        "message" => return Message::parse(bytes).map(|_| ()),
        "mcp2026_get_response" => {
            return mcp2026::parse_get_response(bytes, &Limits::DEFAULT).map(|_| ())
        }
        _ => {}
    }
    let v = longcall::wire::read_json(bytes)?;
    match reader {
        "mcp2026.read_create" => mcp2026::read_create(&v).map(|_| ()),
        "mcp2026.read_get" => mcp2026::read_get(&v).map(|_| ()),
        "mcp2026.read_ack" => mcp2026::read_ack(&v).map(|_| ()),
        "mcp2026.read_tools_call" => mcp2026::read_tools_call(&v).map(|_| ()),
        "mcp2025.read_create" => mcp2025::read_create(&v).map(|_| ()),
        "mcp2025.read_get" => mcp2025::read_get(&v).map(|_| ()),
        "mcp2025.read_list" => mcp2025::read_list(&v).map(|_| ()),
        "sume.read_job" => sume::read_job(&v).map(|_| ()),
        "sume.read_create" => sume::read_create(&v).map(|_| ()),
        "sume.read_wait" => sume::read_wait(&v).map(|_| ()),
        other => panic!("unknown wire reader {other}"),
    }
}

/// The bad input as text: `input_text` when given (for inputs a JSON file cannot hold as a value:
/// 10k-deep nesting, 5 MB strings, broken JSON), else `input` re-serialized.
fn bad_text(case: &Value) -> String {
    match case.get("input_text") {
        Some(t) => text_of(t),
        None => case["input"].to_string(),
    }
}

fn malformed(what: &'static str, e: serde_json::Error) -> Error {
    Error::Malformed {
        what,
        reason: e.to_string(),
    }
}

fn parse<T: serde::de::DeserializeOwned>(what: &'static str, text: &str) -> Result<T, Error> {
    serde_json::from_str(text).map_err(|e| malformed(what, e))
}

fn model_of(case: &Value) -> Model {
    case["model"]
        .as_str()
        .expect("model")
        .parse()
        .expect("a valid model")
}

fn ids_of(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("ids")
        .iter()
        .map(|s| s.as_str().expect("id").to_string())
        .collect()
}

fn batch(ids: &[String]) -> Result<(), Error> {
    plan_waits(
        ids.iter().map(String::as_str),
        |_| false,
        WaitFor::All,
        None,
        true,
    )
    .map(|_| ())
}

fn tracker_for(case: &Value) -> Tracker {
    let config: TrackerConfig = match case.get("config") {
        Some(c) => serde_json::from_value(c.clone()).expect("config"),
        None => TrackerConfig::default(),
    };
    let mut t = Tracker::new(model_of(case), config).expect("tracker");
    for step in case
        .get("setup")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let input: Input = serde_json::from_value(step["input"].clone()).expect("setup input");
        t.handle_input(step["at"].as_u64().unwrap_or(0), input)
            .expect("setup step is accepted");
        let _ = t.drain(); // earlier outputs are not under test
    }
    t
}

fn snapshot_restore(kind: &str, text: &str) -> Result<(), Error> {
    match kind {
        "tracker" => restore::<Tracker>(text).map(|_| ()),
        "poll_schedule" => restore::<PollSchedule>(text).map(|_| ()),
        "cancel_button" => restore::<CancelButton>(text).map(|_| ()),
        other => panic!("unknown snapshot kind {other}"),
    }
}

/// Runs one case; returns the error code it got. Panics if the follow-up fails.
fn run(case: &Value) -> String {
    let target = case["target"].as_str().expect("target");
    let follow = &case["follow_up"];
    let err = match target {
        "model_parse" => {
            let e = bad_text(case).trim_matches('"').parse::<Model>().err();
            follow
                .as_str()
                .expect("follow_up")
                .parse::<Model>()
                .expect("follow-up model");
            e
        }
        "status_parse" => {
            let model = model_of(case);
            let e = Status::parse(model, case["input"].as_str().expect("input")).err();
            Status::parse(model, follow.as_str().expect("follow_up")).expect("follow-up status");
            e
        }
        "tracker_input" => {
            let mut t = tracker_for(case);
            let at = case["at"].as_u64().unwrap_or(1);
            let before = t.clone();
            let e = match parse::<Input>("tracker input", &bad_text(case)) {
                Ok(input) => t.handle_input(at, input).err(),
                Err(e) => Some(e),
            };
            assert_eq!(t, before, "the refused input changed the tracker");
            assert!(t
                .drain()
                .iter()
                .all(|o| !matches!(o, longcall::tracker::Output::Send { .. })));
            let input: Input =
                serde_json::from_value(follow["input"].clone()).expect("follow-up input");
            t.handle_input(follow["at"].as_u64().unwrap_or(at), input)
                .expect("follow-up input accepted");
            e
        }
        "tracker_config" => {
            let model = model_of(case);
            let e = parse::<TrackerConfig>("tracker config", &bad_text(case))
                .and_then(|c| Tracker::new(model, c))
                .err();
            let good: TrackerConfig =
                serde_json::from_value(follow.clone()).expect("follow-up config");
            Tracker::new(model, good).expect("follow-up config accepted");
            e
        }
        "poll_policy" => {
            let e = parse::<PollPolicy>("poll policy", &bad_text(case))
                .and_then(|p| PollSchedule::new(p, 0))
                .err();
            let good: PollPolicy =
                serde_json::from_value(follow.clone()).expect("follow-up policy");
            PollSchedule::new(good, 0).expect("follow-up policy accepted");
            e
        }
        "poll_plan" => {
            let count = case["input"]["count"].as_u64().expect("count") as u32;
            let e = plan(PollPolicy::default(), 0, 0, count, None).err();
            let n = follow["count"].as_u64().expect("count") as u32;
            assert_eq!(
                plan(PollPolicy::default(), 0, 0, n, None)
                    .expect("follow-up plan")
                    .len(),
                n as usize
            );
            e
        }
        "snapshot_restore" => {
            let kind = case["kind"].as_str().expect("kind");
            let e = snapshot_restore(kind, &bad_text(case)).err();
            // Follow-up: a real snapshot of the same kind still restores.
            let good = match kind {
                "tracker" => save(&Tracker::new(Model::Job, TrackerConfig::default()).unwrap()),
                "poll_schedule" => save(&PollSchedule::new(PollPolicy::default(), 1).unwrap()),
                _ => save(&CancelButton::new(Model::Task2026)),
            };
            snapshot_restore(kind, &good.unwrap()).expect("follow-up snapshot restores");
            e
        }
        "vector_parse" => {
            let e = longcall::vector::parse(&bad_text(case)).err();
            let good = longcall::vector::parse(&follow.to_string()).expect("follow-up vector");
            longcall::vector::run(&good).expect("follow-up vector runs");
            e
        }
        "batch_ids" => {
            let e = match parse::<Vec<String>>("job ids", &bad_text(case)) {
                Ok(ids) => batch(&ids).err(),
                Err(e) => Some(e),
            };
            batch(&ids_of(follow)).expect("follow-up batch");
            e
        }
        "cancel_answer" => {
            let model = model_of(case);
            // A typed answer always has a verdict: only reading it can fail.
            let e = parse::<CancelAnswer>("cancel answer", &bad_text(case)).err();
            let good: CancelAnswer =
                serde_json::from_value(follow.clone()).expect("follow-up answer");
            let _verdict = classify_answer(model, good);
            e
        }
        "outcome_classify" => {
            let model = model_of(case);
            let f = |v: &Value| -> Result<(), Error> {
                let status: Status = parse("status", &v["status"].to_string())?;
                let payload: Payload = parse("payload", &v["payload"].to_string())?;
                classify(model, status, payload).map(|_| ())
            };
            let e = f(&case["input"]).err();
            f(follow).expect("follow-up classified");
            e
        }
        "wire" => {
            let reader = case["reader"].as_str().expect("reader");
            let e = wire(reader, &bad_bytes(case)).err();
            wire(reader, follow.to_string().as_bytes()).expect("follow-up wire message");
            e
        }
        other => panic!("unknown target {other}"),
    };
    err.map(|e| e.code().to_string())
        .unwrap_or_else(|| "<no error>".into())
}

#[test]
fn every_bad_input_gets_its_typed_error_and_the_value_stays_usable() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad-inputs");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .expect("tests/bad-inputs")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for path in &files {
        let case: Value = serde_json::from_str(&fs::read_to_string(path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let want = case["expect_code"].as_str().expect("expect_code");
        assert!(
            longcall::error::ERROR_CODES.contains(&want),
            "{}: unknown code {want}",
            path.display()
        );
        let got = run(&case);
        if got != want {
            failures.push(format!("{}: expected {want}, got {got}", path.display()));
        }
    }
    eprintln!("bad inputs: {} files", files.len());
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(
        files.len() >= 50,
        "the catalogue has {} files, want at least 50",
        files.len()
    );
}
