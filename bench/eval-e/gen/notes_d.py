# Hand-written notes of the eval-e store, part 4.

NOTES["bff-api"] = ("BFF API", "lh-bff endpoints the apps use, versioning, pagination, errors", """
base `https://bff.lighthouse.app` (staging `https://bff.staging.lighthouse.app`), set in the apps via `LH_BFF_BASE_URL`.

| endpoint | what |
|---|---|
| `GET /v2/offers/nearby?lat&lng&radius_m&cursor` | nearby offers, 30 per page |
| `GET /v2/offers/:id` | offer detail |
| `POST /v2/sync` | offline sync (offline-sync) |
| `GET /v2/entitlements` | Plus status, source of truth |
| `POST /v1/devices` | push token registration |
| `POST /v1/events` | analytics batch |
| `POST /v1/iap/apple/notifications` | App Store Server Notifications v2 |
| `GET /v1/config` | min supported app version, maintenance banner |

- pagination: opaque `cursor` in, `next_cursor` out. `page_token` was the old name (v1) — still accepted on `/v2/offers/nearby` for clients < 5.20 (see 2026-12-01)
- errors: `{"error": {"code": "offer_expired", "message": ...}}`, HTTP status meaningful
- force update: `/v1/config` `min_version` per platform -> blocking screen. currently iOS 5.10.0, Android 5.10.0
- headers from apps: `X-LH-App-Version`, `X-LH-Platform`, `X-LH-Install-Id`
""")

NOTES["bff-deploy"] = ("BFF deploy", "how lh-bff is deployed, environments, rollback, deploy windows", """
- GKE `lh-prod` europe-west1, namespace `bff`; staging `lh-staging`
- Argo CD app `lh-bff`; merge to main -> staging auto; prod = bump image tag in `deploy/prod/values.yaml` (PR, Dmitri approves)
- canary: Argo Rollouts 10% for 15 min, auto-abort if `bff_http_requests_total{code=~"5.."}` ratio > 2%
- rollback: `kubectl argo rollouts undo lh-bff -n bff` or revert the values PR; takes ~3 min
- no prod deploys Fri after 15:00, none during the holiday freeze
- 4xx are NOT in the canary check -> contract breaks for old app versions slip through (2026-12-01). TODO: contract tests against the last 3 app versions (LH-2404)
- `pushd` is a separate deployment in the same chart
""")

NOTES["env-vars"] = ("env vars", "table of environment variables: CI, fastlane, BFF, build settings", """
| var | where | what |
|---|---|---|
| `LH_BFF_BASE_URL` | xcconfig / Gradle BuildConfig | BFF base url per build config (Debug -> staging, Release -> prod) |
| `LH_FLAGS_SDK_KEY` | xcconfig / BuildConfig | Unleash frontend key |
| `LH_ENV` | BFF, pushd | `prod` / `staging` / `dev` |
| `LH_APNS_KEY_ID` | pushd | current APNs key id |
| `LH_APNS_TEAM_ID` | pushd | `7QX2LH9K4M` |
| `FCM_SERVICE_ACCOUNT` | pushd | path to mounted JSON |
| `MATCH_PASSWORD` | CI | decrypts the certs repo |
| `MATCH_GIT_URL` | CI | certs repo url |
| `ASC_API_KEY_ID`, `ASC_API_ISSUER_ID`, `ASC_API_KEY_P8` | CI | App Store Connect API key |
| `PLAY_JSON_KEY` | CI | Play Developer API service account |
| `FIREBASE_APP_ID_IOS` | CI | for dSYM upload |
| `SENTRY_AUTH_TOKEN` | CI | source maps (RN), BFF releases |
| `DEVELOPER_DIR` | CI runners | selects Xcode |
| `GRADLE_OPTS` | CI | `-Xmx6g` |

secrets in GitHub Actions org secrets; locally from 1Password via `op run --env-file=.env.tpl`.
""")

NOTES["modules-ios"] = ("iOS modules (SPM)", "the Swift packages under ios/Packages and what depends on what", """
| package | what | owner |
|---|---|---|
| `LHCore` | models, utilities, `Clock`, logging | Jonas |
| `LHNetworking` | BFF client, `TokenRefresher`, retries | Jonas |
| `LHDesignSystem` | tokens, components, `Screen` helper | Nora + Mei |
| `LHOffers` | offers list, map, detail, `ImageCache` | Jonas |
| `LHPaywall` | paywall, `EntitlementStore`, StoreKit | Mei |
| `LHSync` | SwiftData store, outbox, sync | Rafael (yes, iOS too) |
| `LHAnalytics` | analytics SDK | Sam |
| `LHPush` | token registration, notification handling | Dmitri + Jonas |
| `LHDeepLinks` | `DeepLinkRouter` | Sam |
| `LHLegacyRN` | RN host for Help center | Sam |
| `LHWidgets` | WidgetKit nearby offers widget (5.20) | Mei |

rule: feature packages depend on `LHCore`/`LHNetworking`/`LHDesignSystem` only, never on each other.
""")

