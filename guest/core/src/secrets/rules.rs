//! The built-in rules. Formats come from the providers' documentation and
//! from what public leak scanners (gitleaks' `config/gitleaks.toml` among
//! them) detect; the expressions and checks are our own.
//!
//! Every expression is anchored at its start (see [`Start`]) and bounded in
//! length. Group 1, when present, is the secret value; the rest of the
//! match is context (a key name, a right boundary). A right boundary is
//! written as `\b{end-half}` (the next byte is not a word byte) or as an
//! explicit class, so a longer run that only begins like a token is not
//! taken for one.

use std::ops::Range;

use regex_lite::CaptureLocations;

use super::values::{
    classes, decode_base64, entropy, is_base64_of_prose, is_hash_like, is_placeholder,
};
use super::{Rule, Start, ValueFn, is_value_byte, is_word_byte};

/// A rule anchored at its keyword with the common defaults: the value is
/// group 1 (or the whole match), an entropy floor of 3 bits per character,
/// a 320-byte window, no extra check.
const fn rule(
    id: &'static str,
    description: &'static str,
    keywords: &'static [&'static str],
    pattern: &'static str,
) -> Rule {
    Rule {
        id,
        description,
        keywords,
        start: Start::Keyword,
        pattern,
        window: 320,
        // The shortest keyword-anchored token (`sk_live_` + 10) has 18.
        min_run: 18,
        pre: no_pre,
        value: group1,
        check: any,
        entropy: 3.0,
        generic: false,
    }
}

impl Rule {
    /// Start at the beginning of the run of `class` bytes holding the
    /// keyword, which must be at least `min` bytes before the keyword.
    const fn back(mut self, class: fn(u8) -> bool, min: usize) -> Rule {
        self.start = Start::Back(class);
        self.min_run = min;
        self
    }
    const fn min_run(mut self, bytes: usize) -> Rule {
        self.min_run = bytes;
        self
    }
    const fn pre(mut self, pre: fn(&str, usize, usize) -> bool) -> Rule {
        self.pre = pre;
        self
    }
    const fn window(mut self, bytes: usize) -> Rule {
        self.window = bytes;
        self
    }
    const fn entropy(mut self, bits: f32) -> Rule {
        self.entropy = bits;
        self
    }
    const fn check(mut self, check: fn(&str) -> bool) -> Rule {
        self.check = check;
        self
    }
    const fn value(mut self, value: ValueFn) -> Rule {
        self.value = value;
        self
    }
}

fn any(_: &str) -> bool {
    true
}

fn no_pre(_: &str, _: usize, _: usize) -> bool {
    true
}

/// A private key header: `-----BEGIN`, `[ A-Z0-9]` ending in `PRIVATE KEY`
/// or `PRIVATE KEY BLOCK`, `-----`. Returns its length. Read by hand:
/// every header in a text gets here, and it is too short to need an
/// expression.
pub(super) fn pem_header(text: &str, start: usize) -> Option<usize> {
    let b = text.as_bytes().get(start..)?.strip_prefix(b"-----BEGIN")?;
    let kind = b
        .iter()
        .take(64)
        .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || **c == b' ')
        .count();
    // The run of kind bytes swallows `PRIVATE KEY` and ` BLOCK` too.
    let run = &b[..kind];
    let private = run.ends_with(b"PRIVATE KEY") || run.ends_with(b"PRIVATE KEY BLOCK");
    (private && b[kind..].starts_with(b"-----")).then_some(10 + kind + 5)
}

/// `Bearer` and a run of at least 16 token bytes.
fn bearer_pre(text: &str, start: usize, _: usize) -> bool {
    let b = &text.as_bytes()[start + 6..];
    let spaces = b
        .iter()
        .take(4)
        .take_while(|c| c.is_ascii_whitespace())
        .count();
    spaces > 0
        && b[spaces..]
            .iter()
            .take(16)
            .take_while(|&&c| is_value_byte(c))
            .count()
            == 16
}

/// A URL with user info holding a colon: `scheme://user:pass@`.
fn url_pre(text: &str, _: usize, at: usize) -> bool {
    let mut colon = false;
    for &b in text.as_bytes()[at + 3..].iter().take(400) {
        match b {
            b'@' => return colon,
            b':' => colon = true,
            b'/' | b'?' | b'#' | b'"' | b'\'' | b'<' | b'>' => return false,
            _ if b.is_ascii_whitespace() => return false,
            _ => {}
        }
    }
    false
}

