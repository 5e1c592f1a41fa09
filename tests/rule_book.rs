//! The rule book (`docs/rules.md`) and the repository stay in step.
//!
//! * Every rule id in the book is cited by code that implements it (a file under `src/` or
//!   `bindings/*/src/`, outside its `#[cfg(test)]` part) and by a test (a file under `tests/`,
//!   `bindings/*/tests/` or `pkg/test/`, a vector, or the `#[cfg(test)]` part of a source file),
//!   unless its row is marked `planned`.
//! * No file cites an id the book does not have.
//! * No file points outside the repository: no path into a sibling `shared` folder, no section
//!   numbers of a rule file that is not here, no absolute path of a build machine.
//!
//! The files are those git knows (tracked, plus new files not ignored); without git the tree is
//! walked, skipping `target`, `node_modules` and `.git`. This file is skipped by the scans: its
//! fixtures below hold exactly the text the scans look for.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The area letters of the book; an id is one of these, a hyphen and a number.
const AREAS: &str = "LOCPBAWIMJSERD";

/// The heading of the book's section for work in progress: only rows under it may be `planned`.
const RESERVED: &str = "## Reserved";

const BOOK: &str = "docs/rules.md";
const SELF: &str = "tests/rule_book.rs";

/// Text that points outside the repository, and why it is refused.
const OUTSIDE: &[(&str, &str)] = &[
    (concat!("../", "shared"), "a folder beside the repository"),
    (
        "SEMANTICS",
        "a rule file that is not in the repository (cite a rule id of docs/rules.md)",
    ),
    (
        "seed 00",
        "a seed document that is not in the repository (cite a rule id)",
    ),
    (
        "seeds 00",
        "a seed document that is not in the repository (cite a rule id)",
    ),
    ("/work/", "an absolute path of a build machine"),
    ("/home/", "an absolute path of a build machine"),
    ("/root/", "an absolute path of a build machine"),
    ("/Users/", "an absolute path of a build machine"),
];

/// One row of the book.
#[derive(Debug)]
struct Rule {
    /// Work in progress: no code or test required yet.
    planned: bool,
    /// Dropped: the id stays reserved, and nothing may cite it any more.
    withdrawn: bool,
}

/// The rows of the book: `| X-n | level | source | rule |`.
fn parse_book(text: &str) -> Result<BTreeMap<String, Rule>, String> {
    let mut rules = BTreeMap::new();
    let mut reserved = false;
    for (n, line) in text.lines().enumerate() {
        if line.starts_with("## ") {
            reserved = line.starts_with(RESERVED);
        }
        let Some(rest) = line.strip_prefix("| ") else {
            continue;
        };
        let cells: Vec<&str> = rest.split(" | ").collect();
        let Some(id) = cells.first().map(|c| c.trim()) else {
            continue;
        };
        if ids_in(id) != [id] {
            continue; // a header or separator row
        }
        if cells.len() < 4 {
            return Err(format!(
                "{BOOK}:{}: row {id} needs level, source and rule",
                n + 1
            ));
        }
        let level = cells[1];
        if !["MUST", "SHOULD", "MAY"]
            .iter()
            .any(|l| level.starts_with(l))
        {
            return Err(format!(
                "{BOOK}:{}: {id} has no level (MUST, SHOULD or MAY)",
                n + 1
            ));
        }
        if cells[2].trim().is_empty() || cells[3].trim().trim_end_matches('|').trim().is_empty() {
            return Err(format!("{BOOK}:{}: {id} needs a source and a rule", n + 1));
        }
        let planned = level.contains("planned");
        if planned && !reserved {
            return Err(format!(
                "{BOOK}:{}: {id} is planned, but only rows under `{RESERVED}` may be",
                n + 1
            ));
        }
        let withdrawn = level.contains("withdrawn");
        if rules
            .insert(id.to_string(), Rule { planned, withdrawn })
            .is_some()
        {
            return Err(format!("{BOOK}:{}: {id} appears twice", n + 1));
        }
    }
    Ok(rules)
}

