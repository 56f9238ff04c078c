# Hand-written notes of the eval-c store, part 2 (read by gen_store.py).

NOTES["backend-deploy"] = ("Backend deploy (Cloud Deploy)", """
Since 2026-05-05 every Go service ships through Google Cloud Deploy (ADR-0015).

1. Merge to `main`. Cloud Build builds `us-central1-docker.pkg.dev/fieldline-prod/services/<svc>:<sha>`.
2. Tag the release: `make tag SVC=dispatch-svc VERSION=v1.48.0` -> git tag `dispatch-svc/v1.48.0`.
3. Cloud Build creates the release: `gcloud deploy releases create dispatch-svc-v1-48-0
   --delivery-pipeline=dispatch-svc --region=us-central1 --images=dispatch-svc=<image>`.
4. It rolls to `staging` automatically. Check the "Dispatch" dashboard for 15 min.
5. Promote: `gcloud deploy releases promote --release=dispatch-svc-v1-48-0
   --delivery-pipeline=dispatch-svc --to-target=prod`. Canary 10% -> 50% -> 100%, 10 min each.
6. Post the tag in #fl-deploys.

Rules: no prod deploys on Friday after 12:00 (Hana). Migrations go out in their own deploy,
before the code that needs them (db migrations note). Rollback: see the rollback note.
""")

NOTES["backend-deploy-2025"] = ("Backend deploy (2025, superseded)", """
Superseded by the backend deploy (Cloud Deploy) note since 2026-05-05.

2025 way: `helm upgrade --install dispatch-svc charts/dispatch-svc -f values/prod.yaml
--set image.tag=<sha>` from a laptop with `gcloud container clusters get-credentials fl-prod-usc1`.
No canary. Tags were plain `v1.2.3` shared by all services, which is why old changelogs are
confusing. Kept for history only.
""")

NOTES["rollback"] = ("Rollback runbook", """
Backend (Cloud Deploy):
1. `gcloud deploy targets rollback prod --delivery-pipeline=<svc> --region=us-central1`
   rolls back to the last successful release on `prod`.
2. If the bad release ran a migration: migrations are forward-only; write a fixing migration,
   do not `goose down` in prod.
3. Flags first when possible: turning a flag off is faster than a rollback.

Mobile: we cannot roll back a store build. Options: halt the phased release (App Store) or
staged rollout (Play Console), push an EAS Update to the channel if it is JS-only, or ship a
hotfix build. See the mobile release note.
""")

NOTES["mobile-release"] = ("Mobile app release (Fieldline Tech)", """
Release train: every second Wednesday, cut from `main` on Monday. Lucía owns it, Mei signs off.

1. Monday: `yarn release:cut 4.13.0` bumps `app.json` version, creates `release/4.13.0`.
   Build number = CI run counter (`ios.buildNumber` / `android.versionCode`), e.g. 1207.
2. CI (EAS Build) builds both platforms; iOS goes to TestFlight, Android to the Play internal track.
3. Tuesday: Mei runs the Detox suite + manual checklist on the device farm (3 iOS, 4 Android).
4. Wednesday: submit. iOS phased release over 7 days; Play staged rollout 10% -> 50% -> 100%.
5. Watch crash-free sessions in Sentry for 48h; halt the rollout under 99.5%.

JS-only fixes can go as an EAS Update to channel `production` (runtimeVersion must match).
No store submissions on Friday, except hotfixes for crashes (Hana agrees in the channel).
Builds and their versions are listed in the mobile builds note.
""")

NOTES["mobile-release-2025"] = ("Mobile release (2025, superseded)", """
Superseded by the mobile app release note. In 2025 we built with Fastlane on a Mac mini in the
office (`fastlane ios beta`, `fastlane android internal`) and shipped JS fixes with CodePush
(App Center, retired 2025-03-31). Build numbers were date-based (`2025061201`), which is why
Play Console shows two numbering schemes.
""")

