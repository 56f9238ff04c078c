//! Which memory root to use, and whether memory is turned off: the
//! resolution chain every host shares.
//!
//! The root comes from the first of these that is set:
//!
//! 1. an explicit root (the command's `--root`, a host's argument);
//! 2. `AGENT_MEMORY_DIR` (an empty value counts as unset);
//! 3. `"root"` in the config file;
//! 4. the platform data directory joined with `agent-memory`.
//!
//! The config file is `$AGENT_MEMORY_CONFIG` when that is set (then it must
//! exist), else `<platform config dir>/agent-memory/config.json` (optional).
//! It is a JSON object with two optional keys, `"root"` (a string) and
//! `"disabled"` (a boolean); any other key is an error, so a typo is not
//! silently ignored. JSON because every host parses it without a dependency.
//!
//! Memory is turned off by `AGENT_MEMORY_DISABLE` set to `1`, `true`, `yes`
//! or `on` (any case), or, when that variable is unset or empty, by
//! `"disabled": true` in the config file; `0`, `false`, `no` and `off` keep it
//! on, and any other value is an error. Turning memory off is the host's
//! decision, made here before the component is even loaded: a host gives the
//! model no context block and answers every tool call with
//! [`Disabled::tool_reply`].
//!
//! A root is validated after `~` expansion (`~` and `~/…` only): it must be
//! absolute, not a filesystem root (`/`, `C:\`, a bare UNC share), free of
//! NUL, and not an existing file or other non-directory.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// The environment variable naming the memory root.
pub const ENV_DIR: &str = "AGENT_MEMORY_DIR";
/// The environment variable that turns memory off.
pub const ENV_DISABLE: &str = "AGENT_MEMORY_DISABLE";
/// The environment variable naming the config file.
pub const ENV_CONFIG: &str = "AGENT_MEMORY_CONFIG";

/// A config file larger than this is refused: it holds two keys.
const MAX_CONFIG_BYTES: u64 = 64 * 1024;

/// Which rule of the chain chose the root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootRule {
    /// An explicit root: `--root`, or a host's argument.
    Explicit,
    /// The `AGENT_MEMORY_DIR` environment variable.
    Env,
    /// `"root"` in the config file.
    Config,
    /// The platform data directory joined with `agent-memory`.
    Default,
}

impl RootRule {
    /// The rule's word, shared by every host: `explicit`, `env`, `config`
    /// or `default`.
    pub fn as_str(self) -> &'static str {
        match self {
            RootRule::Explicit => "explicit",
            RootRule::Env => "env",
            RootRule::Config => "config",
            RootRule::Default => "default",
        }
    }
}

/// What turned memory off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disabled {
    /// `AGENT_MEMORY_DISABLE` with a true value (the value as set).
    Env(String),
    /// `"disabled": true` in this config file.
    Config(PathBuf),
}

impl Disabled {
    /// Why memory is off, for people: `AGENT_MEMORY_DISABLE=1` or
    /// `"disabled": true in /home/me/.config/agent-memory/config.json`.
    pub fn reason(&self) -> String {
        match self {
            Disabled::Env(value) => format!("{ENV_DISABLE}={value}"),
            Disabled::Config(path) => format!("\"disabled\": true in {}", path.display()),
        }
    }

    /// The text every tool call gets while memory is off: a plain answer
    /// the model can act on, not an error.
    pub fn tool_reply(&self) -> String {
        format!(
            "Memory is turned off ({}): nothing was read or written. Carry on without memory; do not retry memory tools in this session.",
            self.reason()
        )
    }
}

/// The outcome of the chain: the root, the rule that chose it, the config
/// file consulted, and whether memory is off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootChoice {
    /// The memory root: absolute, `~` expanded, not a filesystem root.
    pub root: PathBuf,
    /// The rule that chose it.
    pub rule: RootRule,
    /// The config file that was read, when one exists.
    pub config_file: Option<PathBuf>,
    /// `Some` when memory is turned off, saying by what.
    pub disabled: Option<Disabled>,
}

