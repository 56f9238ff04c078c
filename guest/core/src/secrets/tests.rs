//! Unit tests of the guard: one positive and one negative per rule, pinned
//! redaction and error text, and hostile input.

use super::*;

/// A deterministic fake value: `n` characters of `alphabet`.
fn fake(alphabet: &str, n: usize, seed: u64) -> String {
    let a = alphabet.as_bytes();
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            a[(x % a.len() as u64) as usize] as char
        })
        .collect()
}

const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const HEX: &str = "0123456789abcdef";
const DIGITS: &str = "0123456789";
const UPPER_DIGITS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

fn b64url(s: &str) -> String {
    let a = URL64.as_bytes();
    let b = s.as_bytes();
    let mut out = String::new();
    for c in b.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..=c.len() {
            out.push(a[(n >> (18 - 6 * i)) as usize & 63] as char);
        }
    }
    out
}

/// Per rule id: a text the rule must find (exactly one finding, of this
/// rule) and a near miss it must not.
fn cases() -> Vec<(&'static str, String, String)> {
    let f = fake;
    let key_body = (0..20)
        .map(|i| f(B64, 64, 100 + i))
        .collect::<Vec<_>>()
        .join("\n");
    let jwt = format!(
        "{}.{}.{}",
        b64url(r#"{"alg":"HS256","typ":"JWT"}"#),
        b64url(r#"{"sub":"4242","iat":1716000000}"#),
        f(URL64, 43, 7)
    );
    vec![
        (
            "private-key-block",
            format!("-----BEGIN RSA PRIVATE KEY-----\n{key_body}\n-----END RSA PRIVATE KEY-----\n"),
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA...\n-----END RSA PRIVATE KEY-----"
                .into(),
        ),
        (
            "aws-access-key-id",
            format!(
                "aws_access_key_id = AKIA{}",
                f("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, 1)
            ),
            "aws_access_key_id = AKIAIOSFODNN7EXAMPLE".into(),
        ),
        (
            "aws-secret-access-key",
            format!("aws_secret_access_key = {}", f(B64, 40, 2)),
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into(),
        ),
        (
            "gcp-api-key",
            format!("GOOGLE_API_KEY=AIza{}", f(URL64, 35, 3)),
            format!("AIza{} is too short", f(URL64, 20, 3)),
        ),
        (
            "gcp-oauth-client-secret",
            format!("client_secret: GOCSPX-{}", f(URL64, 28, 4)),
            "GOCSPX-is the prefix of Google client secrets".into(),
        ),
        (
            "azure-storage-key",
            format!(
                "AccountName=st1;AccountKey={}==;EndpointSuffix=core.windows.net",
                f(B64, 86, 5)
            ),
            "AccountKey=<storage account key>".into(),
        ),
        (
            "azure-ad-client-secret",
            format!("secret {}8Q~{}", f(ALNUM, 3, 6), f(ALNUM, 34, 6)),
            "the format is xxx8Q~ followed by 34 characters".into(),
        ),
        (
            "azure-sas-token",
            format!(
                "https://st1.blob.core.windows.net/c?sv=2022-11-02&sig={}%3D",
                f(ALNUM, 43, 8)
            ),
            "sig=abc".into(),
        ),
        (
            "github-pat",
            format!("token ghp_{}", f(ALNUM, 36, 9)),
            format!("ghp_{} has 37 characters", f(ALNUM, 37, 9)),
        ),
        (
            "github-fine-grained-pat",
            format!("github_pat_{}_{}", f(ALNUM, 22, 10), f(ALNUM, 59, 10)),
            "github_pat_ tokens are fine-grained".into(),
        ),
        (
            "github-oauth-token",
            format!("gho_{}", f(ALNUM, 36, 11)),
            "gho_ is an OAuth prefix".into(),
        ),
        (
            "github-app-token",
            format!("GITHUB_TOKEN=ghs_{}", f(ALNUM, 36, 12)),
            format!("my_ghs_{}", f(ALNUM, 36, 12)),
        ),
        (
            "github-refresh-token",
            format!("ghr_{}", f(ALNUM, 76, 13)),
            "ghr_short".into(),
        ),
        (
            "gitlab-pat",
            format!("glpat-{}.", f(ALNUM, 20, 14)),
            "glpat-xxxxxxxxxxxxxxxxxxxx".into(),
        ),
        (
            "gitlab-token",
            format!("runner: glrt-{}", f(ALNUM, 20, 15)),
            format!("glptt-{}", f(ALNUM, 40, 15)),
        ),
        (
            "atlassian-api-token",
            format!("ATATT3{}", f(URL64, 186, 16)),
            "ATATT3 tokens are long".into(),
        ),
        (
            "npm-access-token",
            format!("//registry.npmjs.org/:_authToken=npm_{}", f(ALNUM, 36, 17)),
            "npm_config_registry=https://registry.npmjs.org".into(),
        ),
        (
            "npmrc-auth-token",
            format!(
                "//npm.acme.dev/:_authToken={}-{}",
                f(HEX, 8, 18),
                f(HEX, 24, 18)
            ),
            "//registry.npmjs.org/:_authToken=${NPM_TOKEN}".into(),
        ),
        (
            "pypi-token",
            format!("password = pypi-AgEIcHlwaS5vcmc{}", f(URL64, 150, 19)),
            "pypi-AgEIcHlwaS5vcmc is how every token starts".into(),
        ),
        (
            "rubygems-api-key",
            format!("rubygems_{}", f(HEX, 48, 20)),
            format!("rubygems_{}", f(ALNUM, 48, 20)),
        ),
        (
            "docker-hub-token",
            format!("docker login -p dckr_pat_{}", f(URL64, 27, 21)),
            "dckr_pat_short".into(),
        ),
        (
            "crates-io-token",
            format!("CARGO_REGISTRY_TOKEN=cio{}", f(ALNUM, 32, 22)),
            "the cio of the company".into(),
        ),
        (
            "slack-bot-token",
            format!(
                "xoxb-{}-{}-{}",
                f(DIGITS, 11, 23),
                f(DIGITS, 13, 23),
                f(ALNUM, 24, 23)
            ),
            "xoxb-your-bot-token".into(),
        ),
        (
            "slack-user-token",
            format!(
                "xoxp-{}-{}-{}-{}",
                f(DIGITS, 11, 24),
                f(DIGITS, 11, 25),
                f(DIGITS, 13, 24),
                f(HEX, 32, 24)
            ),
            "xoxp-1-2-3".into(),
        ),
        (
            "slack-app-token",
            format!(
                "xapp-1-A{}-{}-{}",
                f(UPPER_DIGITS, 10, 25),
                f(DIGITS, 13, 25),
                f(HEX, 64, 25)
            ),
            "xapp-1-abc".into(),
        ),
        (
            "slack-token",
            format!("xoxe.xoxp-1-{}", f(ALNUM, 140, 26)),
            "xoxs- is a legacy prefix".into(),
        ),
        (
            "slack-webhook-url",
            format!(
                "https://hooks.slack.com/services/T{}/B{}/{}",
                f(UPPER_DIGITS, 8, 27),
                f(UPPER_DIGITS, 10, 27),
                f(ALNUM, 24, 27)
            ),
            "https://hooks.slack.com/services/T000/B000/XXXX".into(),
        ),
        (
            "discord-bot-token",
            format!(
                "bot: {}.{}.{}",
                b64url("812345678901234567"),
                f(URL64, 6, 28),
                f(URL64, 38, 28)
            ),
            "MTIz.abcdef.ghi".into(),
        ),
        (
            "discord-webhook-url",
            format!(
                "https://discord.com/api/webhooks/{}/{}",
                f(DIGITS, 18, 29),
                f(URL64, 68, 29)
            ),
            "https://discord.com/api/webhooks/123/token".into(),
        ),
        (
            "telegram-bot-token",
            format!("bot{}:AA{}", f(DIGITS, 10, 30), f(URL64, 33, 30)),
            "12:AA is not a bot token".into(),
        ),
        (
            "stripe-secret-key",
            format!("Stripe.api_key = 'sk_live_{}'", f(ALNUM, 24, 31)),
            format!("STRIPE_PUBLISHABLE_KEY=pk_live_{}", f(ALNUM, 24, 31)),
        ),
        (
            "stripe-webhook-secret",
            format!("whsec_{}", f(ALNUM, 32, 32)),
            "whsec_...".into(),
        ),
        (
            "square-token",
            format!("sq0atp-{}", f(URL64, 22, 33)),
            "sq0atp-short".into(),
        ),
        (
            "shopify-token",
            format!("shpat_{}", f(HEX, 32, 34)),
            format!("shpat_{}", f(HEX, 12, 34)),
        ),
        (
            "anthropic-api-key",
            format!("ANTHROPIC_API_KEY=sk-ant-api03-{}AA", f(URL64, 93, 35)),
            "ANTHROPIC_API_KEY=sk-ant-...".into(),
        ),
        (
            "openrouter-api-key",
            format!("sk-or-v1-{}", f(HEX, 64, 36)),
            "sk-or-v1-xyz".into(),
        ),
        (
            "openai-api-key",
            format!(
                "OPENAI_API_KEY=sk-{}T3BlbkFJ{}",
                f(ALNUM, 20, 37),
                f(ALNUM, 20, 38)
            ),
            "api_key: \"sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"".into(),
        ),
        (
            "huggingface-token",
            format!(
                "HF_TOKEN=hf_{}",
                f(
                    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                    34,
                    39
                )
            ),
            "from huggingface_hub import hf_hub_download".into(),
        ),
        (
            "groq-api-key",
            format!("gsk_{}", f(ALNUM, 52, 40)),
            "gsk_ prefix".into(),
        ),
        (
            "xai-api-key",
            format!("xai-{}", f(ALNUM, 80, 41)),
            "xai-grok".into(),
        ),
        (
            "replicate-api-token",
            format!("REPLICATE_API_TOKEN=r8_{}", f(ALNUM, 37, 42)),
            "r8_ is Replicate's prefix".into(),
        ),
        (
            "perplexity-api-key",
            format!("pplx-{}", f(ALNUM, 48, 43)),
            "pplx-api".into(),
        ),
        (
            "sendgrid-api-key",
            format!("SG.{}.{}", f(URL64, 22, 44), f(URL64, 43, 44)),
            "SG.com is a domain".into(),
        ),
        (
            "twilio-api-key",
            format!("TWILIO_API_KEY=SK{}", f(HEX, 32, 45)),
            format!("ASK{}", f(HEX, 32, 45)),
        ),
        (
            "mailgun-api-key",
            format!("api:key-{}", f(HEX, 32, 46)),
            format!("cache-key-{}", f(HEX, 32, 46)),
        ),
        (
            "mailchimp-api-key",
            format!("{}-us21", f(HEX, 32, 47)),
            "servers in the -us21 region".into(),
        ),
        (
            "heroku-api-key",
            format!("HRKU-{}", f(URL64, 60, 48)),
            "HRKU-short".into(),
        ),
        (
            "digitalocean-token",
            format!("dop_v1_{}", f(HEX, 64, 49)),
            format!("dop_v1_{}", f(HEX, 63, 49)),
        ),
        (
            "linear-api-key",
            format!("lin_api_{}", f(ALNUM, 40, 50)),
            "lin_api_key_name".into(),
        ),
        (
            "notion-token",
            format!("NOTION_TOKEN=ntn_{}{}", f(DIGITS, 11, 51), f(ALNUM, 35, 51)),
            "secret_santa_assignments_for_the_whole_team_2024".into(),
        ),
        (
            "vault-token",
            format!("VAULT_TOKEN=hvs.{}", f(URL64, 90, 52)),
            "hvs.abc".into(),
        ),
        (
            "terraform-cloud-token",
            format!(
                "token = \"{}.atlasv1.{}\"",
                f(ALNUM, 14, 53),
                f(URL64, 67, 53)
            ),
            "app.atlasv1.example".into(),
        ),
        (
            "postman-api-key",
            format!("PMAK-{}-{}", f(HEX, 24, 54), f(HEX, 34, 54)),
            "PMAK-123".into(),
        ),
        (
            "sentry-token",
            format!("sntryu_{}", f(HEX, 64, 55)),
            "sntryu_ prefix".into(),
        ),
        (
            "new-relic-api-key",
            format!("NRAK-{}", f(UPPER_DIGITS, 27, 56)),
            "NRAK-ABC".into(),
        ),
        (
            "grafana-token",
            format!("glsa_{}_{}", f(ALNUM, 32, 57), f(HEX, 8, 57)),
            "glsa_ prefix".into(),
        ),
        (
            "age-secret-key",
            format!(
                "AGE-SECRET-KEY-1{}",
                f("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58, 58)
            ),
            "AGE-SECRET-KEY-1 starts an age identity".into(),
        ),
        (
            "databricks-token",
            format!("dapi{}", f(HEX, 32, 59)),
            "dapi is the prefix".into(),
        ),
        (
            "pulumi-access-token",
            format!("PULUMI_ACCESS_TOKEN=pul-{}", f(HEX, 40, 60)),
            "pul-request".into(),
        ),
        (
            "doppler-token",
            format!("dp.st.{}", f(ALNUM, 43, 61)),
            "dp.st.dev".into(),
        ),
        (
            "planetscale-token",
            format!("pscale_tkn_{}", f(ALNUM, 43, 62)),
            "pscale_tkn_short".into(),
        ),
        (
            "supabase-token",
            format!("sbp_{}", f(HEX, 40, 63)),
            "sbp_ prefix".into(),
        ),
        (
            "jwt",
            format!("session={jwt}; Path=/"),
            // Three base64url parts whose header is not a JWT header.
            format!(
                "{}.{}.{}",
                b64url("{\"foo\":\"bar\"}"),
                b64url("{\"a\":1}"),
                f(URL64, 43, 64)
            ),
        ),
        (
            "authorization-bearer",
            format!(
                "curl -H 'Authorization: Bearer {}' https://api.acme.dev",
                f(ALNUM, 40, 65)
            ),
            "Bearer tokens are validated by the gateway".into(),
        ),
        (
            "authorization-basic",
            // base64 of `deploy:Tr0ub4dor&3x`
            "Authorization: Basic ZGVwbG95OlRyMHViNGRvciYzeA==".into(),
            "Basic usage: run make".into(),
        ),
        (
            "connection-string-password",
            format!(
                "DATABASE_URL=postgres://app:{}@db.internal:5432/orders",
                f(ALNUM, 20, 66)
            ),
            "postgres://postgres:postgres@localhost:5432/dev".into(),
        ),
        (
            "generic-assignment",
            format!("DB_PASSWORD={}9!", f(ALNUM, 14, 67)),
            "token_count = 42".into(),
        ),
        (
            "generic-assignment",
            format!("mytool --api-key {}", f(HEX, 40, 68)),
            "password: ${DB_PASSWORD:?required}".into(),
        ),
    ]
}

#[test]
fn every_rule_compiles_and_has_a_positive_and_a_negative() {
    let cases = cases();
    for rule in rules() {
        assert!(
            cases.iter().any(|(id, _, _)| *id == rule.id),
            "rule {} has no test case",
            rule.id
        );
    }
    for (id, positive, negative) in &cases {
        assert!(rules().iter().any(|r| r.id == *id), "no rule {id}");
        let found = scan(positive);
        assert_eq!(
            found.iter().map(|f| f.rule_id).collect::<Vec<_>>(),
            [*id],
            "positive of {id}: {positive:?}"
        );
        let found = scan(negative);
        assert!(
            found.is_empty(),
            "negative of {id}: {negative:?} gave {found:?}"
        );
    }
}

#[test]
fn ids_are_unique_kebab_case_and_described() {
    let mut ids: Vec<_> = rules().iter().map(|r| r.id).collect();
    for r in rules() {
        assert!(
            r.id.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{}",
            r.id
        );
        assert!(!r.description.is_empty());
    }
    ids.sort_unstable();
    let n = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), n, "duplicate rule ids");
    assert!(n >= 40, "{n} rules");
}

const GHP: &str = "ghp_Zq8Kd0WmX3rT5yUvB7nC1eE9fG2hJ4kL6pQs";

#[test]
fn findings_have_lines_and_value_ranges() {
    let text = format!("# notes\n\nDeploy token {GHP}\nand AKIAQ7RMX2B5TJ4NWK3P too\n");
    let found = scan(&text);
    assert_eq!(
        found,
        [
            Finding {
                rule_id: "github-pat",
                line: 3,
                range: 22..62
            },
            Finding {
                rule_id: "aws-access-key-id",
                line: 4,
                range: 67..87
            },
        ]
    );
    assert_eq!(&text[found[0].range.clone()], GHP);
}

#[test]
fn a_specific_rule_wins_over_the_generic_one() {
    let found = scan(&format!("GITHUB_TOKEN={GHP}"));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].rule_id, "github-pat");
}

