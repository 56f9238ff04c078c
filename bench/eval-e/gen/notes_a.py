# Hand-written notes of the eval-e store, part 1 (read by gen_store.py).
# name -> (title, one-line description for MEMORY.md, body)
NOTES = {}

NOTES["architecture"] = ("lighthouse — architecture", "the big picture: apps, modules, BFF, third parties", """
monorepo `lighthouse` (github `lighthouse-app/lighthouse`):

| dir | what |
|---|---|
| `ios/` | iOS app, SwiftUI first (ADR-004), UIKit leftovers in saved offers + settings |
| `ios/Packages/` | SPM modules, see modules-ios |
| `android/` | Android app, Kotlin 2.2 + Jetpack Compose, Gradle modules (modules-android) |
| `rn/` | React Native 0.74 — only the Help center now, embedded via `LHLegacyRN` / `:legacy:rn` |
| `bff/` | `lh-bff`, Go backend-for-frontend (ADR-002) |
| `fastlane/` | lanes for both platforms |
| `scripts/` | size check, strings sync, release notes |

- apps talk ONLY to the BFF (`https://bff.lighthouse.app`); BFF fans out to offers-api, loyalty-api, accounts (other teams).
- auth: Sign in with Apple / Google / email magic link -> accounts issues access (15 min) + refresh token (rotating).
- push: BFF `pushd` worker -> APNs (token auth) + FCM HTTP v1. see push-notifications.
- flags: self-hosted Unleash, `flags.lighthouse.app`; apps cache last flags on disk.
- crash: Crashlytics (both apps), Sentry (BFF + RN JS).
- analytics: own SDK in `LHAnalytics` / `:core:analytics` -> BFF `/v1/events` -> BigQuery.
- offline: saved offers + loyalty cards sync, see offline-sync.
""")

NOTES["people"] = ("people", "who is who, who owns what, review prefs", """
| who | role | owns | review notes |
|---|---|---|---|
| Priya Nair | eng manager | priorities, roadmap, hiring, vendor budgets | wants LH key in PR title |
| Jonas Lindqvist | iOS lead | SwiftUI arch, StoreKit, signing, Xcode upgrades | reviews all of `ios/`; hates force unwraps |
| Mei Tanaka | iOS eng | paywall (iOS), accessibility, widgets | likes screenshots in PR |
| Tolu Bankole | Android lead | Compose, Gradle, Play Billing, Play Console | reviews all of `android/` |
| Rafael Ortega | Android eng | offline sync, WorkManager, deep links (Android) | |
| Dmitri Volkov | backend | `lh-bff`, `pushd`, entitlements, IAP server side | reviews `bff/`, asks for load numbers |
| Nora Haddad | product designer | design system, paywall copy + screens, onboarding | signs off any paywall copy change |
| Aisha Mensah | QA + release manager | release checklist, TestFlight groups, Play tracks, store listings | owns go/no-go |
| Sam (me) | mobile eng (iOS + RN) | release tooling, fastlane, RN leftovers, analytics SDK | |

- Priya out 2026-12-21..01-04. Aisha is go/no-go for 5.21.
- support escalations come from Kemal (support lead, not on the team) via `#lh-support-esc`.
""")

NOTES["on-call"] = ("on-call (crash watch + release captain)", "weekly mobile on-call: duties, rotation order, handoff", """
one person per week, Mon 10:00 -> Mon 10:00. handoff in `#lh-oncall` (post: open crashes, rollout state, anything paused).

duties:
- crash watch: Crashlytics velocity alerts + `lh_crash_free_sessions` dashboard, twice a day
- release captain for any train/hotfix in that week (runs the checklist with Aisha)
- rollout steps (iOS phased is automatic; Android steps Mon/Wed/Fri by hand, see phased-rollout)
- BFF pages go to Dmitri's backend rota, NOT us — but we join if it's app-facing

rotation order: Jonas -> Tolu -> Rafael -> Mei -> Sam -> Dmitri -> (repeat)
- swaps: fine, just post them in `#lh-oncall` + update the PagerDuty schedule `mobile-primary`
- the pager app is PagerDuty; escalation after 15 min to Priya

TODO: write the "crash spike at 2am" runbook properly (for now: crash-triage + phased-rollout).
""")