/// Why the chain failed: a matchable kind and a message naming the value,
/// where it came from, and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootError {
    kind: RootErrorKind,
    message: String,
}

/// The kinds of [`RootError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RootErrorKind {
    /// The root is empty, relative, or `~user`.
    NotAbsolute,
    /// The root is a filesystem root (`/`, a drive root, a bare UNC share).
    FilesystemRoot,
    /// The root contains a NUL character.
    Nul,
    /// The root exists and is not a directory.
    NotADirectory,
    /// `~` needs a home directory and there is none, or no rule gave a root
    /// (no platform data directory).
    NoHome,
    /// The config file is unreadable, too large, not JSON, or has an unknown
    /// key or a value of the wrong type.
    Config,
    /// `AGENT_MEMORY_DISABLE` has a value that is neither true nor false.
    Switch,
}

impl RootErrorKind {
    /// The kind's word, shared by every host, e.g. `not-absolute`.
    pub fn as_str(self) -> &'static str {
        match self {
            RootErrorKind::NotAbsolute => "not-absolute",
            RootErrorKind::FilesystemRoot => "filesystem-root",
            RootErrorKind::Nul => "nul",
            RootErrorKind::NotADirectory => "not-a-directory",
            RootErrorKind::NoHome => "no-home",
            RootErrorKind::Config => "config",
            RootErrorKind::Switch => "switch",
        }
    }
}

impl RootError {
    fn new(kind: RootErrorKind, message: impl Into<String>) -> Self {
        RootError {
            kind,
            message: message.into(),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> RootErrorKind {
        self.kind
    }

    /// The message for people.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for RootError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RootError {}

/// The inputs of the chain. [`RootResolver::from_env`] reads them from the
/// process (environment, home, platform directories); tests and hosts with
/// their own settings fill them in directly.
///
/// # Examples
///
/// ```
/// use agent_memory::{RootResolver, RootRule};
///
/// let choice = RootResolver::default()
///     .env_dir(Some("/srv/memory".into()))
///     .resolve()?;
/// assert_eq!(choice.root, std::path::Path::new("/srv/memory"));
/// assert_eq!(choice.rule, RootRule::Env);
/// assert!(choice.disabled.is_none());
/// # Ok::<(), agent_memory::RootError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct RootResolver {
    explicit: Option<PathBuf>,
    env_dir: Option<OsString>,
    env_disable: Option<OsString>,
    env_config: Option<OsString>,
    home: Option<PathBuf>,
    config_dir: Option<PathBuf>,
    data_dir: Option<PathBuf>,
}

impl RootResolver {
    /// The chain's inputs as this process sees them: `AGENT_MEMORY_DIR`,
    /// `AGENT_MEMORY_DISABLE`, `AGENT_MEMORY_CONFIG`, the home directory and
    /// the platform config and data directories (`~/.config` and
    /// `~/.local/share` on Linux, honouring `XDG_CONFIG_HOME` and
    /// `XDG_DATA_HOME`; `~/Library/Application Support` on macOS;
    /// `%APPDATA%` on Windows).
    pub fn from_env() -> Self {
        RootResolver {
            explicit: None,
            env_dir: std::env::var_os(ENV_DIR),
            env_disable: std::env::var_os(ENV_DISABLE),
            env_config: std::env::var_os(ENV_CONFIG),
            home: dirs::home_dir(),
            config_dir: dirs::config_dir(),
            data_dir: dirs::data_dir(),
        }
    }

    /// The explicit root (rule 1), e.g. from `--root`.
    pub fn explicit(mut self, root: Option<PathBuf>) -> Self {
        self.explicit = root;
        self
    }

    /// The value of `AGENT_MEMORY_DIR`.
    pub fn env_dir(mut self, value: Option<OsString>) -> Self {
        self.env_dir = value;
        self
    }

    /// The value of `AGENT_MEMORY_DISABLE`.
    pub fn env_disable(mut self, value: Option<OsString>) -> Self {
        self.env_disable = value;
        self
    }

    /// The value of `AGENT_MEMORY_CONFIG`.
    pub fn env_config(mut self, value: Option<OsString>) -> Self {
        self.env_config = value;
        self
    }

    /// The home directory, for `~`.
    pub fn home(mut self, home: Option<PathBuf>) -> Self {
        self.home = home;
        self
    }

    /// The platform config directory (the config file is
    /// `<it>/agent-memory/config.json`).
    pub fn config_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.config_dir = dir;
        self
    }

    /// The platform data directory (the default root is
    /// `<it>/agent-memory`).
    pub fn data_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.data_dir = dir;
        self
    }