NOTES["ota-updates"] = ("OTA updates (EAS Update)", """
JS-only changes can be shipped without a store review via EAS Update.

- Channels: `production`, `staging`. Branches map 1:1.
- `runtimeVersion` policy `appVersion`: an update only reaches builds with the same app version.
- Command: `eas update --channel production --message "fix: job list empty state"`.
- Never ship an OTA that needs a native module change; it crashes on launch (learned with 4.10.0).
- Rollback: `eas update:republish` the previous update group.
""")

NOTES["android-build"] = ("Android build notes", """
- Gradle 8.10, AGP 8.7, `compileSdk 35`, `targetSdk 35` (Play requirement since Aug 2026), `minSdk 26`.
- Upload key in Secret Manager `projects/fieldline-prod/secrets/android-upload-keystore`; Play App
  Signing holds the app signing key.
- `versionCode` = build number from CI; must increase, Play refuses a reused one
  ("Version code 1207 has already been used").
- Android 14 needs `READ_MEDIA_VISUAL_USER_SELECTED` for partial photo access; missing it caused
  MOBILE-3F2.
- ANR watch: Play vitals bad-behaviour threshold is 0.47% user-perceived ANR rate.
""")

NOTES["ios-build"] = ("iOS build notes", """
- Xcode 16.1, iOS deployment target 15.1. EAS manages provisioning profiles.
- APNs: token-based auth key (`.p8`, key id `7RW2K9`), stored in Secret Manager
  `apns-auth-key`; does not expire. The *distribution certificate* does: current one expires
  **2026-12-02**; renew before the 4.14.0 train.
- Background location needs `UIBackgroundModes: location` and the "Always" prompt copy reviewed by Apple.
- Watchdog kills show as `0x8badf00d` in crash logs: launch took > 20 s (we do too much in
  `App.tsx` before first render).
- `0xdead10cc`: killed for holding a file lock (SQLite) when suspended. See crash codes note.
""")

NOTES["mobile-builds"] = ("Mobile builds and versions", """
Every store build since the move to EAS (build number = CI counter). Dates are submission days.
The currently supported minimum is 4.11.0; older builds get a forced-update screen.

| version | build | date | platforms | notes |
|---|---|---|---|---|
| 4.8.2 | 1071 | 2026-02-04 | both | last build with the LaunchDarkly SDK |
| 4.9.0 | 1102 | 2026-03-04 | both | legacy REST sync removed |
| 4.9.1 | 1108 | 2026-03-12 | iOS | fix login on iPadOS |
| 4.10.0 | 1131 | 2026-05-27 | both | React Native 0.76 + Hermes; new architecture on |
| 4.10.1 | 1137 | 2026-06-03 | both | fix camera permission loop |
| 4.10.2 | 1140 | 2026-06-10 | both | `lww_field` conflict handling in the app (June incident) |
| 4.11.0 | 1150 | 2026-07-15 | both | offline sync engine default; photo upload v2 behind flag |
| 4.11.1 | 1156 | 2026-07-24 | Android | hotfix MOBILE-3F2 (Android 14 photo picker crash) |
| 4.11.2 | 1163 | 2026-08-12 | both | background location battery fix |
| 4.12.0 | 1184 | 2026-10-07 | both | old sync path deleted; timesheet beta |
| 4.12.1 | 1191 | 2026-10-15 | both | MOBILE-38B offline queue after force-quit |
| 4.13.0 | 1207 | 2026-11-03 | both | bulk-assigned job badges, new job detail screen |
| 4.13.1 | 1212 | 2026-11-06 | iOS | hotfix MOBILE-4K1 (launch crash on iOS 17) |
| 4.14.0 | - | planned 2026-12-02 | both | signature capture v2 if MOBILE-2C9 is fixed |

Build numbers skipped in between were CI runs that never went to a store.
""")

