//! The one layer every request passes: the `Host` header, the token, and for
//! a change the same-origin headers. Written once here, never per handler
//! (as Jupyter's token and `allow_origin` checks for its local server).

use std::sync::Arc;

use anyhow::{Context as _, Result};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::App;

/// The header every change must carry. A page of another origin cannot send
/// it without a CORS preflight, which this server never grants.
pub const CHANGE_HEADER: &str = "x-agent-memory";

/// The server's address and its secret.
pub struct Guard {
    port: u16,
    /// What `Host` may say: the server's own authorities.
    hosts: Vec<String>,
    token: String,
}

/// A fresh random token: 24 bytes as 48 hex digits.
pub fn random_token() -> Result<String> {
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes)
        .map_err(|e| anyhow::anyhow!("{e}"))
        .context("cannot draw a random token for the server")?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

impl Guard {
    /// A guard for a server on 127.0.0.1:`port` with a fresh random token.
    pub fn new(port: u16) -> Result<Self> {
        Ok(Guard::with_token(port, Vec::new(), random_token()?))
    }

    /// A guard for a server on `port` that answers `127.0.0.1:port`,
    /// `localhost:port` and the other authorities in `hosts`, with `token`.
    pub fn with_token(port: u16, hosts: Vec<String>, token: String) -> Self {
        let mut all = vec![format!("127.0.0.1:{port}"), format!("localhost:{port}")];
        all.extend(hosts);
        Guard {
            port,
            hosts: all,
            token,
        }
    }

    /// The URL to open: the first line `serve` prints.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/?token={}", self.port, self.token)
    }

    /// The cookie that carries the token after the first load; named by
    /// port, since cookies do not tell ports apart.
    fn cookie_name(&self) -> String {
        format!("agent_memory_{}", self.port)
    }

    /// The server's own authorities: what `Host` may say.
    fn own_host(&self, host: &str) -> bool {
        self.hosts.iter().any(|own| own == host)
    }

    /// Whether `origin` is this server's.
    fn own_origin(&self, origin: &str) -> bool {
        origin
            .strip_prefix("http://")
            .is_some_and(|host| self.own_host(host))
    }

    fn is_token(&self, candidate: &str) -> bool {
        // Same time whatever the first differing byte.
        let (a, b) = (candidate.as_bytes(), self.token.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }

    fn cookie_token<'a>(&self, headers: &'a HeaderMap) -> Option<&'a str> {
        let name = self.cookie_name();
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v)
    }
}

/// The `token` parameter of a query string, if any.
fn query_token(query: Option<&str>) -> Option<&str> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == "token")
        .map(|(_, v)| v)
}

/// The query string without its `token` parameters.
fn without_token(query: &str) -> String {
    query
        .split('&')
        .filter(|pair| !pair.is_empty() && pair.split('=').next() != Some("token"))
        .collect::<Vec<_>>()
        .join("&")
}

pub fn refuse(status: StatusCode, error: &str, message: &str) -> Response {
    let body = serde_json::json!({ "error": error, "message": message });
    let mut response = (status, axum::Json(body)).into_response();
    secure(response.headers_mut());
    response
}

/// Headers every answer carries; never an `Access-Control-*` one.
fn secure(headers: &mut HeaderMap) {
    let fixed: [(&str, &str); 6] = [
        (
            "content-security-policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
             img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        ),
        ("x-content-type-options", "nosniff"),
        ("x-frame-options", "DENY"),
        ("referrer-policy", "no-referrer"),
        ("cache-control", "no-store"),
        ("cross-origin-resource-policy", "same-origin"),
    ];
    for (name, value) in fixed {
        headers.insert(name, HeaderValue::from_static(value));
    }
}

/// The guard layer of `agent-memory mcp --http`: the `Host` check, then
/// the token as `Authorization: Bearer`; a request that carries an `Origin`
/// comes from a browser page, which this server never answers (no CORS).
pub async fn check_bearer(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    let headers = request.headers();
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    if !host.is_some_and(|h| guard.own_host(h)) {
        return refuse(
            StatusCode::FORBIDDEN,
            "wrong-host",
            "this server answers only requests for its own address",
        );
    }
    if headers.contains_key(header::ORIGIN) {
        return refuse(
            StatusCode::FORBIDDEN,
            "cross-origin",
            "this server answers MCP clients, not web pages (the request has an Origin)",
        );
    }
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.strip_prefix("Bearer "));
    if !bearer.is_some_and(|t| guard.is_token(t)) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "no-token",
            "missing or wrong token: send `Authorization: Bearer <token>` with the token `agent-memory mcp --http` printed",
        );
    }
    let mut response = next.run(request).await;
    secure(response.headers_mut());
    response
}