    /// Runs the chain.
    ///
    /// # Errors
    ///
    /// A [`RootError`] whose kind says what is wrong: the chosen root fails
    /// validation, the config file is broken, `AGENT_MEMORY_DISABLE` has a
    /// value that is neither true nor false, or no rule gives a root.
    pub fn resolve(&self) -> Result<RootChoice, RootError> {
        let (config_file, config) = self.read_config()?;
        let disabled = match non_empty(self.env_disable.as_deref()) {
            Some(value) => switch(value)?.then(|| Disabled::Env(value.to_string_lossy().into())),
            None => match (&config_file, config.disabled) {
                (Some(path), Some(true)) => Some(Disabled::Config(path.clone())),
                _ => None,
            },
        };
        let (raw, rule, from) = if let Some(root) = &self.explicit {
            (root.clone().into_os_string(), RootRule::Explicit, "--root")
        } else if let Some(dir) = non_empty(self.env_dir.as_deref()) {
            (dir.to_os_string(), RootRule::Env, ENV_DIR)
        } else if let Some(root) = config.root {
            (OsString::from(root), RootRule::Config, "the config file")
        } else if let Some(data) = &self.data_dir {
            (
                data.join("agent-memory").into_os_string(),
                RootRule::Default,
                "the platform data directory",
            )
        } else {
            return Err(RootError::new(
                RootErrorKind::NoHome,
                format!(
                    "cannot choose a memory root: this system has no data directory (no home directory); set {ENV_DIR} or pass --root"
                ),
            ));
        };
        let root = validate(&raw, from, self.home.as_deref())?;
        Ok(RootChoice {
            root,
            rule,
            config_file,
            disabled,
        })
    }

    /// The config file's path, whether it must exist, and its contents.
    fn read_config(&self) -> Result<(Option<PathBuf>, Config), RootError> {
        let (path, required) = match non_empty(self.env_config.as_deref()) {
            Some(path) => (
                expand(path, ENV_CONFIG, self.home.as_deref(), "config file")?,
                true,
            ),
            None => match &self.config_dir {
                Some(dir) => (dir.join("agent-memory").join("config.json"), false),
                None => return Ok((None, Config::default())),
            },
        };
        let text = match read_small(&path) {
            Ok(text) => text,
            Err(ConfigRead::Missing) if !required => return Ok((None, Config::default())),
            Err(ConfigRead::Missing) => {
                return Err(config_error(
                    &path,
                    format!("it does not exist (named by {ENV_CONFIG})"),
                ));
            }
            Err(ConfigRead::Failed(why)) => return Err(config_error(&path, why)),
        };
        let config = parse_config(&text).map_err(|why| config_error(&path, why))?;
        Ok((Some(path), config))
    }
}

/// The whole chain as this process sees it, with `explicit` as rule 1: what
/// the `agent-memory` command runs.
///
/// # Errors
///
/// As [`RootResolver::resolve`].
pub fn resolve_root(explicit: Option<PathBuf>) -> Result<RootChoice, RootError> {
    RootResolver::from_env().explicit(explicit).resolve()
}

