# Hand-written notes of the eval-c store, part 1 (read by gen_store.py).
NOTES = {}

NOTES["architecture"] = ("Architecture overview", """
Fieldline (repo `tidewater`) = dispatch + scheduling for field-service companies (HVAC, plumbing,
elevator maintenance). Office staff assign jobs to technicians; techs work from the mobile app,
often with no signal in basements.

Services (Go 1.24, gRPC, all in the monorepo under `cmd/` + `internal/`):

| service | what | owner |
|---|---|---|
| `dispatch-svc` | job assignment, candidate search, locks | Kofi |
| `routing-svc` | route solver + ETA (`internal/routing/`) | Sid |
| `jobs-api` | job CRUD, time windows, grpc-gateway REST for partners | Jonas |
| `sync-gateway` | offline sync for the app (push/pull of changes) | Lucía |
| `notify-svc` | push (FCM/APNs), SMS via Twilio, email | Kofi |
| `billing-export` | nightly CSV/ERP exports (CronJob) | Farah |

Mobile: **Fieldline Tech** (React Native 0.76, Hermes), iOS + Android, local SQLite via
op-sqlite, offline queue. Office web app is a separate React repo (not ours).

GCP project `fieldline-prod` (staging: `fieldline-staging`), region `us-central1`:
GKE cluster `fl-prod-usc1`, Cloud SQL Postgres 15 `fl-pg-prod`, Memorystore Redis `fl-redis-prod`,
Pub/Sub for events between services, GCS for photos. Terraform in `infra/`.

Traffic: office web -> `jobs-api` (REST via gateway) ; mobile -> `sync-gateway` (gRPC over
HTTP/2, TLS at the GCLB) ; services talk gRPC inside the cluster; events on Pub/Sub.
""")

NOTES["grpc-services"] = ("gRPC services and methods", """
Protos live in `proto/fieldline/<service>/v1/*.proto`, generated with `buf generate` into
`gen/go/`. Deadlines are what the *caller* sets; the server enforces its own budget too.

| method | caller(s) | deadline | idempotent | notes |
|---|---|---|---|---|
| `DispatchService/AssignJob` | jobs-api, office web | 2s | yes (request_id) | takes `lock:assign:<job_id>` in Redis |
| `DispatchService/UnassignJob` | jobs-api | 2s | yes | releases lock, emits `job.unassigned` |
| `DispatchService/BulkAssign` | office web | 10s | yes | behind `ff_bulk_assign`, max 50 jobs (#4821) |
| `DispatchService/ListCandidates` | office web | 1s | yes | radius from `dispatch.candidates.radius_km` |
| `RoutingService/SolveRoute` | dispatch-svc | 3s | yes | solver budget `routing.solver.time_limit_ms` |
| `RoutingService/EstimateEta` | dispatch-svc, notify-svc | 800ms | yes | cached in Redis `eta:<from>:<to>` |
| `JobsService/CreateJob` | gateway | 2s | request_id | |
| `JobsService/UpdateJobStatus` | sync-gateway | 2s | no | status machine in `internal/jobs/status.go` |
| `JobsService/ListJobs` | gateway | 5s | yes | paginated, page token is opaque |
| `SyncService/PushChanges` | mobile app | 15s | yes (change ids) | max `sync.batch.max_changes` per call |
| `SyncService/PullChanges` | mobile app | 15s | yes | page size `sync.pull.page_size` |
| `NotifyService/SendPush` | internal only | 5s | no | fire-and-forget from Pub/Sub worker |
| `TimesheetService/SubmitWeek` | mobile app | 5s | yes | behind `ff_new_timesheet` |

Status codes we use on purpose: `FAILED_PRECONDITION` when the job is already assigned
(gateway maps to HTTP 409), `ABORTED` when the assign lock is held (retryable), `RESOURCE_EXHAUSTED`
for partner rate limits (HTTP 429), `UNAVAILABLE` (HTTP 503) only for real outages.
See the grpc retries note for what clients retry.
""")