NOTES["modules-android"] = ("Android modules (Gradle)", "Gradle modules, convention plugins, dependency rules", """
| module | what |
|---|---|
| `:app` | MainActivity, nav graph, DI root |
| `:core:network` | Retrofit + OkHttp BFF client, `AuthInterceptor` |
| `:core:designsystem` | Compose theme, tokens |
| `:core:analytics` | analytics SDK |
| `:core:data` | Room, DataStore |
| `:feature:offers` | list, map (`OffersMapFragment`), detail |
| `:feature:paywall` | paywall, `BillingRepository` |
| `:feature:loyalty` | loyalty cards (native since 5.11) |
| `:sync` | `SyncWorker`, outbox |
| `:push` | `LighthouseMessagingService` |
| `:legacy:rn` | RN host |

- convention plugins in `build-logic/` (`lighthouse.android.feature`, `lighthouse.android.library`)
- version catalog `gradle/libs.versions.toml`
- feature modules never depend on each other (checked by `./gradlew checkModuleGraph`)
""")

NOTES["design-system"] = ("design system", "tokens, components, dark mode, Figma library, naming", """
- Figma library "Lighthouse DS 3" (Nora); tokens exported as JSON -> generated `Tokens.swift` / `Tokens.kt` by `scripts/tokens_gen.py`
- colors: semantic only in code (`textPrimary`, `textSecondaryStrong`, `surfaceRaised`), never hex
- dark mode: every token has dark value; screenshots for both in snapshot tests
- components: `LHButton` (primary/secondary/ghost), `OfferCard`, `PlanCard` (paywall), `LHBottomSheet`, `EmptyState`
- spacing 4-pt grid; corner radius tokens `radiusS/M/L`
- new component = Figma first, then both platforms in the same train
""")

NOTES["dependency-pins"] = ("dependency pins", "third-party versions we pin on purpose and why", """
| dep | pinned | why |
|---|---|---|
| Firebase iOS SDK | 11.6.x | 11.7 broke dSYM upload script; retry in Jan |
| Firebase Android BoM | 34.4.0 | |
| Kotlin | 2.2.20 | AGP 9.0 needs >= 2.2 |
| AGP | 9.0.0 | |
| Compose BOM | 2026.10.01 | |
| React Native | 0.74.5 | frozen, ADR-009 |
| Lottie iOS | 4.5.x | privacy manifest included from 4.4 |
| Play Billing | 7.1.1 | 8.x after the holidays |
| Go (BFF) | 1.25 | |
| Xcode | 27.1 | CI default |

renovate bot opens bumps weekly (Mon); pinned ones have `"enabled": false` in `renovate.json` with a comment.
""")

NOTES["testing-strategy"] = ("testing strategy", "what we test how: unit, snapshot, UI, device farm, manual regression", """
- unit: Swift Testing (new) + XCTest (old) on iOS; JUnit5 + Turbine on Android; Go tests on BFF
- snapshot: see snapshot-tests (iOS swift-snapshot-testing, Android Paparazzi)
- UI: XCUITest smoke (12 flows), Compose UI tests (10 flows), both on PR for changed modules only, full nightly
- device farm: nightly full UI suite on 8 real devices (device-farm)
- manual regression: TestRail run per train (Aisha + whoever is free), ~2.5 h
- StoreKit: `Lighthouse.storekit` config file for local + UI tests; Play Billing: license testers
- coverage: not a gate; `LHPaywall` and `:feature:paywall` must have tests for every purchase state
""")

NOTES["snapshot-tests"] = ("snapshot tests", "how snapshot tests work and how to re-record them after a UI change", """
iOS: swift-snapshot-testing, reference images in `__Snapshots__/` next to the tests. device: iPhone 16, iOS 27.1 sim, light + dark, en + de + AX3.
Android: Paparazzi (JVM, no emulator), `src/test/snapshots/`.

re-record:
- iOS: set `SNAPSHOT_RECORD=1` in the scheme env (or `withSnapshotTesting(record: .all)`), run the tests once, unset, commit the PNGs
- Android: `./gradlew :feature:paywall:recordPaparazziDebug` (per module), then `verifyPaparazziDebug`
- only re-record on the CI Xcode version — other Xcode versions render fonts 1px different -> failures everywhere
- PR with re-recorded images: reviewer looks at the image diff in GitHub, not just "tests green"
""")

