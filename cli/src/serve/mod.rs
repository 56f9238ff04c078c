//! `agent-memory serve`: the dashboard, a local web app on the host library.
//!
//! Every view reads through, and every change goes through, the same
//! [`Memory`] methods the other commands call: this module checks requests
//! and translates them, it never touches a memory file itself.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};

use agent_memory::{Memory, OpenOptions, RootChoice, Runtime, Scope, SecretPolicy};
use anyhow::{Context as _, Result};
use axum::Router;
use axum::routing::{get, post};

mod api;
mod guard;

pub use guard::{Guard, check_bearer, random_token, refuse};

/// What the overview's status panel shows that the memory does not know.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Status {
    root: String,
    rule: String,
    config: Option<String>,
    secrets: &'static str,
    /// Whether the model of semantic recall is installed, and how to
    /// install it: the dashboard is for the person.
    semantic: String,
}

impl Status {
    pub fn new(choice: &RootChoice, secrets: SecretPolicy) -> Self {
        Status {
            root: choice.root.display().to_string(),
            rule: crate::rule_text(choice),
            config: choice.config_file.as_ref().map(|f| f.display().to_string()),
            secrets: secrets.tool_word(),
            semantic: crate::recall::model_line(),
        }
    }
}

/// One store seen two ways: `anchored` (with the project directory: stale
/// marks, re-anchoring writes) for listings, the context block and every
/// change; `plain` (without) to read a file's own text.
pub struct Pair {
    pub anchored: Memory,
    pub plain: Memory,
}

/// The personal store and, when the project has one, the team store.
pub struct Stores {
    pub personal: Pair,
    pub team: Option<Pair>,
}

impl Stores {
    /// The pair for `scope`.
    ///
    /// # Errors
    ///
    /// `no-team-dir` for team scope when the project has no team memory.
    pub fn pair(&mut self, scope: Scope) -> Result<&mut Pair, api::ApiError> {
        match (scope, &mut self.team) {
            (Scope::Personal, _) => Ok(&mut self.personal),
            (Scope::Team, Some(team)) => Ok(team),
            (Scope::Team, None) => Err(api::ApiError::NoTeamDir),
        }
    }
}

/// Everything a request handler needs.
pub struct App {
    pub guard: Guard,
    pub status: Status,
    pub stores: Mutex<Stores>,
}

impl App {
    /// Runs `work` on the stores on a blocking thread: a call into the
    /// component may take a while (a search of a large store), and the
    /// server keeps answering meanwhile.
    pub async fn with_stores<R: Send + 'static>(
        self: &Arc<Self>,
        work: impl FnOnce(&mut Stores) -> R + Send + 'static,
    ) -> R {
        let app = Arc::clone(self);
        tokio::task::spawn_blocking(move || {
            let mut stores = app.stores.lock().unwrap_or_else(PoisonError::into_inner);
            work(&mut stores)
        })
        .await
        .expect("a dashboard request panicked")
    }
}

/// The routes, behind the guard layer.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(api::index))
        .route("/app.js", get(api::script))
        .route("/app.css", get(api::style))
        .route("/api/overview", get(api::overview))
        .route("/api/files", get(api::files))
        .route("/api/file", get(api::file))
        .route("/api/search", get(api::search))
        .route("/api/version", get(api::version))
        .route("/api/secrets", get(api::secrets))
        .route("/api/save", post(api::save))
        .route("/api/new", post(api::create))
        .route("/api/delete", post(api::delete))
        .route("/api/rename", post(api::rename))
        .route("/api/restore", post(api::restore))
        .route("/api/undo", post(api::undo))
        .route("/api/refresh", post(api::refresh))
        .route("/api/pending", get(api::pending))
        .route("/api/approve", post(api::approve))
        .route("/api/reject", post(api::reject))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&app),
            guard::check,
        ))
        .with_state(app)
}

/// Opens the stores, binds 127.0.0.1:`port`, prints the URL and serves
/// until Ctrl-C (or SIGTERM).
pub fn run(
    runtime: &Runtime,
    anchored: OpenOptions,
    plain: OpenOptions,
    status: Status,
    port: u16,
    open: bool,
) -> Result<()> {
    let mut options = vec![anchored.clone(), plain.clone()];
    let team = anchored.team_directory().is_some();
    if team {
        options.push(anchored.scope(Scope::Team));
        options.push(plain.scope(Scope::Team));
    }
    // One instance for all of them: each sees only its own directories.
    let mut memories = runtime.open_group(options)?.into_iter();
    let mut next = || memories.next().expect("one memory per options");
    let personal = Pair {
        anchored: next(),
        plain: next(),
    };
    let team = team.then(|| Pair {
        anchored: next(),
        plain: next(),
    });

    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .context("cannot start the server's event loop")?;
    tokio.block_on(async move {
        let listener = tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
            .await
            .with_context(|| format!("cannot listen on 127.0.0.1:{port}"))?;
        let port = listener.local_addr()?.port();
        let guard = Guard::new(port)?;
        let url = guard.url();
        let app = Arc::new(App {
            guard,
            status,
            stores: Mutex::new(Stores { personal, team }),
        });
        let stop = stop_signal().context("cannot catch Ctrl-C")?;
        // The first line is the contract: scripts and tests read it.
        crate::print_text(&url)?;
        eprintln!("agent-memory: serving the dashboard on 127.0.0.1:{port}; Ctrl-C stops it");
        if open {
            open_browser(&url);
        }
        axum::serve(listener, router(app))
            .with_graceful_shutdown(stop)
            .await
            .context("the dashboard server failed")?;
        eprintln!("agent-memory: dashboard stopped");
        Ok(())
    })
}

/// Resolves on Ctrl-C, or on SIGTERM. The handlers are in place when this
/// returns: a Ctrl-C right after the URL is printed must stop the server
/// cleanly, not kill it.
#[cfg(unix)]
pub fn stop_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(std::future::poll_fn(move |cx| {
        if interrupt.poll_recv(cx).is_ready() || terminate.poll_recv(cx).is_ready() {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    }))
}

/// Resolves on Ctrl-C.
#[cfg(not(unix))]
pub fn stop_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    let ctrl_c = tokio::signal::windows::ctrl_c()?;
    Ok(async move {
        let mut ctrl_c = ctrl_c;
        ctrl_c.recv().await;
    })
}

/// Best effort: the URL is printed either way.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener)
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        eprintln!(
            "agent-memory: cannot run `{opener}` to open the browser ({}); open the URL above",
            agent_memory::os_cause(&e)
        );
    }
}