#[test]
fn redact_output_is_pinned() {
    let text = format!(
        "token: {GHP}\nDATABASE_URL=postgres://app:Vq3xL9mZt2Rk@db:5432/x\npassword = \"Tr0ub4dor&3x\"\n"
    );
    let found = scan(&text);
    assert_eq!(
        redact(&text, &found),
        "token: [REDACTED:github-pat]\n\
         DATABASE_URL=postgres://app:[REDACTED:connection-string-password]@db:5432/x\n\
         password = \"[REDACTED:generic-assignment]\"\n"
    );
    // Redacted text holds nothing more to find.
    assert!(scan(&redact(&text, &found)).is_empty());
}

#[test]
fn redact_skips_findings_it_cannot_trust() {
    let text = "héllo world";
    let bad = [
        Finding {
            rule_id: "jwt",
            line: 1,
            range: 2..4, // inside `é`
        },
        Finding {
            rule_id: "jwt",
            line: 1,
            range: 6..99, // past the end
        },
        Finding {
            rule_id: "jwt",
            line: 1,
            range: 7..12,
        },
        Finding {
            rule_id: "jwt",
            line: 1,
            range: 8..9, // overlaps the previous one
        },
    ];
    assert_eq!(redact(text, &bad), "héllo [REDACTED:jwt]");
}