/// The cheap half of [`generic_value`], run before the expression: a name
/// that [`key_kind`] accepts, an assignment (or `value=`, `is`, or a space
/// before a non-word), and a first value word that could pass.
fn generic_pre(text: &str, start: usize, at: usize) -> bool {
    let b = text.as_bytes();
    // `${DB_PASSWORD:?required}`, `$TOKEN`: a reference, not an assignment.
    if start > 0 && matches!(b[start - 1], b'{' | b'$') {
        return false;
    }
    let mut end = at;
    while end < b.len() && end - start < 96 && is_word_byte(b[end]) {
        end += 1;
    }
    let mut i = end;
    let skip = |i: &mut usize, set: &[u8], max: usize| {
        let from = *i;
        while *i < b.len() && *i - from < max && set.contains(&b[*i]) {
            *i += 1;
        }
        *i - from
    };
    skip(&mut i, b"\"'`", 1);
    skip(&mut i, b"]", 1);
    skip(&mut i, b"*", 2);
    let spaces = skip(&mut i, b" \t", 4);
    if skip(&mut i, b":=>", 2) > 0 {
        skip(&mut i, b" \t", 4);
    } else if spaces == 0 {
        return false;
    } else if b[start] == b'-' {
        // `--api-key VALUE`: a command-line flag, its value after a space.
    } else if b[i..].starts_with(b"value") {
        i += 5;
        skip(&mut i, b" \t", 4);
        if skip(&mut i, b"=", 1) == 0 {
            return false;
        }
        skip(&mut i, b" \t", 4);
    } else if b[i..].starts_with(b"is ") || b[i..].starts_with(b"was ") {
        i += 3;
        skip(&mut i, b" \t", 4);
    }
    let Some(&first) = b.get(i) else {
        return false;
    };
    if matches!(first, b'"' | b'\'' | b'`') {
        let n = b[i + 1..]
            .iter()
            .take(257)
            .take_while(|&&c| c != first && c != b'\n')
            .count();
        return n >= 6 && key_kind(&text[start..end]).is_some();
    }
    let mut n = b[i..]
        .iter()
        .take(257)
        .take_while(|&&c| !c.is_ascii_whitespace() && !b"\"'`,;&<>".contains(&c))
        .count();
    // An ASCII byte ends the word at a char boundary, but the 257-byte cap
    // can fall inside a character: back off to the boundary before it.
    while !text.is_char_boundary(i + n) {
        n -= 1;
    }
    let word = text[i..i + n].trim_end_matches(['.', ',', ':', ';', '!', '?', ')', ']', '}']);
    // The name is judged last: it allocates, and most hits in prose fail
    // the shape above already.
    word.len() >= 6
        && !is_word_like(word)
        && !is_reference_or_code(word, false)
        && key_kind(&text[start..end]).is_some()
}

fn group1(locs: &CaptureLocations, _: &str) -> Option<Range<usize>> {
    let (s, e) = locs.get(1).or_else(|| locs.get(0))?;
    Some(s..e)
}

/// Group 1 without trailing dots: a token class that allows `.` would
/// otherwise swallow the full stop of a sentence.
fn group1_trim_dots(locs: &CaptureLocations, hay: &str) -> Option<Range<usize>> {
    let r = group1(locs, hay)?;
    let v = hay[r.clone()].trim_end_matches('.');
    Some(r.start..r.start + v.len())
}

fn is_digit(b: u8) -> bool {
    b.is_ascii_digit()
}
fn is_hex(b: u8) -> bool {
    b.is_ascii_hexdigit()
}
fn is_alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}
fn is_scheme_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-')
}
fn is_azure_secret_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'~' | b'.' | b'-')
}

fn has_digit_and_letter(v: &str) -> bool {
    v.bytes().any(|b| b.is_ascii_digit()) && v.bytes().any(|b| b.is_ascii_alphabetic())
}

fn not_all_hex(v: &str) -> bool {
    !v.bytes().all(|b| b.is_ascii_hexdigit())
}

fn mixed_case(v: &str) -> bool {
    v.bytes().any(|b| b.is_ascii_lowercase()) && v.bytes().any(|b| b.is_ascii_uppercase())
}

/// A JWT's header decodes to a JSON object naming its algorithm or type,
/// and its payload to a JSON object.
fn jwt_check(v: &str) -> bool {
    let mut parts = v.split('.');
    let (Some(h), Some(p)) = (parts.next(), parts.next()) else {
        return false;
    };
    let (Some(h), Some(p)) = (decode_base64(h), decode_base64(p)) else {
        return false;
    };
    let h = String::from_utf8_lossy(&h);
    h.trim_start().starts_with('{')
        && (h.contains("\"alg\"") || h.contains("\"typ\""))
        && p.first() == Some(&b'{')
}

/// OpenAI keys carry `T3BlbkFJ` (base64 of `OpenAI`); project, service
/// account and admin keys may not, so those need length and randomness.
fn openai_check(v: &str) -> bool {
    if v.starts_with("sk-ant-") || v.starts_with("sk-or-") {
        return false;
    }
    if v.contains("T3BlbkFJ") {
        return true;
    }
    let body = ["sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-", "sk-"]
        .iter()
        .find_map(|p| v.strip_prefix(p))
        .unwrap_or(v);
    body.len() >= 32 && has_digit_and_letter(body) && entropy(body) >= 4.0
}

/// `Basic` credentials decode to `user:password` with a real password.
fn basic_auth_check(v: &str) -> bool {
    let Some(bytes) = decode_base64(v) else {
        return false;
    };
    let Ok(s) = std::str::from_utf8(&bytes) else {
        return false;
    };
    match s.split_once(':') {
        Some((user, pass)) => {
            !pass.is_empty()
                && !s.chars().any(char::is_control)
                && !is_placeholder(pass)
                && pass != user
        }
        None => false,
    }
}

/// Random-looking enough for a bearer token: not a word or a hash.
fn bearer_check(v: &str) -> bool {
    classes(v) >= 2 && has_digit_and_letter(v) && !is_hash_like(v)
}

