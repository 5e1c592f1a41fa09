//! The input keys of one task and what happened to each: asked once, answered once, and whether
//! the task moved on since (which tells an eventually consistent echo from a reused key).

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

/// Where one input key stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum KeyState {
    /// The user was asked; no answer yet.
    Asked,
    /// Answered; `moved_on` once the task left `input_required` after the answer.
    Answered {
        /// The task has left `input_required` since the answer.
        moved_on: bool,
    },
    /// Answered, then asked again by the server: reported once as a reused key.
    Reused,
}

/// Input keys in the order they were first asked. A task has few, so a list searched from the
/// start is as fast as a tree or a sorted list, and smaller in the module: inserting into a
/// sorted list links the formatting of `Vec::insert`'s panic message (about 190 B gzip of
/// `longcall/lite`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct InputKeys(Vec<(String, KeyState)>);

impl InputKeys {
    /// No key.
    pub(crate) const EMPTY: InputKeys = InputKeys(Vec::new());

    pub(crate) fn get(&self, key: &str) -> Option<KeyState> {
        self.find(key).and_then(|i| self.0.get(i)).map(|(_, s)| *s)
    }

    pub(crate) fn set(&mut self, key: &str, state: KeyState) {
        match self.find(key).and_then(|i| self.0.get_mut(i)) {
            Some(slot) => slot.1 = state,
            None => self.0.push((key.into(), state)),
        }
    }

    /// The task left `input_required`: every answered key has now moved on.
    pub(crate) fn moved_on(&mut self) {
        for (_, s) in &mut self.0 {
            if let KeyState::Answered { moved_on } = s {
                *moved_on = true;
            }
        }
    }

    /// A poll of the task still in `input_required` listed these requests: an answered key it no
    /// longer lists was consumed by the server, so it has moved on too (I-5: seen again later,
    /// it is a reused key, not an echo of the answer).
    pub(crate) fn consumed_unless_listed(&mut self, listed: impl Fn(&str) -> bool) {
        for (k, s) in &mut self.0 {
            if let KeyState::Answered { moved_on } = s {
                if !listed(k) {
                    *moved_on = true;
                }
            }
        }
    }

    fn find(&self, key: &str) -> Option<usize> {
        self.0.iter().position(|(k, _)| k == key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_semantics_in_the_order_asked() {
        let mut k = InputKeys::default();
        k.set("b", KeyState::Asked);
        k.set("a", KeyState::Asked);
        k.set("b", KeyState::Answered { moved_on: false });
        assert_eq!(k.get("a"), Some(KeyState::Asked));
        assert_eq!(k.get("b"), Some(KeyState::Answered { moved_on: false }));
        assert_eq!(k.get("c"), None);
        k.consumed_unless_listed(|key| key == "b");
        assert_eq!(k.get("b"), Some(KeyState::Answered { moved_on: false }));
        k.moved_on();
        assert_eq!(k.get("b"), Some(KeyState::Answered { moved_on: true }));
        assert_eq!(k.get("a"), Some(KeyState::Asked));
        assert_eq!(
            k.0.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
            ["b", "a"]
        );
    }
}
