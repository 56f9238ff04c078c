# Hand-written notes of the eval-c store, part 3 (read by gen_store.py).

NOTES["gke-cluster"] = ("GKE cluster", """
Prod: `fl-prod-usc1` (regional, `us-central1`), GKE 1.30 since 2026-11-10 (release channel
`regular`). Staging: `fl-staging-usc1` (zonal, spot nodes).

Node pools:
| pool | machine | min-max | what runs |
|---|---|---|---|
| `np-general` | e2-standard-8 | 3-12 | all services |
| `np-solver` | n2-highmem-8 | 1-6 | routing-svc (taint `workload=solver`) |
| `np-jobs` | e2-standard-4 spot | 0-4 | CronJobs (billing export, sweepers) |

Workload Identity on: each service has a KSA bound to `<svc>@fieldline-prod.iam.gserviceaccount.com`.
Maintenance window: Sunday 03:00-07:00 UTC. Surge upgrade `max-surge=1, max-unavailable=0`.
PodDisruptionBudgets: `minAvailable: 2` for dispatch-svc and sync-gateway.
""")

NOTES["cloud-sql"] = ("Cloud SQL (Postgres)", """
Instance `fl-pg-prod`: Postgres 15, `db-custom-8-32768` (8 vCPU, 32 GB), regional HA, 500 GB SSD,
PITR 7 days. Read replica `fl-pg-prod-replica-1` for billing export and analytics.
Maintenance window Sunday 04:00 UTC; deny period around Black Friday (2026-11-25..2026-11-30).

Connections: services connect through the Cloud SQL Auth Proxy sidecar
(`cloud-sql-proxy --private-ip fieldline-prod:us-central1:fl-pg-prod`), pgx pool per pod
(`db.pool.max_conns` 40). `max_connections` = 800.

After the October failover (incident note): `db.pool.max_conn_lifetime` = 30m and health checks,
so pools drop connections to the old primary. Tier bump to `db-custom-16-65536` planned this
month (#4920): CPU at 70% at peak.

Databases: `fieldline` (everything), `flagsmith`. Users: one per service, IAM auth.
""")

NOTES["db-migrations"] = ("Database migrations", """
Tool: goose, SQL files in `migrations/`, named `YYYYMMDD_description.sql`
(e.g. `migrations/20260414_job_time_windows.sql`). Run by a Kubernetes Job `migrate` in its own
Cloud Deploy release *before* the code that needs it.

Rules:
- Forward-only in prod. `-- +goose Down` exists for local dev only.
- Every migration must be safe with the old code running (expand / contract).
- `CREATE INDEX CONCURRENTLY` always; goose needs `-- +goose NO TRANSACTION` for that.
- Anything that rewrites a table > 1M rows: Dmitri reviews, runs off-peak (after 22:00 Central).
- `lock_timeout = '3s'` at the top of every migration; better to fail than to queue behind a lock.
""")

NOTES["migration-job-time-windows"] = ("Migration: job time windows", """
`migrations/20260414_job_time_windows.sql` (#4455), run 2026-04-14 off-peak.

Jobs had one `scheduled_at`. Customers wanted arrival windows ("between 8 and 12"). Added
`window_start`, `window_end` (timestamptz), backfilled from `scheduled_at` +/- 2h in batches of
10k with a Go program (`cmd/backfill-windows`), then a CHECK constraint `window_end > window_start`
added `NOT VALID` and validated separately. 14.2M rows, 47 min. The solver reads windows since
routing-svc v0.24.0.

Gotcha: three customers had jobs with `scheduled_at` in the year 2202 (typo in an import);
the check failed on them; fixed by hand before validating.
""")