/// A connection string's password (group 2), unless it stands in for one
/// or repeats the user name (a local default such as `postgres:postgres`).
fn url_password(locs: &CaptureLocations, hay: &str) -> Option<Range<usize>> {
    let (us, ue) = locs.get(1)?;
    let (ps, pe) = locs.get(2)?;
    let (user, pass) = (&hay[us..ue], &hay[ps..pe]);
    if pass == user || pass.starts_with('$') || pass.starts_with('%') && pass.len() < 4 {
        return None;
    }
    Some(ps..pe)
}

/// What a generic assignment's key says its value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyKind {
    Password,
    Token,
}

/// Last words of a key that name something about a secret rather than the
/// secret itself (`token_count`, `password_hash`, `secret_name`).
const BENIGN_LAST_WORDS: &[&str] = &[
    "id",
    "ids",
    "name",
    "names",
    "count",
    "counts",
    "len",
    "length",
    "size",
    "type",
    "types",
    "kind",
    "url",
    "uri",
    "urls",
    "endpoint",
    "host",
    "hostname",
    "port",
    "path",
    "paths",
    "file",
    "files",
    "filename",
    "dir",
    "directory",
    "env",
    "var",
    "field",
    "fields",
    "header",
    "param",
    "params",
    "expiry",
    "expires",
    "expiration",
    "expired",
    "exp",
    "ttl",
    "timeout",
    "age",
    "max",
    "min",
    "limit",
    "limits",
    "hash",
    "hashed",
    "hashes",
    "sha",
    "digest",
    "checksum",
    "fingerprint",
    "prefix",
    "suffix",
    "format",
    "policy",
    "rule",
    "rules",
    "mode",
    "enabled",
    "enable",
    "disabled",
    "required",
    "hint",
    "label",
    "usage",
    "budget",
    "lifetime",
    "rotation",
    "store",
    "manager",
    "provider",
    "source",
    "location",
    "ref",
    "arn",
    "version",
    "index",
    "pos",
    "prompt",
    "regex",
    "pattern",
    "schema",
    "class",
    "error",
    "errors",
    "valid",
    "validation",
    "validator",
    "strength",
    "rounds",
    "algorithm",
    "alg",
    "method",
    "scheme",
    "scope",
    "scopes",
    "audience",
    "issuer",
    "at",
    "created",
    "updated",
    "time",
    "date",
    "reset",
    "request",
    "response",
    "generator",
    "command",
    "cmd",
    "length",
    "set",
    "list",
    "map",
    "dict",
    "type",
    "bytes",
    "bits",
    "encoding",
    "info",
    "description",
    "desc",
    "doc",
    "docs",
    "help",
    "note",
    "comment",
    "status",
    "state",
    "flag",
    "flags",
    "option",
    "options",
    "config",
    "settings",
    "key",
    "keys",
    "refresh",
    "cache",
    "mount",
    "volume",
    "ref",
    "secrets",
    "tokens",
    "usage",
];

/// Words that, as the first part of `<word>key` or `<word>_key`, make the
/// key name a secret key (`api_key`, `SECRET_KEY`, `signingKey`).
const KEY_QUALIFIERS: &[&str] = &[
    "api",
    "access",
    "secret",
    "private",
    "auth",
    "signing",
    "encryption",
    "master",
    "app",
    "service",
    "client",
    "account",
    "license",
    "session",
    "webhook",
    "admin",
    "subscription",
    "shared",
    "hmac",
    "deploy",
    "rest",
    "server",
    "storage",
    "consumer",
    "write",
    "read",
];

/// The words of a key name, lowercased: split at non-alphanumerics and at
/// camel-case humps (`XApiKey` -> `x`, `api`, `key`).
fn key_words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let b = key.as_bytes();
    let mut cur = String::new();
    for (i, &c) in b.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let hump = c.is_ascii_uppercase()
            && i > 0
            && (b[i - 1].is_ascii_lowercase()
                || b[i - 1].is_ascii_digit()
                || (b[i - 1].is_ascii_uppercase()
                    && b.get(i + 1).is_some_and(|n| n.is_ascii_lowercase())));
        if hump && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        cur.push(c.to_ascii_lowercase() as char);
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// Whether the key name says its value is a password or a token (or any
/// other secret), and which.
fn key_kind(key: &str) -> Option<KeyKind> {
    let words = key_words(key);
    let last = words.last()?;
    if BENIGN_LAST_WORDS.contains(&last.as_str()) && !last_is_secret_key(&words) {
        return None;
    }
    let password = |w: &str| {
        matches!(w, "pass" | "pwd" | "passphrase")
            || w.ends_with("password")
            || w.ends_with("passwd")
    };
    if words.iter().any(|w| password(w)) {
        return Some(KeyKind::Password);
    }
    let tokenish = |w: &str| {
        w.ends_with("secret")
            || w.ends_with("token")
            || w.ends_with("apikey")
            || matches!(w, "credential" | "credentials")
            || w.strip_suffix("key")
                .is_some_and(|q| KEY_QUALIFIERS.contains(&q))
    };
    if words.iter().any(|w| tokenish(w)) || last_is_secret_key(&words) || last == "auth" {
        return Some(KeyKind::Token);
    }
    None
}