NOTES["grpc-retries"] = ("gRPC deadlines and retries", """
Client-side retries go through `pkg/retry/backoff.go` (exponential, full jitter). Only these
codes are retried: `UNAVAILABLE`, `ABORTED`, `RESOURCE_EXHAUSTED` (with server pushback).
Never `DEADLINE_EXCEEDED` on a non-idempotent call.

Settings (also in the config keys note):
- `dispatch.retry.max_attempts` = 5 (was 3 until #4412, after the March assign incident)
- `dispatch.retry.backoff_initial_ms` = 200, `dispatch.retry.backoff_max_ms` = 5000
- `webhooks.retry.max_attempts` = 8 is a different thing (partner webhooks, see webhooks note)

Mapping at the grpc-gateway (HTTP status codes partners see):

| gRPC | HTTP | retry? |
|---|---|---|
| `INVALID_ARGUMENT` | 400 | no |
| `UNAUTHENTICATED` | 401 | after token refresh |
| `PERMISSION_DENIED` | 403 | no |
| `NOT_FOUND` | 404 | no |
| `FAILED_PRECONDITION` | 409 | no |
| `ABORTED` | 409 | yes, backoff |
| `RESOURCE_EXHAUSTED` | 429 | yes, honour `Retry-After` |
| `UNAVAILABLE` | 503 | yes |
| `DEADLINE_EXCEEDED` | 504 | only idempotent |

Kofi's rule: a deadline is always set by the caller; a handler that calls another service
passes `ctx` through and never uses `context.Background()`.
""")

NOTES["proto-conventions"] = ("Proto and buf conventions", """
- One package per service and major version: `fieldline.dispatch.v1`.
- `buf lint` + `buf breaking --against '.git#branch=main'` run in CI; a breaking change needs a
  new `v2` package, never an edit in place.
- Field numbers are never reused; removed fields go into `reserved`.
- Every mutating RPC takes a `request_id` (UUIDv7) for idempotency.
- Timestamps are `google.protobuf.Timestamp`, durations `google.protobuf.Duration`; no int millis.
- Enums start with `*_UNSPECIFIED = 0`.
- Kofi reviews every `.proto` change.
""")

NOTES["config-keys"] = ("Config keys (all services)", """
Config is read by `internal/platform/config` from `config/<env>.yaml` plus env overrides
(`FL_` prefix, dots -> double underscores: `dispatch.retry.max_attempts` ->
`FL_DISPATCH__RETRY__MAX_ATTEMPTS`). Values below are prod. Changing one: PR to `config/prod.yaml`,
Kofi or Dmitri approves, rolls out with the next deploy (no hot reload except where noted).

| key | prod value | service | notes |
|---|---|---|---|
| `dispatch.retry.max_attempts` | 5 | dispatch-svc, jobs-api | was 3; raised in #4412 |
| `dispatch.retry.backoff_initial_ms` | 200 | dispatch-svc | full jitter |
| `dispatch.retry.backoff_max_ms` | 5000 | dispatch-svc | |
| `dispatch.assign.timeout` | 2s | dispatch-svc | server-side budget of AssignJob |
| `dispatch.assign.lock_ttl` | 5s | dispatch-svc | was 30s until #4388 (March incident) |
| `dispatch.candidates.radius_km` | 40 | dispatch-svc | per-customer override in `customer_settings` |
| `dispatch.candidates.limit` | 25 | dispatch-svc | |
| `dispatch.bulk.max_jobs` | 50 | dispatch-svc | BulkAssign cap |
| `routing.solver.time_limit_ms` | 1500 | routing-svc | was 2000 until #4903 (2026-11-12) |
| `routing.solver.max_stops` | 60 | routing-svc | more -> `INVALID_ARGUMENT` |
| `routing.solver.workers` | 4 | routing-svc | goroutines per solve |
| `routing.eta.cache_ttl` | 10m | routing-svc | Redis `eta:*` keys |
| `routing.maps.qps_limit` | 80 | routing-svc | Distance Matrix client-side limiter |
| `sync.batch.max_changes` | 500 | sync-gateway | per PushChanges |
| `sync.pull.page_size` | 200 | sync-gateway | |
| `sync.conflict.strategy` | `lww_field` | sync-gateway | was `lww_record` until #4655 (June incident) |
| `sync.tombstone.retention_days` | 30 | sync-gateway | |
| `notify.push.ttl_seconds` | 3600 | notify-svc | APNs/FCM expiry |
| `notify.sms.enabled` | true | notify-svc | hot reload |
| `notify.quiet_hours` | `21:00-07:00` | notify-svc | tech's local time |
| `pubsub.ack_deadline_seconds` | 60 | all subscribers | |
| `pubsub.max_delivery_attempts` | 10 | all subscribers | then DLQ (since #4733) |
| `db.pool.max_conns` | 40 | every Go service | Cloud SQL max_connections is 800 |
| `db.pool.max_conn_lifetime` | 30m | every Go service | added in #4856 after the failover |
| `db.pool.health_check_period` | 15s | every Go service | |
| `redis.pool.size` | 50 | dispatch-svc, routing-svc | |
| `redis.read_timeout_ms` | 300 | dispatch-svc, routing-svc | |
| `grpc.server.max_recv_msg_mb` | 16 | sync-gateway | photos never go through gRPC |
| `grpc.keepalive.time` | 30s | all | GCLB idle timeout is 600s |
| `otel.sampler.ratio` | 0.05 | all | 1.0 in staging |
| `photos.upload.max_mb` | 12 | jobs-api | signed URL policy |
| `photos.signed_url.ttl` | 15m | jobs-api | |
| `partner.ratelimit.rps` | 20 | jobs-api | per API key, burst 40 |
| `webhooks.retry.max_attempts` | 8 | jobs-api | partner webhooks only |
| `location.sample_interval_s` | 30 | sync-gateway, app | app reads it at login |
| `location.retention_days` | 90 | billing-export cleanup | |
| `timesheet.week_start` | `monday` | jobs-api | per customer override |
| `export.billing.batch_size` | 5000 | billing-export | rows per CSV chunk |

Removed keys (do not bring back): `dispatch.assign.use_pg_lock` (advisory locks, dropped in
2025), `sync.legacy_rest.enabled` (REST sync endpoint, gone since app 4.9.0).
""")