NOTES["flaky-tests"] = ("flaky tests", "quarantined flaky tests and the quarantine rule", """
rule: a test that fails + passes on retry twice in a week -> quarantine (`@Flaky` / `.disabled("flaky LH-xxxx")`), LH ticket, owner fixes within 2 trains.

| test | why | ticket |
|---|---|---|
| `OffersMapUITests.testClusterTapOpensList` | map tiles load slow on CI sim | LH-2312 |
| `SyncWorkerTest.retriesOnConnectivityChange` | real clock in WorkManager test | LH-2330 |
| `PaywallUITests.testRestoreShowsAlert` | StoreKit test session timing | LH-2389 |
| `PushRegistrationTests.testTokenRefresh` | fixed 11-12, unquarantined | LH-2301 |
""")

NOTES["local-setup"] = ("local setup", "setting up a laptop for the repo: Xcode, Android Studio, Go, RN, secrets", """
1. Xcode 27.1 (xcodes), `sudo xcode-select -s /Applications/Xcode-27.1.app`
2. `brew bundle` (Brewfile: swiftlint, swiftformat, xcbeautify, go, node@20, ruby via rbenv, 1password-cli)
3. `bundle install` (fastlane), `fastlane ios certs` (readonly, needs `MATCH_PASSWORD` from 1Password)
4. Android Studio (stable), JDK 21, `./gradlew :app:installDebug`
5. BFF: `cd bff && make run` (needs `LH_ENV=dev`, docker for Redis)
6. RN: `cd rn && yarn && yarn start` only if touching Help center
7. secrets: `op run --env-file=.env.tpl -- <cmd>`
Debug builds talk to staging BFF. to use a local BFF: scheme env `LH_BFF_BASE_URL=http://localhost:8080`.
""")

NOTES["metrics"] = ("metrics + dashboards", "metric names we watch, where they come from, alert thresholds", """
| metric | source | alert |
|---|---|---|
| `lh_crash_free_sessions{platform,version}` | Crashlytics export (BigQuery, hourly) | < 99.5% for a version in rollout -> on-call |
| `lh_cold_start_p90_ms{platform}` | MetricKit / Firebase Perf | > 2000 ms iOS, > 2500 ms Android (weekly review) |
| `lh_push_delivery_rate` | pushd | < 90% for 30 min |
| `lh_sync_failures_total{reason}` | BFF | rate > 5/s for 10 min |
| `lh_iap_validation_errors_total` | BFF entitlements | > 20 in 10 min |
| `lh_app_size_mb{platform}` | release builds | budget, see app-size-budget |
| `bff_http_request_duration_seconds` | lh-bff | p95 > 800 ms for 10 min |
| `bff_http_requests_total{code}` | lh-bff | 5xx ratio > 2% |

dashboards: Grafana "Lighthouse / Mobile health" (crash-free, cold start, size), "Lighthouse / BFF".
""")

NOTES["slos-and-alerts"] = ("SLOs and alerts", "our targets: crash-free, startup, BFF latency + availability, where alerts go", """
| SLO | target |
|---|---|
| crash-free sessions (7d, per platform) | 99.7% |
| crash-free users (7d) | 99.9% |
| cold start p90 | iOS 1.6 s, Android 2.0 s |
| BFF availability (monthly) | 99.9% |
| BFF p95 latency | 400 ms |
| push delivery | 95% |

alerts: app-side -> `#lh-crashes` + on-call PagerDuty `mobile-primary`; BFF -> `bff-primary` (Dmitri's rota).
""")

NOTES["roadmap-h2"] = ("roadmap H2 2026", "what we plan for H2 2026 and status", """
| item | quarter | status |
|---|---|---|
| paywall v3 + annual first | Q3 | done |
| Android targetSdk 36 + Play Billing 7 | Q3 | done |
| iOS 27 readiness | Q3 | done (bumpy, see incident 09-18) |
| nearby offers widget (iOS) | Q4 | in 5.20 |
| native Help center, delete RN | Q4 -> Q1 | rolling out |
| Swift 6 mode for all packages | Q4 -> Q1 | LH-2380 |
| contract tests BFF vs old app versions | Q4 | new after 12-01 |
| Play Billing 8 | Q1 2027 | |
""")

NOTES["jira-epics"] = ("jira epics + key tickets", "open epics and the LH tickets that keep coming up", """
| key | what | status |
|---|---|---|
| LH-2045 | epic: paywall v3 | done |
| LH-2152 | Play Billing 7 migration | done 5.11 |
| LH-2200 | epic: targetSdk 36 | done 5.12 |
| LH-2255 | epic: iOS 27 readiness | done |
| LH-2340 | UIKit leftovers -> SwiftUI (saved offers, settings) | open |
| LH-2360 | epic: native Help center | in progress |
| LH-2380 | Swift 6 language mode everywhere | open |
| LH-2388 | family sharing restore bug | done 5.19.1 |
| LH-2395 | remove paywall v3 flags | 5.21 |
| LH-2402 | `/v2/offers/nearby` pagination break 12-01 | open (post-mortem) |
| LH-2404 | BFF contract tests vs old app versions | open |
| LH-2407 | widget Info.plist purpose string (ITMS-90683) | done 12-02 |
""")