#[derive(Debug, Default)]
struct Config {
    root: Option<String>,
    disabled: Option<bool>,
}

fn parse_config(text: &str) -> Result<Config, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("it is not valid JSON ({e})"))?;
    let serde_json::Value::Object(map) = value else {
        return Err("it must be a JSON object such as {\"root\": \"~/memory\"}".into());
    };
    let mut config = Config::default();
    for (key, value) in map {
        match (key.as_str(), value) {
            ("root", serde_json::Value::String(root)) => config.root = Some(root),
            ("disabled", serde_json::Value::Bool(disabled)) => config.disabled = Some(disabled),
            ("root", _) => return Err("\"root\" must be a string".into()),
            ("disabled", _) => return Err("\"disabled\" must be true or false".into()),
            (other, _) => {
                return Err(format!(
                    "unknown key \"{other}\"; the keys are \"root\" and \"disabled\""
                ));
            }
        }
    }
    Ok(config)
}

fn config_error(path: &Path, why: impl fmt::Display) -> RootError {
    RootError::new(
        RootErrorKind::Config,
        format!("cannot use the config file `{}`: {why}", path.display()),
    )
}

enum ConfigRead {
    Missing,
    Failed(String),
}

/// Reads a small regular file as UTF-8, never blocking on a FIFO.
fn read_small(path: &Path) -> Result<String, ConfigRead> {
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(ConfigRead::Missing),
        Err(e) => {
            return Err(ConfigRead::Failed(format!(
                "cannot read it ({})",
                agent_memory_vocab::os_cause(&e)
            )));
        }
    };
    if !meta.is_file() {
        return Err(ConfigRead::Failed("it is not a regular file".into()));
    }
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(ConfigRead::Failed(format!(
            "it is {} bytes, over the {MAX_CONFIG_BYTES}-byte cap",
            meta.len()
        )));
    }
    let mut bytes = Vec::new();
    fs::File::open(path)
        .and_then(|f| f.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| {
            ConfigRead::Failed(format!(
                "cannot read it ({})",
                agent_memory_vocab::os_cause(&e)
            ))
        })?;
    String::from_utf8(bytes).map_err(|_| ConfigRead::Failed("it is not valid UTF-8".into()))
}

fn non_empty(value: Option<&OsStr>) -> Option<&OsStr> {
    value.filter(|v| !v.is_empty())
}

/// The meaning of an `AGENT_MEMORY_DISABLE` value.
fn switch(value: &OsStr) -> Result<bool, RootError> {
    let text = value.to_string_lossy();
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(RootError::new(
            RootErrorKind::Switch,
            format!(
                "{ENV_DISABLE}=`{text}` is not understood; set it to 1 to turn memory off, or 0 (or unset it) to keep it on"
            ),
        )),
    }
}

/// Expands `~`, then checks the rules of a memory root. `from` names where
/// the value came from, for the message.
fn validate(raw: &OsStr, from: &str, home: Option<&Path>) -> Result<PathBuf, RootError> {
    let path = expand(raw, from, home, "memory root")?;
    let fail = |kind, why: &str| {
        RootError::new(
            kind,
            format!(
                "the memory root `{}` (from {from}) {why}",
                raw.to_string_lossy()
            ),
        )
    };
    if lexical_depth(&path) == 0 {
        return Err(fail(
            RootErrorKind::FilesystemRoot,
            "is a filesystem root; memory needs a directory of its own, such as /srv/agent-memory",
        ));
    }
    if let Ok(meta) = fs::metadata(&path)
        && !meta.is_dir()
    {
        return Err(fail(
            RootErrorKind::NotADirectory,
            "exists and is not a directory; pick a directory, or move that file away",
        ));
    }
    Ok(path)
}

