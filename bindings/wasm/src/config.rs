//! The tracker configuration as the module takes it: nine numbers, laid out by `pkg/config.js`
//! from the object `{poll?: {initialMs?, multiplierPercent?, capMs?, jitter?, minIntervalMs?,
//! maxPolls?, followServerInterval?}, seed?, deadlineMs?}`, in the order of [`FIELDS`].
//!
//! The object is read in JavaScript, once for every entry point (`Tracker`, `Endpoint`, the
//! watch list): its shape (an unknown key is `invalid_config` naming it, a value of the wrong
//! type `malformed`) is what JavaScript can tell, and reading it there keeps the small build free
//! of the property reads, prototype checks and messages a reader here would link (2.6 KB gzip of
//! `longcall/lite`). What only the core can tell, the values, is checked here: whole numbers
//! from 0 to 2^53-1, then `PollPolicy::validate` (`capMs` below `initialMs`, ...).

#[allow(unused_imports)]
use crate::prelude::*;

use longcall::poll::{Jitter, PollPolicy};
use longcall::tracker::TrackerConfig;
use longcall::Error;

use crate::json::{num, MAX_SAFE};

/// The keys of the configuration object.
pub const CONFIG_KEYS: [&str; 3] = ["poll", "seed", "deadlineMs"];
/// The keys of its `poll` object.
pub const POLL_KEYS: [&str; 7] = [
    "initialMs",
    "multiplierPercent",
    "capMs",
    "jitter",
    "minIntervalMs",
    "maxPolls",
    "followServerInterval",
];
/// The numbers' order, by their paths in the object (as messages name them): the `poll` keys,
/// then `seed` and `deadlineMs`. NaN is a key not given; `jitter` is a position in [`JITTERS`],
/// `followServerInterval` 0 or 1.
pub const FIELDS: [&str; 9] = [
    "poll.initialMs",
    "poll.multiplierPercent",
    "poll.capMs",
    "poll.jitter",
    "poll.minIntervalMs",
    "poll.maxPolls",
    "poll.followServerInterval",
    "seed",
    "deadlineMs",
];
/// The poll jitters by code (`pkg/config.js` sends a name's position in `JITTERS`).
pub const JITTERS: [Jitter; 4] = [
    Jitter::None,
    Jitter::Full,
    Jitter::Equal,
    Jitter::Decorrelated,
];

fn malformed(name: &str, reason: &str) -> Error {
    let mut text = String::from(name);
    text.push_str(": ");
    text.push_str(reason);
    Error::Malformed {
        what: "config",
        reason: text,
    }
}

fn field(i: usize) -> &'static str {
    FIELDS.get(i).copied().unwrap_or("config")
}

/// Field `i`: `None` when not given, else a whole number a JavaScript caller can hold exactly.
fn whole(values: &[f64], i: usize) -> Result<Option<u64>, Error> {
    let n = values.get(i).copied().unwrap_or(f64::NAN);
    if n.is_nan() {
        return Ok(None);
    }
    let name = field(i);
    if n > MAX_SAFE && n.is_finite() {
        // A whole number a JavaScript caller cannot hold exactly: out of range, not malformed.
        return Err(Error::invalid_config(name, "must be at most 2^53-1"));
    }
    // (No `{n}` in the message: formatting a float would link float printing into the small
    // build, about 20 KB.)
    num(n)
        .map(Some)
        .ok_or_else(|| malformed(name, "expected an integer from 0 to 2^53-1"))
}

fn small(values: &[f64], i: usize) -> Result<Option<u32>, Error> {
    whole(values, i)?
        .map(|n| u32::try_from(n).map_err(|_| malformed(field(i), "too large")))
        .transpose()
}

/// Field `i` as a position in `choices`. (pkg/config.js sends only positions it found, so this
/// refusal is for direct calls of the module, in one message for both lists.)
fn choice<T: Copy>(values: &[f64], i: usize, choices: &[T]) -> Result<Option<T>, Error> {
    let expected = "expected a position in its list of choices";
    match whole(values, i) {
        Ok(None) => Ok(None),
        Ok(Some(n)) => usize::try_from(n)
            .ok()
            .and_then(|n| choices.get(n).copied())
            .map(Some)
            .ok_or_else(|| malformed(field(i), expected)),
        Err(_) => Err(malformed(field(i), expected)),
    }
}