#[test]
fn block_error_is_pinned_and_never_echoes_the_value() {
    let text = format!("line one\nexport GH_TOKEN={GHP}\n");
    let err = guard(&text, SecretPolicy::Block, "notes/deploy.md").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::SecretDetected);
    assert_eq!(err.kind().as_str(), "secret-detected");
    assert_eq!(
        err.message(),
        "refused to write `notes/deploy.md`: it holds a secret (github-pat on line 2); \
         nothing was written. Remove the value and store where it lives instead (the \
         environment variable name or the vault path), never the secret itself"
    );
    // No 4-byte window of the value (past its public prefix) is in the message.
    let secret = &GHP[4..];
    for i in 0..secret.len() - 3 {
        assert!(
            !err.message().contains(&secret[i..i + 4]),
            "{}",
            &secret[i..i + 4]
        );
    }
}

#[test]
fn block_error_lists_at_most_eight_findings() {
    let text: String = (0..10)
        .map(|i| format!("k{i}: {}\n", fake_ghp(i)))
        .collect();
    let err = guard(&text, SecretPolicy::Block, "MEMORY.md").unwrap_err();
    assert!(
        err.message().contains("(github-pat on line 1, "),
        "{}",
        err.message()
    );
    assert!(
        err.message().contains("github-pat on line 8, and 2 more)"),
        "{}",
        err.message()
    );
    assert!(
        err.message()
            .starts_with("refused to write `MEMORY.md`: it holds secrets (")
    );
}