/// Expands `~` and `~/…` in the path `what` (`memory root`, `config file`)
/// and insists on an absolute path free of NUL.
fn expand(raw: &OsStr, from: &str, home: Option<&Path>, what: &str) -> Result<PathBuf, RootError> {
    let shown = raw.to_string_lossy();
    let fail =
        |kind, why: &str| RootError::new(kind, format!("the {what} `{shown}` (from {from}) {why}"));
    if raw.as_encoded_bytes().contains(&0) {
        return Err(fail(
            RootErrorKind::Nul,
            "contains a NUL character; give a plain absolute path",
        ));
    }
    let given = Path::new(raw);
    let mut parts = given.components();
    let path = if parts.next() == Some(Component::Normal(OsStr::new("~"))) {
        let Some(home) = home else {
            return Err(fail(
                RootErrorKind::NoHome,
                "starts with `~` but there is no home directory; give an absolute path",
            ));
        };
        home.join(parts.as_path())
    } else {
        given.to_path_buf()
    };
    if path.as_os_str().is_empty() || !path.is_absolute() {
        return Err(fail(
            RootErrorKind::NotAbsolute,
            "is not an absolute path (`~/…` is expanded; `~user` is not); give a full path such as /home/me/.local/share/agent-memory",
        ));
    }
    Ok(path)
}

