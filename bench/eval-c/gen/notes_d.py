# Hand-written notes of the eval-c store, part 4 (read by gen_store.py).

NOTES["incident-2026-03-17-assign-timeouts"] = ("Incident 2026-03-17: AssignJob timeouts", """
**Impact:** 09:12-10:05 Central, ~38% of `DispatchService/AssignJob` calls failed with
`DEADLINE_EXCEEDED` (office web showed "Could not assign, try again"). Morning dispatch rush,
~2,100 failed assignments, many retried by hand.

**Timeline (UTC)**
- 14:12 `dispatch_assign_latency_seconds` p99 at 2 s (the deadline); page fires.
- 14:20 Kofi + Maya on it. Redis CPU at 95%.
- 14:31 Found: `lock:assign:<job_id>` TTL 30 s; a client that timed out kept the lock, every
  retry waited on it, and retries (`dispatch.retry.max_attempts` was 3, no jitter) came in waves.
- 14:48 Hot config: lock TTL 5 s (`dispatch.assign.lock_ttl`).
- 15:05 Recovered.

**Root cause:** a lock that outlived its caller + synchronised retries.

**Follow-ups**
- #4388 lock TTL 5 s and release on context cancel (done 03-18).
- #4412 full jitter in `pkg/retry/backoff.go`, `dispatch.retry.max_attempts` 3 -> 5 with
  shorter initial backoff (done 03-24).
- Alert on `dispatch_lock_wait_seconds` (done).
""")

NOTES["incident-2026-06-08-sync-data-loss"] = ("Incident 2026-06-08: offline sync overwrote job notes", """
**Impact:** from 2026-06-03 to 06-08, when a tech and the office edited the same job while the
tech was offline, the tech's push overwrote the office's edits to *other* fields (access codes,
customer notes). 214 jobs affected at 9 customers; no data lost for good (audit table).

**Cause:** `sync.conflict.strategy = lww_record` compared the whole record's timestamp. App
4.10.1 (build 1137) started sending full records instead of changed fields after the RN upgrade
(a serializer default changed).

**Fix:**
- Server: `lww_field` strategy in `internal/sync/merge.go` (#4655), merged per field with a
  hybrid logical clock. Config key flipped 06-09.
- App 4.10.2 (build 1140) sends changed fields only.
- Restored the 214 jobs from `job_audit` with a script (Farah checked each customer).

**Lessons:** the conflict strategy had no test with two writers touching different fields;
added property tests. Sentry did not help: nothing crashed.
""")

NOTES["incident-2026-08-21-pubsub-backlog"] = ("Incident 2026-08-21: Pub/Sub backlog on job-events", """
Friday afternoon. `notify-svc-job-events` backlog grew to 1.2M messages; techs got no push for
new assignments for ~2 h; office staff phoned them instead.

- One malformed `job.assigned` event (null `tech_id`, from a partner import via jobs-api) made
  notify-svc panic; the message was redelivered forever (no `max_delivery_attempts`, no DLQ on
  that subscription), and ordering key `job_id` blocked every later event of the same jobs.
- Mitigation: deployed notify-svc with a nil check at 17:40 (Friday deploy, Hana approved);
  backlog drained by 19:10.
- Follow-ups: DLQ + `pubsub.max_delivery_attempts` = 10 on every subscription (#4733);
  validation of partner imports in jobs-api (#4741); alert on `oldest_unacked_message_age`.

`BACKEND-7Q` in Sentry was this panic (`nil pointer dereference` in `internal/notify/assigned.go:88`).
""")

NOTES["incident-2026-10-13-cloudsql-failover"] = ("Incident 2026-10-13: Cloud SQL failover, 503s", """
**Impact:** 16:02-16:13 UTC, partner API and office web got HTTP 503 / 504; mobile sync failed and
retried (outboxes kept everything, no data lost). 11 minutes.

**What happened:** Google ran an unplanned failover of `fl-pg-prod` (zone issue). The new
primary was up in ~60 s, but pgx pools kept connections to the old primary's IP through the
proxy: queries hung until the TCP timeout. `BACKEND-1D7` ("conn closed") spiked in Sentry.
Restarting dispatch-svc and jobs-api pods fixed it at 16:13.

**Fixes:**
- `db.pool.max_conn_lifetime` 30m + `db.pool.health_check_period` 15s (#4856).
- Statement timeout 10 s on the app role.
- Failover drill in staging every quarter: `gcloud sql instances failover fl-pg-staging`.
- Alert on Cloud SQL `database/up` and on 503 rate at the GCLB.
""")

NOTES["incident-2026-11-05-ios-launch-crash"] = ("Incident 2026-11-05: iOS launch crash in 4.13.0", """
App 4.13.0 (build 1207), submitted 11-03, phased release at 2% on iOS. From 11-05 morning
`MOBILE-4K1`: crash on launch, iOS 17.x only, `EXC_BAD_ACCESS (KERN_INVALID_ADDRESS) at
0x0000000000000010` in `hermes::vm::JSObject::getNamedDescriptor`. Crash-free sessions on iOS
dropped to 96.1%.

Cause: the new job detail screen imported a TurboModule (`FLSignaturePad`) at module scope; on
iOS 17 the module was not registered yet when Hermes evaluated the bundle.

Actions: paused the phased release 11-05 10:20; lazy import fix (#4877); 4.13.1 (build 1212)
submitted Friday 11-06 as a hotfix with expedited review, approved the same evening. Android was
not affected (staged rollout continued). Crash-free back to 99.7% by 11-09.
""")