/// The guard layer.
pub async fn check(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let guard = &app.guard;
    let headers = request.headers();
    // DNS rebinding: a page of evil.example resolved to 127.0.0.1 still
    // sends `Host: evil.example`.
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    if !host.is_some_and(|h| guard.own_host(h)) {
        return refuse(
            StatusCode::FORBIDDEN,
            "wrong-host",
            "this server answers only requests for its own address",
        );
    }
    let from_query = query_token(request.uri().query()).filter(|t| guard.is_token(t));
    let from_cookie = guard.cookie_token(headers).filter(|t| guard.is_token(t));
    if from_query.is_none() && from_cookie.is_none() {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "no-token",
            "missing or wrong token: open the URL `agent-memory serve` printed",
        );
    }
    let method = request.method();
    if *method != Method::GET && *method != Method::HEAD {
        let origin = headers.get(header::ORIGIN).and_then(|h| h.to_str().ok());
        let marked = headers
            .get(CHANGE_HEADER)
            .is_some_and(|v| v.as_bytes() == b"1");
        let site = headers.get("sec-fetch-site").and_then(|h| h.to_str().ok());
        if !origin.is_some_and(|o| guard.own_origin(o))
            || !marked
            || site.is_some_and(|s| s != "same-origin")
        {
            return refuse(
                StatusCode::FORBIDDEN,
                "cross-origin",
                "a change needs this server's Origin and the x-agent-memory header",
            );
        }
    }
    // The first load: keep the token in a cookie and drop it from the
    // address bar, so it is neither bookmarked nor shown.
    if from_query.is_some() && *method == Method::GET && request.uri().path() == "/" {
        let query = without_token(request.uri().query().unwrap_or(""));
        let location = if query.is_empty() {
            "/".to_string()
        } else {
            format!("/?{query}")
        };
        let cookie = format!(
            "{}={}; Path=/; HttpOnly; SameSite=Strict",
            guard.cookie_name(),
            guard.token
        );
        let mut response = StatusCode::SEE_OTHER.into_response();
        let headers = response.headers_mut();
        secure(headers);
        if let (Ok(location), Ok(cookie)) = (
            HeaderValue::from_str(&location),
            HeaderValue::from_str(&cookie),
        ) {
            headers.insert(header::LOCATION, location);
            headers.insert(header::SET_COOKIE, cookie);
        }
        return response;
    }
    let mut response = next.run(request).await;
    secure(response.headers_mut());
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_taken_from_the_query_and_dropped_from_it() {
        assert_eq!(query_token(Some("q=a&token=abc&mode=literal")), Some("abc"));
        assert_eq!(query_token(Some("tokens=abc")), None);
        assert_eq!(query_token(None), None);
        assert_eq!(
            without_token("q=a&token=abc&mode=literal"),
            "q=a&mode=literal"
        );
        assert_eq!(without_token("token=abc"), "");
    }

    #[test]
    fn only_the_servers_own_address_and_origin_pass() {
        let guard = Guard::new(4123).unwrap();
        assert!(guard.own_host("127.0.0.1:4123"));
        assert!(guard.own_host("localhost:4123"));
        assert!(!guard.own_host("127.0.0.1:4124"));
        assert!(!guard.own_host("evil.example:4123"));
        assert!(!guard.own_host("127.0.0.1"));
        assert!(guard.own_origin("http://127.0.0.1:4123"));
        assert!(!guard.own_origin("https://127.0.0.1:4123"));
        assert!(!guard.own_origin("http://evil.example:4123"));
        assert!(!guard.own_origin("null"));
    }

    #[test]
    fn tokens_are_random_and_compared_whole() {
        let (a, b) = (Guard::new(1).unwrap(), Guard::new(1).unwrap());
        assert_ne!(a.token, b.token);
        assert_eq!(a.token.len(), 48);
        assert!(a.is_token(&a.token.clone()));
        assert!(!a.is_token(&a.token[..47]));
        assert!(!a.is_token(&b.token));
        assert!(a.url().ends_with(&format!("/?token={}", a.token)));
    }
}