NOTES["release-train"] = ("release train", "biweekly train: branch cut, submit, phased rollout, versioning scheme", """
every 2nd week:
- Mon 10:00 branch cut `release/5.N` from `main` (Aisha, or the on-call if she's out)
- Mon-Tue: regression pass on TestFlight `LH Internal` + Play internal track
- Tue: submit iOS (`fastlane ios release`) + Android to production at 5% (`fastlane android promote`)
- iOS phased release 7 days; Android steps, see phased-rollout
- fixes after cut: cherry-pick to `release/5.N` only with an LH key + Aisha ok

versioning:
- marketing version `5.N.P`; build number = `5` `NN` `PP` `BB` -> 5.14.2 build 3 = `5140203`
- Android versionCode == iOS build number (same scheme, one counter)
- build number is set by `fastlane/lib/build_number.rb` from the tag; never by hand in Xcode

no train in the holiday freeze (2026-12-18..2027-01-04). last train of the year = 5.21 (cut 12-14).
""")

NOTES["release-checklist"] = ("release checklist (current)", "the checklist we run for every train + hotfix (2026)", """
current version of the checklist, since 5.3 (April 2026). Aisha owns it. 2025 one is superseded.

before cut
- [ ] all LH tickets in the fix version closed or moved
- [ ] flag-catalog up to date for flags shipping dark
- [ ] strings frozen in Crowdin 2 working days before cut (see localization)

after cut
- [ ] `fastlane ios beta` -> TestFlight `LH Internal`; `fastlane android internal`
- [ ] regression pass (TestRail run "train 5.N"), smoke on oldest supported (iOS 17 / API 28)
- [ ] size check green (app-size-budget)
- [ ] privacy manifest diff reviewed if any SDK changed (privacy-manifest)
- [ ] release notes in 9 languages from Crowdin
- [ ] go/no-go in `#lh-release` (Aisha)

submit
- [ ] `fastlane ios release` (phased release ON, auto-release after approval OFF)
- [ ] `fastlane android promote track:production rollout:0.05`
- [ ] dSYMs: `fastlane ios dsyms` once the build is processed

after
- [ ] watch crash-free for 24h before each step (phased-rollout)
- [ ] tag `v5.N.P` on the release branch, merge back to main
""")

NOTES["release-checklist-2025"] = ("release checklist 2025 (superseded)", "old checklist: manual archive, Xcode Organizer upload — superseded", """
SUPERSEDED by release-checklist (April 2026). kept for history.

- [ ] bump `CFBundleVersion` by hand in Xcode
- [ ] archive in Xcode Organizer on Jonas's laptop, upload
- [ ] Android: `./gradlew bundleRelease`, upload in Play Console web UI
- [ ] release to 100% after approval (no phased release back then)
- [ ] dSYMs uploaded by the Crashlytics run script (slow, often missing)
- [ ] release notes en + de only
""")

