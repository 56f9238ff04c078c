# Hand-written key log entries of the eval-e store (read by gen_store.py).
# date -> list of (HH:MM, heading, body)
KEY = {
"2026-03-03": [("14:30", "ADR-009 accepted — RN goes", """- arch sync: ADR-009 (retire React Native) accepted, owner me
- no new RN code from today. order: loyalty card first (most crashes), then Help center
- referral screen: product drops the feature anyway -> just delete it
- TODO: size numbers for RN in the ADR (Jonas wants them)""")],
"2026-03-10": [
 ("11:15", "5.1.0 submitted", """- `fastlane ios release` 5.1.0 (5010003), Android promoted at 5%
- first train after the 5.0 redesign, smaller: map clustering behind `offers_map_clustering`"""),
 ("16:00", "map clustering A/B live", """- `offers_map_clustering` 50/50 on both, primary = `offer_viewed` from map
- row added in experiment-log, runs min 14 days""")],
"2026-03-17": [("10:40", "pt-BR + tr strings landed", """- Crowdin delivered pt-BR and tr for the app project, 100% translated
- pseudo-locale run found 6 clipped labels in tr (long words) -> fixed in `OfferCard`
- store listing for both in `lighthouse-store` project, Aisha checks the screenshots""")],
"2026-03-31": [("15:20", "clustering result: ship", """- map clustering: `offer_viewed` from map +12%, no guardrail moved
- decision w/ Priya + Nora: ship to 100%. Tolu owns flag removal (still there, oops)""")],
"2026-04-06": [
 ("09:45", "distribution cert expiring", """- ASC mail: Apple Distribution cert expires 2026-04-12. with Jonas: rotate now, before the 5.3 submit
- `fastlane match nuke distribution` (Jonas ran it, needs admin) -> new cert valid until 2027-04-06"""),
 ("10:30", "profiles regenerated", """- `fastlane ios refresh_profiles`: App Store profiles for app, widgets (not shipping yet), NotificationService all regenerated
- CI picked them up via `fastlane ios certs` on next run. ~20 min all in. live builds unaffected
- wrote the steps into code-signing""")],
"2026-04-07": [("11:00", "5.3.0 submitted", """- 5.3.0 (5030004), first with the new cert. release checklist v2026 first real run — Aisha happy, old one marked superseded""")],
"2026-04-21": [("11:30", "5.4.0 submitted", """- 5.4.0 (5040002) both. iOS contains the `LHNetworking` retry rewrite (Jonas)""")],
"2026-04-22": [
 ("08:20", "logout loop reports", """- Kemal: users on iOS 5.4.0 getting logged out again and again. `login_failed` 4x normal since 07:00
- Crashlytics clean (not a crash)"""),
 ("09:40", "paused 5.4.0 phased release", """- paused at 2% in ASC. repro: two parallel requests with expired token -> double refresh -> 2nd refresh token already rotated -> `invalid_grant` -> logout
- Android fine (Mutex in `Authenticator`)"""),
 ("15:30", "hotfix 5.4.1 ready", """- `TokenRefresher` as an actor, single-flight refresh, PR #4388, LH-1874. behind `login_single_flight_refresh` (default on)
- Jonas + me reviewed; submit tomorrow morning with expedited review""")],
"2026-04-23": [("10:10", "5.4.1 submitted expedited", """- 5.4.1 (5040103), expedited review requested: "users logged out repeatedly". approved 16:50, released to all
- incident note written: incident-2026-04-22-login-loop""")],
"2026-04-29": [("14:00", "ADR-007 accepted (sync conflicts)", """- field-level last-write-wins by server time, deletes win. Rafael's ADR
- CRDTs rejected: 2 entity types, not worth it. v2 sync work starts, flag `offline_sync_v2`""")],
"2026-05-06": [("17:45", "ITMS-91053 on upload", """- TestFlight upload of 5.5 build: mail "ITMS-91053: Missing API declaration" — `NSPrivacyAccessedAPICategorySystemBootTime`
- from `LHAnalytics` session timing (`ProcessInfo.systemUptime`). only a warning now but Apple will reject from May 2026 on. LH-1963""")],
"2026-05-07": [("11:20", "privacy manifest fixed", """- added `35F9.1` to `LHAnalytics/PrivacyInfo.xcprivacy`, re-uploaded, no warning
- also checked Firebase + Lottie manifests. table in privacy-manifest note""")],
"2026-05-13": [("16:10", "iOS over size budget", """- size check: iOS download 92 MB (budget 80). culprit: onboarding Lottie JSONs + bundled images, 11 MB
- moved them to on-demand resources, tag `onboarding-anim` -> 86 MB. rest from RN bundle, nothing to do till ADR-009
- `scripts/size_check.py` now fails at +1.5 MB (was only a comment)""")],
"2026-05-19": [("10:50", "5.6.0 + BFF event schema", """- 5.6.0 (5060003) submitted. privacy manifest warning gone
- Dmitri turned on schema check for `/v1/events`: unknown events -> 400 `unknown_event`. 3 old events from RN found, removed""")],
"2026-05-27": [("13:30", "SyncWorker crash on Android 12+", """- `android.app.ForegroundServiceStartNotAllowedException` in `SyncWorker.doWork` — we called `setForeground()` from background on sync retry
- fix: expedited work request instead of foreground service, LH-2010. goes in 5.7""")],
"2026-06-02": [("11:05", "5.7.0 — offline sync v2", """- 5.7.0 (5070002) submitted. `offline_sync_v2` at 10% on both, ramp with each Android step""")],
"2026-06-09": [("15:00", "WWDC: Xcode 27 beta", """- Xcode 27 beta 1 on `macos-lh-06` only (label `xcode-beta`), nightly build of main against it
- first look: Liquid Glass tab bar breaks our custom `TabBarContainer` insets; Swift 6.2 warnings in `LHCore`
- 2 team phones on iOS 27 beta (Mei, Jonas). epic LH-2255""")],
"2026-06-16": [("11:40", "paywall v3 test live", """- 5.8.0 (5080001) submitted; `paywall_v3_enabled` 50/50 on both once live. LH-2045
- primary: trial starts per paywall view. guardrails: `checkout_failed`, refunds, crash-free""")],
"2026-06-18": [("09:20", "PaywallViewModel crash", """- `Fatal error: Unexpectedly found nil while unwrapping an Optional value` in `PaywallViewModel.loadProducts()` — v3 variant, when StoreKit returns no products (sandbox / region)
- 0.4% of paywall sessions. LH-2062, force unwrap removed, empty state instead. Jonas: "told you". 5.8.1 tomorrow""")],
"2026-06-22": [("10:00", "a11y audit kickoff", """- Inklusiv Digital starts the WCAG 2.2 AA audit today, both apps, till Friday. TestFlight + Play internal access given""")],
"2026-06-30": [("16:30", "a11y audit report in", """- 3 high: plan cards not announced as selected, map pins unreachable with VoiceOver, loyalty barcode no text alternative
- tickets created, table in accessibility-audit-2026. also removed `sync_legacy_fallback` flag""")],
"2026-07-07": [("14:15", "paywall v3 wins", """- trial starts +8.1%, refunds flat, guardrails fine. Priya + Nora: ship. `paywall_v3_enabled` -> 100% both
- next: annual-first variant (`paywall_v3_annual_first`)""")],
"2026-07-09": [
 ("18:40", "duplicate pushes!", """- "summer deals" campaign 18:00 -> people getting it 3-4x. `#lh-support-esc` exploding
- Dmitri: FCM 503 on part of batch, pushd retried whole batch (APNs sends too)"""),
 ("19:10", "campaign stopped", """- Dmitri stopped the campaign. ~210k users affected. app reviews already saying spam""")],
"2026-07-10": [("15:45", "push dedupe", """- pushd: dedupe key `<campaign_id>:<user_id>` in Redis 24h, retry only failed tokens, `apns-collapse-id` + Android `tag`. PR #4955, LH-2131
- client side for 5.10: drop a push whose dedupe key we showed in the last 24h
- incident note: incident-2026-07-09-duplicate-push""")],
"2026-07-21": [("12:30", "Play Billing 7 merged", """- Tolu's PBL 7 migration merged (LH-2152). `enablePendingPurchases` with the new params, base plans + `annual-trial-7d` offer
- license tester runs green. ships in 5.11, well before the 08-31 deadline""")],
"2026-07-28": [("11:10", "5.11.0 — native loyalty card", """- 5.11.0 (5110002) submitted. loyalty card is native now (`:feature:loyalty`, SwiftUI in `LHOffers`)
- `rn_loyalty_card` flag removed, RN loyalty code deleted. `RCTFatalException ... card.barcode` should be gone for good
- RN left: Help center only""")],
"2026-08-04": [("16:20", "targetSdk 36 merged", """- targetSdk 36 on main (LH-2200). edge-to-edge can't be opted out anymore -> insets fixed in 9 screens
- predictive back on by default -> `LHBottomSheet` back handling fixed""")],
"2026-08-11": [("10:40", "5.12.0 — min iOS 17", """- 5.12.0 (5120002) submitted. min iOS 17.0 now (iOS 16 was 1.9% of sessions). Android targetSdk 36
- data safety form updated: location approximate only""")],
"2026-08-12": [("14:50", "Fragment not attached spike", """- Crashlytics velocity alert Android 5.12.0: `java.lang.IllegalStateException: Fragment not attached to a context` in `OffersMapFragment.onLocationResult`
- location callback after the fragment is gone (new back behaviour). LH-2219. Rafael: remove callbacks in `onDestroyView`, check `isAdded`
- halted Android rollout at 20%. 5.12.1 Android-only on Friday""")],
"2026-08-25": [("11:30", "5.13.0 + flag cleanup", """- 5.13.0 (5130001) submitted
- removed `paywall_v2_enabled` and all v2 paywall code (-2,300 lines)""")],
"2026-09-08": [
 ("10:15", "APNs key rotated", """- new APNs .p8 key `8KX3M2Q7PL`, secret version added in `lh-apns-p8`, `LH_APNS_KEY_ID` switched, pushd deployed
- old key `4JD9W1RZ6T` revoke next week if delivery fine"""),
 ("13:40", "APNs 429 TooManyProviderTokenUpdates", """- after the deploy `lh_push_delivery_rate` 97% -> 71%. APNs 429 `TooManyProviderTokenUpdates`
- cause: every pod + every goroutine pool built its own provider JWT on start -> too many token refreshes. Dmitri: one token per pod, cached 50 min
- back to 97% at 14:30""")],
"2026-09-15": [("12:00", "iOS 27 day", """- iOS 27 out. 5.14.1 (5140102) built with Xcode 27 RC submitted last night, approved this morning
- Liquid Glass tab bar looks right. Swift 6.2 mode in `LHCore` + `LHNetworking` only""")],
"2026-09-18": [
 ("08:45", "iOS 27 crash spike", """- velocity alert: `EXC_BAD_ACCESS KERN_INVALID_ADDRESS` in `ImageCache.store(_:for:)`, iOS 27 only, 5.14.x
- iOS crash-free 99.71% -> 98.9%. LH-2291. it's the `image_cache_disk_v2` path"""),
 ("09:15", "image_cache_disk_v2 off", """- flag to 0% in Unleash prod. only helps after next flag fetch / cold start, crashing users may never get there"""),
 ("16:40", "5.14.2 submitted", """- `ImageCache` rewritten as an actor (PR #5012, Jonas). 5.14.2 (5140203) submitted, expedited review requested
- Thread Sanitizer nightly job added on CI""")],
"2026-09-22": [("11:20", "5.15.0 submitted", """- 5.15.0 (5150002) submitted. crash-free back to 99.74% after 5.14.2""")],
"2026-09-24": [("09:30", "5.15.0 rejected — 3.1.2", """- "Guideline 3.1.2 - Business - Payments - Subscriptions": no terms of use (EULA) link in the app's paywall
- Nora + Mei: terms + privacy links under the CTA, EULA link in App Store description. resubmit today""")],
"2026-09-30": [("10:05", "5.15.0 approved", """- approved after resubmit. phased release started. rejection added to app-review-rejections""")],
"2026-10-12": [("15:10", "Play rejected subscription wording", """- Play policy email for 5.16.0: cancel info not clear on the paywall
- added "cancel anytime in Google Play" line under the plan cards (Nora ok), re-submitted, approved same evening""")],
"2026-10-14": [("13:25", "paywall: restore button + monthly equivalent", """- paywall v3 changes (both apps): "Restore purchases" moved from footer to top right; annual card shows monthly equivalent ("3.33/month") under the price
- Nora signed off. strings went through Crowdin before Thursday's freeze. ships in 5.17""")],
"2026-10-20": [("11:50", "5.17.0 + trial length test", """- 5.17.0 (5170003) submitted. includes Firebase deferred init (cold start)
- trial length experiment: `paywall_trial_14d` 7-day vs 14-day trial, goes live when 5.17 is at 100%""")],
"2026-10-21": [("10:30", "trial test live", """- `paywall_trial_14d` 50/50 on iOS (Android offers need a new `annual-trial-14d` offer first — live 10-22)
- Play Console: new offer created by Tolu""")],
"2026-10-27": [("16:00", "cold start numbers", """- after 5.17 at 100%: iOS cold start p90 2.1 s -> 1.6 s, Android 2.7 -> 2.2 s (`lh_cold_start_p90_ms`)
- Android baseline profiles next (5.18). RN preload at launch removed too""")],
"2026-11-02": [
 ("10:05", "on-call: Jonas", """- handoff: Jonas on call this week. nothing open except MapClusterRenderer OOM (LH-2371) watching"""),
 ("15:30", "AGP 9 + Kotlin 2.2.20", """- Tolu merged AGP 9.0.0 + Kotlin 2.2.20 + Gradle 9.1. build-logic convention plugins needed changes
- CI Android build 12 -> 11 min""")],
"2026-11-03": [("11:40", "5.18.0 submitted", """- 5.18.0 (5180002) both. baseline profiles + Tink for token storage on Android""")],
"2026-11-04": [("09:50", "Xcode 27.1 default on CI", """- all 6 runners on Xcode 27.1, default `DEVELOPER_DIR`. 26.4 kept
- re-recorded the iOS snapshots once (font rendering moved 1px) — only on the CI Xcode""")],
"2026-11-09": [
 ("10:05", "on-call: Tolu", """- handoff Jonas -> Tolu. 5.18.0 iOS at 100%, Android at 50%"""),
 ("14:20", "deep link opens wrong offer (Android)", """- support: tapping an offers push opens the PREVIOUS offer when the app was in background. Android only
- `lighthouse://offers/:id` arrives in `onNewIntent` (MainActivity is `singleTop`) and we never pass it to `DeepLinkHandler`. LH-2356""")],
"2026-11-10": [
 ("11:00", "deep link fix", """- Rafael: handle `onNewIntent` -> `DeepLinkHandler.handle(intent)`, PR #5161. Android-only 5.18.1 tomorrow"""),
 ("16:45", "trial length test ended", """- `paywall_trial_14d`: trial->paid 38.2% (7-day) vs 36.9% (14-day), revenue not significant. keep 7-day. flag to 0%, removal 5.21""")],
"2026-11-11": [("10:20", "5.18.1 Android-only", """- 5.18.1 (5180101) to Play, staged 20% -> 100% Friday. iOS stays on 5.18.0""")],
"2026-11-12": [("14:40", "crash triage", """- `PushRegistrationTests.testTokenRefresh` fixed + unquarantined (LH-2301)
- LH-2371 MapClusterRenderer OOM growing on Galaxy A14, low RAM. Tolu looks next train""")],
"2026-11-16": [
 ("10:05", "on-call handoff -> Rafael", """- Tolu -> Rafael. Rafael on call this week + release captain for 5.19
- open: LH-2371, 5.18.1 at 100%"""),
 ("10:20", "release/5.19 cut", """- `release/5.19` cut by Aisha. contains `EntitlementStore` refactor (PR #5140), Help center native (dark), loyalty widget prep""")],
"2026-11-17": [("11:30", "5.19.0 submitted", """- `fastlane ios release` 5.19.0 (5190001); Android promoted at 5%. Rafael captain, me on the lanes""")],
"2026-11-18": [("08:30", "5.19.0 approved", """- iOS approved 07:40, phased release day 1. Android -> 20% (Rafael)""")],
"2026-11-19": [("14:10", "crash triage", """- 5.19.0 crash-free iOS 99.78%, Android 99.71% — fine
- MapClusterRenderer OOM: Tolu wants to downsample cluster icons, 5.20""")],
"2026-11-20": [
 ("11:00", "Android 5.19.0 -> 50%", """- Rafael bumped Android staged rollout to 50%. iOS phased at 5% today (day 3)"""),
 ("16:30", "weekly summary", """- posted in `#lh-mobile`: 5.19.0 rolling (iOS phased, Android 50%), MapClusterRenderer OOM fix planned, Help center native dark in 5.19""")],
"2026-11-23": [("10:10", "on-call handoff -> Mei", """- Rafael -> Mei. 5.19.0 iOS at 50% (day 6), Android at 50%
- Kemal mentioned a few "Plus disappeared" tickets over the weekend, looking""")],
"2026-11-24": [
 ("09:30", "5.19.0 paused — restore broken", """- family-shared Plus members lose Plus on 5.19.0; "Restore purchases" -> "No purchases found". repro w/ sandbox family
- paused phased release at 50%. Android not affected, stays at 50%. LH-2388"""),
 ("14:00", "fix for family sharing", """- `EntitlementStore` kept only `.purchased`; now counts `.familyShared` too. PR #5188 (Mei, Jonas review)
- added family-shared product to `Lighthouse.storekit` + test case""")],
"2026-11-25": [("10:20", "5.19.1 submitted (expedited)", """- hotfix 5.19.1 (5190102) from the `v5.19.0` tag, expedited review requested (first one since September): paying family members lose access
- Priya: release to all users at once when approved. incident note: incident-2026-11-24-family-sharing-restore""")],
"2026-11-26": [
 ("08:20", "5.19.1 live", """- approved 08:10, released to all users. Kemal closing tickets with a canned reply"""),
 ("17:00", "5.20 strings frozen", """- Crowdin freeze for 5.20 at 17:00, 3 late strings for the widget pushed to 5.21""")],
"2026-11-27": [
 ("10:40", "Android 5.19.0 -> 100%", """- Mei promoted Android 5.19.0 to 100%. crash-free 99.73%"""),
 ("15:45", "weekly summary", """- posted: 5.19.1 hotfix (family sharing restore), retro Monday, 5.20 cut Monday
- flag cleanup done for 5.20: `offline_sync_v2` + `loyalty_native_card` code removed""")],
"2026-11-30": [
 ("10:05", "on-call handoff -> me", """- Mei -> me. I'm on call + release captain for 5.20. nothing paused. 5.19.1 at 100%"""),
 ("10:25", "release/5.20 cut", """- `release/5.20` cut. widget (`widget_nearby_offers`, 0%), MapClusterRenderer downsampling, native Help center"""),
 ("15:00", "rn_help_center: native 25% on iOS", """- `rn_help_center` = false (native) for 25% of iOS users via Unleash; Android next week
- retro for 5.19: family-shared case missing in tests; Aisha adds "restore purchases with family member" to the regression run""")],
"2026-12-01": [
 ("11:35", "nearby offers page 2 broken (BFF)", """- `lh-bff` v2.31.0 deployed 11:20 -> Android 5.18/5.19 show the same offers again when scrolling: page 2 == page 1
- v2.31.0 dropped the `page_token` alias on `/v2/offers/nearby` (only `cursor` now); Android < 5.20 still sends `page_token`. canary didn't catch it (4xx/200s not checked)"""),
 ("12:05", "BFF rolled back", """- Dmitri rolled back to v2.30.4 (`kubectl argo rollouts undo`). fixed at 12:08. LH-2402, post-mortem Thursday
- alias stays until 5.20 is at 95%+ of Android sessions; LH-2404 contract tests vs last 3 app versions"""),
 ("16:30", "5.20.0 uploaded", """- `fastlane ios release` uploaded 5.20.0 (5200004); Android 5.20.0 promoted at 5%
- `rn_help_center` native at 25% since Monday: no new crashes, 2 support tickets about search in help"""),
 ("18:10", "ITMS-90683 — build invalid", """- ASC mail: "ITMS-90683: Missing purpose string in Info.plist" — `NSLocationWhenInUseUsageDescription`, in `LighthouseWidgets.appex`
- build 5200004 invalid, not submitted. fix tomorrow morning""")],
"2026-12-02": [
 ("09:20", "widget purpose string fixed", """- yesterday's ITMS-90683: added `NSLocationWhenInUseUsageDescription` to the widget's Info.plist (translated via Crowdin `InfoPlist.xcstrings`), LH-2407
- asc-errors note updated"""),
 ("10:05", "5.20.0 (5200005) submitted", """- re-uploaded as 5200005, processed, submitted for review with phased release. Android 5.20.0 stays at 5% until the BFF post-mortem Thursday""")],
}
