//! A deterministic generator of FAKE secrets in the documented shapes of
//! real credential formats, embedded in realistic note, log and config
//! lines, and of benign look-alikes. No value here is a real key: every
//! secret is drawn from a seeded PRNG.
//!
//! Three splits use different seeds AND different context templates:
//! - `Dev` is what the rules were tuned on;
//! - `Held` was written with `Dev`, before any tuning. Its first run (after
//!   tuning on `Dev` only) gave 849/864 = 98.3% detection and 0/900 = 0.0%
//!   false positives; the general faults it showed (Markdown-quoted key
//!   blocks, `xxxx` matched in any case, `<add key=.. value=..>`) were then
//!   fixed, so it is no longer held out;
//! - `Held2` was written after that run, before those fixes. Its first run
//!   gave 863/864 = 99.9% and 4/900 = 0.4%; the two faults it showed
//!   (`${VAR:?msg}`, `--flag VALUE`) were then fixed too.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Split {
    Dev,
    Held,
    /// Written after the first `Held` run, before fixing what that run
    /// showed: the clean held-out measurement.
    Held2,
}

/// SplitMix64: small, fast, and the same on every platform.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
    pub fn string(&mut self, alphabet: &str, n: usize) -> String {
        let a = alphabet.as_bytes();
        (0..n).map(|_| a[self.below(a.len())] as char).collect()
    }
    pub fn string_range(&mut self, alphabet: &str, lo: usize, hi: usize) -> String {
        let n = self.range(lo, hi);
        self.string(alphabet, n)
    }
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
}

pub const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
pub const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
pub const DIGITS: &str = "0123456789";
pub const HEX: &str = "0123456789abcdef";
pub const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
pub const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
pub const B64URL: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
pub const BASE32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
pub const PASSWORD_CHARS: &str =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#%^*-_+=~";

pub fn base64_encode(bytes: &[u8], url: bool) -> String {
    let a = if url { B64URL } else { B64 }.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(a[(n >> (18 - 6 * i)) as usize & 63] as char);
        }
        if !url {
            for _ in chunk.len()..3 {
                out.push('=');
            }
        }
    }
    out
}

/// Renders a value in context number `i` of a split.
pub type ContextFn = fn(Split, usize, &str, &mut Rng) -> String;
/// Makes one benign line for a split.
pub type BenignFn = fn(Split, &mut Rng) -> String;

/// One generated case: text to scan and, for a positive, the byte range of
/// the secret value in it.
pub struct Case {
    pub format: &'static str,
    pub text: String,
    pub secret: Option<std::ops::Range<usize>>,
}

/// A secret format: how to draw a value, the env-var-ish name used in
/// contexts, and whether the value identifies itself (a prefix) so that it
/// can stand in any context, or needs its own contexts.
pub struct Format {
    pub name: &'static str,
    pub env: &'static str,
    pub draw: fn(&mut Rng) -> String,
    /// For formats that need a key name or a surrounding structure: render
    /// the value in context number `i` of the split. `None` = the value is
    /// self-identifying and goes into the shared contexts.
    pub contexts: Option<ContextFn>,
}

fn b64_body(rng: &mut Rng, lines: usize, width: usize) -> String {
    (0..lines)
        .map(|_| rng.string(B64, width))
        .collect::<Vec<_>>()
        .join("\n")
}

fn pem(kind: &str, rng: &mut Rng) -> String {
    let lines = rng.range(12, 26);
    let mut body = b64_body(rng, lines, 64);
    body.push('\n');
    body.push_str(&rng.string_range(B64, 8, 60));
    format!("-----BEGIN {kind}-----\n{body}\n-----END {kind}-----")
}