NOTES["release-history"] = ("release history 2026", "table of every 2026 version: build, submit date, notes", """
submit date = iOS submission (Android promoted same day unless noted). build = iOS build = Android versionCode.

| version | build | submitted | notes |
|---|---|---|---|
| 5.0.0 | 5000004 | 2026-02-24 | new year redesign, first with `LHDesignSystem` |
| 5.1.0 | 5010003 | 2026-03-10 | offers map clustering |
| 5.2.0 | 5020002 | 2026-03-24 | pt-BR + tr added |
| 5.3.0 | 5030004 | 2026-04-07 | first build signed with the 2026 distribution cert |
| 5.4.0 | 5040002 | 2026-04-21 | halted at 2% on 04-22, login loop |
| 5.4.1 | 5040103 | 2026-04-23 | hotfix LH-1874 |
| 5.5.0 | 5050002 | 2026-05-05 | |
| 5.6.0 | 5060003 | 2026-05-19 | privacy manifest fixed (ITMS-91053) |
| 5.7.0 | 5070002 | 2026-06-02 | offline sync v2 |
| 5.8.0 | 5080001 | 2026-06-16 | paywall v3 A/B |
| 5.8.1 | 5080102 | 2026-06-19 | `PaywallViewModel` nil crash, LH-2062 |
| 5.9.0 | 5090002 | 2026-06-30 | |
| 5.10.0 | 5100003 | 2026-07-14 | push dedupe client side |
| 5.11.0 | 5110002 | 2026-07-28 | loyalty card native; Play Billing 7 |
| 5.12.0 | 5120002 | 2026-08-11 | targetSdk 36; min iOS 17.0 |
| 5.12.1 | 5120103 | 2026-08-14 | Android only, LH-2219 |
| 5.13.0 | 5130001 | 2026-08-25 | |
| 5.14.0 | 5140002 | 2026-09-08 | |
| 5.14.1 | 5140102 | 2026-09-15 | built with Xcode 27 RC for iOS 27 day |
| 5.14.2 | 5140203 | 2026-09-18 | hotfix LH-2291, expedited review, approved 09-19 |
| 5.15.0 | 5150002 | 2026-09-22 | rejected 3.1.2, approved 09-30 |
| 5.16.0 | 5160001 | 2026-10-06 | |
| 5.17.0 | 5170003 | 2026-10-20 | trial length test |
| 5.18.0 | 5180002 | 2026-11-03 | |
| 5.18.1 | 5180101 | 2026-11-11 | Android only, deep link fix LH-2356 |
| 5.19.0 | 5190001 | 2026-11-17 | iOS paused at 50% on 11-24 |
| 5.19.1 | 5190102 | 2026-11-25 | hotfix LH-2388, expedited; 100% at once |
| 5.20.0 | 5200005 | 2026-12-02 | 5200004 invalid (ITMS-90683) |
""")

NOTES["phased-rollout"] = ("phased rollout + halting", "iOS phased release, Android staged rollout steps, when and how to halt", """
iOS (App Store phased release, automatic):
day 1 1% · day 2 2% · day 3 5% · day 4 10% · day 5 20% · day 6 50% · day 7 100%
- pause: ASC -> version -> "Pause Phased Release" (max 30 days total paused). pausing does NOT stop people who update by hand.
- "Release to All Users" skips the rest.

Android (staged rollout, by hand, Mon/Wed/Fri):
5% (submit day) -> 20% -> 50% -> 100%
- `fastlane android promote track:production rollout:0.2` etc.
- halt: `fastlane android halt` (= Play Console "Halt rollout"); users who already got it keep it.
- resume a halted rollout needs a NEW versionCode if the build is broken.

halt criteria (either):
- crash-free sessions of the new version < 99.5% over 24h (`lh_crash_free_sessions{version=...}`)
- a top-3 crash that is new in this version
- payments / login / restore broken for any segment — halt first, ask later

who: on-call (release captain). tell `#lh-release`, tag Aisha + Priya.
""")

NOTES["hotfix-process"] = ("hotfix process", "how a hotfix goes out: branch, version, expedited review", """
- branch `hotfix/5.N.P` from the release TAG, not main
- bump patch: 5.19.0 -> 5.19.1; build number restarts its BB at 01/02 (`fastlane/lib/build_number.rb` does it)
- one fix per hotfix, LH key required, Jonas/Tolu review + Aisha ok
- iOS: request an expedited review (ASC -> Contact Us -> "Request an Expedited App Review"); say what breaks for users. usually approved in < 24h. we used it 3x in 2026.
- hotfixes that fix payments/login: release to all users at once (no phasing) — Priya's call
- Android: new versionCode, staged at 20% then 100% same day if crash-free ok
- after: cherry-pick to main, add row in release-history
""")