/// `..._<qualifier>_key`: the key name ends in a secret key.
fn last_is_secret_key(words: &[String]) -> bool {
    match words {
        [.., q, k] => k == "key" && KEY_QUALIFIERS.contains(&q.as_str()),
        _ => false,
    }
}

/// A value that is a reference to where the secret lives, or code, rather
/// than the secret: a path, a URL, a dotted or environment variable name, a
/// call, a YAML tag or alias.
fn is_reference_or_code(v: &str, quoted: bool) -> bool {
    let b = v.as_bytes();
    let dotted_ident = {
        let mut parts = v.split('.');
        v.contains('.')
            && parts.all(|p| {
                p.bytes()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
                    && p.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
            })
    };
    let env_name = b.first().is_some_and(u8::is_ascii_uppercase)
        && v.contains('_')
        && b.iter()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_');
    const FILE_ENDINGS: &[&str] = &[
        ".pem", ".key", ".json", ".txt", ".yaml", ".yml", ".env", ".crt", ".p12", ".pfx", ".gpg",
        ".toml", ".md", ".sh",
    ];
    v.contains("://")
        || v.starts_with('/')
        || v.starts_with("~/")
        || v.starts_with("./")
        || v.starts_with("../")
        || dotted_ident
        || env_name
        || FILE_ENDINGS.iter().any(|e| v.to_ascii_lowercase().ends_with(e))
        // Unquoted only: a YAML tag, anchor or alias, a Windows `%VAR%`, a
        // decorator, a comment, or a call or index expression.
        || (!quoted
            && (v.starts_with(['!', '&', '*', '@', '%', '#'])
                || v.contains(['(', ')', '[', ']', '{', '}'])))
}

/// Letters (and word separators) only: a word or an identifier, unless it
/// is long and mixed-case enough to be random.
fn is_word_like(v: &str) -> bool {
    v.bytes()
        .all(|b| b.is_ascii_alphabetic() || matches!(b, b'-' | b'_' | b' '))
        && !(v.len() >= 20 && mixed_case(v) && entropy(v) >= 4.0)
}

/// Lowercase words and numbers joined by `-`, `_` or `.` (`prod-db-2024`,
/// `2fa-totp-enabled`): a name, not a random value, whose parts would mix
/// letters and digits.
fn is_slug(v: &str) -> bool {
    v.contains(['-', '_', '.'])
        && v.split(['-', '_', '.']).all(|part| {
            part.bytes().all(|b| b.is_ascii_lowercase()) || part.bytes().all(|b| b.is_ascii_digit())
        })
}

/// The generic assignment: groups are 1 key, 2 closing quote, 3 separator,
/// 4/5/6 a double-, single- or back-quoted value, 7 a bare value.
fn generic_value(locs: &CaptureLocations, hay: &str) -> Option<Range<usize>> {
    let (ks, ke) = locs.get(1)?;
    let kind = key_kind(&hay[ks..ke])?;
    let (ss, se) = locs.get(3)?;
    let mut sep = hay[ss..se].trim();
    // `--api-key VALUE`: a command-line flag takes its value after a space
    // as surely as after `=`.
    if sep.is_empty() && hay[ks..ke].starts_with('-') {
        sep = "=";
    }
    // `<add key="DbPassword" value="..."/>`: a key attribute naming the
    // value attribute after it. The key's closing quote must be there.
    if sep.starts_with("value") {
        if locs.get(2).is_none_or(|(s, e)| s == e) {
            return None;
        }
        sep = "=";
    }
    let (mut range, quoted) = match (4..=6).find_map(|g| locs.get(g)) {
        Some((s, e)) => (s..e, true),
        None => {
            let (s, e) = locs.get(7)?;
            (s..e, false)
        }
    };
    if !quoted {
        let v = hay[range.clone()].trim_end_matches(['.', ',', ':', ';', '!', '?', ')', ']', '}']);
        range.end = range.start + v.len();
    }
    let v = &hay[range.clone()];
    if v.contains(char::is_whitespace)
        || is_reference_or_code(v, quoted)
        || is_word_like(v)
        || is_slug(v)
    {
        return None;
    }
    let (len, cls, bits) = (v.chars().count(), classes(v), entropy(v));
    let ok = match (sep, kind) {
        ("is" | "was", KeyKind::Password) => len >= 8 && cls >= 3 && bits >= 2.5,
        ("is" | "was", KeyKind::Token) => len >= 16 && cls >= 2 && bits >= 3.5 && !is_hash_like(v),
        ("", _) => {
            len >= 20 && cls >= 2 && bits >= 3.7 && has_digit_and_letter(v) && !is_hash_like(v)
        }
        (_, KeyKind::Password) => len >= 6 && cls >= 2 && bits >= 2.0,
        (_, KeyKind::Token) => len >= 12 && cls >= 2 && bits >= 3.3,
    };
    (ok && !is_base64_of_prose(v)).then_some(range)
}