/// Every rule id cited in `text`: an area letter, `-`, one to three digits, standing alone (not
/// part of a longer word such as `UTF-8` or `ISO-8601`).
fn ids_in(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = AREAS.as_bytes().contains(&b[i])
            && (i == 0 || !word(b[i - 1]) && b[i - 1] != b'-')
            && b.get(i + 1) == Some(&b'-');
        if starts {
            let digits = b[i + 2..].iter().take_while(|c| c.is_ascii_digit()).count();
            let end = i + 2 + digits;
            let alone = b.get(end).is_none_or(|&c| !word(c) && c != b'-');
            if (1..=3).contains(&digits) && alone {
                out.push(&text[i..end]);
                i = end;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// What in `text` points outside the repository.
fn outside_refs(text: &str) -> Vec<(&'static str, &'static str)> {
    OUTSIDE
        .iter()
        .filter(|(needle, _)| text.contains(needle))
        .copied()
        .collect()
}

/// Where a file's citations count.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Code,
    Test,
    Other,
}

fn kind(path: &str) -> Kind {
    let under = |p: &str| path.starts_with(p);
    if under("tests/") || under("pkg/test/") || path.contains("/tests/") && under("bindings/") {
        Kind::Test
    } else if under("src/") || under("bindings/") && path.contains("/src/") {
        Kind::Code
    } else {
        Kind::Other
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The repository's files, relative to its root, with `/` separators.
fn files() -> Vec<String> {
    let git = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root())
        .output();
    if let Ok(out) = git {
        if out.status.success() {
            let mut files: Vec<String> = String::from_utf8_lossy(&out.stdout)
                .split('\0')
                .filter(|f| !f.is_empty() && root().join(f).is_file())
                .map(String::from)
                .collect();
            files.sort();
            files.dedup();
            return files;
        }
    }
    let mut files = Vec::new();
    walk(&root(), "", &mut files);
    files.sort();
    files
}

fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if ["target", "node_modules", ".git"].contains(&name.as_str()) {
            continue;
        }
        let rel = format!("{prefix}{name}");
        let path = entry.path();
        if path.is_dir() {
            walk(&path, &format!("{rel}/"), out);
        } else {
            out.push(rel);
        }
    }
}

/// A file's text split into the part that counts as code and the part that counts as tests.
fn split<'a>(path: &str, text: &'a str) -> (&'a str, &'a str) {
    match kind(path) {
        Kind::Test => ("", text),
        Kind::Code => match text.find("#[cfg(test)]") {
            Some(at) => (&text[..at], &text[at..]),
            None => (text, ""),
        },
        Kind::Other => ("", ""),
    }
}