/// How many named directories deep `path` is once `.` and `..` are applied
/// by text: 0 for `/`, `/..`, `C:\` or `\\server\share`.
fn lexical_depth(path: &Path) -> usize {
    let mut depth = 0usize;
    for component in path.components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::ParentDir => depth = depth.saturating_sub(1),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    depth
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolver(temp: &Path) -> RootResolver {
        RootResolver::default()
            .home(Some(temp.join("home")))
            .config_dir(Some(temp.join("config")))
            .data_dir(Some(temp.join("data")))
    }

    fn write_config(temp: &Path, text: &str) -> PathBuf {
        let dir = temp.join("config/agent-memory");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("config.json"), text).unwrap();
        dir.join("config.json")
    }

    #[test]
    fn each_rule_wins_over_the_ones_after_it() {
        let temp = tempfile::tempdir().unwrap();
        let t = temp.path();
        let config = write_config(t, r#"{"root": "~/from-config"}"#);
        let base = resolver(t);

        let choice = base.clone().resolve().unwrap();
        assert_eq!(
            (choice.root, choice.rule),
            (t.join("home/from-config"), RootRule::Config)
        );
        assert_eq!(choice.config_file, Some(config));

        let env = base.clone().env_dir(Some(t.join("env").into()));
        let choice = env.clone().resolve().unwrap();
        assert_eq!((choice.root, choice.rule), (t.join("env"), RootRule::Env));

        let choice = env.explicit(Some(t.join("flag"))).resolve().unwrap();
        assert_eq!(
            (choice.root, choice.rule),
            (t.join("flag"), RootRule::Explicit)
        );

        fs::remove_file(t.join("config/agent-memory/config.json")).unwrap();
        let choice = base.resolve().unwrap();
        assert_eq!(
            (choice.root, choice.rule),
            (t.join("data/agent-memory"), RootRule::Default)
        );
        assert_eq!(choice.config_file, None);
    }

    #[test]
    fn an_empty_env_dir_counts_as_unset() {
        let temp = tempfile::tempdir().unwrap();
        let choice = resolver(temp.path())
            .env_dir(Some("".into()))
            .resolve()
            .unwrap();
        assert_eq!(choice.rule, RootRule::Default);
    }

    #[test]
    fn bad_roots_get_their_kind() {
        let temp = tempfile::tempdir().unwrap();
        let t = temp.path();
        fs::write(t.join("a-file"), "x").unwrap();
        let cases: [(OsString, RootErrorKind); 7] = [
            ("relative/dir".into(), RootErrorKind::NotAbsolute),
            ("~someone/dir".into(), RootErrorKind::NotAbsolute),
            ("/".into(), RootErrorKind::FilesystemRoot),
            ("/tmp/..".into(), RootErrorKind::FilesystemRoot),
            ("//".into(), RootErrorKind::FilesystemRoot),
            (t.join("a-file").into(), RootErrorKind::NotADirectory),
            ("".into(), RootErrorKind::NotAbsolute),
        ];
        for (raw, kind) in cases {
            let result = resolver(t).explicit(Some(PathBuf::from(&raw))).resolve();
            let error = result.expect_err(&format!("{raw:?} must be refused"));
            assert_eq!(error.kind(), kind, "{raw:?}: {error}");
            assert!(error.message().contains("--root"), "{error}");
        }
    }

    #[test]
    fn tilde_needs_a_home() {
        let error = RootResolver::default()
            .explicit(Some("~/m".into()))
            .resolve()
            .unwrap_err();
        assert_eq!(error.kind(), RootErrorKind::NoHome);
    }

    #[cfg(unix)]
    #[test]
    fn nul_in_the_config_root_is_refused() {
        let temp = tempfile::tempdir().unwrap();
        write_config(temp.path(), r#"{"root": "/srv/a\u0000b"}"#);
        let error = resolver(temp.path()).resolve().unwrap_err();
        assert_eq!(error.kind(), RootErrorKind::Nul);
        assert!(error.message().contains("the config file"), "{error}");
    }

    #[test]
    fn the_switch_env_wins_over_the_config() {
        let temp = tempfile::tempdir().unwrap();
        let t = temp.path();
        let config = write_config(t, r#"{"disabled": true}"#);
        let choice = resolver(t).resolve().unwrap();
        assert_eq!(choice.disabled, Some(Disabled::Config(config)));

        let on = resolver(t).env_disable(Some("0".into())).resolve().unwrap();
        assert_eq!(on.disabled, None);
        for word in ["1", "TRUE", "yes", "on"] {
            let off = resolver(t)
                .env_disable(Some(word.into()))
                .resolve()
                .unwrap();
            assert_eq!(off.disabled, Some(Disabled::Env(word.into())));
        }
        let error = resolver(t)
            .env_disable(Some("ture".into()))
            .resolve()
            .unwrap_err();
        assert_eq!(error.kind(), RootErrorKind::Switch);
        assert!(error.message().contains("`ture`"), "{error}");
    }

    #[test]
    fn the_disabled_reply_names_the_switch() {
        let reply = Disabled::Env("1".into()).tool_reply();
        assert!(
            reply.starts_with(
                "Memory is turned off (AGENT_MEMORY_DISABLE=1): nothing was read or written."
            ),
            "{reply}"
        );
    }

    #[test]
    fn broken_configs_are_errors_naming_the_file() {
        let temp = tempfile::tempdir().unwrap();
        let t = temp.path();
        for text in [
            "not json",
            "[1]",
            r#"{"root": 3}"#,
            r#"{"disabled": "yes"}"#,
            r#"{"disable": true}"#,
        ] {
            let path = write_config(t, text);
            let error = resolver(t).resolve().unwrap_err();
            assert_eq!(error.kind(), RootErrorKind::Config, "{text}");
            assert!(
                error.message().contains(&path.display().to_string()),
                "{error}"
            );
        }
    }

    #[test]
    fn a_named_config_must_exist() {
        let temp = tempfile::tempdir().unwrap();
        let t = temp.path();
        let error = resolver(t)
            .env_config(Some(t.join("nope.json").into()))
            .resolve()
            .unwrap_err();
        assert_eq!(error.kind(), RootErrorKind::Config);
        let named = t.join("mine.json");
        fs::write(&named, r#"{"root": "/srv/mine"}"#).unwrap();
        let choice = resolver(t)
            .env_config(Some(named.clone().into()))
            .resolve()
            .unwrap();
        assert_eq!(choice.root, Path::new("/srv/mine"));
        assert_eq!(choice.config_file, Some(named));
    }
}
