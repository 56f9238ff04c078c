//! The secret guard's cost per KiB of realistic text, clean and with
//! secrets, warm (rules compiled), plus the one-time compile and hostile
//! worst cases.
//!
//! ```sh
//! cargo run --release -p agent-memory-core --example secrets_bench
//! ```
//!
//! Issue 12's goal: under 5% of a warm write (~550 µs native, ~700 µs
//! through the component, for a small note), i.e. under ~27 µs for the
//! guard on a small note.

use std::hint::black_box;
use std::time::{Duration, Instant};

use agent_memory_core::secrets::scan;

/// A note of the kind an agent writes: prose, a checklist, commands, code,
/// config, links, hashes and ids, and words (token, password, key, auth,
/// secret, Bearer, ://) that wake the rules without being secrets.
const NOTE: &str = r#"## 2026-05-30 deploy of the orders service

Deployed v1.42.3 to staging at 09:15; smoke tests green. The login test
flaked twice when the database was cold, so I added a retry with jitter.
Commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 has the fix; cherry-picked
as 3f2a9c1 onto release/1.42.

- [x] rotate the staging database password (done by ops, stored in Vault)
- [ ] ask for a fine-grained token for the release bot
- [ ] check the auth middleware: the session cookie is read before the handler

```sh
make deploy-staging ENV=staging
curl -H "Authorization: Bearer $TOKEN" https://api.acme.dev/v1/orders?limit=20
kubectl -n orders rollout status deploy/orders-api
```

```rust
let token = lexer.next_token();
if token.kind == TokenKind::Ident { return parse_ident(token); }
let max_tokens = config.max_tokens.unwrap_or(4096);
```

Config that matters (the values live in the secret manager):

```yaml
database:
  url: ${DATABASE_URL}
  password: ${DB_PASSWORD}
  pool: 20
cache:
  url: redis://cache-1:6379/0
auth:
  issuer: https://login.acme.dev
  audience: orders-api
  token_ttl: 3600
```

Request 123e4567-e89b-12d3-a456-426614174000 failed with 502 at the
gateway; image ghcr.io/acme/orders@sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
was the one running. See https://github.com/acme/orders/pull/4211 and the
runbook at https://wiki.acme.dev/runbooks/orders#rollback for the rest.
The API key for the payment provider is in 1Password under "Stripe prod";
never paste it here. Keys are sorted before hashing so the digest is stable.
"#;

/// Lines with secrets (fake, generated shapes) to mix in.
const SECRET_LINES: &[&str] = &[
    "GITHUB_TOKEN=ghp_Zq8Kd0WmX3rT5yUvB7nC1eE9fG2hJ4kL6pQs\n",
    "aws_access_key_id = AKIAQ7RMX2B5TJ4NWK3P\naws_secret_access_key = 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\n",
    "DATABASE_URL=postgres://app:Vq3xL9mZt2RkP8sW@db.internal:5432/orders\n",
    "curl -H 'Authorization: Bearer sk-proj-4fG7hJ2kL9mN3pQ6rS8tU1vW5xY0zA2bC4dE6fG8hJ0kL2mN4pQ6rS8tT3BlbkFJ7uV9wX1yZ3aB5cD7eF9gH1iJ3kL5mN7oP9qR1sT3uV5wX7yZ9' https://api.openai.com\n",
    "slack: xoxb-98227687591-174589299213-k0rBsuLYtSftZs5lIqtF3dFc\n",
    "password = \"Tr0ub4dor&3x!Qz\"\n",
];

fn repeat_to(base: &str, bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + base.len());
    while s.len() < bytes {
        s.push_str(base);
    }
    s
}

fn with_secrets(bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 1024);
    let mut i = 0;
    while s.len() < bytes {
        s.push_str(NOTE);
        s.push_str(SECRET_LINES[i % SECRET_LINES.len()]);
        i += 1;
    }
    s
}

/// Median time of one scan of `text` over `rounds` rounds.
fn time(text: &str, rounds: usize) -> (Duration, usize) {
    let mut samples = Vec::with_capacity(rounds);
    let mut found = 0;
    for _ in 0..rounds {
        let t = Instant::now();
        found = black_box(scan(black_box(text))).len();
        samples.push(t.elapsed());
    }
    samples.sort();
    (samples[rounds / 2], found)
}

fn report(label: &str, text: &str, rounds: usize) {
    let (median, found) = time(text, rounds);
    let kib = text.len() as f64 / 1024.0;
    println!(
        "{label:<44} {:>8} B {:>10.1} µs {:>9.0} ns/KiB {found:>5} findings",
        text.len(),
        median.as_secs_f64() * 1e6,
        median.as_nanos() as f64 / kib,
    );
}

fn main() {
    let t = Instant::now();
    black_box(scan("warm up: compile the rules"));
    println!(
        "first scan (compiles {} rules): {:.2} ms",
        agent_memory_core::secrets::rules().len(),
        t.elapsed().as_secs_f64() * 1e3
    );
    println!();
    println!(
        "{:<44} {:>10} {:>13} {:>16} {:>14}",
        "input", "size", "median scan", "cost", ""
    );

    let small: String = NOTE.lines().take(12).map(|l| format!("{l}\n")).collect();
    report("small note, clean (~0.5 KiB)", &small, 20_000);
    let small_secret = format!("{small}{}", SECRET_LINES[0]);
    report("small note + 1 secret", &small_secret, 20_000);
    report("note, clean", NOTE, 5_000);
    report(
        "note + 1 secret",
        &format!("{NOTE}{}", SECRET_LINES[3]),
        5_000,
    );
    let clean64 = repeat_to(NOTE, 64 * 1024);
    report("64 KiB of notes, clean", &clean64, 300);
    let secret64 = with_secrets(64 * 1024);
    report("64 KiB of notes, a secret every ~2 KiB", &secret64, 300);
    report(
        "1 MiB of notes, clean (a `scan` of a store)",
        &repeat_to(NOTE, 1024 * 1024),
        20,
    );

    println!();
    println!("hostile 64 KiB inputs (worst cases for the keyword pass and the rules):");
    for (label, unit) in [
        ("one char repeated (`a`)", "a"),
        ("`ghp_` repeated", "ghp_"),
        ("`sk-` repeated", "sk-"),
        ("`eyJ` repeated", "eyJ"),
        ("`token: ` repeated", "token: "),
        ("`password=` repeated", "password="),
        ("`a://b:c@` repeated", "a://b:c@"),
        (
            "private key headers repeated",
            "-----BEGIN PRIVATE KEY-----\n",
        ),
        ("`mt ` repeated (discord keyword)", "mt "),
        ("`Bearer ` repeated", "Bearer "),
    ] {
        report(label, &repeat_to(unit, 64 * 1024), 20);
    }
}
