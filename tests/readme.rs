//! The README's run loop is `examples/run_loop.rs` (which `cargo test` compiles) word for word.

#[test]
fn readme_run_loop_is_the_compiled_example() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let example = std::fs::read_to_string(root.join("examples/run_loop.rs")).expect("example");
    let marker = "<!-- run-loop: examples/run_loop.rs -->\n```rust\n";
    let start = readme
        .find(marker)
        .expect("the run-loop marker in README.md")
        + marker.len();
    let len = readme[start..].find("```\n").expect("the end of the block");
    assert_eq!(&readme[start..start + len], example);
}
