//! What the `smem` integration tests share: running the binary, reading its
//! output, and temporary input files.
// Each test file uses its own subset.
#![allow(dead_code)]

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

/// Runs `smem SUBCOMMAND ARGS` from the crate root, so that paths in the output
/// are the short relative ones given.
pub fn smem(subcommand: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_smem"))
        .arg(subcommand)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the smem binary runs")
}

/// Runs `smem SUBCOMMAND ARGS` with `input` on its stdin.
pub fn smem_with_stdin(subcommand: &str, args: &[&str], input: &[u8]) -> Output {
    use std::io::Write as _;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_smem"))
        .arg(subcommand)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the smem binary runs");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    // The binary may stop reading early (an error); a broken pipe is its choice.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().expect("the smem binary finishes")
}

/// Stdout as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

/// Stderr as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8")
}

/// `smem SUBCOMMAND --json ARGS`, which must succeed, parsed.
pub fn json(subcommand: &str, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let output = smem(subcommand, &all);
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).expect("--json prints JSON")
}

/// Whether some line of `text` has exactly these whitespace-separated words.
pub fn has_row(text: &str, words: &[&str]) -> bool {
    text.lines()
        .any(|line| line.split_whitespace().eq(words.iter().copied()))
}

/// A file in the temporary directory, removed when dropped. The name holds the
/// process id and the test's own tag, so that tests running in parallel never
/// share a file.
pub struct TempFile {
    /// Where the file is.
    pub path: PathBuf,
}

impl TempFile {
    /// The path a file tagged `tag` gets, without creating it.
    pub fn path_for(tag: &str) -> PathBuf {
        std::env::temp_dir().join(format!("smem-test-{}-{tag}", std::process::id()))
    }

    /// Writes `contents` to a fresh file tagged `tag`.
    pub fn new(tag: &str, contents: &[u8]) -> TempFile {
        let path = Self::path_for(tag);
        fs::write(&path, contents).expect("the temporary file can be written");
        TempFile { path }
    }

    /// Writes `lines`, one a line, to a fresh file tagged `tag`.
    pub fn from_lines(tag: &str, lines: &[&str]) -> TempFile {
        let mut text = lines.join("\n");
        text.push('\n');
        Self::new(tag, text.as_bytes())
    }

    /// The path as the binary is given it and prints it.
    pub fn name(&self) -> &str {
        self.path.to_str().expect("the temporary path is UTF-8")
    }
}

impl Drop for TempFile {
    /// Leaves no files behind, whether the test passed or not.
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}