NOTES["react-native-upgrade"] = ("React Native 0.76 upgrade", """
Done in May 2026 (#4602, shipped in 4.10.0 build 1131). From 0.73 to 0.76 in one go, new
architecture (Fabric + TurboModules) on, Hermes on both platforms.

What broke and how we fixed it:
- `react-native-maps` needed 1.18 for Fabric; the map flickered on Android until we set
  `liteMode` off.
- Our native module `FLLocationBridge` (background location) had to become a TurboModule; the
  old bridge call `NativeModules.FLLocation.start()` silently did nothing under the new arch.
- `op-sqlite` replaced `react-native-sqlite-storage` (unmaintained); migration of the local DB
  runs once at first launch, ~2 s on old Android phones.
- Detox needed 20.x; three e2e tests rewritten (Mei).
- Metro config: `unstable_enablePackageExports` had to be on for date-fns v3.

Lessons: do the native modules first, on a branch, behind a build flavour; ship an internal
build for a week before the store.
""")

NOTES["offline-sync"] = ("Offline sync (how it works)", """
The app keeps a local SQLite copy of the tech's jobs for the next 7 days plus an outbox of
changes. `sync-gateway` serves two RPCs:

- `SyncService/PushChanges`: the outbox, at most `sync.batch.max_changes` (500) per call. Each
  change has a UUIDv7 id, so a retry after a timeout is harmless.
- `SyncService/PullChanges`: everything changed since the device's cursor, `sync.pull.page_size`
  (200) per page. Deletes come as tombstones, kept `sync.tombstone.retention_days` (30).

Conflicts (`internal/sync/merge.go`): `sync.conflict.strategy = lww_field` = last writer wins
*per field*, by server-assigned hybrid logical clock. Before June it was `lww_record`, which
overwrote a whole job when two devices edited different fields (the June data-loss incident).
Notes and photos are append-only, never merged.

Behind `ff_offline_sync` until 2026-07-01 (100%); old REST sync removed in app 4.9.0, old gRPC
path deleted in 4.12.0.

Debugging a device: ask the tech for Settings -> Diagnostics -> "Send sync log"; it uploads the
outbox and cursor to `gs://fl-support-uploads/<tech_id>/`.
""")

NOTES["adr-0004-grpc-over-rest"] = ("ADR-0004: gRPC between services", """
Status: accepted (2024-09).

Context: services talked JSON over HTTP with hand-written clients; three outages came from
mismatched field names. Decision: gRPC with protos in the monorepo, `buf` for lint and breaking
checks; REST only at the edge for partners via grpc-gateway. Consequences: codegen in CI,
mobile talks gRPC-web? No: the app uses `@connectrpc/connect` over HTTP/2 to `sync-gateway`.
""")

NOTES["adr-0007-offline-first"] = ("ADR-0007: offline-first mobile app", """
Status: accepted (2025-11).

Techs lose signal in basements and plant rooms for hours. Decision: the app works fully offline
for the current week's jobs; server is the source of truth, device sends an outbox of changes,
conflicts resolved on the server. Rejected: CRDT-per-document (too heavy for job records),
Firestore offline (vendor lock, pricing per read). Implemented as the offline sync engine
(`ff_offline_sync`).
""")

NOTES["adr-0011-pubsub-over-kafka"] = ("ADR-0011: Pub/Sub over Kafka", """
Status: accepted (2026-02-10).

We need events between services (`job.created`, `job.assigned`, tech locations). Options:
Confluent Kafka, Strimzi on GKE, Cloud Pub/Sub. Chose Pub/Sub: no brokers to run, per-message
ack, DLQ built in, ordering keys where needed (per `job_id`). Cost: fine at our volume
(~40M messages/month). Downside: no log compaction or replay beyond 7 days of retained acked
messages; we seek by timestamp for replays.
""")

NOTES["adr-0015-cloud-deploy"] = ("ADR-0015: Cloud Deploy for backend releases", """
Status: accepted (2026-04-22), rolled out 2026-05-05.

Helm from laptops had no audit trail and no canary. Options: Argo CD, Spinnaker, Cloud Deploy.
Chose Cloud Deploy: managed, canary on GKE with Gateway API, approvals per target, cheap. Argo CD
rejected only because nobody wanted to run it. See backend deploy note.
""")