NOTES["sentry-issues"] = ("Sentry issues worth knowing", """
Projects: `fieldline-mobile` (short ids `MOBILE-*`), `fieldline-backend` (`BACKEND-*`).

| id | where | what | status |
|---|---|---|---|
| `MOBILE-3F2` | Android 14, 4.11.0 | crash opening photo picker: missing `READ_MEDIA_VISUAL_USER_SELECTED` | fixed 4.11.1 (build 1156) |
| `MOBILE-4K1` | iOS 17, 4.13.0 | launch crash, `EXC_BAD_ACCESS` in Hermes | fixed 4.13.1 (build 1212) |
| `MOBILE-2C9` | Android, all | ANR in signature pad on low-end devices (main thread bitmap) | open, blocks `ff_signature_capture_v2` |
| `MOBILE-1ZD` | both | token refresh loop -> endless 401 after password reset | fixed 4.9.1 |
| `MOBILE-38B` | both | offline queue lost after force-quit during sync (`0xdead10cc` on iOS) | fixed 4.12.1 |
| `MOBILE-2WQ` | iOS | map tiles blank after background | won't fix (Apple Maps cache) |
| `BACKEND-7Q` | notify-svc | nil pointer on `job.assigned` without tech | fixed (Aug incident) |
| `BACKEND-1D7` | all Go | `conn closed` from pgx during Cloud SQL failover | fixed #4856 |
| `BACKEND-2H3` | routing-svc | solver panic on job with zero-length window | fixed #4812 |
| `BACKEND-31P` | jobs-api | 422 storm from one partner's bad payloads | partner fixed it |

Alert rules: new issue in `fieldline-mobile` with > 50 users in 1h -> #fl-mobile.
""")

NOTES["crash-codes"] = ("Native crash codes (iOS and Android)", """
What the hex in a crash report means, for the ones we have seen.

| code | platform | meaning | our cases |
|---|---|---|---|
| `0x8badf00d` | iOS | watchdog: app took too long to launch/resume | cold start on iPhone 8 with a big SQLite DB (4.10.0) |
| `0xdead10cc` | iOS | killed in background while holding a file lock | SQLite WAL during sync; MOBILE-38B |
| `0xc00010ff` | iOS | thermal kill | tech's phone on a dashboard in summer, not ours |
| `0x0000000000000010` | iOS | null + 16 deref (`KERN_INVALID_ADDRESS`) | MOBILE-4K1 |
| `SIGABRT` | both | abort, usually an uncaught native exception | RN red box in release = JS error thrown at startup |
| `SIGSEGV` | Android | segfault in native code | old `react-native-maps` on Mali GPUs |
| `ANR` | Android | main thread blocked 5 s | MOBILE-2C9 |

Symbolication: iOS dSYMs and Android mapping files are uploaded by EAS Build via the Sentry
plugin; Hermes source maps too (`sentry-expo-upload-sourcemaps`).
""")

NOTES["photo-upload"] = ("Photo upload v2", """
Behind `ff_photo_upload_v2` (100% since 2026-08-05).

1. App asks `jobs-api` for a signed URL (`POST /v1/jobs/{id}/photos:prepare`), valid
   `photos.signed_url.ttl` (15m), max size `photos.upload.max_mb` (12 MB).
2. Uploads straight to GCS bucket `fl-job-photos-prod` (resumable upload; survives app restarts).
3. GCS notification -> Pub/Sub -> jobs-api links the photo and makes thumbnails.

Old path (base64 in the sync payload) is gone since 4.12.0. Photos kept 2 years (data retention).
Android 14 partial photo access: MOBILE-3F2.
""")

NOTES["location-tracking"] = ("Tech location tracking", """
The app sends the tech's position every `location.sample_interval_s` (30 s) while on shift,
batched in `PushChanges`; `sync-gateway` publishes to `tech-locations` and writes
`tech:loc:<tech_id>` in Redis. The office map reads Redis; routing-svc uses it for re-optimisation.

Battery: 4.11.2 stopped sampling when the phone is stationary (significant-change API on iOS,
`FusedLocationProvider` with `PRIORITY_BALANCED_POWER_ACCURACY` on Android). Retention
`location.retention_days` = 90, CronJob `location-retention`. Off shift = no tracking (legal).
""")

NOTES["push-notifications"] = ("Push notifications", """
`notify-svc` consumes `notify-outbox` and `job-events`; sends via APNs (token auth, `.p8`) and
FCM HTTP v1. TTL `notify.push.ttl_seconds` = 3600. Quiet hours `notify.quiet_hours` except for
same-day assignments.

Failures in `notify_push_failures_total{provider,reason}`: `Unregistered`/`BadDeviceToken` ->
we delete the token; `TooManyRequests` from APNs -> backoff. SMS through Twilio
(`notify.sms.enabled`), used by `ff_eta_sms`.
""")