fn fake_ghp(seed: u64) -> String {
    format!("ghp_{}", fake(ALNUM, 36, 900 + seed))
}

#[test]
fn guard_applies_each_policy() {
    let text = format!("token {GHP} here");
    let clean = "nothing secret here";

    let off = guard(&text, SecretPolicy::Off, "a.md").unwrap();
    assert!(matches!(off.text, Cow::Borrowed(t) if t == text));
    assert!(off.redacted.is_empty());

    let red = guard(&text, SecretPolicy::Redact, "a.md").unwrap();
    assert_eq!(red.text, "token [REDACTED:github-pat] here");
    assert_eq!(
        red.redacted,
        [Finding {
            rule_id: "github-pat",
            line: 1,
            range: 6..46
        }]
    );

    for policy in [SecretPolicy::Block, SecretPolicy::Redact] {
        let g = guard(clean, policy, "a.md").unwrap();
        assert!(matches!(g.text, Cow::Borrowed(t) if t == clean));
        assert!(g.redacted.is_empty());
    }
}

#[test]
fn policy_spellings() {
    for p in [SecretPolicy::Block, SecretPolicy::Redact, SecretPolicy::Off] {
        assert_eq!(crate::secret_policy(p.tool_word()).unwrap(), p);
        assert_eq!(p.to_string(), p.tool_word());
    }
    assert_eq!(SecretPolicy::default(), SecretPolicy::Block);
    let err = crate::secret_policy("Block").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidOptions);
    assert_eq!(
        err.message(),
        "unknown secret policy \"Block\": expected block, redact or off"
    );
}

