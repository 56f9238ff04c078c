# Hand-written notes of the eval-e store, part 3.

NOTES["crash-reporting"] = ("crash reporting setup", "Crashlytics + Sentry setup, symbols, targets, velocity alerts", """
- apps: Firebase Crashlytics (iOS SDK 11.x via SPM, Android BoM). BFF + RN JS: Sentry
- target: crash-free sessions >= 99.7% per platform (7-day); halt threshold for a new version 99.5% (phased-rollout)
- velocity alerts: Crashlytics "trending + velocity" -> `#lh-crashes` -> on-call
- iOS symbols: dSYMs downloaded from ASC + uploaded by `fastlane ios dsyms` (bitcode is gone, but ASC still reprocesses); missing dSYM warning in Crashlytics = run the lane again
- Android: R8 mapping uploaded by the Crashlytics Gradle plugin in `bundleRelease`
- custom keys set on every session: `flag_snapshot` (hash), `sync_version`, `rn_screen`
- non-fatals: we log `checkout_failed` reasons + sync errors as non-fatals, capped 10/session
- export to BigQuery daily -> `lh_crash_free_sessions` metric
""")

NOTES["crash-triage"] = ("crash triage", "how to triage a crash: symbolication, owner, LH ticket, when to hotfix", """
1. Crashlytics issue -> is it new in the latest version? (version filter) -> is it growing?
2. symbolicated? if frames say `???` / missing dSYM -> `fastlane ios dsyms` (iOS) / check mapping upload (Android)
3. owner by module: `LHPaywall`/`:feature:paywall` Mei/Tolu, `LHSync`/`:sync` Rafael, networking Jonas, RN Sam
4. LH ticket with the signature in the title, label `crash`, link the Crashlytics issue; add it to known-crashes
5. hotfix if: >0.2% of sessions, or payments/login/restore affected, or a launch crash. else next train
Thursdays 14:00 crash triage meeting (30 min): on-call + both leads walk the top 10.
""")

NOTES["known-crashes"] = ("known crashes", "table of crash signatures we know: status, ticket, fix version", """
| signature | where | ticket | status |
|---|---|---|---|
| `EXC_BAD_ACCESS KERN_INVALID_ADDRESS` in `ImageCache.store(_:for:)` | iOS 27 only | LH-2291 | fixed 5.14.2 |
| `java.lang.IllegalStateException: Fragment not attached to a context` in `OffersMapFragment.onLocationResult` | Android | LH-2219 | fixed 5.12.1 |
| `Fatal error: Unexpectedly found nil while unwrapping an Optional value` in `PaywallViewModel.loadProducts()` | iOS | LH-2062 | fixed 5.8.1 |
| `android.app.ForegroundServiceStartNotAllowedException` in `SyncWorker.doWork` | Android 12+ | LH-2010 | fixed 5.7.0 |
| `NSInternalInconsistencyException: Invalid update: invalid number of items in section 0` in `SavedOffersViewController` | iOS | LH-2340 | open, ~0.01% |
| `java.lang.OutOfMemoryError: Failed to allocate` in `MapClusterRenderer.render` | Android low-RAM | LH-2371 | open |
| `RCTFatalException: Unhandled JS Exception: TypeError: undefined is not an object (evaluating 'card.barcode')` | RN loyalty | LH-2101 | gone with native card (5.11) |
| `kotlinx.coroutines.JobCancellationException` | Android | — | noise, filtered |
""")

NOTES["incident-2026-04-22-login-loop"] = ("incident 2026-04-22: login loop in 5.4.0", "users logged out in a loop after token refresh race; halted, hotfix 5.4.1", """
impact: 5.4.0 at 2% phased; ~3,100 users logged out repeatedly on 04-22 between 07:00 and 11:30. no data lost.
cause: two requests got 401 at the same time -> both refreshed the token -> accounts rotates refresh tokens, the 2nd refresh used a revoked token -> forced logout -> on login the same race again.
detection: support tickets (Kemal) + `login_failed` spike; Crashlytics showed nothing (not a crash).
actions:
- paused phased release 09:40; Android was not affected (already single-flight)
- hotfix 5.4.1 (5040103): `TokenRefresher` actor, single-flight refresh (PR #4388, LH-1874), flag `login_single_flight_refresh`
- follow-up: alert on `login_failed` rate > 2x baseline (done)
""")

