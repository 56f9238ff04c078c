//! What the command-line test files share: reading a finished process.

use std::process::Output;

/// The process's standard output, as UTF-8.
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// The process's standard error, as UTF-8.
pub fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// Fail the test with both streams unless the process succeeded; `what`
/// names the arguments that were run.
pub fn assert_success(output: &Output, what: &[&str]) {
    assert!(
        output.status.success(),
        "{what:?} failed with {}:\nstdout: {}\nstderr: {}",
        output.status,
        stdout(output),
        stderr(output)
    );
}
