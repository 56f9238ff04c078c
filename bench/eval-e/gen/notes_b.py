# Hand-written notes of the eval-e store, part 2.

NOTES["push-notifications"] = ("push notifications", "APNs + FCM path through pushd, campaigns, dedupe, quiet hours", """
path: campaign tool / triggers -> BFF `pushd` (Go worker, Pub/Sub `lh-push-jobs`) -> APNs (token auth, see apns-auth-key) / FCM HTTP v1

- tokens registered via `POST /v1/devices` on every launch (+ on token change); stale tokens removed on APNs 410 / FCM `UNREGISTERED`
- each send carries `dedupe_key` = `<campaign_id>:<user_id>`; pushd keeps `push:sent:<dedupe_key>` in Redis 24h (since the duplicate push incident, 2026-07-09)
- iOS: `apns-collapse-id` = dedupe key; Android: `tag` on the notification = same
- rich push (image): iOS Notification Service Extension `LHNotificationService`; Android `LighthouseMessagingService.onMessageReceived`
- quiet hours 21:00-08:00 user local time, except transactional (receipts, password)
- channels (Android): `offers`, `loyalty`, `account` — never rename a channel id, users lose their settings
- push copy is translated in the Crowdin project `lighthouse-push`, not the app project
- delivery metric `lh_push_delivery_rate` (delivered / sent, from APNs + FCM responses)
- rate: pushd max 2,000 sends/s to FCM, we never hit APNs limits
""")

NOTES["feature-flags"] = ("feature flags — how we use them", "Unleash: naming, lifetime, cleanup, kill switches, caching", """
Unleash self-hosted, `flags.lighthouse.app`. SDK key in `LH_FLAGS_SDK_KEY` (build setting / BuildConfig).

rules
- key: snake_case, feature first, version suffix: `paywall_v3_enabled`, `offline_sync_v2`
- every flag has an owner + a removal version in flag-catalog before it merges
- release flags die within 2 trains after 100%; kill switches (`*_kill`) can stay
- the app fetches flags at launch + every 15 min in foreground; last good set cached on disk (`flags.json` / DataStore)
- first launch without network -> compiled defaults (`FlagDefaults.swift`, `FlagDefaults.kt`)
- targeting by app version: use the `appVersion` context field with semver constraint, NOT build number
- remote kill = set the flag to 0% in Unleash prod; takes effect at next fetch (up to 15 min, or next cold start)
""")

NOTES["flag-catalog"] = ("flag catalog", "table of every live flag: key, owner, state, removal version", """
| key | owner | state (2026-12-01) | remove in |
|---|---|---|---|
| `paywall_v3_enabled` | Mei | 100% both since 2026-07-07 | 5.21 (LH-2395) |
| `paywall_v3_annual_first` | Mei | 100% since 2026-08 | 5.21 |
| `paywall_trial_14d` | Mei | experiment ended 11-10, 0% | 5.21 |
| `offline_sync_v2` | Rafael | 100% | 5.20 (done in 5.20) |
| `offers_map_clustering` | Tolu | 100% | overdue |
| `push_rich_media` | Dmitri | 100% | keep (kill switch) |
| `image_cache_disk_v2` | Jonas | 0% since 2026-09-18 (incident) | 5.21, code deleted |
| `login_single_flight_refresh` | Jonas | 100% since 5.4.1 | overdue |
| `rn_help_center` | Sam | true = RN help center, false = native; native at 25% on iOS since 11-30 | 5.22 |
| `bff_nearby_pagination_v2` | Dmitri | BFF-side flag, 0% after 2026-12-01 rollback | tbd |
| `loyalty_native_card` | Rafael | 100% | 5.20 (done) |
| `widget_nearby_offers` | Mei | iOS 5.20, 0% until approval | — |

removed in 2026: `paywall_v2_enabled` (08-25), `rn_loyalty_card` (07-28), `sync_legacy_fallback` (06-30).
""")

NOTES["experiments"] = ("A/B experiments — how", "how we run experiments: assignment, guardrails, sample size, who decides", """
- assignment by Unleash variant (sticky on `userId`, or `installId` for logged-out)
- every experiment: a one-pager in Notion + a row in experiment-log BEFORE launch
- exposure event `experiment_exposed` {experiment, variant} logged on first render of the tested screen, not at assignment
- primary metric chosen upfront; guardrails always: crash-free sessions, `checkout_failed` rate, refunds, 7-day retention
- min run 14 days (two weekly cycles) even if significant earlier
- sample size from the calculator in `analytics/notebooks/power.ipynb`; 80% power, alpha 0.05
- decision meeting: Priya + Nora + owner; results posted in `#lh-experiments`
- paywall experiments need Nora's copy sign-off on every variant
""")

