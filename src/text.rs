//! Messages built without `core::fmt`.
//!
//! Error messages and violation details are assembled from pieces here, and the `Display` impls
//! write the same text. The reason is size: a module that never calls `core::fmt` does not link
//! its formatting machinery, and the small WebAssembly build (`longcall/lite`) says nothing else
//! through it. Every build says the same words, because there is one place that writes them.

use alloc::string::String;

/// How many characters of an outside string a message shows (S-2).
const QUOTE_LIMIT: usize = 64;

/// A message being written: text, numbers and quoted outside strings, appended in order.
///
/// The appending methods are never inlined: a message chains several, and inlined they made the
/// small module 0.2 KB larger.
#[must_use]
pub(crate) struct Text(String);

impl Text {
    pub(crate) fn new() -> Text {
        Text(String::new())
    }

    /// Appends text as it is.
    #[inline(never)]
    pub(crate) fn s(mut self, s: &str) -> Text {
        self.0.push_str(s);
        self
    }

    /// Appends an unsigned number in decimal.
    #[inline(never)]
    pub(crate) fn n(mut self, n: u64) -> Text {
        push_digits(&mut self.0, n, 10);
        self
    }

    /// Appends a signed number in decimal.
    #[inline(never)]
    pub(crate) fn i(mut self, n: i64) -> Text {
        if n < 0 {
            self.0.push('-');
        }
        push_digits(&mut self.0, n.unsigned_abs(), 10);
        self
    }

    /// Appends text from outside, quoted: escaped, and cut after [`QUOTE_LIMIT`] characters, so a
    /// hostile 10 MB string makes a short message (and no Unicode tables are needed, unlike
    /// `{:?}`).
    #[inline(never)]
    pub(crate) fn q(mut self, s: &str) -> Text {
        let out = &mut self.0;
        out.push('"');
        for (i, c) in s.chars().enumerate() {
            if i == QUOTE_LIMIT {
                out.push_str("\u{2026}\"");
                return self;
            }
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 || c == '\u{7f}' => {
                    out.push_str("\\u{");
                    push_digits(out, u64::from(c as u32), 16);
                    out.push('}');
                }
                c => out.push(c),
            }
        }
        out.push('"');
        self
    }

    /// The message.
    pub(crate) fn done(self) -> String {
        self.0
    }
}

/// Appends `n` in `base` (10 or 16, lowercase).
fn push_digits(out: &mut String, mut n: u64, base: u64) {
    // u64::MAX has 20 decimal digits.
    let mut digits = [0u8; 20];
    let mut len = 0;
    for slot in &mut digits {
        let d = (n % base) as u8;
        *slot = if d < 10 { b'0' + d } else { b'a' + d - 10 };
        len += 1;
        n /= base;
        if n == 0 {
            break;
        }
    }
    for &d in digits.iter().take(len).rev() {
        out.push(char::from(d));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    #[test]
    fn numbers_match_core_fmt() {
        for n in [0, 1, 9, 10, 99, 100, 12_345, u64::from(u32::MAX), u64::MAX] {
            assert_eq!(Text::new().n(n).done(), format!("{n}"));
        }
        for n in [0, -1, 7, -32_602, i64::MIN, i64::MAX] {
            assert_eq!(Text::new().i(n).done(), format!("{n}"));
        }
    }

    /// Rules S-2.
    #[test]
    fn quoted_escapes_and_cuts() {
        assert_eq!(
            Text::new().q("a\"b\\c\n\u{7f}é").done(),
            r#""a\"b\\c\u{a}\u{7f}é""#
        );
        let q = Text::new().q(&"x".repeat(100)).done();
        assert_eq!(q.chars().count(), QUOTE_LIMIT + 3);
        assert!(q.ends_with("\u{2026}\""));
        assert_eq!(
            Text::new()
                .q(&"x".repeat(QUOTE_LIMIT))
                .done()
                .chars()
                .count(),
            QUOTE_LIMIT + 2
        );
    }
}