NOTES["code-signing"] = ("code signing (match)", "iOS certs + provisioning profiles via fastlane match: where, expiry, rotating", """
fastlane match, certs repo `lighthouse-app/ios-certs` (private), encrypted with `MATCH_PASSWORD`.

| what | id / name | expires |
|---|---|---|
| Apple Distribution cert | `Apple Distribution: Lighthouse Labs GmbH (7QX2LH9K4M)` | 2027-04-06 |
| Apple Development cert (CI) | shared dev cert | 2027-03-30 |
| App Store profile | `match AppStore com.lighthouseapp.ios` | with the cert |
| widget profile | `match AppStore com.lighthouseapp.ios.widgets` | with the cert |
| notification service ext | `match AppStore com.lighthouseapp.ios.NotificationService` | with the cert |

- team id `7QX2LH9K4M`
- CI reads only: `fastlane ios certs` (match readonly). never run `match nuke` without Jonas.
- rotating the distribution cert (done 2026-04-06): `fastlane match nuke distribution` -> `fastlane ios refresh_profiles` -> all 3 App Store profiles regenerated -> bump nothing else. takes ~20 min. existing store builds are NOT affected.
- new capability (e.g. push, app groups) -> profiles must be regenerated: `fastlane ios refresh_profiles`.
- Android: Play App Signing; upload key in 1Password "Lighthouse Android upload key", `PLAY_JSON_KEY` for the API.
""")

NOTES["code-signing-2025"] = ("code signing 2025 (superseded)", "old manual provisioning profiles on Jonas's laptop — superseded by match", """
SUPERSEDED by code-signing (match) in Feb 2026.

- profiles created by hand in the developer portal, downloaded into Xcode
- distribution cert lived only in Jonas's keychain (+ a .p12 in 1Password)
- profile expiry -> CI broke every year with "No profiles for 'com.lighthouseapp.ios' were found"
""")

NOTES["apns-auth-key"] = ("APNs auth key", "the .p8 token-auth key for APNs: key id, where it lives, rotation", """
we use token-based auth (.p8), not push certs.

- current key id `8KX3M2Q7PL`, created + switched 2026-09-08 (old key `4JD9W1RZ6T` revoked 2026-09-15)
- team id `7QX2LH9K4M`; topic = bundle id `com.lighthouseapp.ios`
- lives in GCP Secret Manager `lh-apns-p8`; `pushd` reads `LH_APNS_KEY_ID` + `LH_APNS_TEAM_ID`
- rotation: create new key in developer portal -> add secret version -> set `LH_APNS_KEY_ID` -> deploy pushd -> watch `lh_push_delivery_rate` -> revoke old key after a week
- provider JWT is cached 50 min. refreshing it more than once per 20 min -> APNs answers 429 `TooManyProviderTokenUpdates` (we hit that 2026-09-08, every pod made its own token; now one token per pod, shared)
- only 2 keys allowed per team
""")