NOTES["experiment-log"] = ("experiment log 2026", "table of 2026 experiments with dates, variants, results, decisions", """
| experiment | flag | ran | variants | result | decision |
|---|---|---|---|---|---|
| paywall v2 vs v3 | `paywall_v3_enabled` | 2026-06-16 .. 07-06 | v2 / v3 (plan cards, annual default) | trial starts +8.1%, refunds flat | ship v3 (07-07) |
| annual first | `paywall_v3_annual_first` | 2026-07-20 .. 08-10 | monthly first / annual first | annual share 41% -> 55%, revenue/user +6% | ship |
| onboarding push prompt timing | `onboarding_push_prompt_late` | 2026-08-17 .. 09-07 | prompt at launch / after first save | opt-in 48% -> 61% | ship |
| trial length | `paywall_trial_14d` | 2026-10-21 .. 11-10 | 7-day / 14-day trial | trial->paid 38.2% vs 36.9%, not significant on revenue | keep 7-day |
| map clustering | `offers_map_clustering` | 2026-03-10 .. 03-31 | off / on | offer_viewed from map +12% | ship |
""")

NOTES["paywall"] = ("paywall", "paywall screens on both apps: structure, ViewModels, products shown, copy rules", """
current = paywall v3 (since 2026-07-07), annual plan card first (since 08-10).

iOS: `LHPaywall` package, `PaywallView` + `PaywallViewModel` (`@Observable`), products via StoreKit 2 `Product.products(for:)`
Android: `:feature:paywall`, `PaywallScreen` + `PaywallViewModel` (Hilt), Play Billing 7 `queryProductDetailsAsync`

- entry points = `source` param: `onboarding`, `offer_locked`, `settings`, `deeplink` (`lighthouse://paywall?source=`)
- events: `paywall_viewed` {source, variant} -> `checkout_started` {product_id} -> `checkout_completed` | `checkout_failed` {reason}
- prices ALWAYS from the store product (localized), never hard-coded; monthly-equivalent shown under annual ("3.33/month")
- "Restore purchases" button at the top right (moved there 2026-10-14 after the 3.1.2 rejection follow-up; it used to be in the footer)
- terms + privacy links under the CTA — App Review requires them (rejection 2026-09-24)
- copy changes: Nora signs off, strings through Crowdin like all others
- paywall copy lives in `Paywall.xcstrings` / `paywall_strings.xml`
""")

NOTES["subscriptions-iap"] = ("subscriptions + in-app purchases", "Lighthouse Plus products, StoreKit 2 / Play Billing, server notifications, entitlements", """
product: Lighthouse Plus (ad-free, unlimited saved offers, loyalty card sync, early offers)

| store | product id | price (US) | notes |
|---|---|---|---|
| App Store | `lh_plus_monthly` | 4.99 | group "Lighthouse Plus" (21456789) |
| App Store | `lh_plus_annual` | 39.99 | intro offer: 7-day free trial |
| Play | `lh_plus` base plan `monthly` | 4.99 | |
| Play | `lh_plus` base plan `annual` | 39.99 | offer `annual-trial-7d` |

- iOS: StoreKit 2 only since 5.0 (`Transaction.updates` listener in `EntitlementStore`)
- Android: Play Billing Library 7 since 5.11 (deadline was 2026-08-31)
- family sharing ON for both App Store products -> `Transaction.ownershipType == .familyShared` must count as entitled (see incident 2026-11-24)
- server: App Store Server Notifications v2 -> `https://bff.lighthouse.app/v1/iap/apple/notifications`; Google RTDN -> Pub/Sub `lh-play-rtdn`
- BFF is the source of truth for entitlements: `GET /v2/entitlements`; apps cache 24h
- sandbox testers in 1Password "IAP sandbox accounts"; Play license testers in the console
- refunds: Apple `REFUND` notification revokes at once; Google voided purchases API polled hourly
""")

NOTES["deep-links"] = ("deep links", "routes table, universal links / app links setup, how to test", """
| route | screen | since |
|---|---|---|
| `lighthouse://offers/:id` | offer detail | 4.x |
| `lighthouse://offers/saved` | saved offers | 4.x |
| `lighthouse://loyalty/:cardId` | loyalty card | native since 5.11 |
| `lighthouse://paywall?source=` | paywall | 5.8 |
| `lighthouse://settings/notifications` | push settings | 5.2 |
| `https://lighthouse.app/o/:id` | offer detail (universal / app link) | 5.0 |

- iOS: AASA at `https://lighthouse.app/.well-known/apple-app-site-association`, served by the BFF ingress; parsed by `DeepLinkRouter.route(_:)` in `LHDeepLinks`
- Android: `assetlinks.json` on the same host; intent filters in `:app` manifest, `DeepLinkHandler.handle(intent)`; MainActivity is `singleTop` -> new links arrive in `onNewIntent` (that was LH-2356)
- test: `xcrun simctl openurl booted "lighthouse://offers/123"`, `adb shell am start -W -a android.intent.action.VIEW -d "lighthouse://offers/123"`
- `deep_link_opened` {route, source} on every handled link, `deep_link_failed` when no route matched
""")