/// The `TrackerConfig` of the numbers `pkg/config.js` laid out; an empty list is the default.
pub fn tracker_config(values: &[f64]) -> Result<TrackerConfig, Error> {
    let d = PollPolicy::default();
    let poll = PollPolicy {
        initial_ms: whole(values, 0)?.unwrap_or(d.initial_ms),
        multiplier_percent: small(values, 1)?.unwrap_or(d.multiplier_percent),
        cap_ms: whole(values, 2)?.unwrap_or(d.cap_ms),
        jitter: choice(values, 3, &JITTERS)?.unwrap_or(d.jitter),
        min_interval_ms: whole(values, 4)?.unwrap_or(d.min_interval_ms),
        max_polls: small(values, 5)?.or(d.max_polls),
        follow_server_interval: choice(values, 6, &[false, true])?
            .unwrap_or(d.follow_server_interval),
    };
    Ok(TrackerConfig {
        poll,
        seed: whole(values, 7)?.unwrap_or(0),
        deadline_ms: whole(values, 8)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE: [f64; 9] = [f64::NAN; 9];

    fn with(i: usize, v: f64) -> [f64; 9] {
        let mut a = NONE;
        a[i] = v;
        a
    }

    #[test]
    fn nothing_given_is_the_default() {
        assert_eq!(tracker_config(&NONE).unwrap(), TrackerConfig::default());
        assert_eq!(tracker_config(&[]).unwrap(), TrackerConfig::default());
    }

    #[test]
    fn fields_are_the_paths_of_the_keys() {
        let paths: Vec<String> = POLL_KEYS
            .iter()
            .map(|k| format!("poll.{k}"))
            .chain(CONFIG_KEYS[1..].iter().map(|k| (*k).to_string()))
            .collect();
        assert_eq!(paths, FIELDS);
    }

    #[test]
    fn every_field_lands_where_its_name_says() {
        let c =
            tracker_config(&[200.0, 150.0, 8000.0, 2.0, 100.0, 9.0, 0.0, 7.0, 90000.0]).unwrap();
        assert_eq!(c.poll.initial_ms, 200);
        assert_eq!(c.poll.multiplier_percent, 150);
        assert_eq!(c.poll.cap_ms, 8000);
        assert_eq!(c.poll.jitter, Jitter::Equal);
        assert_eq!(c.poll.min_interval_ms, 100);
        assert_eq!(c.poll.max_polls, Some(9));
        assert!(!c.poll.follow_server_interval);
        assert_eq!(c.seed, 7);
        assert_eq!(c.deadline_ms, Some(90000));
    }

    #[test]
    fn bad_values_name_their_field() {
        let msg = |v: [f64; 9]| {
            let e = tracker_config(&v).unwrap_err();
            (e.code(), e.to_string())
        };
        assert_eq!(
            msg(with(0, 1.5)),
            (
                "malformed",
                "malformed config: poll.initialMs: expected an integer from 0 to 2^53-1".into()
            )
        );
        assert_eq!(
            msg(with(7, 2f64.powi(53))),
            (
                "invalid_config",
                "invalid configuration: seed: must be at most 2^53-1".into()
            )
        );
        assert_eq!(
            msg(with(5, 2f64.powi(32))),
            (
                "malformed",
                "malformed config: poll.maxPolls: too large".into()
            )
        );
        assert_eq!(msg(with(3, 4.0)).0, "malformed");
        assert_eq!(
            msg(with(6, 2.0)),
            (
                "malformed",
                "malformed config: poll.followServerInterval: expected a position in its list of choices".into()
            )
        );
        for bad in [-1.0, f64::INFINITY, f64::NEG_INFINITY, -0.5] {
            for i in 0..9 {
                assert!(tracker_config(&with(i, bad)).is_err(), "{i}: {bad}");
            }
        }
    }
}