NOTES["pubsub-topics"] = ("Pub/Sub topics and subscriptions", """
| topic | publisher | subscription(s) | ordering | DLQ |
|---|---|---|---|---|
| `job-events` | jobs-api, dispatch-svc | `notify-svc-job-events`, `billing-export-job-events` | `job_id` | `job-events-dlq` |
| `dispatch-assignments` | dispatch-svc | `routing-svc-assignments` | `tech_id` | `dispatch-assignments-dlq` |
| `tech-locations` | sync-gateway | `routing-svc-locations` | none | none (lossy is fine) |
| `notify-outbox` | every service | `notify-svc-outbox` | none | `notify-outbox-dlq` |

Subscriber defaults: `pubsub.ack_deadline_seconds` 60, `pubsub.max_delivery_attempts` 10 then
DLQ (all subscriptions since #4733, after the August backlog). Message retention 7 days.

Replaying a DLQ: see the DLQ replay runbook. Emulator for local dev: `gcloud beta emulators pubsub start`.
""")

NOTES["runbook-dlq-replay"] = ("Runbook: replaying a Pub/Sub dead-letter queue", """
1. Look first: `gcloud pubsub subscriptions pull job-events-dlq-sub --limit=5 --format=json`
   — read the `googclient_deliveryattempt` attribute and the payload.
2. Fix the consumer (or confirm the poison messages are junk).
3. Replay with our tool (#4911): `go run ./cmd/dlq-replay --from job-events-dlq-sub --to job-events
   --max 1000 --dry-run`, then without `--dry-run`.
4. Watch `num_undelivered_messages` on the DLQ subscription go to 0.
5. Junk: ack them with `--ack-only`, note the count in #fl-oncall.

Never seek the *main* subscription back in time to replay; it redelivers everything to every
consumer and notify-svc sends pushes again.
""")

NOTES["redis"] = ("Redis (Memorystore)", """
Instance `fl-redis-prod`: Memorystore Redis 7.2 (since 2026-11-11, was 6.x), Standard tier
(replica, automatic failover), 5 GB. `maxmemory-policy volatile-lru`: every key we write has a TTL.

Key patterns:
| pattern | TTL | writer | use |
|---|---|---|---|
| `lock:assign:<job_id>` | `dispatch.assign.lock_ttl` (5s) | dispatch-svc | assign lock (SET NX PX) |
| `eta:<from_geohash>:<to_geohash>` | `routing.eta.cache_ttl` (10m) | routing-svc | ETA cache |
| `tech:loc:<tech_id>` | 10m | sync-gateway | last known location |
| `ratelimit:partner:<key_id>` | 2s | jobs-api | token bucket |
| `session:revoked:<jti>` | token lifetime | jobs-api | revoked JWTs |

Client: go-redis v9, `redis.pool.size` 50, `redis.read_timeout_ms` 300.
""")

NOTES["terraform-layout"] = ("Terraform layout", """
`infra/` in the monorepo:
- `infra/modules/` — `gke`, `cloudsql`, `memorystore`, `pubsub`, `alerts`, `iam`, `buckets`.
- `infra/envs/prod`, `infra/envs/staging` — one root module each.
- State in GCS: `gs://fl-tf-state/<env>/` with object versioning; GCS locks natively.

Workflow: PR -> Atlantis comments the plan -> Dmitri approves -> `atlantis apply -p prod` in the
PR. Nobody runs `terraform apply` locally (Dmitri's rule). Provider `google` 6.x; pinned in
`versions.tf`.

If Atlantis says the state is locked: check nobody else's PR is mid-apply, then
`atlantis unlock` in the PR; never delete `.tflock` files in the bucket by hand.
""")

NOTES["secrets"] = ("Secrets", """
Secret Manager in `fieldline-prod`: `projects/fieldline-prod/secrets/<name>`. Mounted with the
Secret Manager CSI driver, never baked into images or `config/*.yaml`.

| secret | used by | rotation |
|---|---|---|
| `maps-api-key` | routing-svc | yearly, next 2027-03 |
| `twilio-auth-token` | notify-svc | on staff change |
| `apns-auth-key` | notify-svc | never expires (.p8) |
| `fcm-service-account` | notify-svc | yearly |
| `partner-webhook-signing-key` | jobs-api | yearly, overlap 7 days |
| `android-upload-keystore` | EAS Build | never |
| `sentry-auth-token` | CI | yearly |

Found a secret in a log or PR? Rotate first, then clean up.
""")