NOTES["offline-sync"] = ("offline sync", "how saved offers + loyalty cards sync offline: workers, conflict rule, limits", """
v2 since 5.7 (flag `offline_sync_v2`, 100%). decision in ADR-007.

- local store: SwiftData (iOS, `LHSync`), Room (Android, `:sync`)
- outbox table of pending mutations; each has `client_mutation_id` (UUID) so the BFF can drop repeats
- Android: `SyncWorker.doWork` (WorkManager, `CoroutineWorker`), periodic 6h + one-off expedited on app start / connectivity back
- iOS: `BGAppRefreshTask` id `com.lighthouseapp.ios.sync` + sync on foreground
- endpoint: `POST /v2/sync` with `since` cursor; server returns changes + new cursor
- conflicts: field-level last-write-wins by server receive time; deletes win over edits (ADR-007)
- limit: 500 mutations per request; more -> next page
- failures: `lh_sync_failures_total{reason}`; `sync_completed` event {duration_ms, mutations}
- do not start foreground services from `SyncWorker` (ForegroundServiceStartNotAllowedException on Android 12+, LH-2010)
""")

NOTES["adr-002-bff-in-go"] = ("ADR-002: backend-for-frontend in Go", "why the BFF exists and why Go (accepted 2024)", """
status: accepted (2024-05). owner: Dmitri.

context: apps called 4 backend services directly; every API change needed an app release; 3 auth flows.
decision: one BFF per product (`lh-bff`), owned by the mobile team, in Go.
why Go: team already runs Go services; single static binary, small containers; good gRPC clients for the internal services; Kotlin server (Ktor) was the runner-up but nobody wanted the JVM memory on GKE.
consequences: versioned endpoints `/v1`, `/v2`; old versions live until < 1% of sessions use them; mobile team on the backend rota for `lh-bff`.
""")

NOTES["adr-004-swiftui-first"] = ("ADR-004: SwiftUI first", "new iOS screens in SwiftUI, UIKit only when needed (accepted 2025)", """
status: accepted (2025-01).
- all new screens SwiftUI; navigation with `NavigationStack` + `Router` per tab
- UIKit allowed for: collection-heavy lists where SwiftUI is too slow (saved offers, until iOS 18 min), camera scanner
- min iOS raised to 17 (5.12) -> `@Observable` everywhere, no more `ObservableObject` in new code
- UIKit leftovers: `SavedOffersViewController`, `SettingsViewController`; rewrite tracked in LH-2340
""")

NOTES["adr-006-compose-navigation"] = ("ADR-006: Compose navigation", "type-safe Navigation Compose, single activity (accepted 2025)", """
status: accepted (2025-09). owner: Tolu.
- single activity (`MainActivity`, `singleTop`), Navigation Compose with type-safe routes (`@Serializable` route classes)
- one nav graph per feature module, composed in `:app`
- deep links declared on the route (`navDeepLink<OfferRoute>(basePath = ...)`)
- no fragments in new code; `OffersMapFragment` is the last fragment (map SDK), rewrite in 2027
""")

NOTES["adr-007-offline-sync-merge"] = ("ADR-007: offline sync conflict rule", "field-level last-write-wins, deletes win (accepted 2026-04-29)", """
status: accepted 2026-04-29. owner: Rafael. supersedes the v1 "whole record, client wins" rule.

options looked at: CRDTs (too heavy for 2 entity types), whole-record LWW (lost edits from 2 devices), field-level LWW.
decision: field-level last-write-wins, ordered by SERVER receive time (client clocks lie); a delete beats any edit of the same record; `client_mutation_id` makes retries idempotent.
consequence: two devices editing the same loyalty card note offline -> the later upload wins for that field. accepted; rare.
""")

NOTES["adr-009-retire-react-native"] = ("ADR-009: retire React Native", "plan to remove RN screens one by one (accepted 2026-03-03)", """
status: accepted 2026-03-03. owner: Sam.

context: RN 0.68 -> 0.74 upgrade ate 3 weeks in 2025; only 3 RN screens left; JS bundle is 4.1 MB of the iOS download size; nobody on the team wants to own Metro/Hermes upgrades.
decision: no new RN code; port the remaining screens natively, one per quarter, then delete `rn/`, `LHLegacyRN`, `:legacy:rn`.

| screen | status |
|---|---|
| Loyalty card | native in 5.11 (2026-07-28) |
| Referral | deleted in 5.9 (feature dropped) |
| Help center | native behind `rn_help_center`, rollout since 2026-11-30 |
""")

NOTES["react-native-legacy"] = ("react native leftovers", "what RN is still in the apps, how the bridge works, how to build it", """
- RN 0.74, Hermes, new architecture OFF
- only screen left: Help center (`rn/src/help/`) — native replacement rolling out (flag `rn_help_center`, ADR-009)
- iOS: `LHLegacyRN` package hosts `RCTRootView`; Android `:legacy:rn` `ReactActivity`
- bundle built in CI by `scripts/rn_bundle.sh`, shipped inside the app (no CodePush)
- JS errors -> Sentry project `lighthouse-rn`
- local: `cd rn && yarn && yarn start`; Node 20 (`.nvmrc`)
- when `rn_help_center` hits 100% native for 2 trains: delete `rn/`, saves ~11 MB on iOS download size (RN + Hermes + bundle)
""")