NOTES["incident-2026-07-09-duplicate-push"] = ("incident 2026-07-09: duplicate push notifications", "offers push sent 3-4 times; pushd retries without idempotency", """
impact: evening campaign "summer deals" 18:00 -> ~210k users got it 2-4 times. uninstalls that day 3x normal. app store reviews mention spam.
cause: FCM returned 503 on part of the batch; `pushd` retried the WHOLE batch, with no idempotency; APNs sends were inside the same batch job so iOS got duplicates too.
actions:
- 07-09 19:10 stopped the campaign, Dmitri
- dedupe key per (campaign, user) in Redis 24h + `apns-collapse-id` / Android notification `tag` (PR #4955, LH-2131)
- retry only failed tokens, exponential backoff, max 3
- client side: 5.10 drops a push whose dedupe key was shown in the last 24h
""")

NOTES["incident-2026-09-18-ios27-image-cache-crash"] = ("incident 2026-09-18: iOS 27 launch crash (ImageCache)", "EXC_BAD_ACCESS in ImageCache on iOS 27; flag killed, hotfix 5.14.2", """
impact: iOS 27 devices only, crash on launch / first scroll for ~1.8% of iOS 27 sessions. iOS crash-free 99.71% -> 98.9% on 09-18.
signature: `EXC_BAD_ACCESS KERN_INVALID_ADDRESS` in `ImageCache.store(_:for:)` (LH-2291)
cause: `ImageCache` (NSCache subclass) + disk writer on a background queue touched the same `Data` buffer; iOS 27 evicts earlier -> use after free. behind `image_cache_disk_v2`.
timeline: 09-18 08:30 velocity alert -> 09:15 flag `image_cache_disk_v2` to 0% (only helps after next fetch / cold start) -> 11:00 hotfix branch -> 16:40 5.14.2 (5140203) submitted with expedited review -> 09-19 approved, released to all.
actions: cache made an actor (PR #5012); Thread Sanitizer job on CI nightly (done); iOS betas on 2 team phones from WWDC on (done).
""")

NOTES["incident-2026-11-24-family-sharing-restore"] = ("incident 2026-11-24: restore purchases broken for family sharing", "5.19.0 dropped familyShared transactions; paused rollout, hotfix 5.19.1", """
impact: iOS 5.19.0 only. family-shared Plus members lost Plus after update/restore; "Restore purchases" said "No purchases found". ~1,400 support tickets 11-23..11-26. Android not affected.
cause: new `EntitlementStore` filter in 5.19.0 kept only `Transaction.ownershipType == .purchased` (refactor PR #5140). family members have `.familyShared`.
timeline:
- 11-24 08:50 Kemal escalates in `#lh-support-esc`
- 09:30 repro with a sandbox family; paused phased release at 50%
- 14:00 fix (PR #5188, LH-2388): count `.familyShared`; BFF `/v2/entitlements` already had it right, app trusted local StoreKit first
- 11-25 10:20 5.19.1 (5190102) submitted, expedited review requested
- 11-26 08:10 approved; released to all users at once
learned: entitlement tests did not have a family-shared case -> added to `EntitlementStoreTests`; StoreKit config file now has a family-shared product.
""")

NOTES["app-size-budget"] = ("app size budget", "download size budgets per platform, how CI checks them, what ate size", """
| platform | measure | budget | now (5.20) |
|---|---|---|---|
| iOS | App Store download size, iPhone 16 (ASC "App Size" report) | 80 MB | 74.2 MB |
| iOS | install size | 180 MB | 161 MB |
| Android | Play download size, arm64 xxhdpi | 35 MB | 31.8 MB |

- CI: `scripts/size_check.py` on every PR, compares with main; fails at +1.5 MB, warns at +0.5 MB
- metric `lh_app_size_mb{platform}` from the release builds
- big items: Firebase (~9 MB iOS), RN + Hermes + JS bundle (~11 MB iOS, goes away with ADR-009), Lottie files (moved to on-demand resources in May -> -6 MB), map SDK
- in May 2026 iOS hit 92 MB (Lottie onboarding animations) -> ODR tags `onboarding-anim`
""")