NOTES["feature-flags"] = ("Feature flags", """
Flags are in Flagsmith (self-hosted, `flags.fieldline.internal`), read through
`internal/platform/flags`. Mobile reads them at launch and every 15 min. Naming: `ff_<thing>`.
Remove a flag within two releases of reaching 100% (Hana's rule).

| flag | status | owner | since | notes |
|---|---|---|---|---|
| `ff_offline_sync` | 100% | Lucía | 2026-07-01 | new sync engine; old path deleted in 4.12.0 |
| `ff_photo_upload_v2` | 100% | Lucía | 2026-08-05 | signed GCS URLs, resumable |
| `ff_bulk_assign` | 100% since 2026-11-16 | Kofi | 2026-09-29 | BulkAssign in office web (#4821) |
| `ff_route_reopt` | 25% | Sid | 2026-10-21 | re-optimise the day's route on cancel |
| `ff_eta_sms` | 10 customers | Jonas | 2026-06-15 | "your tech is 20 min away" SMS |
| `ff_new_timesheet` | beta, 3 customers | Farah | 2026-09-08 | TimesheetService/SubmitWeek |
| `ff_signature_capture_v2` | off | Lucía | - | blocked on MOBILE-2C9 (ANR) |
| `ff_parts_inventory` | off | Jonas | - | spike only |

Killing a flag: set to 0% in Flagsmith *first*, then delete the code; the app caches the last
value for 24h when offline.
""")

NOTES["feature-flags-2025"] = ("Feature flags (2025 setup, superseded)", """
Superseded by the feature flags note: we left LaunchDarkly for self-hosted Flagsmith in
February 2026 (cost).

In 2025 flags were LaunchDarkly keys like `offline-sync-beta`, `bulk-assign` (kebab-case, no
`ff_` prefix). The Go SDK streamed updates; the app used the RN SDK. The offline sync beta then
was `offline-sync-beta` at 5%. None of these keys exist any more.
""")

NOTES["metrics"] = ("Metrics and dashboards", """
Prometheus metrics scraped by Google Managed Prometheus; Grafana at `grafana.fieldline.internal`
(dashboards: "Dispatch", "Sync", "Routing", "Pub/Sub", "Mobile").

| metric | type | labels | alert |
|---|---|---|---|
| `dispatch_assign_latency_seconds` | histogram | `method`, `result` | p99 > 0.4 for 10m |
| `dispatch_assign_conflicts_total` | counter | `reason` | rate > 5/s |
| `dispatch_lock_wait_seconds` | histogram | | p99 > 1 |
| `routing_solve_duration_seconds` | histogram | `stops_bucket` | p95 > 1.2 |
| `routing_solver_timeouts_total` | counter | | > 1% of solves |
| `routing_maps_requests_total` | counter | `api`, `status` | `status="OVER_QUERY_LIMIT"` > 0 |
| `sync_push_changes_total` | counter | `result` | |
| `sync_conflicts_total` | counter | `strategy`, `table` | ratio > 2% |
| `sync_pull_lag_seconds` | gauge | | > 300 |
| `notify_push_failures_total` | counter | `provider`, `reason` | rate > 1/s |
| `pubsub_handler_duration_seconds` | histogram | `subscription` | |
| `grpc_server_handled_total` | counter | `grpc_method`, `grpc_code` | 5xx-ish codes > 1% |
| `billing_export_rows_total` | counter | `customer` | job missing for 26h |

GCP-side: `pubsub.googleapis.com/subscription/num_undelivered_messages` (backlog) and
`oldest_unacked_message_age`, Cloud SQL `database/cpu/utilization`,
`database/postgresql/num_backends`. Mobile: crash-free sessions from Sentry (target 99.5%).

Buckets of `dispatch_assign_latency_seconds`: 0.01, 0.025, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2.
""")

