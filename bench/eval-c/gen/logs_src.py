# Hand-written key log entries of the eval-c store (read by gen_store.py).
# date -> list of (HH:MM, heading, body)
KEY = {
"2026-01-27": [("15:20", "flagsmith vs launchdarkly", """LaunchDarkly renewal quote is 3x last year. Spiked self-hosted Flagsmith on staging: Go SDK ok,
RN SDK ok, local eval mode works offline. Writing it up for Hana.""")],
"2026-02-04": [("16:05", "app 4.8.2 out", """Lucía submitted 4.8.2 (build 1071). Last build with the LaunchDarkly SDK; next one reads Flagsmith.""")],
"2026-02-10": [("11:40", "ADR-0011 accepted", """Pub/Sub over Kafka. Dmitri happy (nothing to run), Kofi wanted Kafka for replay but
agreed seek-by-timestamp is enough. Topics next: `job-events` first.""")],
"2026-02-18": [("10:30", "flags moved to flagsmith", """All flags migrated. Renamed to `ff_` prefix while at it (`offline-sync-beta` -> `ff_offline_sync`,
`bulk-assign` -> `ff_bulk_assign`). LaunchDarkly stays read-only until the contract ends.""")],
"2026-02-25": [("14:15", "job-events topic", """Terraform for `job-events` + `notify-svc-job-events` subscription applied via Atlantis. Ordering key
`job_id`. First events flowing from jobs-api in staging.""")],
"2026-03-04": [("17:10", "4.9.0 submitted", """4.9.0 (build 1102) to both stores. Legacy REST sync endpoint removed from the app; server side
`sync.legacy_rest.enabled` goes away next sprint.""")],
"2026-03-10": [("09:50", "sweeper cron too hot", """`stale-assignment-sweeper` ran every minute (`* * * * *`) and showed up as the top query in
Cloud SQL insights. Changed the schedule to `*/5 * * * *`; nobody needs minute precision for a
30-min timeout.""")],
"2026-03-12": [("13:30", "4.9.1 iOS only", """4.9.1 build 1108, iPadOS login fix + MOBILE-1ZD (token refresh loop after password reset ->
endless 401). Single-flight refresh in `src/auth/refresh.ts`.""")],
"2026-03-17": [("09:20", "assign timeouts, paged", """Paged at 09:12: AssignJob p99 pinned at 2 s, office users can't assign. Redis CPU 95%.
Kofi joined. Looks like lock waits."""),
 ("10:15", "assign timeouts: mitigated", """Cause: `lock:assign:<job_id>` TTL 30 s outlives callers that timed out; retries pile up in waves
(`dispatch.retry.max_attempts` 3, no jitter). Set `dispatch.assign.lock_ttl` to 5s via hot config at
09:48, recovered 10:05. Writing the incident note tomorrow.""")],
"2026-03-18": [("14:40", "postmortem + #4388", """Postmortem for yesterday's assign outage done with Kofi, Hana. #4388 merged: lock TTL 5 s in config
and release on ctx cancel. Jitter + retry change is mine (#4412).""")],
"2026-03-24": [("11:05", "retry jitter shipped", """#4412 in prod: full jitter in `pkg/retry/backoff.go`, `dispatch.retry.max_attempts` 3 -> 5,
initial backoff 200 ms. Assign conflicts during the morning rush down from ~40/s to 3/s.""")],
"2026-04-02": [("16:20", "TestAssignJob_ConcurrentLock fixed", """Finally: miniredis expires keys only when you call FastForward, the test mixed it with real sleeps.
Fake clock everywhere in `internal/dispatch/assign_test.go`. 200 runs green under -race.""")],
"2026-04-14": [("22:40", "job windows migration", """Ran `migrations/20260414_job_time_windows.sql` (#4455) off-peak with Dmitri. Backfill of 14.2M rows
in 47 min. CHECK constraint failed on jobs dated 2202 (import typo, 3 customers); fixed by hand,
validated at 23:35.""")],
"2026-04-22": [("15:00", "ADR-0015", """Cloud Deploy accepted for backend releases. Dmitri sets up pipelines per service; dispatch-svc first.""")],
"2026-04-28": [("10:45", "SLOs agreed", """With Hana: AssignJob 99.9% + p99 400 ms, sync 99.5%, partner API 99.9% non-5xx, crash-free 99.5%.
Burn-rate alerts next sprint.""")],
"2026-05-05": [("14:30", "first Cloud Deploy release", """Released dispatch-svc/v1.38.0 to prod through Cloud Deploy. Canary 10/50/100 took 32 min. Way calmer
than helm from my laptop. Old helm notes marked superseded.""")],
"2026-05-13": [("17:25", "RN upgrade: native modules", """`FLLocationBridge` is a TurboModule now. Under the new arch the old `NativeModules.FLLocation.start()`
just returned undefined, no error. That would have been a fun one in prod.""")],
"2026-05-20": [("12:10", "RN 0.76 merged", """#4602 merged: React Native 0.73 -> 0.76, Fabric on, Hermes both platforms, op-sqlite. Internal
build to the office phones for a week before 4.10.0.""")],
"2026-05-27": [("16:40", "4.10.0 submitted", """4.10.0 build 1131 to both stores. Mei's checklist green; 0x8badf00d on the old iPhone 8 at cold
start with a huge DB, tracked, not a blocker.""")],
"2026-06-03": [("11:15", "4.10.1", """4.10.1 (build 1137) submitted: camera permission loop fix.""")],
"2026-06-08": [("10:05", "office edits disappearing", """Two customers report access codes and notes on jobs reverting. Audit table shows the tech's device
overwrote the whole job on push. Starts with 4.10.1 -> app sends full records now. Conflict
strategy `lww_record` then kills the office's newer fields. Incident opened."""),
 ("18:30", "sync data loss: scope", """214 jobs at 9 customers since 06-03. Plan: `lww_field` on the server (branch ready), app 4.10.2
sends only changed fields, restore from `job_audit`.""")],
"2026-06-09": [("13:50", "lww_field live", """#4655 deployed, `sync.conflict.strategy` flipped to `lww_field`. Farah restored the 214 jobs, each
customer checked. Property test with two writers on different fields added.""")],
"2026-06-10": [("15:35", "4.10.2", """4.10.2 build 1140 submitted with changed-fields-only push. Expedited review asked.""")],
"2026-06-15": [("10:20", "eta sms beta", """`ff_eta_sms` on for 10 customers: "your technician is about 20 min away" via Twilio. Uses
`RoutingService/EstimateEta`; approximate ETAs do not send.""")],
"2026-07-01": [("09:40", "offline sync at 100%", """`ff_offline_sync` to 100%. Sync conflicts ratio 0.4%, well under the 2% alert. Old path can go in
4.12.0 (two releases, Hana's rule).""")],
"2026-07-15": [("17:00", "4.11.0", """4.11.0 build 1150 submitted. Offline sync engine default, photo upload v2 behind its flag.""")],
"2026-07-22": [("09:55", "MOBILE-3F2", """New top crash: MOBILE-3F2, Android 14 only, opening the photo picker. Partial media access needs
`READ_MEDIA_VISUAL_USER_SELECTED`. 2.3% of Android sessions. Lucía on a fix.""")],
"2026-07-24": [("15:45", "4.11.1 hotfix", """4.11.1 (build 1156) Android only, fixes MOBILE-3F2 (#4710). Friday submission, Hana said yes
since it is a crash. Staged rollout at 20% straight away.""")],
"2026-08-05": [("11:30", "photo upload v2 100%", """`ff_photo_upload_v2` at 100%. Resumable uploads to `fl-job-photos-prod`; support tickets about lost
photos down to zero this week.""")],
"2026-08-12": [("14:05", "4.11.2", """4.11.2 build 1163: no location sampling while stationary. Battery complaints were the #1 review topic.""")],
"2026-08-21": [("15:10", "no push notifications", """Techs not getting assignment pushes since ~13:30. `notify-svc-job-events` backlog 1.2M and
climbing. notify-svc pods crash-looping: nil pointer (BACKEND-7Q)."""),
 ("19:20", "backlog drained", """One `job.assigned` with null `tech_id` from a partner import, redelivered forever, no DLQ on that
subscription; ordering key blocked everything behind it. Nil check deployed 17:40 (Friday deploy,
Hana ok), drained 19:10. Will add DLQ + max delivery attempts everywhere.""")],
"2026-08-25": [("10:50", "DLQs everywhere", """#4733: every subscription gets a DLQ and `pubsub.max_delivery_attempts` = 10. Terraform module
change, applied via Atlantis. Also #4741 validates partner imports.""")],
"2026-09-08": [("13:25", "timesheet beta", """`ff_new_timesheet` on for 3 customers. Brightwater wants weeks starting Sunday: per-customer
`timesheet.week_start`.""")],
"2026-09-15": [("16:10", "Go 1.24", """#4790 merged, all services on Go 1.24. vet found 14 non-constant format strings. Solver bench 4% faster.
CI cache needed a manual clear.""")],
"2026-09-29": [("11:55", "bulk assign beta", """#4821 merged: `DispatchService/BulkAssign`, max 50 jobs, behind `ff_bulk_assign`. Norcal Air in the beta.""")],
"2026-10-06": [("14:20", "released dispatch-svc v1.45.0", """dispatch-svc/v1.45.0 to prod: BulkAssign partial results, candidate radius per customer.
Canary clean.""")],
"2026-10-07": [("16:30", "4.12.0", """4.12.0 build 1184 submitted: old sync path deleted, timesheet screens. Mei found nothing blocking.""")],
"2026-10-13": [("16:08", "503s everywhere", """Partner API + office web 503/504, sync failing. Cloud SQL shows a failover at 16:02. New primary up but
our pods still hang on old connections."""),
 ("16:40", "failover: recovered", """Restarted dispatch-svc and jobs-api at 16:12, fine at 16:13. 11 min. pgx pools never recycled
connections after the failover. Plan: `db.pool.max_conn_lifetime` + health checks (#4856).""")],
"2026-10-14": [("11:20", "pool lifetime shipped", """#4856 in prod: `db.pool.max_conn_lifetime` 30m, `db.pool.health_check_period` 15s, statement
timeout 10 s. Wrote the incident note. Failover drill in staging: pools reconnect in ~20 s now.""")],
"2026-10-15": [("15:15", "4.12.1", """4.12.1 build 1191: MOBILE-38B, outbox lost after force-quit during a sync (iOS showed 0xdead10cc).
WAL checkpoint before background.""")],
"2026-10-20": [("13:40", "released dispatch-svc v1.46.0", """dispatch-svc/v1.46.0 to prod. Lock metrics split by reason, BulkAssign uses the solver for "auto".""")],
"2026-10-21": [("10:10", "route reopt 25%", """`ff_route_reopt` to 25%. Maps calls per cancel roughly x2, as Sid predicted. Watching the bill.""")],
"2026-11-02": [("15:05", "released dispatch-svc v1.47.0", """dispatch-svc/v1.47.0 to prod (tag `dispatch-svc/v1.47.0`): BulkAssign cap configurable via
`dispatch.bulk.max_jobs`, faster candidate query. Canary clean in 30 min.""")],
"2026-11-03": [("17:20", "4.13.0 submitted", """4.13.0 build 1207 submitted a day early (offsite Wednesday). New job detail screen, badges for
bulk-assigned jobs. iOS phased release, Play staged at 10%.""")],
"2026-11-04": [("11:45", "sync-gateway on staging", """sync-gateway/v2.3.1 to staging only: pull page size from config. Prod after the freeze.""")],
"2026-11-05": [("09:30", "iOS launch crash", """MOBILE-4K1: crash on launch, iOS 17 only, build 1207. `EXC_BAD_ACCESS` at 0x0000000000000010 in Hermes.
Crash-free iOS 96.1%. Paused the phased release at 10:20."""),
 ("16:15", "cost review October", """Cost review with Dmitri + Hana: October $41.8k. Maps up $2.2k (route reopt), logging down $1.2k.
Cloud SQL CUD after the tier bump.""")],
"2026-11-06": [("18:05", "4.13.1 hotfix approved", """Lucía found it: `FLSignaturePad` TurboModule imported at module scope in the job detail screen
(#4877). 4.13.1 build 1212 iOS, expedited review, approved 17:50. Friday submission ok'd by Hana.""")],
"2026-11-09": [("16:50", "load test AssignJob", """ghz on staging: 300 rps p99 380 ms, 400 rps falls over (p99 1.4 s, 1.8% errors, lock contention +
Cloud SQL CPU). Prod peak is ~140 rps so fine for Black Friday. Numbers in the load testing note.""")],
"2026-11-10": [("09:45", "on-call handoff", """Handoff to Sid. Open: Cloud SQL tier bump plan, MOBILE-2C9 still open, `ff_route_reopt` at 25%."""),
 ("14:30", "GKE 1.30", """Dmitri upgraded `fl-prod-usc1` to 1.30 (surge 1/0). PDBs held, no errors. Also deployed
jobs-api/v3.9.2 to prod (422 messages list every violation now).""")],
"2026-11-11": [("11:10", "Redis 7.2", """Memorystore `fl-redis-prod` upgraded to 7.2 in the maintenance window, failover took 9 s; assign
latency blip only.""")],
"2026-11-12": [("15:25", "solver time limit 1500", """#4903: `routing.solver.time_limit_ms` 2000 -> 1500 so SolveRoute fits the 3 s deadline with
BulkAssign "auto". Sid's bench: quality loss < 1% on the 60-stop set. Released routing-svc/v0.30.0
to prod.""")],
"2026-11-13": [("10:35", "maps over query limit", """Two `OVER_QUERY_LIMIT` bursts from Distance Matrix at 07:00 Central; `routing.maps.qps_limit` 80 is
per pod and we run 6 pods now. Ticket to make the limiter global (Redis). Approximate ETAs shown for
~4 min."""),
 ("16:30", "weekly summary", """Shipped: solver budget, Redis 7.2, GKE 1.30, jobs-api 422 fix. Next: bulk assign GA Monday,
Cloud SQL tier plan.""")],
"2026-11-16": [("14:10", "released dispatch-svc v1.48.0 + bulk assign GA", """dispatch-svc/v1.48.0 to prod, then `ff_bulk_assign` to 100%. Norcal Air did 1,900 bulk
assignments before lunch, p99 of `dispatch_assign_latency_seconds` 260 ms.""")],
"2026-11-17": [("09:40", "on-call handoff", """Handoff from Sid to Jonas. Quiet week: two Maps bursts, one DLQ alert. The sweeper page was noise
again -> ticket."""),
 ("15:55", "cloud sql tier plan", """#4920: `fl-pg-prod` to `db-custom-16-65536`. Atlantis plan shows in-place change, ~60 s restart
with HA failover. Dmitri wants it Friday morning before the freeze.""")],
"2026-11-18": [("11:25", "routing-svc on staging", """routing-svc/v0.31.0 to staging: global Maps limiter in Redis. Prod after the freeze."""),
 ("16:45", "quarantined TestSolver_TimeWindows", """`TestSolver_TimeWindows` failed 4 times this week on CI under -race: it asserts a route found within
the wall-clock budget. Quarantined behind `FL_QUARANTINE`, issue to make the budget injectable.""")],
"2026-11-19": [("10:20", "DLQ replay", """312 messages in `job-events-dlq` since Monday's deploy: `job.completed` events with a new field the
billing-export consumer rejected. Fixed the consumer, replayed with `cmd/dlq-replay` (dry run first),
DLQ at 0."""),
 ("15:30", "iOS distribution cert", """Distribution certificate expires 2026-12-02, same day as the 4.14.0 train. Lucía renews it
Monday; EAS picks it up.""")],
"2026-11-20": [("10:40", "cloud sql tier bump applied", """#4920 applied via Atlantis at 10:15: `fl-pg-prod` now `db-custom-16-65536`. Failover 58 s, pools
reconnected on their own (thanks #4856). CPU at peak 38%."""),
 ("16:20", "weekly summary", """Bulk assign GA, DLQ replay, Cloud SQL tier bump, solver test quarantined. Freeze 11-25..11-30.
Next week: MOBILE-2C9, global Maps limiter to prod after the freeze.""")],
}