NOTES["analytics-events"] = ("analytics events", "event naming rules and the table of core events with properties", """
naming: `object_action`, snake_case, past tense or `_started/_completed/_failed`; max 20 properties; no PII in properties (no email, no names, no precise location).

| event | props | notes |
|---|---|---|
| `app_opened` | cold (bool), source | |
| `offer_viewed` | offer_id, source (list/map/push/deeplink) | |
| `offer_saved` | offer_id | |
| `offer_redeemed` | offer_id, method (qr/code) | |
| `paywall_viewed` | source, variant | |
| `checkout_started` | product_id, source | when the store sheet opens |
| `checkout_completed` | product_id, trial (bool) | after verified transaction |
| `checkout_failed` | product_id, reason (cancelled/pending/error code) | |
| `subscription_restored` | result | |
| `push_opened` | campaign_id | |
| `deep_link_opened` | route, source | |
| `sync_completed` | duration_ms, mutations | |
| `experiment_exposed` | experiment, variant | |

new events: PR to this table + `analytics/schema/events.yaml`; the BFF rejects unknown events (400 `unknown_event`) since 2026-05.
""")

NOTES["analytics-pipeline"] = ("analytics pipeline", "how events get from the SDK to BigQuery: batching, consent, retries", """
SDK (`LHAnalytics` / `:core:analytics`) -> batch of max 50 events or 30 s -> `POST /v1/events` (BFF) -> Pub/Sub `lh-events` -> BigQuery `lighthouse_analytics.events`

- consent: no events before the ATT/consent screen answer; `analytics_consent=false` -> only `app_opened` without ids
- offline: events kept on disk (max 1,000, oldest dropped), sent when online
- schema check at the BFF against `events.yaml` (unknown events 400)
- dashboards in Looker; freshness ~15 min
- debug: `-LHAnalyticsDebug YES` launch arg (iOS) / `adb shell setprop debug.lighthouse.analytics 1` prints events to the console
""")

NOTES["accessibility"] = ("accessibility", "a11y rules for both apps: VoiceOver/TalkBack, Dynamic Type, contrast, testing", """
- every tappable thing has an accessibility label; icons-only buttons too (`accessibilityLabel` / `contentDescription`)
- Dynamic Type up to AX5 on iOS; Android font scale 200% — no clipped text, lists wrap instead
- contrast 4.5:1 for text (design tokens checked by Nora)
- touch targets >= 44 pt / 48 dp
- VoiceOver rotor headings on the offer detail; TalkBack `heading()` semantics
- reduce motion -> no parallax, Lottie replaced by a still image
- CI: Accessibility Inspector audit in UI tests (`XCUIApplication.performAccessibilityAudit()`), Android `AccessibilityChecks.enable()` in Espresso/Compose tests
- Mei = iOS a11y champion, Tolu = Android
""")

NOTES["accessibility-audit-2026"] = ("accessibility audit 2026", "results of the external WCAG audit (June 2026) and what is fixed", """
external audit by Inklusiv Digital, 2026-06-22..06-26, WCAG 2.2 AA, both apps.

| finding | platform | severity | status |
|---|---|---|---|
| paywall plan cards not announced as selected | iOS + Android | high | fixed 5.9 |
| offer map pins unreachable with VoiceOver | iOS | high | fixed 5.10 (list alternative) |
| loyalty barcode has no text alternative | both | high | fixed with native card 5.11 |
| text clipped at AX3+ in offer cards | iOS | medium | fixed 5.9 |
| focus lost after closing bottom sheet | Android | medium | fixed 5.12 |
| contrast of secondary buttons 3.9:1 | both | medium | fixed 5.10 (new token `textSecondaryStrong`) |
| Help center (RN) headings not marked | both | low | goes away with native help center |
re-audit booked for 2027-02.
""")

NOTES["localization"] = ("localization", "languages, Crowdin flow, string freeze, plurals, pseudo-locale", """
9 languages: en (source), de, fr, es, it, nl, pt-BR, tr (since 5.2), pl
- iOS: String Catalogs (`.xcstrings`) per package; Android: `strings.xml` per module
- Crowdin project `lighthouse-app`; push copy in `lighthouse-push`; store listings in `lighthouse-store`
- sync: `scripts/strings_sync.sh` (up on merge to main, down nightly 02:00 UTC)
- string freeze: 2 working days before the branch cut (Thu 17:00 before the Mon cut); late strings go to the next train
- plurals: always `%lld` plural rules in `.xcstrings` / `<plurals>` — never "1 offer(s)"
- pseudo-locale: iOS scheme "Lighthouse (pseudo)" doubles string length + accents; Android `en-XA` on debug builds
- translators work weekdays, 48h turnaround; screenshots in Crowdin by `fastlane ios screenshots`
- never edit translated files by hand — the nightly sync overwrites them
""")