#[test]
fn masked_prefix_never_shows_the_value() {
    assert_eq!(masked_prefix(GHP), "ghp_…");
    assert_eq!(masked_prefix("hunter22"), "hu…");
    assert_eq!(masked_prefix("abc"), "…");
    assert_eq!(masked_prefix(""), "…");
    assert_eq!(masked_prefix("ééééééééé"), "éé…");
}

#[test]
fn hostile_inputs_do_not_panic() {
    const SIZE: usize = 64 * 1024;
    let mut inputs: Vec<String> = ["a", "-", "=", "x", "\n", "é", "😀", "0", "/", " ", ":"]
        .iter()
        .map(|c| c.repeat(SIZE / c.len()))
        .collect();
    for unit in [
        "ghp_",
        "sk-",
        "eyJ",
        "eyJhbGciOiJIUzI1NiJ9.",
        "-----BEGIN PRIVATE KEY-----\n",
        "-----BEGIN PRIVATE KEY-----\nQUFB",
        "password=",
        "token: ",
        "://",
        "a://b:c@",
        "AKIA",
        "Bearer ",
        "Basic ",
        "key-",
        "é ghp_",
        "xoxb-1",
        "q~",
        ":AA",
        "-us",
        ".atlasv1.",
        "mt",
    ] {
        inputs.push(unit.repeat(SIZE / unit.len()));
    }
    // A keyword whose window ends inside a multi-byte character.
    inputs.push(format!("ghp_{}", "é".repeat(200)));
    inputs.push(format!("password = \"{}\"", "€".repeat(300)));
    inputs.push(format!(
        "-----BEGIN RSA PRIVATE KEY-----{}",
        "ü".repeat(40_000)
    ));
    // One huge line with a secret at the far end.
    let far = format!("{} {GHP}", "word ".repeat(12_000));
    for text in &inputs {
        let found = scan(text);
        check_findings(text, &found);
        let _ = redact(text, &found);
    }
    let found = scan(&far);
    assert_eq!(found.len(), 1);
    assert_eq!(&far[found[0].range.clone()], GHP);
}