/// The rules, specific first, generic last (the order also breaks ties
/// between specific rules matching the same value).
pub(super) static RULES: &[Rule] = &[
    Rule {
        start: Start::PrivateKey,
        ..rule(
            "private-key-block",
            "a PEM or OpenSSH private key block (RSA, EC, DSA, OPENSSH, PKCS#8, PGP), also \\n-escaped in JSON",
            &["-----begin"],
            "",
        )
    },
    rule(
        "aws-access-key-id",
        "an AWS access key id (AKIA/ASIA/ABIA/ACCA/A3T prefix, 20 characters)",
        &["akia", "asia", "abia", "acca", "a3t"],
        r"((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})\b{end-half}",
    ),
    rule(
        "aws-secret-access-key",
        "an AWS secret access key (40 base64 characters) assigned to an AWS secret key name",
        &["secret_access_key", "secretaccesskey", "secret-access-key", "aws_secret", "awssecret"],
        r#"[A-Za-z0-9_.-]{0,96}["']?\s{0,4}(?::=|=>|=|:)\s{0,4}["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
    )
    .back(is_word_byte, 0)
    .entropy(4.0)
    .check(not_all_hex),
    rule(
        "gcp-api-key",
        "a Google Cloud or Google AI (Gemini) API key (AIza prefix)",
        &["aiza"],
        r"(AIza[0-9A-Za-z_-]{35})(?:[^0-9A-Za-z_-]|$)",
    )
    .entropy(3.5),
    rule(
        "gcp-oauth-client-secret",
        "a Google OAuth client secret (GOCSPX- prefix)",
        &["gocspx-"],
        r"(GOCSPX-[0-9A-Za-z_-]{28})(?:[^0-9A-Za-z_-]|$)",
    ),
    rule(
        "azure-storage-key",
        "an Azure storage account or Service Bus shared access key in a connection string",
        &["accountkey=", "sharedaccesskey="],
        r"(?i:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{40,100}={0,2})",
    )
    .entropy(4.0),
    rule(
        "azure-ad-client-secret",
        "an Azure AD (Entra ID) application client secret (the `Q~` format)",
        &["q~"],
        r"([A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})(?:[^A-Za-z0-9_~.-]|$)",
    )
    .back(is_azure_secret_byte, 4)
    .entropy(3.5),
    rule(
        "azure-sas-token",
        "the signature of an Azure shared access signature (SAS) URL",
        &["sig="],
        r"sig=([A-Za-z0-9%+/]{40,120}(?:%3D|=){0,2})",
    )
    .entropy(3.5),
    rule(
        "github-pat",
        "a GitHub classic personal access token (ghp_)",
        &["ghp_"],
        r"(ghp_[A-Za-z0-9]{36})\b{end-half}",
    ),
    rule(
        "github-fine-grained-pat",
        "a GitHub fine-grained personal access token (github_pat_)",
        &["github_pat_"],
        r"(github_pat_[A-Za-z0-9_]{60,255})\b{end-half}",
    ),
    rule(
        "github-oauth-token",
        "a GitHub OAuth access token (gho_)",
        &["gho_"],
        r"(gho_[A-Za-z0-9]{36})\b{end-half}",
    ),
    rule(
        "github-app-token",
        "a GitHub App user-to-server or installation token (ghu_, ghs_)",
        &["ghu_", "ghs_"],
        r"((?:ghu|ghs)_[A-Za-z0-9]{36})\b{end-half}",
    ),
    rule(
        "github-refresh-token",
        "a GitHub refresh token (ghr_)",
        &["ghr_"],
        r"(ghr_[A-Za-z0-9]{36,76})\b{end-half}",
    ),
    rule(
        "gitlab-pat",
        "a GitLab personal, project or group access token (glpat-)",
        &["glpat-"],
        r"(glpat-[A-Za-z0-9_.-]{20,300})(?:[^A-Za-z0-9_.-]|$)",
    )
    .value(group1_trim_dots),
    rule(
        "gitlab-token",
        "another GitLab token: deploy, runner, CI build, feed, incoming mail, agent, OAuth app, SCIM, pipeline trigger, runner registration",
        &[
            "gldt-", "glrt-", "glcbt-", "glft-", "glimt-", "glagent-", "gloas-", "glsoat-", "glffct-",
            "glptt-", "gr1348941",
        ],
        r"((?:gldt|glrt|glcbt|glft|glimt|glagent|gloas|glsoat|glffct)-[A-Za-z0-9_-]{20,300}|glptt-[0-9a-f]{40}|GR1348941[A-Za-z0-9_-]{20,60})(?:[^A-Za-z0-9_-]|$)",
    ),
    rule(
        "atlassian-api-token",
        "an Atlassian (Jira, Confluence, Bitbucket) API token (ATATT prefix)",
        &["atatt3"],
        r"(ATATT3[A-Za-z0-9_=-]{150,250})(?:[^A-Za-z0-9_=-]|$)",
    ),
    rule(
        "npm-access-token",
        "an npm access token (npm_)",
        &["npm_"],
        r"(npm_[A-Za-z0-9]{36})\b{end-half}",
    ),
    rule(
        "npmrc-auth-token",
        "an `_authToken` in an .npmrc or .yarnrc registry line",
        &["_authtoken"],
        r#"(?i:_authToken)\s{0,4}[=:]\s{0,4}["']?([^\s"']{16,300})"#,
    )
    .min_run(0),
    rule(
        "pypi-token",
        "a PyPI or TestPyPI API token (pypi-AgE macaroon)",
        &["pypi-age"],
        r"(pypi-AgE[A-Za-z0-9_-]{50,1000})(?:[^A-Za-z0-9_-]|$)",
    )
    .window(1100),
    rule(
        "rubygems-api-key",
        "a RubyGems API key (rubygems_)",
        &["rubygems_"],
        r"(rubygems_[a-f0-9]{48})\b{end-half}",
    ),
    rule(
        "docker-hub-token",
        "a Docker Hub personal or organization access token (dckr_pat_, dckr_oat_)",
        &["dckr_pat_", "dckr_oat_"],
        r"(dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,64})(?:[^A-Za-z0-9_-]|$)",
    ),
    rule(
        "crates-io-token",
        "a crates.io API token (cio prefix)",
        &["cio"],
        r"(cio[A-Za-z0-9]{32})\b{end-half}",
    )
    .entropy(3.5)
    .check(has_digit_and_letter),
    rule(
        "slack-bot-token",
        "a Slack bot token (xoxb-)",
        &["xoxb-"],
        r"(xoxb-[0-9]{8,14}-(?:[0-9]{8,14}-)?[A-Za-z0-9]{18,48})\b{end-half}",
    ),
    rule(
        "slack-user-token",
        "a Slack user token (xoxp-)",
        &["xoxp-"],
        r"(xoxp-[0-9]{8,14}-[0-9]{8,14}-[0-9]{8,14}-[A-Za-z0-9]{28,34})\b{end-half}",
    ),
    rule(
        "slack-app-token",
        "a Slack app-level token (xapp-)",
        &["xapp-"],
        r"(xapp-[0-9]-[A-Z0-9]{8,14}-[0-9]{8,16}-[A-Za-z0-9]{32,80})\b{end-half}",
    ),
    rule(
        "slack-token",
        "another Slack token: legacy workspace, refresh or configuration token (xoxa-, xoxr-, xoxs-, xoxo-, xoxe-)",
        &["xoxa-", "xoxr-", "xoxs-", "xoxo-", "xoxe"],
        r"(xox[aors]-[0-9A-Za-z-]{20,200}|xoxe\.xox[bp]-[0-9]-[A-Za-z0-9]{100,200}|xoxe-[0-9]-[A-Za-z0-9]{100,200})(?:[^A-Za-z0-9-]|$)",
    ),
    rule(
        "slack-webhook-url",
        "the secret path of a Slack incoming webhook or workflow URL",
        &["hooks.slack.com"],
        r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/]{43,56}|T[A-Z0-9]{8,12}/B[A-Z0-9]{8,12}/[A-Za-z0-9]{23,25})\b{end-half}",
    ),
    rule(
        "discord-bot-token",
        "a Discord bot token (base64 user id, timestamp, HMAC)",
        // The first segment is the base64 of a decimal id: `MT`..`OT`.
        &["mt", "mj", "mz", "nd", "nt", "nj", "nz", "od", "ot"],
        r"([MNO][A-Za-z0-9]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40})(?:[^A-Za-z0-9_.-]|$)",
    )
    .entropy(4.0),
    rule(
        "discord-webhook-url",
        "the secret part of a Discord webhook URL",
        &["/api/webhooks/"],
        r"/api/webhooks/[0-9]{17,20}/([A-Za-z0-9_-]{60,70})(?:[^A-Za-z0-9_-]|$)",
    ),
    rule(
        "telegram-bot-token",
        "a Telegram bot token (bot id, colon, 35 characters starting AA)",
        &[":aa"],
        r"([0-9]{8,10}:AA[A-Za-z0-9_-]{33})(?:[^A-Za-z0-9_-]|$)",
    )
    .back(is_digit, 8),
    rule(
        "stripe-secret-key",
        "a Stripe secret or restricted key (sk_/rk_ live, test or prod)",
        &["sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_"],
        r"((?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,247})\b{end-half}",
    ),
    rule(
        "stripe-webhook-secret",
        "a Stripe webhook signing secret (whsec_)",
        &["whsec_"],
        r"(whsec_[A-Za-z0-9+/=]{24,80})(?:[^A-Za-z0-9+/=]|$)",
    ),
    rule(
        "square-token",
        "a Square access token or OAuth secret (sq0atp-, sq0csp-)",
        &["sq0atp-", "sq0csp-"],
        r"(sq0atp-[0-9A-Za-z_-]{22}|sq0csp-[0-9A-Za-z_-]{43})(?:[^0-9A-Za-z_-]|$)",
    ),
    rule(
        "shopify-token",
        "a Shopify access token or shared secret (shpat_, shpca_, shppa_, shpss_)",
        &["shpat_", "shpca_", "shppa_", "shpss_"],
        r"(shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})\b{end-half}",
    ),
    rule(
        "anthropic-api-key",
        "an Anthropic API or admin key (sk-ant-)",
        &["sk-ant-"],
        r"(sk-ant-(?:[a-z]{2,8}[0-9]{2}-)?[A-Za-z0-9_-]{32,200})(?:[^A-Za-z0-9_-]|$)",
    ),
    rule(
        "openrouter-api-key",
        "an OpenRouter API key (sk-or-v1-)",
        &["sk-or-"],
        r"(sk-or-v1-[0-9a-f]{64})\b{end-half}",
    ),
    rule(
        "openai-api-key",
        "an OpenAI API key: legacy, project, service account or admin (sk-, sk-proj-, sk-svcacct-, sk-admin-)",
        &["sk-"],
        r"(sk-(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_-]{20,250})(?:[^A-Za-z0-9_-]|$)",
    )
    .check(openai_check),
    rule(
        "huggingface-token",
        "a Hugging Face user or organization access token (hf_, api_org_)",
        &["hf_", "api_org_"],
        r"((?:hf_|api_org_)[A-Za-z0-9]{30,40})\b{end-half}",
    )
    .entropy(3.5)
    .check(mixed_case),
    rule(
        "groq-api-key",
        "a Groq API key (gsk_)",
        &["gsk_"],
        r"(gsk_[A-Za-z0-9]{48,56})\b{end-half}",
    ),
    rule(
        "xai-api-key",
        "an xAI (Grok) API key (xai-)",
        &["xai-"],
        r"(xai-[A-Za-z0-9]{70,90})\b{end-half}",
    ),
    rule(
        "replicate-api-token",
        "a Replicate API token (r8_)",
        &["r8_"],
        r"(r8_[A-Za-z0-9]{37})\b{end-half}",
    ),
    rule(
        "perplexity-api-key",
        "a Perplexity API key (pplx-)",
        &["pplx-"],
        r"(pplx-[A-Za-z0-9]{48})\b{end-half}",
    ),
    rule(
        "sendgrid-api-key",
        "a SendGrid API key (SG.<22>.<43>)",
        &["sg."],
        r"(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})(?:[^A-Za-z0-9_-]|$)",
    ),
    rule(
        "twilio-api-key",
        "a Twilio API key SID (SK + 32 hex); the auth token is caught by generic-assignment",
        &["sk"],
        r"(SK[0-9a-fA-F]{32})\b{end-half}",
    ),
    rule(
        "mailgun-api-key",
        "a Mailgun API key (key- + 32 hex)",
        &["key-"],
        r"(key-[0-9a-f]{32})\b{end-half}",
    ),
    rule(
        "mailchimp-api-key",
        "a Mailchimp API key (32 hex, datacenter suffix -usNN)",
        &["-us"],
        r"([0-9a-f]{32}-us[0-9]{1,2})\b{end-half}",
    )
    .back(is_hex, 32),
    rule(
        "heroku-api-key",
        "a Heroku platform API key (HRKU- prefix)",
        &["hrku-"],
        r"(HRKU-[A-Za-z0-9_-]{40,80})(?:[^A-Za-z0-9_-]|$)",
    ),
    rule(
        "digitalocean-token",
        "a DigitalOcean personal access, OAuth or refresh token (dop_v1_, doo_v1_, dor_v1_)",
        &["dop_v1_", "doo_v1_", "dor_v1_"],
        r"(do[opr]_v1_[a-f0-9]{64})\b{end-half}",
    ),
    rule(
        "linear-api-key",
        "a Linear API key (lin_api_)",
        &["lin_api_"],
        r"(lin_api_[A-Za-z0-9]{40})\b{end-half}",
    ),
    rule(
        "notion-token",
        "a Notion integration token (ntn_, secret_)",
        &["ntn_", "secret_"],
        r"(ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})\b{end-half}",
    )
    .check(has_digit_and_letter),
    rule(
        "vault-token",
        "a HashiCorp Vault service, batch or recovery token (hvs., hvb., hvr.)",
        &["hvs.", "hvb.", "hvr."],
        r"(hv[sbr]\.[A-Za-z0-9_-]{24,400})(?:[^A-Za-z0-9_-]|$)",
    )
    .window(420)
    .entropy(3.5),
    rule(
        "terraform-cloud-token",
        "a Terraform Cloud / HCP Terraform API token (<14>.atlasv1.<60+>)",
        &[".atlasv1."],
        r"([A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70})(?:[^A-Za-z0-9_=-]|$)",
    )
    .back(is_alnum, 14),
    rule(
        "postman-api-key",
        "a Postman API key (PMAK-)",
        &["pmak-"],
        r"(PMAK-[a-f0-9]{24}-[a-f0-9]{34})\b{end-half}",
    ),
    rule(
        "sentry-token",
        "a Sentry organization or user auth token (sntrys_, sntryu_)",
        &["sntrys_", "sntryu_"],
        r"(sntrys_eyJ[A-Za-z0-9_=+/-]{40,300}|sntryu_[a-f0-9]{64})(?:[^A-Za-z0-9_=+/-]|$)",
    ),
    rule(
        "new-relic-api-key",
        "a New Relic user API key (NRAK-)",
        &["nrak-"],
        r"(NRAK-[A-Z0-9]{27})\b{end-half}",
    ),
    rule(
        "grafana-token",
        "a Grafana Cloud or service account token (glc_, glsa_)",
        &["glc_", "glsa_"],
        r"(glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})(?:[^A-Za-z0-9+/=_]|$)",
    )
    .window(420),
    rule(
        "age-secret-key",
        "an age encryption secret key (AGE-SECRET-KEY-1)",
        &["age-secret-key-1"],
        r"(AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})\b{end-half}",
    ),
    rule(
        "databricks-token",
        "a Databricks personal access token (dapi + 32 hex)",
        &["dapi"],
        r"(dapi[a-f0-9]{32}(?:-[0-9])?)\b{end-half}",
    ),
    rule(
        "pulumi-access-token",
        "a Pulumi access token (pul-)",
        &["pul-"],
        r"(pul-[a-f0-9]{40})\b{end-half}",
    ),
    rule(
        "doppler-token",
        "a Doppler personal, service, CLI or service account token (dp.pt., dp.st., dp.ct., dp.sa.)",
        &["dp.pt.", "dp.st.", "dp.ct.", "dp.sa."],
        r"(dp\.(?:pt|st|ct|sa)\.[A-Za-z0-9_.-]{40,64})(?:[^A-Za-z0-9_.-]|$)",
    )
    .value(group1_trim_dots),
    rule(
        "planetscale-token",
        "a PlanetScale service token, password or OAuth token (pscale_tkn_, pscale_pw_, pscale_oauth_)",
        &["pscale_"],
        r"(pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64})(?:[^A-Za-z0-9_.=-]|$)",
    )
    .value(group1_trim_dots),
    rule(
        "supabase-token",
        "a Supabase personal access token or secret API key (sbp_, sb_secret_)",
        &["sbp_", "sb_secret_"],
        r"(sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{30,64})(?:[^A-Za-z0-9_-]|$)",
    ),
    rule(
        "jwt",
        "a signed JSON Web Token (three base64url parts, header naming its algorithm)",
        &["eyj"],
        r"(eyJ[A-Za-z0-9_-]{8,2000}\.eyJ[A-Za-z0-9_-]{8,4000}\.[A-Za-z0-9_-]{16,1000})(?:[^A-Za-z0-9_.-]|$)",
    )
    .window(7100)
    .entropy(0.0)
    .check(jwt_check),
    rule(
        "authorization-bearer",
        "a bearer token after `Bearer` (an Authorization header, a curl line)",
        &["bearer"],
        r"(?i:bearer)\s{1,4}([A-Za-z0-9._~+/-]{16,1024}=*)(?:[^A-Za-z0-9._~+/=-]|$)",
    )
    .min_run(0)
    .pre(bearer_pre)
    .window(1100)
    .check(bearer_check)
    .value(group1_trim_dots),
    rule(
        "authorization-basic",
        "HTTP basic credentials after `Basic` (base64 of user:password)",
        &["basic"],
        r"(?i:basic)\s{1,4}([A-Za-z0-9+/]{8,512}={0,2})(?:[^A-Za-z0-9+/=]|$)",
    )
    .min_run(0)
    .window(600)
    .entropy(0.0)
    .check(basic_auth_check),
    rule(
        "connection-string-password",
        "the password in a URL or connection string (postgres://user:pass@host, mongodb+srv, redis, amqp, mysql, ...)",
        &["://"],
        r#"[A-Za-z][A-Za-z0-9+.-]{1,30}://([^\s:/?#@'"<>]{0,128}):([^\s/?#'"<>]{1,256})@[A-Za-z0-9._\[\]-]"#,
    )
    .back(is_scheme_byte, 2)
    .pre(url_pre)
    .window(480)
    .entropy(0.0)
    .value(url_password),
    Rule {
        generic: true,
        ..rule(
            "generic-assignment",
            "a high-entropy value assigned to a name like password, secret, token or api_key",
            &["pass", "pwd", "secret", "token", "key", "credential", "auth"],
            r#"([A-Za-z0-9_.-]{1,96})(["'`]?)\]?\*{0,2}([ \t]{0,4}(?::=|=>|==?|:)[ \t]{0,4}|[ \t]{1,4}value[ \t]{0,4}=[ \t]{0,4}|[ \t]{1,4}(?:is[ \t]{1,4}|was[ \t]{1,4})?)(?:"([^"\r\n]{1,256})"|'([^'\r\n]{1,256})'|`([^`\r\n]{1,256})`|([^\s"'`,;&<>]{1,256}))"#,
        )
        .back(is_word_byte, 0)
        .pre(generic_pre)
        .window(420)
        .entropy(0.0)
        .value(generic_value)
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_words_split() {
        assert_eq!(key_words("XApiKey"), ["x", "api", "key"]);
        assert_eq!(
            key_words("AWS_SECRET_ACCESS_KEY"),
            ["aws", "secret", "access", "key"]
        );
        assert_eq!(key_words("accessToken"), ["access", "token"]);
        assert_eq!(key_words("db.password"), ["db", "password"]);
    }

    #[test]
    fn key_kinds() {
        for k in ["password", "DB_PASSWORD", "PGPASSWORD", "pass", "mysql-pwd"] {
            assert_eq!(key_kind(k), Some(KeyKind::Password), "{k}");
        }
        for k in [
            "token",
            "GH_TOKEN",
            "api_key",
            "apiKey",
            "X-Api-Key",
            "client_secret",
            "SECRET_KEY",
            "secret_key_base",
            "credentials",
            "signingKey",
            "auth",
        ] {
            assert_eq!(key_kind(k), Some(KeyKind::Token), "{k}");
        }
        for k in [
            "token_count",
            "max_tokens",
            "tokenizer",
            "secret_name",
            "password_hash",
            "api_key_id",
            "key",
            "cache_key",
            "primary_key",
            "secretary",
            "author",
            "token_url",
        ] {
            assert_eq!(key_kind(k), None, "{k}");
        }
    }
}
