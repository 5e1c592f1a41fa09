//! S-4: tracker snapshots restore exactly across changes to the tracker's insides.
//!
//! `tests/snapshots/tracker-v1.json` holds snapshots written by the tracker that kept its phase
//! in flags, each cut at a different point of a call (a poll armed or in flight, a cancel in
//! flight or answered 409, a 2025 `tasks/result` open, an MRTR round half answered, settled with
//! a cancel still out, stopped, resumed from a handle, born terminal, an update to re-send, a
//! floor raised under an armed poll, ...), with what that tracker then did for each following
//! input. A restored tracker must save the same text, answer every input the same way (outputs
//! and error codes) and end in the same snapshot. The one change of encoding since: the jitter
//! generator's state is written as decimal text (`"state":"3"`), which a JavaScript host can
//! parse without rounding; [`as_written_now`] applies it to the old texts. One input of the
//! file changed since: the MRTR round's second answer, a bare number the tracker now refuses
//! (rule I-9), is an object (the answer already in that snapshot restores as it was). And one
//! end state: the call resumed from a handle keeps its TTL's anchor, the first answer that
//! stated one (`created_at`, rule P-7), where it counted the TTL from each answer.

use longcall::snapshot::{restore, save};
use longcall::tracker::{Input, Tracker};
use serde_json::{json, Value};

/// An old snapshot's text as the tracker writes it now: each `"state":<digits>` (only the jitter
/// generator's state is a number; the button's is a name) as `"state":"<digits>"`.
fn as_written_now(old: &str) -> String {
    let key = "\"state\":";
    let mut out = String::new();
    let mut rest = old;
    while let Some(at) = rest.find(key) {
        let (head, tail) = rest.split_at(at + key.len());
        out.push_str(head);
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            out.push('"');
            out.push_str(&tail[..digits]);
            out.push('"');
        }
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

#[test]
fn old_tracker_snapshots_restore_and_go_on_identically() {
    let text = include_str!("snapshots/tracker-v1.json");
    let cases: Vec<Value> = serde_json::from_str(text).unwrap();
    assert!(cases.len() >= 15);
    for case in cases {
        let about = case["about"].as_str().unwrap();
        let snapshot = case["snapshot"].as_str().unwrap();
        let mut t: Tracker = restore(snapshot).unwrap();
        assert_eq!(
            save(&t).unwrap(),
            as_written_now(snapshot),
            "{about}: saved again"
        );
        for (i, step) in case["steps"].as_array().unwrap().iter().enumerate() {
            let s = &step["step"];
            let r = if let Some(input) = s.get("input") {
                let input: Input = serde_json::from_value(input.clone()).unwrap();
                t.handle_input(s["at"].as_u64().unwrap(), input)
            } else if let Some(at) = s.get("timeout") {
                t.handle_timeout(at.as_u64().unwrap());
                Ok(())
            } else {
                t.watch(s["watch"].as_str().unwrap())
            };
            let got = json!({"ok": r.err().map(|e| e.code()), "outputs": t.drain()});
            assert_eq!(got, step["expect"], "{about}: step {i}");
        }
        assert_eq!(
            save(&t).unwrap(),
            as_written_now(case["then"].as_str().unwrap()),
            "{about}: at the end"
        );
    }
}

/// S-7: a snapshot edited into what no sequence of inputs makes is refused (`snapshot_invalid`,
/// saying what is wrong), never restored to misbehave later.
#[test]
fn edited_snapshots_that_no_run_could_make_are_refused() {
    use longcall::cancel::CancelButton;
    use longcall::tracker::TrackerConfig;
    use longcall::Model;

    let mut t = Tracker::new(Model::Job, TrackerConfig::default()).unwrap();
    let created = json!({"type": "job_created", "job": {"id": "job_1", "status": "queued"}});
    t.handle_input(0, serde_json::from_value(created).unwrap())
        .unwrap();
    let good: Value = serde_json::from_str(&save(&t).unwrap()).unwrap();
    assert!(restore::<Tracker>(&good.to_string()).is_ok());
    let edited = |edit: &dyn Fn(&mut Value)| {
        let mut v = good.clone();
        edit(&mut v["state"]);
        restore::<Tracker>(&v.to_string()).unwrap_err()
    };
    type Edit<'a> = &'a dyn Fn(&mut Value);
    let cases: [(Edit, &str); 5] = [
        (
            &|s| s["schedule"]["policy"]["cap_ms"] = json!(0),
            "policy.cap_ms: must not be below initial_ms",
        ),
        (
            &|s| s["schedule"]["policy"]["multiplier_percent"] = json!(0),
            "policy.multiplier_percent",
        ),
        (
            &|s| s["status"] = json!("working"),
            "status is not a status of the model",
        ),
        (
            &|s| {
                s["button"]["model"] = json!("task-2026");
                s["button"]["last_status"] = Value::Null;
            },
            "the button is of another model",
        ),
        (
            &|s| s["button"]["state"] = json!("cancelled"),
            "cancelled, but no cancel was sent",
        ),
    ];
    for (edit, says) in cases {
        let e = edited(edit);
        assert_eq!(e.code(), "snapshot_invalid", "{e}");
        assert!(e.to_string().contains(says), "{e}");
    }
    // The button alone too: `requesting` that was never pressed.
    let mut b: Value =
        serde_json::from_str(&save(&CancelButton::new(Model::Job)).unwrap()).unwrap();
    b["state"]["state"] = json!("requesting");
    let e = restore::<CancelButton>(&b.to_string()).unwrap_err();
    assert_eq!(e.code(), "snapshot_invalid");
    assert!(e.to_string().contains("but nothing was pressed"), "{e}");
}
