# Hand-written notes of the eval-c store, part 5 (read by gen_store.py).

NOTES["partner-api"] = ("Partner REST API", """
`jobs-api` exposes REST for partners (CRMs, a few big customers' ERPs) through grpc-gateway at
`https://api.fieldline.app/v1/`. Auth: API key in `Authorization: Bearer fl_live_...`, one key per
integration, scoped to a customer. Docs in `docs/partner-api/`; changelog there too (Jonas).

| endpoint | gRPC | notes |
|---|---|---|
| `POST /v1/jobs` | `JobsService/CreateJob` | `Idempotency-Key` header -> request_id |
| `GET /v1/jobs` | `JobsService/ListJobs` | `page_token`, max 200 per page |
| `GET /v1/jobs/{id}` | `JobsService/GetJob` | |
| `PATCH /v1/jobs/{id}` | `JobsService/UpdateJob` | field mask from the JSON keys |
| `POST /v1/jobs/{id}:assign` | `DispatchService/AssignJob` | 409 if already assigned |
| `POST /v1/jobs/{id}:cancel` | `JobsService/CancelJob` | |
| `GET /v1/technicians` | `TechService/ListTechnicians` | |
| `POST /v1/webhooks` | `WebhookService/CreateSubscription` | see webhooks note |

Rate limit `partner.ratelimit.rps` = 20 per key, burst 40, Redis token bucket; over it -> HTTP 429
with `Retry-After`. Validation errors are HTTP 422 with a `violations` list (we return 400 only for
malformed JSON). Versioning: additive changes only in v1.
""")

NOTES["webhooks"] = ("Partner webhooks", """
Partners subscribe to `job.created`, `job.assigned`, `job.completed`, `job.cancelled`.
Delivery from `jobs-api`'s webhook worker (reads `job-events`).

- Signed: `X-Fieldline-Signature: t=<unix>,v1=<hex hmac-sha256>` over `t.body` with
  `partner-webhook-signing-key`; partners should reject > 5 min old.
- Retries: `webhooks.retry.max_attempts` = 8, exponential from 30 s to ~2 h; 2xx = delivered,
  410 = unsubscribe, anything else retries.
- After 8 failures the delivery is dropped and the subscription gets `failing` status; 3 days of
  failing -> disabled, email to the partner contact.
""")

NOTES["auth-tokens"] = ("Auth and tokens", """
Identity Platform (Firebase Auth) for techs and office users. The app gets an ID token (1h) and
a refresh token; `sync-gateway` and `jobs-api` verify ID tokens with cached Google certs.

- Token refresh in the app: `src/auth/refresh.ts`, single-flight (one refresh at a time). The
  loop in MOBILE-1ZD was two refreshes racing after a password reset.
- HTTP 401 -> refresh once and retry; second 401 -> log out.
- Revocation: `session:revoked:<jti>` in Redis when an office admin deactivates a tech.
- Partner API uses API keys, not Identity Platform.
""")

NOTES["timesheets"] = ("Timesheets", """
Behind `ff_new_timesheet` (beta at 3 customers since 2026-09-08). Techs submit a week via
`TimesheetService/SubmitWeek`; week starts on `timesheet.week_start` (Monday default, one customer
Sunday). Reminder CronJob `timesheet-reminder` (`0 22 * * 5`, Friday 22:00 UTC).

Hours come from job status changes (en route -> on site -> completed) plus manual breaks.
Payroll export is a separate CSV in the billing export. Open: overtime rules per US state (Farah).
""")

NOTES["bulk-assign"] = ("Bulk assign", """
Office staff select up to 50 jobs and one tech (or "auto") and assign in one go:
`DispatchService/BulkAssign` (#4821), behind `ff_bulk_assign` (beta 2026-09-29, 100% 2026-11-16).

- Each job goes through the same path as AssignJob (lock, candidate check), in parallel with a
  limit of 8; partial success is normal: the response lists per-job results.
- Cap `dispatch.bulk.max_jobs` = 50; more -> `INVALID_ARGUMENT` (HTTP 400).
- "auto" calls `RoutingService/SolveRoute` once for the tech's day with all new jobs.
- App 4.13.0 shows a badge on bulk-assigned jobs.
""")