NOTES["team-rituals"] = ("team rituals", "standup, triage, demos, weekly summary, retro", """
- standup 09:30 daily (15 min, Slack huddle on Fri)
- crash triage Thu 14:00 (crash-triage)
- train planning every 2nd Fri 11:00, before the cut
- demo Fri 16:00 every 2nd week
- retro after each train (Wed after submit)
- weekly summary in `#lh-mobile` on Friday (me)
- on-call handoff Mon 10:00 (`#lh-oncall`)
""")

NOTES["cold-start-performance"] = ("cold start performance", "app launch time work: what we measured, what we changed", """
- measure: iOS MetricKit `MXAppLaunchMetric` + Xcode Organizer; Android Macrobenchmark `StartupBenchmark` + Play vitals
- Oct 2026 numbers before work: iOS p90 2.1 s, Android p90 2.7 s
- changes (5.17, 5.18): Firebase init deferred after first frame; flags read from disk cache instead of waiting for network; `LHDesignSystem` fonts registered lazily; Android baseline profiles + `ProfileInstaller`; removed RN preload at launch (Help center loads RN on demand)
- after: iOS p90 1.5 s, Android p90 1.9 s (Nov 2026)
- rule: nothing new in `application(_:didFinishLaunchingWithOptions:)` / `Application.onCreate` without Jonas/Tolu
""")

NOTES["login-auth"] = ("login + auth", "sign-in methods, tokens, refresh, logout rules", """
- Sign in with Apple, Google, email magic link (accounts service)
- access token 15 min, refresh token 30 days, rotating (each refresh revokes the old one)
- iOS: `TokenRefresher` actor in `LHNetworking` — single-flight refresh since 5.4.1 (incident 2026-04-22)
- Android: `AuthInterceptor` + `Authenticator` with a `Mutex`
- tokens in Keychain (`kSecAttrAccessibleAfterFirstUnlock`) / EncryptedSharedPreferences -> Tink in 5.18
- forced logout only on `invalid_grant`; on network errors keep the session
- `login_failed` {method, reason} alert at 2x baseline
""")

NOTES["device-farm"] = ("device farm", "BrowserStack real devices: which devices, nightly runs, budget", """
BrowserStack App Automate.
- nightly 01:00 UTC full XCUITest + Compose suites; results to `#lh-ci`
- devices: iPhone 16 Pro (27), iPhone 13 (26), iPhone SE 2 (17), iPad 10 (27); Pixel 8 (16), Galaxy S23 (15), Galaxy A14 (14, low RAM), Moto G (13)
- budget: 1,200 USD per month, hard cap set in the BrowserStack account (Priya). parallel sessions: 5
- manual sessions via BrowserStack App Live for repro on devices we don't have
- Pixel 8 also runs the weekly baseline-profile job
""")

NOTES["widgets"] = ("iOS widgets", "WidgetKit nearby offers widget (5.20): timeline, location, limits", """
- new in 5.20 (first version with a widget), dark until approved
- target `LighthouseWidgets`, bundle `com.lighthouseapp.ios.widgets`, package `LHWidgets`, flag `widget_nearby_offers`
- small + medium; shows 1 / 3 nearest offers
- timeline refresh every 30 min (system decides), reload on app foreground via `WidgetCenter.shared.reloadAllTimelines()`
- location: widget uses `CLLocationManager` with `NSWidgetWantsLocation` = YES -> the WIDGET's Info.plist needs `NSLocationWhenInUseUsageDescription` too (we missed it, ITMS-90683 on 2026-12-01, LH-2407)
- data via app group `group.com.lighthouseapp.shared`
""")

NOTES["play-billing-7-migration"] = ("Play Billing 7 migration", "moving Android purchases to Play Billing Library 7 (done July 2026)", """
deadline: Play required PBL 7+ for updates from 2026-08-31. shipped in 5.11 (2026-07-28). LH-2152, Tolu.
- `queryProductDetailsAsync` + `ProductDetails.subscriptionOfferDetails`; base plans `monthly`, `annual`; offer `annual-trial-7d`
- `enablePendingPurchases(PendingPurchasesParams...)` required
- `BillingRepository` in `:feature:paywall`, `BillingClient` reconnect with backoff
- acknowledgement within 3 days or Google refunds: ack on the BFF after validation, app acks as fallback
- tested with license testers + `android.test.purchased`
""")
