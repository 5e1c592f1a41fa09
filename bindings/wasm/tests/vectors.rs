//! Every scenario vector the JavaScript tests drive (`tests/vectors/*.json` and the package's own
//! `pkg/test/vectors/*.json`) passes natively, so the JS run is compared with the native one.
//! `LONGCALL_BLESS=1 cargo test -p longcall-wasm --test vectors` rewrites the `expect` lists of the
//! package's own vectors from the native run (never the shared `tests/vectors/`).

use std::path::{Path, PathBuf};

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    out.retain(|p| p.extension().is_some_and(|e| e == "json"));
    out.sort();
    out
}

#[test]
fn vectors_pass_natively() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let own = root.join("pkg/test/vectors");
    let bless = std::env::var_os("LONGCALL_BLESS").is_some();
    let mut n = 0;
    for path in files(&root.join("tests/vectors"))
        .into_iter()
        .chain(files(&own))
    {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut vector = longcall::vector::parse(&text).unwrap();
        let report = longcall::vector::run(&vector).unwrap();
        if bless && path.starts_with(&own) {
            for (step, got) in vector.steps.iter_mut().zip(&report.steps) {
                step.expect = got.outputs.clone();
                step.error = got.error.clone();
            }
            let text = serde_json::to_string_pretty(&vector).unwrap();
            std::fs::write(&path, text + "\n").unwrap();
            continue;
        }
        assert!(
            report.passed,
            "{}: {:#?}",
            path.display(),
            report.steps.iter().filter(|s| !s.ok).collect::<Vec<_>>()
        );
        n += 1;
    }
    assert!(bless || n >= 2, "expected vectors, found {n}");
}