NOTES["ci-pipeline"] = ("CI pipeline", """
GitHub Actions, workflows in `.github/workflows/`:
- `go.yml`: `golangci-lint run`, `go test -race ./...`, `buf lint`, `buf breaking`. ~9 min.
- `mobile.yml`: `yarn tsc`, `yarn lint`, Jest; Detox e2e on main only (Android emulator, ~25 min).
- `infra.yml`: `terraform fmt -check`, `tflint`; plans come from Atlantis, not CI.
- Images are built by Cloud Build on merge (backend deploy note), not by Actions.

Required checks: go, mobile (unit), buf. Merge queue on `main`.
Cache: Go build cache keyed on `go.sum`; it went stale after the Go 1.24 upgrade, cleared by hand.
""")

NOTES["flaky-tests"] = ("Flaky tests", """
Quarantined tests carry `t.Skip` behind `FL_QUARANTINE` (Go) or `it.skip` with a comment linking
the issue (Detox). Fix or delete within a month.

| test | where | why | since |
|---|---|---|---|
| `TestSolver_TimeWindows` | `internal/routing/solver_test.go` | depends on the wall-clock budget under `-race` | 2026-11-18 (quarantined) |
| `TestAssignJob_ConcurrentLock` | `internal/dispatch/assign_test.go` | miniredis TTL vs real time | fixed 2026-04, fake clock |
| `TestPullChanges_Pagination` | `internal/sync/pull_test.go` | map iteration order | fixed 2026-07 |
| `jobDetails.e2e.ts` | Detox | animation not idle on CI emulator | open |
| `offlineQueue.e2e.ts` | Detox | airplane-mode toggle races the sync timer | open |
| `TestBillingExport_Timezones` | `internal/billing/export_test.go` | DST transition dates | fixed 2026-03 |
""")

NOTES["go-conventions"] = ("Go conventions", """
- Layout: `cmd/<binary>/main.go` thin; logic in `internal/<domain>/`; shared libs in `pkg/`.
- Errors: wrap with `%w`, compare with `errors.Is`; gRPC status only at the handler edge
  (`internal/platform/grpcerr`).
- Context first argument, always passed through; no `context.Background()` in request paths.
- Logging: `log/slog` JSON, `trace_id` from OTel in every line.
- Tests: table-driven, `t.Parallel()` where safe, fakes over mocks; `testcontainers` Postgres for
  repo tests.
- Go version: 1.24 (since 2026-09-15, #4790); `toolchain` line in `go.mod`.
""")

NOTES["go-upgrade-1-24"] = ("Go 1.24 upgrade", """
2026-09-15, #4790. From 1.22 to 1.24.
- Swiss-table maps: `TestPullChanges_Pagination` had already been fixed for map order, good.
- `go vet` new printf check found 14 non-constant format strings.
- `golangci-lint` bumped to 1.61; `tenv` linter renamed.
- Container base image `gcr.io/distroless/static-debian12`.
- Benchmarks: solver 4% faster, nothing slower. CI Go cache had to be cleared.
""")

NOTES["local-dev"] = ("Local development", """
- `make dev` starts Postgres 15, Redis 7 and the Pub/Sub emulator with docker compose, runs
  migrations (goose) and seeds two customers, 12 techs, 300 jobs.
- `make run SVC=dispatch-svc` runs one service with `config/local.yaml`.
- `buf generate` after touching `proto/`; commit the generated code.
- Mobile: `yarn ios` / `yarn android`; point at local with `EXPO_PUBLIC_API_URL=http://10.0.2.2:8080`
  on the Android emulator (`localhost` does not work there).
- Staging data instead: `gcloud container clusters get-credentials fl-staging-usc1`, then
  `kubectl port-forward svc/sync-gateway 9090:9090`.
""")

NOTES["staging-environment"] = ("Staging environment", """
GCP project `fieldline-staging`, cluster `fl-staging-usc1` (spot nodes, so pods get evicted,
that is expected), Cloud SQL `fl-pg-staging` (small, zonal), Redis `fl-redis-staging`.
Seeded nightly from an anonymised snapshot of 3 customers. Cloud Deploy promotes to staging
automatically on every release; mobile internal builds point at staging.
Flags in staging are all on unless someone is testing the off path.
""")