NOTES["fastlane-lanes"] = ("fastlane lanes", "every lane we use, what it does, which env vars it needs", """
| lane | does | needs |
|---|---|---|
| `fastlane ios beta` | build Release config, upload to TestFlight, group `LH Internal` | `ASC_API_KEY_ID`, `ASC_API_ISSUER_ID`, `ASC_API_KEY_P8`, `MATCH_PASSWORD` |
| `fastlane ios release` | upload + submit for review, phased release on, auto-release off | same |
| `fastlane ios certs` | match readonly (CI) | `MATCH_PASSWORD`, `MATCH_GIT_URL` |
| `fastlane ios refresh_profiles` | match with force, regenerates profiles | admin ASC key |
| `fastlane ios dsyms` | download dSYMs from ASC, upload to Crashlytics | `FIREBASE_APP_ID_IOS` |
| `fastlane ios screenshots` | snapshot + frameit, 9 languages, ~50 min | |
| `fastlane android internal` | `bundleRelease` + upload to internal track | `PLAY_JSON_KEY` |
| `fastlane android promote` | internal -> production with `rollout:` fraction | `PLAY_JSON_KEY` |
| `fastlane android halt` | halts the production rollout | `PLAY_JSON_KEY` |
| `fastlane bump` | sets marketing version on both platforms | |

- run from repo root with `bundle exec`; Ruby 3.3 via `.ruby-version`
- lanes log to `fastlane/logs/`; CI keeps them 14 days
""")

NOTES["ci-macos-runners"] = ("CI: macOS runners", "self-hosted Mac minis, Xcode versions, caches, known flakiness", """
GitHub Actions, workflows in `.github/workflows/` (`ios-pr.yml`, `ios-release.yml`, `android-pr.yml`, `bff.yml`).

- 6 self-hosted Mac mini M2 Pro, labels `macos-lh-01` .. `macos-lh-06`, in the office rack
- Xcode: 27.1 default (since 2026-11-04); 26.4 kept for emergencies. select with `DEVELOPER_DIR`
- simulators: iPhone 16 (iOS 27.1) for UI tests, iPhone SE 3rd gen (iOS 17.5) for the oldest-OS smoke
- DerivedData cache per branch, SPM cache keyed on `Package.resolved`
- PR build ~14 min, release build ~22 min
- each runner reboots nightly 03:30 (`launchd` job `com.lighthouse.runner-reboot`)

known problems
- "Unable to boot the Simulator" after Xcode updates -> `xcrun simctl erase all` on the runner
- disk fills with old simulator runtimes: `xcrun simctl runtime delete --notUsedSinceDays 30`
- runner 04 has a flaky USB-C and drops off the network, ask office IT

cost: runners are ours; GitHub macOS minutes only as overflow (budget 300 USD/month).
""")

NOTES["ci-android"] = ("CI: Android builds", "Gradle on Linux runners, build cache, R8, baseline profiles", """
- Linux runners (GitHub hosted, 8 core), JDK 21, Gradle 9.1, AGP 9.0 (since 2026-11-02)
- remote build cache: Gradle Enterprise-free, `gradle-cache.lighthouse.app`, read on PRs, write on main
- PR: `./gradlew :app:assembleDebug testDebugUnitTest lint` ~11 min
- release: `bundleRelease` with R8 full mode; mapping uploaded to Crashlytics by the Gradle plugin
- baseline profiles generated weekly (Macrobenchmark on a Pixel 8 in the device farm), committed by bot
- `GRADLE_OPTS=-Xmx6g` — less and the R8 step dies with `java.lang.OutOfMemoryError: GC overhead limit exceeded`
""")

NOTES["xcode-27-migration"] = ("Xcode 27 / iOS 27 migration", "what changed for Xcode 27 + iOS 27 (summer-fall 2026)", """
timeline
- 2026-06-08 WWDC, Xcode 27 beta 1
- 2026-09-15 iOS 27 public; our 5.14.1 built with Xcode 27 RC
- 2026-11-04 Xcode 27.1 default on CI

changes we had to make
- Swift 6.2 language mode for `LHCore`, `LHNetworking` (strict concurrency); other packages still Swift 5 mode
- `UIScreen.main` deprecation warnings -> `LHDesignSystem.Screen` helper
- new Liquid Glass tab bar broke our custom tab bar insets -> `TabBarContainer` rewritten
- iOS 27 changed NSCache eviction timing -> exposed the `ImageCache` race (incident 2026-09-18)

TODO: `LHSync` + `LHPaywall` to Swift 6 mode (LH-2380), after 5.21.
""")