fn jwt(rng: &mut Rng) -> String {
    let alg = rng.pick(&["HS256", "RS256", "ES256", "HS512"]);
    let header = format!(r#"{{"alg":"{alg}","typ":"JWT"}}"#);
    let payload = format!(
        r#"{{"sub":"{}","name":"{}","iat":{},"exp":{},"scope":"{}"}}"#,
        rng.string(DIGITS, 10),
        rng.pick(&["Ada Lovelace", "svc-deploy", "ci-runner", "Grace Hopper"]),
        1_700_000_000 + rng.below(50_000_000),
        1_760_000_000 + rng.below(50_000_000),
        rng.pick(&[
            "read:repo",
            "admin",
            "openid profile email",
            "write:packages"
        ]),
    );
    let sig_len = if alg.starts_with("HS5") {
        86
    } else if alg.starts_with("RS") {
        342
    } else {
        43
    };
    format!(
        "{}.{}.{}",
        base64_encode(header.as_bytes(), true),
        base64_encode(payload.as_bytes(), true),
        rng.string(B64URL, sig_len)
    )
}

fn discord(rng: &mut Rng) -> String {
    let id = format!("{}{}", rng.range(1, 9), rng.string(DIGITS, 17));
    let first = base64_encode(id.as_bytes(), true);
    format!(
        "{first}.{}.{}",
        rng.string(B64URL, 6),
        rng.string(B64URL, 38)
    )
}

fn password(rng: &mut Rng) -> String {
    // A generated password with at least one digit and one symbol, as
    // password managers make them.
    let n = rng.range(12, 24);
    let mut p = rng.string(PASSWORD_CHARS, n - 2);
    p.push_str(&rng.string(DIGITS, 1));
    p.push_str(&rng.string("!#%^*-_+=~", 1));
    p
}

fn url_password(rng: &mut Rng) -> String {
    // URL-safe characters only, as a DSN needs unescaped.
    let n = rng.range(12, 28);
    let mut p = rng.string(ALNUM, n - 1);
    p.push_str(&rng.string(DIGITS, 1));
    p
}

pub fn formats() -> Vec<Format> {
    vec![
        Format {
            name: "aws-access-key-id",
            env: "AWS_ACCESS_KEY_ID",
            draw: |r| {
                format!(
                    "{}{}",
                    r.pick(&["AKIA", "AKIA", "ASIA"]),
                    r.string(BASE32, 16)
                )
            },
            contexts: None,
        },
        Format {
            name: "aws-secret-access-key",
            env: "AWS_SECRET_ACCESS_KEY",
            draw: |r| r.string(B64, 40),
            contexts: Some(|split, i, s, _| {
                let dev = [
                    format!("aws_secret_access_key = {s}"),
                    format!("AWS_SECRET_ACCESS_KEY={s}"),
                    format!("  \"SecretAccessKey\": \"{s}\","),
                    format!("export AWS_SECRET_ACCESS_KEY=\"{s}\""),
                ];
                let held = [
                    format!("aws_secret_access_key: {s}"),
                    format!("$env:AWS_SECRET_ACCESS_KEY = \"{s}\""),
                    format!("secret_access_key = \"{s}\"  # from the ci user"),
                    format!("-e AWS_SECRET_ACCESS_KEY={s} \\"),
                ];
                let held2 = [
                    format!(
                        "[default]\naws_access_key_id = AKIA{}\naws_secret_access_key={s}",
                        "Q7RMX2B5TJ4NWK3P"
                    ),
                    format!("  AWS_SECRET_ACCESS_KEY: '{s}'"),
                    format!("set AWS_SECRET_ACCESS_KEY={s}"),
                    format!("{{\"aws_secret_access_key\":\"{s}\"}}"),
                ];
                match split {
                    Split::Dev => dev[i % 4].clone(),
                    Split::Held => held[i % 4].clone(),
                    Split::Held2 => held2[i % 4].clone(),
                }
            }),
        },
        Format {
            name: "gcp-api-key",
            env: "GOOGLE_API_KEY",
            draw: |r| format!("AIza{}", r.string(B64URL, 35)),
            contexts: None,
        },
        Format {
            name: "google-ai-key",
            env: "GEMINI_API_KEY",
            draw: |r| format!("AIzaSy{}", r.string(B64URL, 33)),
            contexts: None,
        },
        Format {
            name: "gcp-service-account",
            env: "GOOGLE_APPLICATION_CREDENTIALS",
            draw: |r| pem("PRIVATE KEY", r).replace('\n', "\\n"),
            contexts: Some(|split, i, s, r| {
                let project = format!("proj-{}", r.string(LOWER, 6));
                match (split, i % 2) {
                    (Split::Dev, 0) => format!(
                        "{{\n  \"type\": \"service_account\",\n  \"project_id\": \"{project}\",\n  \"private_key_id\": \"{}\",\n  \"private_key\": \"{s}\\n\",\n  \"client_email\": \"ci@{project}.iam.gserviceaccount.com\"\n}}",
                        r.string(HEX, 40)
                    ),
                    (Split::Dev, _) => format!(
                        "Pasted the SA json: {{\"type\":\"service_account\",\"private_key\":\"{s}\\n\"}}"
                    ),
                    (Split::Held, 0) => format!(
                        "credentials:\n  type: service_account\n  private_key: \"{s}\\n\"\n  client_id: \"{}\"",
                        r.string(DIGITS, 21)
                    ),
                    (Split::Held2, 0) => format!(
                        "sa.json:\n{{\"private_key_id\": \"{}\", \"private_key\": \"{s}\\n\", \"type\": \"service_account\"}}",
                        r.string(HEX, 40)
                    ),
                    (Split::Held2, _) => format!("  \"private_key\": \"{s}\\n\","),
                    (Split::Held, _) => format!(
                        "GCP_SA_KEY='{{\"type\": \"service_account\", \"private_key\": \"{s}\\n\", \"token_uri\": \"https://oauth2.googleapis.com/token\"}}'"
                    ),
                }
            }),
        },
        Format {
            name: "azure-storage-key",
            env: "AZURE_STORAGE_CONNECTION_STRING",
            draw: |r| format!("{}==", r.string(B64, 86)),
            contexts: Some(|split, i, s, r| {
                let acct = format!("st{}", r.string(LOWER, 8));
                match (split, i % 2) {
                    (Split::Dev, 0) => format!(
                        "AZURE_STORAGE_CONNECTION_STRING=\"DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={s};EndpointSuffix=core.windows.net\""
                    ),
                    (Split::Dev, _) => format!(
                        "conn: DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={s}"
                    ),
                    (Split::Held, 0) => format!(
                        "\"StorageConnection\": \"AccountName={acct};AccountKey={s};DefaultEndpointsProtocol=https\""
                    ),
                    (Split::Held2, 0) => format!(
                        "storage: 'DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={s}'"
                    ),
                    (Split::Held2, _) => format!(
                        "az storage blob list --connection-string \"AccountName={acct};AccountKey={s}\""
                    ),
                    (Split::Held, _) => format!(
                        "Endpoint=sb://{acct}.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={}",
                        &s[..44]
                    ),
                }
            }),
        },
        Format {
            name: "azure-ad-client-secret",
            env: "AZURE_CLIENT_SECRET",
            draw: |r| {
                format!(
                    "{}{}Q~{}",
                    r.string(&(ALNUM.to_string() + "_~."), 3),
                    r.string(DIGITS, 1),
                    r.string_range(&(ALNUM.to_string() + "_~.-"), 31, 34)
                )
            },
            contexts: None,
        },
        Format {
            name: "github-pat",
            env: "GITHUB_TOKEN",
            draw: |r| format!("ghp_{}", r.string(ALNUM, 36)),
            contexts: None,
        },
        Format {
            name: "github-fine-grained-pat",
            env: "GH_TOKEN",
            draw: |r| format!("github_pat_{}_{}", r.string(ALNUM, 22), r.string(ALNUM, 59)),
            contexts: None,
        },
        Format {
            name: "github-app-token",
            env: "GITHUB_APP_TOKEN",
            draw: |r| format!("{}_{}", r.pick(&["ghs", "ghu", "gho"]), r.string(ALNUM, 36)),
            contexts: None,
        },
        Format {
            name: "gitlab-pat",
            env: "GITLAB_TOKEN",
            draw: |r| format!("glpat-{}", r.string(&(ALNUM.to_string() + "_-"), 20)),
            contexts: None,
        },
        Format {
            name: "npm-access-token",
            env: "NPM_TOKEN",
            draw: |r| format!("npm_{}", r.string(ALNUM, 36)),
            contexts: None,
        },
        Format {
            name: "pypi-token",
            env: "PYPI_TOKEN",
            draw: |r| format!("pypi-AgEIcHlwaS5vcmc{}", r.string_range(B64URL, 120, 180)),
            contexts: None,
        },
        Format {
            name: "slack-bot-token",
            env: "SLACK_BOT_TOKEN",
            draw: |r| {
                format!(
                    "xoxb-{}-{}-{}",
                    r.string_range(DIGITS, 10, 12),
                    r.string_range(DIGITS, 12, 13),
                    r.string(ALNUM, 24)
                )
            },
            contexts: None,
        },
        Format {
            name: "slack-user-token",
            env: "SLACK_USER_TOKEN",
            draw: |r| {
                format!(
                    "xoxp-{}-{}-{}-{}",
                    r.string(DIGITS, 11),
                    r.string(DIGITS, 11),
                    r.string(DIGITS, 13),
                    r.string(HEX, 32)
                )
            },
            contexts: None,
        },
        Format {
            name: "slack-webhook-url",
            env: "SLACK_WEBHOOK_URL",
            draw: |r| {
                format!(
                    "https://hooks.slack.com/services/T{}/B{}/{}",
                    r.string(&(UPPER.to_string() + DIGITS), 8),
                    r.string(&(UPPER.to_string() + DIGITS), 10),
                    r.string(ALNUM, 24)
                )
            },
            contexts: None,
        },
        Format {
            name: "discord-bot-token",
            env: "DISCORD_BOT_TOKEN",
            draw: discord,
            contexts: None,
        },
        Format {
            name: "stripe-secret-key",
            env: "STRIPE_SECRET_KEY",
            draw: |r| {
                let body = if r.below(2) == 0 {
                    r.string(ALNUM, 24)
                } else {
                    format!("51{}", r.string(ALNUM, 97))
                };
                format!(
                    "{}_{}_{}",
                    r.pick(&["sk", "sk", "rk"]),
                    r.pick(&["live", "test"]),
                    body
                )
            },
            contexts: None,
        },
        Format {
            name: "openai-api-key",
            env: "OPENAI_API_KEY",
            draw: |r| match r.below(3) {
                0 => format!("sk-{}T3BlbkFJ{}", r.string(ALNUM, 20), r.string(ALNUM, 20)),
                1 => format!(
                    "sk-proj-{}T3BlbkFJ{}",
                    r.string(&(ALNUM.to_string() + "_-"), 74),
                    r.string(&(ALNUM.to_string() + "_-"), 74)
                ),
                _ => format!("sk-svcacct-{}", r.string(&(ALNUM.to_string() + "_-"), 156)),
            },
            contexts: None,
        },
        Format {
            name: "anthropic-api-key",
            env: "ANTHROPIC_API_KEY",
            draw: |r| {
                format!(
                    "sk-ant-api03-{}AA",
                    r.string(&(ALNUM.to_string() + "_-"), 93)
                )
            },
            contexts: None,
        },
        Format {
            name: "huggingface-token",
            env: "HF_TOKEN",
            draw: |r| format!("hf_{}", r.string(&(UPPER.to_string() + LOWER), 34)),
            contexts: None,
        },
        Format {
            name: "private-key-block",
            env: "SSH_KEY",
            draw: |r| {
                let kind = *r.pick(&[
                    "RSA PRIVATE KEY",
                    "EC PRIVATE KEY",
                    "OPENSSH PRIVATE KEY",
                    "PRIVATE KEY",
                    "ENCRYPTED PRIVATE KEY",
                    "PGP PRIVATE KEY BLOCK",
                ]);
                pem(kind, r)
            },
            contexts: Some(|split, i, s, _| match (split, i % 3) {
                (Split::Dev, 0) => format!("deploy key:\n{s}"),
                (Split::Dev, 1) => format!("```\n{s}\n```"),
                (Split::Dev, _) => format!("ssh_private_key: |\n  {}", s.replace('\n', "\n  ")),
                (Split::Held, 0) => format!("> {}", s.replace('\n', "\n> ")),
                (Split::Held, 1) => format!("cat > ~/.ssh/id_ci <<'EOF'\n{s}\nEOF"),
                (Split::Held, _) => format!("TLS_KEY=\"{s}\""),
                (Split::Held2, 0) => format!("key.pem:\n\n    {}", s.replace('\n', "\n    ")),
                (Split::Held2, 1) => {
                    format!("{{\"tls\": {{\"key\": \"{}\"}}}}", s.replace('\n', "\\n"))
                }
                (Split::Held2, _) => format!("<details><summary>key</summary>\n\n{s}\n</details>"),
            }),
        },
        Format {
            name: "jwt",
            env: "SESSION_JWT",
            draw: jwt,
            contexts: None,
        },
        Format {
            name: "connection-string-password",
            env: "DATABASE_URL",
            draw: url_password,
            contexts: Some(|split, i, s, r| {
                let user = r.pick(&["app", "svc_orders", "admin", "deploy", "reader", "default"]);
                let host = r.pick(&[
                    "db.internal",
                    "10.0.3.17",
                    "pg-prod.cluster-x1.eu-west-1.rds.amazonaws.com",
                    "cache-1",
                ]);
                let dev = [
                    format!("DATABASE_URL=postgres://{user}:{s}@{host}:5432/orders"),
                    format!(
                        "mongo: mongodb+srv://{user}:{s}@cluster0.{}.mongodb.net/?retryWrites=true",
                        r.string(LOWER, 5)
                    ),
                    format!("connected with redis://:{s}@{host}:6379/0 fine"),
                    format!("BROKER_URL=\"amqp://{user}:{s}@{host}:5672/vhost\""),
                ];
                let held = [
                    format!("mysql://{user}:{s}@{host}:3306/shop"),
                    format!("  url: \"postgresql://{user}:{s}@{host}/app?sslmode=require\""),
                    format!("REDIS_URL=rediss://{user}:{s}@{host}:6380"),
                    format!("Use `mongodb://{user}:{s}@{host}:27017/admin` for the migration."),
                ];
                let held2 = [
                    format!("psql \"postgres://{user}:{s}@{host}:5432/reports\""),
                    format!("SQLALCHEMY_DATABASE_URI = 'mysql+pymysql://{user}:{s}@{host}/shop'"),
                    format!("spring.rabbitmq.addresses=amqps://{user}:{s}@{host}:5671"),
                    format!("the cache is at redis://{user}:{s}@{host}:6379 (db 2)"),
                ];
                match split {
                    Split::Dev => dev[i % 4].clone(),
                    Split::Held => held[i % 4].clone(),
                    Split::Held2 => held2[i % 4].clone(),
                }
            }),
        },
        Format {
            name: "sendgrid-api-key",
            env: "SENDGRID_API_KEY",
            draw: |r| format!("SG.{}.{}", r.string(B64URL, 22), r.string(B64URL, 43)),
            contexts: None,
        },
        Format {
            name: "twilio-api-key",
            env: "TWILIO_API_KEY",
            draw: |r| format!("SK{}", r.string(HEX, 32)),
            contexts: None,
        },
        Format {
            name: "twilio-auth-token",
            env: "TWILIO_AUTH_TOKEN",
            draw: |r| r.string(HEX, 32),
            contexts: Some(|split, i, s, _| {
                let dev = [
                    format!("TWILIO_AUTH_TOKEN={s}"),
                    format!("twilio:\n  auth_token: \"{s}\""),
                ];
                let held = [
                    format!("export TWILIO_AUTH_TOKEN='{s}'"),
                    format!("client = Client(account_sid, auth_token=\"{s}\")"),
                ];
                let held2 = [
                    format!(
                        "TWILIO_ACCOUNT_SID=AC{}\nTWILIO_AUTH_TOKEN=\"{s}\"",
                        &"3f9a0c1e2d4b5a6978877665544332211"[..32]
                    ),
                    format!("twilioAuthToken: '{s}'"),
                ];
                match split {
                    Split::Dev => dev[i % 2].clone(),
                    Split::Held => held[i % 2].clone(),
                    Split::Held2 => held2[i % 2].clone(),
                }
            }),
        },
        Format {
            name: "mailgun-api-key",
            env: "MAILGUN_API_KEY",
            draw: |r| format!("key-{}", r.string(HEX, 32)),
            contexts: None,
        },
        Format {
            name: "telegram-bot-token",
            env: "TELEGRAM_BOT_TOKEN",
            draw: |r| {
                format!(
                    "{}:AA{}",
                    r.string_range(DIGITS, 9, 10),
                    r.string(B64URL, 33)
                )
            },
            contexts: None,
        },
        Format {
            name: "digitalocean-token",
            env: "DIGITALOCEAN_TOKEN",
            draw: |r| format!("dop_v1_{}", r.string(HEX, 64)),
            contexts: None,
        },
        Format {
            name: "docker-hub-token",
            env: "DOCKERHUB_TOKEN",
            draw: |r| format!("dckr_pat_{}", r.string(&(ALNUM.to_string() + "_-"), 27)),
            contexts: None,
        },
        Format {
            name: "shopify-token",
            env: "SHOPIFY_ACCESS_TOKEN",
            draw: |r| format!("shpat_{}", r.string(HEX, 32)),
            contexts: None,
        },
        Format {
            name: "vault-token",
            env: "VAULT_TOKEN",
            draw: |r| format!("hvs.{}", r.string(&(ALNUM.to_string() + "_-"), 90)),
            contexts: None,
        },
        Format {
            name: "groq-api-key",
            env: "GROQ_API_KEY",
            draw: |r| format!("gsk_{}", r.string(ALNUM, 52)),
            contexts: None,
        },
        Format {
            name: "generic-password",
            env: "DB_PASSWORD",
            draw: password,
            contexts: Some(|split, i, s, _| {
                let dev = [
                    format!("DB_PASSWORD={s}"),
                    format!("  password: \"{s}\""),
                    format!("{{\"username\": \"admin\", \"password\": \"{s}\"}}"),
                    format!("export PGPASSWORD='{s}'"),
                ];
                let held = [
                    format!("db_password = \"{s}\""),
                    format!("<add key=\"SmtpPassword\" value=\"{s}\"/>"),
                    format!("Server=sql1;Database=shop;User Id=sa;Password={s};"),
                    format!("mysql -u root --password='{s}' shop"),
                ];
                let held2 = [
                    format!("    \"password\": \"{s}\","),
                    format!("spring.datasource.password={s}"),
                    format!("ADMIN_PASS=\"{s}\""),
                    format!("  db_pass: '{s}'"),
                ];
                match split {
                    Split::Dev => dev[i % 4].clone(),
                    Split::Held => held[i % 4].clone(),
                    Split::Held2 => held2[i % 4].clone(),
                }
            }),
        },
        Format {
            name: "generic-api-key",
            env: "SERVICE_API_KEY",
            draw: |r| match r.below(3) {
                0 => r.string(ALNUM, 32),
                1 => r.string(HEX, 40),
                _ => format!("{}_{}", r.string(LOWER, 4), r.string(ALNUM, 30)),
            },
            contexts: Some(|split, i, s, _| {
                let dev = [
                    format!("DATADOG_API_KEY={s}"),
                    format!("  apiKey: \"{s}\""),
                    format!("{{\"client_secret\": \"{s}\"}}"),
                    format!("export ALGOLIA_ADMIN_KEY={s}"),
                ];
                let held = [
                    format!("api_key = '{s}'"),
                    format!("headers = {{\"X-Api-Key\": \"{s}\"}}"),
                    format!("JWT_SECRET={s}"),
                    format!("curl 'https://api.service.io/v2/data?api_key={s}&page=2'"),
                ];
                let held2 = [
                    format!("MIXPANEL_SECRET={s}"),
                    format!("  secret: \"{s}\""),
                    format!("config.access_token = \"{s}\""),
                    format!("--api-key {s}"),
                ];
                match split {
                    Split::Dev => dev[i % 4].clone(),
                    Split::Held => held[i % 4].clone(),
                    Split::Held2 => held2[i % 4].clone(),
                }
            }),
        },
    ]
}

/// Shared contexts for self-identifying values.
fn shared_context(split: Split, i: usize, env: &str, s: &str) -> String {
    let key = env.to_ascii_lowercase();
    match split {
        Split::Dev => match i % 8 {
            0 => format!("deployed with token {s}"),
            1 => format!("{env}={s}"),
            2 => format!("  {key}: {s}"),
            3 => format!("{{\"{key}\": \"{s}\"}}"),
            4 => format!("export {env}=\"{s}\""),
            5 => format!("Note to self: staging uses {s} until the rotation on Friday."),
            6 => format!("curl -H \"Authorization: Bearer {s}\" https://api.acme.dev/v1/items"),
            _ => format!("2024-05-01T10:00:00Z INFO request ok key={s} user=42"),
        },
        Split::Held => match i % 8 {
            0 => format!("- prod creds: `{s}`"),
            1 => format!("{key} = '{s}'"),
            2 => format!("client = Client(api_key=\"{s}\")"),
            3 => format!("docker run -e {env}={s} app:latest"),
            4 => format!("        value: \"{s}\""),
            5 => format!("| prod | {s} | rotated 2024-03 |"),
            6 => format!("Got 401 until I swapped in {s} - works now."),
            _ => format!("<add key=\"{env}\" value=\"{s}\" />"),
        },
        Split::Held2 => match i % 8 {
            0 => format!("Rotated. New one: {s}"),
            1 => format!("  - name: {env}\n    value: {s}"),
            2 => format!("os.environ[\"{env}\"] = \"{s}\""),
            3 => format!("{key}=\"{s}\" ./run.sh"),
            4 => format!("[{key}]({s})"),
            5 => format!("\t{s}"),
            6 => format!("ENV {env}={s}"),
            _ => format!("* token for CI: {s}, expires in 30 days"),
        },
    }
}

/// Wrap a line in a small note so the scan sees surrounding text.
fn in_note(rng: &mut Rng, line: &str) -> (String, usize) {
    let before = rng.pick(&[
        "## Deploy notes\n\nThe staging rollout needed a manual step.\n",
        "# 2024-05-01\n- checked the flaky test\n",
        "Context for next session:\n",
        "",
        "### Incident 42\nLatency spiked after the cache flush.\n",
    ]);
    let after = rng.pick(&[
        "\nNext: check the dashboards.\n",
        "\n",
        "\n- [ ] rotate this\n",
        "",
        "\nSee the runbook for the rest.\n",
    ]);
    (format!("{before}{line}{after}"), before.len())
}

/// Where `value` sits in `line`: verbatim, or (a key block re-indented or
/// quoted line by line) from its first line to the end of its last, or (a
/// value the context shortened) its first 44 bytes.
fn locate(line: &str, value: &str) -> std::ops::Range<usize> {
    if let Some(at) = line.find(value) {
        return at..at + value.len();
    }
    let first = value.lines().next().unwrap_or(value);
    let last = value.lines().last().unwrap_or(value);
    if first != last
        && let (Some(a), Some(b)) = (line.find(first), line.rfind(last))
    {
        return a..b + last.len();
    }
    let head = &value[..44.min(value.len())];
    let at = line.find(head).expect("the value is in its line");
    at..at + head.len()
}

/// Positive cases: per format, `per_format` cases in the split's contexts.
pub fn positives(split: Split, per_format: usize) -> Vec<Case> {
    let seed = match split {
        Split::Dev => 0x5EC2_E75D,
        Split::Held => 0x4E1D_A51D,
        Split::Held2 => 0x2D0_4E1D,
    };
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for f in formats() {
        for i in 0..per_format {
            let value = (f.draw)(&mut rng);
            let line = match f.contexts {
                Some(ctx) => ctx(split, i, &value, &mut rng),
                None => shared_context(split, i, f.env, &value),
            };
            let (text, offset) = in_note(&mut rng, &line);
            let span = locate(&line, &value);
            out.push(Case {
                format: f.name,
                text,
                secret: Some(offset + span.start..offset + span.end),
            });
        }
    }
    out
}

const PROSE: &[&str] = &[
    "The quick brown fox jumps over the lazy dog",
    "Remember to rotate credentials every quarter",
    "This note describes how the cache is warmed",
    "Hello from the staging environment, all good",
    "Deploys happen on Tuesdays after the standup",
];

/// Benign cases: look-alikes that must not be reported.
pub fn benign(split: Split, per_kind: usize) -> Vec<Case> {
    let seed = match split {
        Split::Dev => 0xBE_9196,
        Split::Held => 0x40_1DE0,
        Split::Held2 => 0x2B_E419,
    };
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let kinds: Vec<(&'static str, BenignFn)> = vec![
        ("git-sha", |s, r| {
            let sha = r.string(HEX, 40);
            let short = &sha[..r.range(7, 12)];
            match s {
                Split::Dev => format!("Fixed in commit {sha}; cherry-picked as {short}."),
                Split::Held2 => format!("Reverted {} (\"bad merge\"), parent {}", &sha[..10], sha),
                Split::Held => format!("git checkout {short} && git log -1 {sha}"),
            }
        }),
        ("uuid", |s, r| {
            let u = format!(
                "{}-{}-4{}-{}{}-{}",
                r.string(HEX, 8),
                r.string(HEX, 4),
                r.string(HEX, 3),
                r.pick(&["8", "9", "a", "b"]),
                r.string(HEX, 3),
                r.string(HEX, 12)
            );
            match s {
                Split::Dev => format!("request_id={u} status=500 path=/v1/orders"),
                Split::Held2 => format!("correlation-id: {u}\nX-Request-Id: {u}"),
                Split::Held => format!("{{\"id\": \"{u}\", \"session\": \"{u}\"}}"),
            }
        }),
        ("sha256-digest", |s, r| {
            let d = r.string(HEX, 64);
            match s {
                Split::Dev => format!("sha256: {d}  release.tar.gz"),
                Split::Held2 => {
                    format!("{d}  dist/app-linux-amd64.tar.gz\n# verify with sha256sum -c")
                }
                Split::Held => format!("image: ghcr.io/acme/api@sha256:{d}"),
            }
        }),
        ("md5-sha1-digest", |s, r| match s {
            Split::Dev => format!("md5 {}  backup.sql.gz", r.string(HEX, 32)),
            Split::Held2 => format!("etag: \"{}\" sha1={}", r.string(HEX, 32), r.string(HEX, 40)),
            Split::Held => format!("checksum = \"{}\"", r.string(HEX, 40)),
        }),
        ("base64-prose", |s, r| {
            let p = base64_encode(r.pick(PROSE).as_bytes(), false);
            match s {
                Split::Dev => format!("data: {p}"),
                Split::Held2 => format!("echo {p} | base64 -d"),
                Split::Held => format!("  message_b64: \"{p}\""),
            }
        }),
        ("placeholder", |s, r| {
            let dev = [
                "OPENAI_API_KEY=<YOUR_API_KEY>",
                "api_key: \"sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"",
                "token: ${GITHUB_TOKEN}",
                "password: changeme",
                "DATABASE_URL=postgres://user:password@localhost:5432/mydb",
                "export STRIPE_SECRET_KEY=sk_live_...",
                "password: \"********\"",
                "SLACK_BOT_TOKEN=xoxb-your-bot-token",
            ];
            let held = [
                "GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
                "api_key = \"<insert key here>\"",
                "password: \"{{ vault_db_password }}\"",
                "  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
                "ANTHROPIC_API_KEY=sk-ant-...",
                "export AWS_SECRET_ACCESS_KEY=your-secret-key",
                "mongodb://<username>:<password>@cluster0.mongodb.net",
                "token = \"REPLACE_ME\"",
            ];
            match s {
                Split::Dev => r.pick(&dev).to_string(),
                Split::Held2 => r
                    .pick(&[
                        "SECRET_KEY=\"<generate with: openssl rand -hex 32>\"",
                        "GITHUB_TOKEN=ghp_your_token_here",
                        "password: ${DB_PASSWORD:?required}",
                        "export OPENAI_API_KEY=\"sk-...\"",
                        "api_key: \"********************************\"",
                        "token = \"TODO\"",
                        "DATABASE_URL=postgresql://postgres:postgres@localhost:5432/dev",
                        "AWS_SECRET_ACCESS_KEY=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                    ])
                    .to_string(),
                Split::Held => r.pick(&held).to_string(),
            }
        }),
        ("documented-example", |s, r| {
            let dev = [
                "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
            ];
            let held = [
                "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
                "\"SecretAccessKey\": \"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"",
                "stripe.api_key = \"sk_test_4eC39HqLyjWDarjtT1zdp7dc\"",
            ];
            match s {
                Split::Dev => r.pick(&dev).to_string(),
                Split::Held2 => r.pick(&["# from the AWS docs: AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE", "The jwt.io sample token ends in SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c."]).to_string(),
                Split::Held => r.pick(&held).to_string(),
            }
        }),
        ("prose-about-secrets", |s, r| {
            let dev = [
                "Remember to rotate the database password every 90 days.",
                "The token expires after one hour, so refresh it before long jobs.",
                "Use the secret manager; never commit secrets to the repo.",
                "Password reset emails are sent by the auth service.",
                "The API key is stored in 1Password under \"Stripe prod\".",
                "Auth: the service uses OAuth tokens from the identity provider.",
            ];
            let held = [
                "If the token is missing, the CLI asks for it interactively.",
                "Secrets live in Vault at secret/data/prod/api; the key name is STRIPE_KEY.",
                "Password: see the team vault (entry \"db-prod\").",
                "We moved the signing key to KMS last week.",
                "The bearer token goes in the Authorization header.",
                "Token budget: 8k tokens for the context block.",
            ];
            match s {
                Split::Dev => r.pick(&dev).to_string(),
                Split::Held2 => r
                    .pick(&[
                        "The password must be at least 12 characters long.",
                        "Tokens are scoped per repository; ask for a fine-grained one.",
                        "Don't paste secrets here - use the vault instead.",
                        "api keys rotate automatically every 30 days",
                        "Forgot password flow is broken on Safari.",
                        "The secret is in the CI settings under DEPLOY_KEY.",
                    ])
                    .to_string(),
                Split::Held => r.pick(&held).to_string(),
            }
        }),
        ("code-identifier", |s, r| {
            let dev = [
                "token_count = 42",
                "max_tokens: 4096",
                "let token = lexer.next_token();",
                "password_min_length = 12",
                "if token.kind == TokenKind::Ident {",
                "secret_name: prod-db-creds",
                "api_key = os.environ[\"OPENAI_API_KEY\"]",
                "const tokenizer = new Tokenizer(vocab);",
            ];
            let held = [
                "password = getpass.getpass()",
                "self.api_key = api_key",
                "token: Option<String>,",
                "api_key_env = \"OPENAI_API_KEY\"",
                "secretKeyRef:\n  name: db-creds\n  key: password",
                "for token in tokens: print(token)",
                "auth_token = request.headers.get(\"X-Auth-Token\")",
                "password_hash = bcrypt.hashpw(password, salt)",
            ];
            match s {
                Split::Dev => r.pick(&dev).to_string(),
                Split::Held2 => r
                    .pick(&[
                        "let secret = env::var(\"APP_SECRET\")?;",
                        "fn verify_token(token: &str) -> bool {",
                        "password: String::new(),",
                        "const API_KEY_HEADER = \"x-api-key\";",
                        "token_type: \"Bearer\"",
                        "if password != confirm_password { return Err(Mismatch) }",
                        "secrets: inherit",
                        "TOKEN_TTL_SECONDS = 3600",
                    ])
                    .to_string(),
                Split::Held => r.pick(&held).to_string(),
            }
        }),
        ("hex-color-version", |s, r| match s {
            Split::Dev => format!(
                "color: #{}; version 1.{}.{}-rc.{}",
                r.string(HEX, 6),
                r.below(40),
                r.below(20),
                r.below(5)
            ),
            Split::Held2 => format!(
                "background: #{}{}; font-size: 1.{}rem",
                r.string(HEX, 6),
                r.string(HEX, 2),
                r.below(9)
            ),
            Split::Held => format!(
                "rustc 1.{}.0 ({} 2026-0{}-1{})",
                r.range(70, 95),
                r.string(HEX, 9),
                r.range(1, 9),
                r.below(9)
            ),
        }),
        ("urls-without-passwords", |s, r| match s {
            Split::Dev => format!(
                "See https://github.com/acme/api/pull/{} and ssh://git@github.com/acme/api.git",
                r.range(1, 9999)
            ),
            Split::Held2 => format!(
                "git@github.com:acme/{}.git and https://registry.npmjs.org/@acme%2f{}",
                r.string(LOWER, 6),
                r.string(LOWER, 5)
            ),
            Split::Held => format!(
                "redis://cache-{}:6379/0 and https://user@example.org/path?q={}",
                r.below(9),
                r.string(LOWER, 6)
            ),
        }),
        ("public-material", |s, r| match s {
            Split::Dev => format!(
                "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----",
                b64_body(r, 6, 64)
            ),
            Split::Held2 => format!(
                "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{} ci@build",
                r.string(B64, 43)
            ),
            Split::Held => format!(
                "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----",
                b64_body(r, 10, 64)
            ),
        }),
        ("elided-private-key", |s, _| {
            match s {
            Split::Dev => "-----BEGIN RSA PRIVATE KEY-----\nMIIE...\n-----END RSA PRIVATE KEY-----"
                .to_string(),
            Split::Held2 => "Put the key in `~/.ssh/id_ed25519` (starts with `-----BEGIN OPENSSH PRIVATE KEY-----`).".to_string(),
            Split::Held => "-----BEGIN OPENSSH PRIVATE KEY-----\n<your key here>\n-----END OPENSSH PRIVATE KEY-----".to_string(),
        }
        }),
        ("publishable-and-ids", |s, r| match s {
            Split::Dev => format!("STRIPE_PUBLISHABLE_KEY=pk_live_{}", r.string(ALNUM, 24)),
            Split::Held2 => format!(
                "NEXT_PUBLIC_SUPABASE_ANON_KEY is public; project ref {}",
                r.string(LOWER, 20)
            ),
            Split::Held => format!(
                "arn:aws:iam::{}:role/deploy and client id {}-{}.apps.googleusercontent.com",
                r.string(DIGITS, 12),
                r.string(DIGITS, 12),
                r.string(&(LOWER.to_string() + DIGITS), 32)
            ),
        }),
        ("integrity-hashes", |s, r| {
            let b = r.string(B64, 86);
            match s {
                Split::Dev => format!("\"integrity\": \"sha512-{b}==\""),
                Split::Held2 => format!("checksum = \"{}\"", r.string(HEX, 64)),
                Split::Held => format!("github.com/acme/lib v1.2.3 h1:{}=", &b[..43]),
            }
        }),
        ("data-uri", |s, r| {
            let b = r.string(B64, 200);
            match s {
                Split::Dev => format!("![logo](data:image/png;base64,iVBORw0KGgo{b})"),
                Split::Held2 => format!("font: url(data:font/woff2;base64,d09GMgABAAAAA{b})"),
                Split::Held => format!("<img src=\"data:image/gif;base64,R0lGOD{b}\">"),
            }
        }),
        ("markdown-prose", |s, r| {
            let dev = [
                "Refactored the parser; the tokenizer now handles unicode identifiers.",
                "The auth middleware checks the session cookie before the handler runs.",
                "Bearer tokens are validated by the gateway, not by each service.",
                "Basic usage: run `make test` then `make deploy`.",
                "We key the cache by user id and locale.",
            ];
            let held = [
                "Passkeys replace passwords for the admin console next quarter.",
                "The secret sauce is the retry budget: 3 tries with jitter.",
                "Keys are sorted before hashing so the digest is stable.",
                "Authentication failed because the clock was skewed by 5 minutes.",
                "Token-level diffs are shown in the review UI.",
            ];
            match s {
                Split::Dev => r.pick(&dev).to_string(),
                Split::Held2 => r
                    .pick(&[
                        "Token refresh happens in the background worker.",
                        "Secret rotation is documented in RUNBOOK.md.",
                        "The auth flow: login -> callback -> session.",
                        "Keyboard shortcuts: press ? for help.",
                        "Passwords are hashed with argon2id.",
                    ])
                    .to_string(),
                Split::Held => r.pick(&held).to_string(),
            }
        }),
        ("random-ids", |s, r| match s {
            Split::Dev => format!(
                "order #{} shipped; tracking {}{}",
                r.string(DIGITS, 8),
                r.string(UPPER, 2),
                r.string(DIGITS, 9)
            ),
            Split::Held2 => format!(
                "PR #{} by @{} merged into main at {}",
                r.range(100, 9999),
                r.string(LOWER, 7),
                r.string(DIGITS, 10)
            ),
            Split::Held => format!(
                "Slack channel C{} in workspace T{}",
                r.string(&(UPPER.to_string() + DIGITS), 10),
                r.string(&(UPPER.to_string() + DIGITS), 8)
            ),
        }),
    ];
    for (name, make) in kinds {
        for _ in 0..per_kind {
            let line = make(split, &mut rng);
            let (text, _) = in_note(&mut rng, &line);
            out.push(Case {
                format: name,
                text,
                secret: None,
            });
        }
    }
    out
}
