//! What the CLI's integration tests share: running `longcall`, and `longcall serve-jobs` on
//! loopback, stopped when the test ends (also when it fails).

#![allow(dead_code)] // each test binary uses its own part

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};

/// Runs `longcall <args>` to its end.
pub fn longcall(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_longcall"))
        .args(args)
        .output()
        .unwrap()
}

/// A running `longcall serve-jobs`, killed on drop.
pub struct ServeJobs {
    child: Child,
    /// `http://127.0.0.1:PORT`, as the server printed it.
    pub url: String,
}

impl ServeJobs {
    /// Starts `longcall serve-jobs --port 0 <args>` and waits for the URL it listens on.
    pub fn start(args: &[&str]) -> ServeJobs {
        let mut child = Command::new(env!("CARGO_BIN_EXE_longcall"))
            .args(["serve-jobs", "--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .split("listening on ")
            .nth(1)
            .unwrap_or_else(|| panic!("serve-jobs printed {line:?}"))
            .trim()
            .to_string();
        ServeJobs { child, url }
    }
}

impl Drop for ServeJobs {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