NOTES["routing-solver"] = ("Routing solver", """
`internal/routing/solver.go` builds a day route per tech: time windows, skills, parts on the
van, lunch break. It is a local search (insertion heuristic + 2-opt + or-opt), not OR-Tools
(we tried OR-Tools via cgo in 2025: builds were painful and the gain was 3%).

- Budget: `routing.solver.time_limit_ms` (1500 ms since #4903 on 2026-11-12, was 2000). After the
  budget it returns the best route so far; `routing_solver_timeouts_total` counts solves that hit it.
- Max stops `routing.solver.max_stops` = 60.
- Travel times from `internal/routing/eta.go` (Distance Matrix, cached in Redis).
- Parallelism `routing.solver.workers` = 4; runs on `np-solver` nodes.

Benchmarks: `go test ./internal/routing -bench BenchmarkSolve -benchtime 20x`; the 60-stop case
went from 1.9 s to 1.1 s with the or-opt move cache (#4891). Sid wants the before/after in PRs.

Flaky: `TestSolver_TimeWindows` depends on wall clock budget under `-race`; see flaky tests.
""")

NOTES["eta-and-maps"] = ("ETA and the Maps API", """
ETAs come from the Google Maps Distance Matrix API (traffic model `best_guess`), via
`internal/routing/eta.go`. Cached in Redis per geohash pair for `routing.eta.cache_ttl`.

Quota: 1,000 elements/s project limit; our client limiter `routing.maps.qps_limit` = 80
requests/s. When Maps answers `OVER_QUERY_LIMIT` we fall back to haversine distance x 1.4 at
35 km/h and tag the ETA `approximate` (the app shows "~").

Cost: Distance Matrix Advanced is ~$10 per 1,000 elements; it is the second line of the GCP bill
after Cloud SQL. `ff_route_reopt` doubles calls per cancel; watch it.
Key: `maps-api-key`, restricted to the routing-svc egress IPs.
""")

NOTES["cron-jobs"] = ("CronJobs on GKE", """
All in `deploy/cronjobs/*.yaml`, node pool `np-jobs`, `concurrencyPolicy: Forbid`. Times are UTC.

| CronJob | schedule | what |
|---|---|---|
| `stale-assignment-sweeper` | `*/5 * * * *` | unassign jobs whose tech never acknowledged in 30 min |
| `billing-export` | `15 2 * * *` | nightly CSV/ERP export per customer (Farah) |
| `location-retention` | `0 4 * * *` | delete tech locations older than `location.retention_days` |
| `eta-cache-warm` | `0 */6 * * *` | pre-compute ETAs between tomorrow's jobs |
| `daily-digest` | `30 11 * * 1-5` | email office managers the day's unassigned jobs (06:30 Central) |
| `timesheet-reminder` | `0 22 * * 5` | push techs who have not submitted the week |
| `tombstone-gc` | `30 3 * * 0` | drop sync tombstones past retention |
| `pg-vacuum-report` | `0 6 * * 1` | bloat report to #fl-db |

Debug a run: `kubectl -n jobs create job --from=cronjob/billing-export billing-export-manual-$(date +%s)`.
The sweeper used to run every minute (`* * * * *`) and hammered Postgres; 5 min since March.
""")

NOTES["billing-export"] = ("Billing export", """
CronJob `billing-export` (`15 2 * * *`), code in `cmd/billing-export` + `internal/billing/`.
Reads completed jobs from the read replica `fl-pg-prod-replica-1`, writes CSV per customer to
`gs://fl-billing-exports/<customer_id>/YYYY-MM-DD.csv`; customers with an ERP connector (3 of
them: NetSuite x2, Sage) get a push instead.

Batch size `export.billing.batch_size` = 5000 rows. Idempotent per day: re-running overwrites
the day's file. A missing file for 26h pages (alerting note).

Gotchas: job times are exported in the customer's timezone, not UTC; replica lag over 5 min
makes the export skip late completions (they come the next night).
""")