NOTES["privacy-manifest"] = ("privacy manifest + data safety", "PrivacyInfo.xcprivacy, required-reason APIs, Play data safety form", """
iOS: `ios/Lighthouse/PrivacyInfo.xcprivacy` + one per package that touches a required-reason API.

| API category | reason code | where |
|---|---|---|
| `NSPrivacyAccessedAPICategoryUserDefaults` | `CA92.1` | everywhere |
| `NSPrivacyAccessedAPICategoryFileTimestamp` | `C617.1` | `ImageCache` |
| `NSPrivacyAccessedAPICategorySystemBootTime` | `35F9.1` | `LHAnalytics` session timing |
| `NSPrivacyAccessedAPICategoryDiskSpace` | `E174.1` | offline sync (free space check) |

- `NSPrivacyTracking` = false; no tracking domains
- third-party SDKs ship their own manifests (Firebase 11.x, Lottie 4.5); check them on every SDK bump
- May 2026: upload warning `ITMS-91053: Missing API declaration` for `SystemBootTime` -> added `35F9.1` (5.6, LH-1963)
- Android: Play Console "Data safety" form, reviewed every train where `:core:analytics` changed; last update 2026-08-11 (location -> approximate only)
""")

NOTES["asc-errors"] = ("App Store Connect errors", "upload/processing errors from App Store Connect and Play Console and their fixes", """
| error | meaning | fix |
|---|---|---|
| `ITMS-90683: Missing purpose string in Info.plist` | a used API has no `NS...UsageDescription` (also in extensions!) | add the key to the target's Info.plist; hit 2026-12-01 (widget extension, location) |
| `ITMS-91053: Missing API declaration` | required-reason API without reason | privacy-manifest |
| `ITMS-90189: Redundant Binary Upload` | build number already used | new build number (`fastlane/lib/build_number.rb`) |
| `ITMS-90478: Invalid Version` | marketing version not higher than the live one | `fastlane bump` |
| `ITMS-90426: Invalid Swift Support` | SwiftSupport folder broken by re-signing | export with Xcode, not a custom script |
| `ITMS-90717: Invalid App Store Icon` | icon has alpha | flatten, re-export from Figma |
| Play: `Version code 5140203 has already been used.` | versionCode reuse | new build number |
| Play: `Your app currently targets API level 35 and must target at least API level 36` | target SDK deadline | done in 5.12 |
| Play: `You uploaded an APK or Android App Bundle that was signed in debug mode` | wrong signing config | `bundleRelease`, never `bundleDebug` |

ITMS errors arrive by email to the account holder + in ASC "Activity"; the build shows "Invalid Binary".
""")

NOTES["app-review-rejections"] = ("app review rejections", "every App Store / Play rejection we had, guideline, what we changed", """
| date | version | guideline | issue | fix |
|---|---|---|---|---|
| 2025-11-03 | 4.22 | 2.1 App Completeness | reviewer could not log in (magic link) | demo account in review notes |
| 2026-09-24 | 5.15.0 | 3.1.2 Subscriptions | paywall missing terms of use (EULA) link | terms + privacy under CTA, EULA link in description; approved 09-30 |
| 2026-10-12 | 5.16.0 (Play) | Policy: Subscriptions | cancel info not clear on paywall | "cancel anytime in Google Play" line |

- reviewer notes template + demo account: 1Password "App Review demo"
- appeal only with Priya
""")

NOTES["play-console"] = ("Play Console", "tracks, testers, pre-launch report, target API deadlines, vitals", """
- tracks: internal (team, ~40), closed `beta` (~2,000 opt-in), production
- internal app sharing for one-off QA builds
- pre-launch report runs on every upload to closed track; we ignore its a11y warnings about the map
- Android vitals bad-behaviour thresholds: user-perceived crash rate 1.09%, ANR 0.47% — stay far below
- target API: 36 since 5.12 (deadline 2026-08-31 for updates)
- reviews: reply within 2 working days (Aisha, with a canned replies doc)
- store listing text in Crowdin `lighthouse-store`
""")