NOTES["onboarding"] = ("Onboarding checklist", """
1. Access: GitHub team `fieldline-eng`, GCP group `eng@`, PagerDuty, Sentry, Flagsmith, Grafana.
2. `make dev` works; run `go test ./...`.
3. Read: architecture, offline sync, backend deploy, on-call notes; the four incident notes.
4. Ship a small PR in week one; shadow on-call in week three.
5. Mobile people: EAS account, TestFlight and Play internal testers, a physical Android phone.
""")

NOTES["load-testing"] = ("Load testing AssignJob", """
`ghz` against staging with a prod-sized dataset. Last run 2026-11-09 (before Black Friday; one of
our customers does holiday installs).

```
ghz --proto proto/fieldline/dispatch/v1/dispatch.proto \\
  --call fieldline.dispatch.v1.DispatchService/AssignJob \\
  --data-file loadtest/assign.json --rps 300 --duration 10m \\
  --metadata '{"authorization":"Bearer {{.token}}"}' sync-gateway.staging:9090
```

| rps | p50 | p95 | p99 | errors |
|---|---|---|---|---|
| 100 | 38 ms | 92 ms | 140 ms | 0 |
| 200 | 41 ms | 118 ms | 210 ms | 0 |
| 300 | 55 ms | 190 ms | 380 ms | 0.02% (ABORTED, lock held) |
| 400 | 120 ms | 610 ms | 1.4 s | 1.8% |

Peak prod is ~140 rps. Bottleneck at 400: Redis lock contention on hot jobs and Cloud SQL CPU.
""")

NOTES["observability"] = ("Tracing and logs", """
OpenTelemetry SDK in every service, exporter to Cloud Trace; sampling `otel.sampler.ratio`
(0.05 prod, 1.0 staging), plus always-sample on errors (tail sampling in the collector).
Logs: slog JSON to Cloud Logging; query by `jsonPayload.trace_id`. Mobile: Sentry performance
for app start and sync duration. Metrics: see the metrics note.
""")

NOTES["cost-review-gcp"] = ("GCP cost review", """
Monthly, first Thursday, Dmitri + Hana. October 2026 bill: $41.8k.

| line | Oct | Sep | note |
|---|---|---|---|
| Cloud SQL | $12.1k | $11.9k | tier bump (#4920) will add ~$3k |
| Maps Platform | $9.4k | $7.2k | `ff_route_reopt` rollout |
| GKE (compute) | $8.8k | $8.9k | np-solver autoscaling ok |
| Pub/Sub | $1.9k | $1.8k | |
| Memorystore | $1.1k | $1.1k | |
| Networking/egress | $3.2k | $3.0k | photo downloads by office web |
| Logging | $2.4k | $3.6k | dropped debug logs in sync-gateway |
| other | $2.9k | $2.7k | |

Actions: committed use discount for Cloud SQL after the tier bump; cache Maps more aggressively
when `ff_route_reopt` goes past 25%.
""")

NOTES["data-retention"] = ("Data retention and deletion", """
- Tech locations: 90 days (`location.retention_days`).
- Job photos: 2 years, then GCS lifecycle rule deletes them (`fl-job-photos-prod`).
- Jobs, audit: 7 years (customers' tax rules).
- Sync tombstones: 30 days.
- Deletion requests (a tech leaves, GDPR/CCPA): `go run ./cmd/erase-tech --tech <id>`
  anonymises name/phone, deletes locations and device tokens; Farah keeps the log.
""")

NOTES["customer-quirks"] = ("Customer quirks", """
- Brightwater Plumbing: 15-minute arrival windows, radius 15 km override, Sunday timesheet week.
- Norcal Air (HVAC): 400 techs, biggest customer; peak 07:00-08:30 Pacific; bulk assign heavy users.
- Keystone Elevator: jobs span days; solver ignores their multi-day jobs (`job_type = 'project'`).
- Lakeside Pest: uses the partner API from their CRM; the 422 storm (BACKEND-31P) was them.
- Summit Electric: NetSuite export connector; wants UTC in the CSV, the only one.
""")

NOTES["sprint-process"] = ("Sprint process and release calendar", """
Two-week sprints starting Monday; planning Monday 10:00, demo + retro on the second Friday 14:00.
Backend releases any day Monday-Thursday (and Friday morning); mobile train every second
Wednesday (mobile release note). Weekly summary posted Friday afternoon in #fl-eng.
Code freeze around Black Friday week: 2026-11-25 to 2026-11-30, only hotfixes.
""")