#[test]
fn every_rule_is_implemented_and_tested_and_every_citation_exists() {
    let book_text = fs::read_to_string(root().join(BOOK)).expect("docs/rules.md exists");
    let book = parse_book(&book_text).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        book.len() >= 50,
        "only {} rules parsed from {BOOK}",
        book.len()
    );

    let mut code: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let mut tests: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let mut problems = Vec::new();
    for path in files() {
        if path == BOOK || path == SELF {
            continue;
        }
        let Ok(text) = fs::read_to_string(root().join(&path)) else {
            continue; // not text (an image, a binary corpus entry)
        };
        for id in ids_in(&text) {
            match book.get(id) {
                None => problems.push(format!("{path}: cites {id}, which {BOOK} does not have")),
                Some(r) if r.withdrawn => {
                    problems.push(format!("{path}: cites {id}, which {BOOK} withdrew"))
                }
                Some(_) => {}
            }
        }
        let (code_part, test_part) = split(&path, &text);
        for id in ids_in(code_part) {
            if let Some((k, _)) = book.get_key_value(id) {
                code.entry(k).or_default().insert(path.clone());
            }
        }
        for id in ids_in(test_part) {
            if let Some((k, _)) = book.get_key_value(id) {
                tests.entry(k).or_default().insert(path.clone());
            }
        }
    }
    for (id, rule) in &book {
        if rule.planned || rule.withdrawn {
            continue;
        }
        if !code.contains_key(id.as_str()) {
            problems.push(format!(
                "{id}: no code under src/ or bindings/*/src/ cites it"
            ));
        }
        if !tests.contains_key(id.as_str()) {
            problems.push(format!("{id}: no test or vector cites it"));
        }
    }
    let planned = book.values().filter(|r| r.planned).count();
    println!(
        "{} rules ({planned} planned); cited by {} code files, {} test files",
        book.len(),
        code.values().flatten().collect::<BTreeSet<_>>().len(),
        tests.values().flatten().collect::<BTreeSet<_>>().len(),
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_file_points_outside_the_repository() {
    let mut problems = Vec::new();
    for path in files() {
        if path == SELF {
            continue;
        }
        let Ok(text) = fs::read_to_string(root().join(&path)) else {
            continue;
        };
        for (needle, why) in outside_refs(&text) {
            let line = text
                .lines()
                .position(|l| l.contains(needle))
                .map_or(0, |n| n + 1);
            problems.push(format!("{path}:{line}: `{needle}`: {why}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn ids_are_read_only_where_they_stand_alone() {
    assert_eq!(ids_in("see C-8 and L-10, (P-3)."), ["C-8", "L-10", "P-3"]);
    assert_eq!(ids_in("`B-1`: one wait"), ["B-1"]);
    assert!(ids_in("UTF-8 ISO-8601 SHA-256 X-1 C-1a C-12345 a-C-1 C-1-2").is_empty());
}

#[test]
fn the_book_parser_refuses_bad_rows() {
    let ok = "| Id | Level | Source | Rule |\n|---|---|---|---|\n| L-1 | MUST | design | One. |\n\
              ## Reserved: later\n| E-1 | MUST, planned | design | Later. |\n";
    let book = parse_book(ok).expect("a good book");
    assert_eq!(book.len(), 2);
    assert!(!book["L-1"].planned && book["E-1"].planned);
    let dropped = parse_book("| L-2 | MUST, withdrawn | design | Gone. |\n").expect("a book");
    assert!(dropped["L-2"].withdrawn && !dropped["L-2"].planned);
    for bad in [
        "| L-1 | MUST | design | One. |\n| L-1 | MUST | design | Again. |\n",
        "| L-1 | sometimes | design | One. |\n",
        "| L-1 | MUST, planned | design | Only the reserved section may wait. |\n",
        "## Reserved\n| E-1 | MUST, planned | design | Fine. |\n## Next\n| E-2 | MAY, planned | x | No. |\n",
        "| L-1 | MUST |  | No source. |\n",
    ] {
        assert!(parse_book(bad).is_err(), "accepted: {bad}");
    }
}

#[test]
fn outside_references_are_found() {
    for text in [
        // Split so that this file itself does not point outside the repository.
        concat!("see ../", "shared/SEMANTICS.md"),
        "as SEMANTICS §3 says",
        "(seed 004)",
        "written to /work/out",
        "/home/me/x",
        "/root/x",
        "/Users/me/x",
    ] {
        assert!(!outside_refs(text).is_empty(), "missed: {text}");
    }
    assert!(outside_refs("docs/rules.md C-8; ../../test/shared/x.mjs").is_empty());
}

#[test]
fn files_are_sorted_into_code_and_tests() {
    assert_eq!(kind("src/poll.rs"), Kind::Code);
    assert_eq!(kind("bindings/wasm/src/lib.rs"), Kind::Code);
    assert_eq!(kind("bindings/cli/tests/cli.rs"), Kind::Test);
    assert_eq!(kind("tests/vectors/max-polls.json"), Kind::Test);
    assert_eq!(kind("pkg/test/node.test.mjs"), Kind::Test);
    assert_eq!(kind("README.md"), Kind::Other);
    let text = "//! P-1\nfn f() {}\n#[cfg(test)]\nmod tests { /* P-2 */ }\n";
    let (code, test) = split("src/poll.rs", text);
    assert_eq!((ids_in(code), ids_in(test)), (vec!["P-1"], vec!["P-2"]));
}