NOTES["slo"] = ("SLOs", """
Agreed with Hana in April, reviewed quarterly.

- AssignJob: 99.9% of calls succeed; p99 latency under 400 ms (from
  `dispatch_assign_latency_seconds`). 28-day window.
- Sync: 99.5% of `PushChanges` succeed; a change reaches the server within 5 min of the device
  getting signal (`sync_pull_lag_seconds`).
- Partner API: 99.9% non-5xx over 28 days.
- Mobile: crash-free sessions >= 99.5% per release (Sentry).
- Billing export: files in the customer bucket by 04:00 their time, 99% of days.

Error budget burn alerts: 2% of the monthly budget in 1h pages; 5% in 6h opens a ticket.
""")

NOTES["alerting"] = ("Alerting and paging", """
Alerts are Cloud Monitoring policies generated from `infra/modules/alerts/*.tf`; PagerDuty
service `fieldline-backend`, escalation after 15 min to the secondary.

Pages (wake someone up): AssignJob SLO burn, sync-gateway 5xx > 2%, Cloud SQL down or failover,
Pub/Sub `oldest_unacked_message_age` > 15 min on `job-events`, billing export missing for 26h.
Tickets only: solver timeouts > 1%, Maps `OVER_QUERY_LIMIT`, disk > 80%, cert expiry < 21 days.

Noisy alert policy: if an alert paged twice in a week without action, fix it or delete it
in the on-call handoff.
""")

NOTES["on-call"] = ("On-call", """
Weekly rotation, handoff **Tuesday 09:30** in #fl-oncall (not Monday: Monday is release prep).
Rotation: Kofi, Dmitri, Maya, Sid, Jonas. Secondary is the previous week's primary.

Handoff checklist:
1. Open incidents and follow-ups (incident notes).
2. Alerts that fired; noisy ones -> ticket or delete.
3. Pending prod changes (Terraform plans waiting, flags mid-rollout).
4. Pub/Sub DLQs: `gcloud pubsub subscriptions describe job-events-dlq-sub` backlog should be 0.
5. Certificates and keys expiring in the next 30 days.

Pager etiquette: ack within 5 min, post in #fl-incidents, open an incident doc if customer
impact lasts more than 10 min.
""")

NOTES["team"] = ("Team", """
- Maya — backend (dispatch, sync-gateway), me.
- Kofi — backend lead; owns dispatch-svc and protos. Reviews every `.proto` and config change.
- Lucía — mobile lead (React Native). Owns the app release.
- Dmitri — SRE / infra: GKE, Terraform, Cloud SQL. Applies Terraform via Atlantis only.
- Sid — routing solver and ETA. Likes benchmarks in PRs.
- Mei — QA + Detox e2e suite, release sign-off for the app.
- Jonas — partner API, webhooks, integrations.
- Farah — billing export, timesheets, data requests.
- Hana — engineering manager. Rules: no prod deploys Friday after 12:00; flags removed within two releases.
""")

NOTES["review-preferences"] = ("Review preferences", """
- Kofi: small PRs (< 400 lines), table-driven tests, errors wrapped with `fmt.Errorf("...: %w", err)`.
  He blocks on `context.Background()` in handlers.
- Lucía: screenshots or a screen recording for any UI change, iOS *and* Android.
- Dmitri: paste the Atlantis plan summary in infra PRs; never `terraform apply` by hand.
- Sid: a `go test -bench` before/after for solver changes.
- Mei: every new screen gets a `testID` for Detox.
- Jonas: partner-visible changes need a changelog line in `docs/partner-api/CHANGELOG.md`.
- PR title: `<area>: short summary (#issue)`, squash merge.
""")