/// Findings are sorted, disjoint, on char boundaries, within the text, and
/// carry the line they start on.
fn check_findings(text: &str, found: &[Finding]) {
    let mut prev_end = 0;
    for f in found {
        assert!(f.range.start >= prev_end && f.range.start < f.range.end);
        assert!(f.range.end <= text.len());
        assert!(text.is_char_boundary(f.range.start) && text.is_char_boundary(f.range.end));
        let line = text[..f.range.start].matches('\n').count() + 1;
        assert_eq!(f.line as usize, line);
        prev_end = f.range.end;
    }
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                "ghp_",
                "sk-",
                "eyJ",
                "AKIA",
                "password = ",
                "token: ",
                "://",
                ":",
                "@",
                "\n",
                "-----BEGIN PRIVATE KEY-----\n",
                "-----END PRIVATE KEY-----",
                "é",
                "Q~",
                "=",
                "\"",
                "Bearer ",
                "xoxb-",
                "hooks.slack.com/services/",
                "\\n",
            ])
            .prop_map(str::to_string),
            "[A-Za-z0-9+/_=.-]{0,60}",
            any::<String>(),
        ]
    }

    proptest! {
        #[test]
        fn scan_is_well_formed_and_redaction_is_final(pieces in prop::collection::vec(piece(), 0..40)) {
            let text: String = pieces.concat();
            let found = scan(&text);
            check_findings(&text, &found);
            let red = redact(&text, &found);
            prop_assert!(scan(&red).is_empty(), "{red:?}");
        }
    }
}

#[test]
fn a_long_word_cut_inside_a_character_does_not_panic() {
    // The word after `password = ` reaches the 257-byte cap inside a
    // four-byte character.
    let word = format!("{}{}", "a".repeat(255), "😀".repeat(4));
    let text = format!("password = {word}");
    let findings = scan(&text);
    for f in &findings {
        assert!(text.is_char_boundary(f.range.start) && text.is_char_boundary(f.range.end));
    }
}
