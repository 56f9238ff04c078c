# Hand-written notes of the eval-b store (read by gen_store.py).
NOTES = {}

NOTES["airflow-deploy"] = ("Airflow deploy procedure", """
How DAG code and the Airflow image reach prod (Airflow v2.10.3 on EKS, Helm chart `airflow-prod`).

1. Merge to `main`; CI builds `kestrel-airflow:<git sha>` and pushes it to ECR.
2. `make dags-sync ENV=staging` copies `dags/` to `s3://kestrel-airflow-staging/dags/`.
3. Watch one scheduler loop in staging (DAG import errors show in the UI banner).
4. `make dags-sync ENV=prod`; the image itself goes out with
   `helm upgrade airflow-prod charts/airflow -f values/prod.yaml --set images.airflow.tag=<sha>`.
5. Post the sha in #data-deploys.

Never deploy DAG changes while `ingest_orders` is mid-run (it runs at :05 past every hour).
A DAG file that fails to import is paused by nobody: the old version keeps running, so check
the import errors banner after every sync. Rollback: sync the previous sha's `dags/`.
""")

NOTES["airflow-deploy-2025"] = ("Airflow deploy procedure (2025, superseded)", """
Superseded by the Airflow deploy procedure note (since the move to EKS in March 2026).

In 2025 Airflow ran on a single EC2 box (`airflow-01`) with the LocalExecutor.
1. `ssh airflow-01`, `cd /opt/kestrel/dags && git pull`.
2. `sudo systemctl restart airflow-scheduler`.
3. Tail `/var/log/airflow/scheduler.log` for import errors.
Kept only for the history; the box was terminated in April 2026.
""")

NOTES["django-release"] = ("Django app release (prod)", """
The Django app (`kestrel-web`, Celery workers share the image) is released by tag.

1. `make release VERSION=v2.14.3` bumps `kestrel/__init__.py`, writes the changelog, tags.
2. CI builds the image; ArgoCD syncs `kestrel-web` to staging automatically.
3. Smoke test on staging: log in, open a dashboard, run one CSV export.
4. Promote: `argocd app sync kestrel-web-prod --revision v2.14.3`.
5. Migrations run in the `migrate` pre-sync hook; a migration over 60 s needs Tomasz's OK first.

Release days Monday to Thursday. No releases on Friday (Ravi's rule, after DATA-1187).
Rollback: `argocd app rollback kestrel-web-prod` to the previous revision; migrations are not
reverted automatically.
""")

NOTES["staging-environment"] = ("Staging environment", """
Staging mirrors prod at a smaller size: one `m6i.large` node group, Snowflake warehouse
`STAGING_WH` (X-Small), Postgres `kestrel-staging` (db.t4g.medium).
URL: https://staging.kestrel.dev. Data is a 5% sample refreshed every Sunday by the
`refresh_staging_sample` DAG. ArgoCD syncs every merge to `main` automatically.
Do not point staging at the prod Snowflake account: `SNOWFLAKE_ACCOUNT` differs per env.
""")

NOTES["dbt-runbook"] = ("dbt runbook", """
dbt v1.8 project in `analytics/`, run by the `dbt_daily` DAG at 03:00 UTC with
`dbt build --selector nightly`.

- Rebuild one incremental model from scratch: `dbt build -s fct_orders --full-refresh`.
  A full refresh of `fct_orders` takes about 40 min on `TRANSFORM_WH` (Medium); ask in
  #data-eng before running it in prod.
- Run a model and everything downstream: `dbt build -s fct_orders+`.
- Failing test on prod: check `target/run_results.json` in the DAG logs, then re-run with
  `dbt retry`.
- Seeds (`analytics/seeds/*.csv`) are loaded with `dbt seed --full-refresh` only when the
  columns change.
Profiles come from `DBT_PROFILES_DIR=/opt/dbt`; the target is `DBT_TARGET` (dev, staging, prod).
""")

NOTES["dbt-incremental-models"] = ("dbt incremental models", """
Our incremental models use `incremental_strategy='merge'` with `unique_key` and a
`_loaded_at` watermark. Rules:
- Always filter on `{{ this }}` inside `{% if is_incremental() %}` with a 3-day lookback, so
  late events are picked up.
- `on_schema_change='append_new_columns'`; dropping a column needs a `--full-refresh`.
- `fct_orders`, `fct_events_daily` and `dim_customers` are incremental; everything in
  `staging/` is a view.
Chiara owns the naming: `stg_`, `int_`, `fct_`, `dim_` prefixes.
""")

NOTES["snowflake-warehouses"] = ("Snowflake warehouses", """
| warehouse | size | used by | auto-suspend |
|---|---|---|---|
| `LOADER_WH` | X-Small | Fivetran, the ingest DAGs | 60 s |
| `TRANSFORM_WH` | Medium | dbt | 120 s |
| `ANALYTICS_WH` | Small | the dashboard, Django exports | 300 s |
| `STAGING_WH` | X-Small | staging | 60 s |

Resource monitor `RM_MONTHLY` caps the account at 1,800 credits a month and suspends at 100%.
Role for services: `KESTREL_SVC`; humans use `ANALYST` or `TRANSFORMER`.
""")

NOTES["snowflake-cost"] = ("Snowflake cost review", """
Monthly review of Snowflake credits, first Tuesday of the month, Bogdan and Chiara.
- Query `SNOWFLAKE.ACCOUNT_USAGE.WAREHOUSE_METERING_HISTORY` for credits per warehouse.
- In August `TRANSFORM_WH` was 61% of the spend; moving `fct_events_daily` to incremental
  saved about 300 credits a month.
- `ANALYTICS_WH` auto-suspend went from 600 s to 300 s in October.
Target: under 1,500 credits a month.
""")

NOTES["postgres"] = ("Postgres (app database)", """
Postgres 15 on RDS, instance `kestrel-prod-pg` (db.r6g.xlarge), one read replica
`kestrel-prod-pg-ro` used by exports and the admin.
- `DATABASE_URL` for the primary, `DATABASE_REPLICA_URL` for the replica; Django routes
  reads of `exports` and `reports` to the replica through `ReplicaRouter`.
- pgbouncer in transaction mode; `CONN_MAX_AGE=0` in Django because of it.
- Serialization failures (SQLSTATE 40001) are retried by `@retry_on_serialization` in
  `kestrel/db/retry.py`, three attempts.
""")

NOTES["incident-2026-05-14-celery-backlog"] = ("Incident 2026-05-14: Celery queue backlog", """
What happened: from 09:10 to 11:40 UTC the `exports` queue grew to 48,000 tasks; customers saw
CSV exports stuck in "pending".
Cause: a deploy set `CELERY_WORKER_PREFETCH_MULTIPLIER=64` (was 1); one worker prefetched the
long `build_export` tasks and sat on them while the others idled.
Fix: back to 1, `acks_late=True` on `build_export`, queue-depth alert in Datadog.
Ticket DATA-1042. Owner: Tomasz.
""")

NOTES["incident-2026-07-02-serialization-failures"] = ("Incident 2026-07-02: serialization failures in ingest_orders", """
What happened: `ingest_orders` failed 6 hours in a row with
`psycopg.errors.SerializationFailure: could not serialize access due to concurrent update`
(SQLSTATE 40001). Orders in the dashboard were up to 6 h late.
Cause: the new `OrderUpsert` ran at REPEATABLE READ and raced the Django admin's bulk edit on
the same rows.
Fix: `OrderUpsert` back to READ COMMITTED with `SELECT ... FOR UPDATE SKIP LOCKED` batches,
and `@retry_on_serialization` on the task. Ticket DATA-1266. Owner: Aisha.
""")

NOTES["incident-2026-09-09-duplicate-rows"] = ("Incident 2026-09-09: duplicate rows after a backfill", """
What happened: `fct_orders` showed revenue doubled for 2026-08-28 to 2026-09-03.
Cause: a manual backfill of `ingest_orders` ran with `--reset-dagruns` while the scheduled
runs for the same dates were still queued, so both loaded the same files; the raw table has no
unique key and the incremental merge kept both copies.
Fix: delete by `_batch_id`, `dbt build -s fct_orders --full-refresh`, and `max_active_runs=1`
on the DAG. The backfill procedure now says to pause the DAG first. Ticket DATA-1340.
""")

NOTES["incident-2026-10-27-s3-access-denied"] = ("Incident 2026-10-27: S3 AccessDenied for the loaders", """
What happened: all ingest DAGs failed from 14:02 to 15:30 UTC with
`botocore.exceptions.ClientError: An error occurred (AccessDenied) when calling the GetObject
operation`.
Cause: a Terraform change (DATA-1398) replaced the bucket policy of `kestrel-raw-prod` and
dropped the statement for the IRSA role `airflow-worker`.
Fix: restored the statement in `infra/modules/raw_bucket/policy.tf`; added a policy test with
`terraform test`. Owner: Bogdan.
""")

NOTES["adr-0003-celery-over-rq"] = ("ADR 0003: Celery over RQ", """
Status: accepted (2024). Context: background work for exports, emails and ingest triggers.
Decision: Celery 5 with Redis as broker and result backend off. RQ was simpler but had no
routing by queue, no rate limits per task and no beat scheduler.
Consequences: we own the Celery config (`kestrel/celery.py`), and periodic tasks live in
Celery beat, while data pipelines live in Airflow.
""")

NOTES["adr-0009-dbt-for-transformations"] = ("ADR 0009: dbt for transformations", """
Status: accepted (2025-02). Context: SQL transforms were Python strings inside DAGs.
Decision: move all warehouse transforms into dbt models in `analytics/`; Airflow only
orchestrates (`dbt build` through the `dbt_daily` DAG).
Consequences: tests live next to models (`schema.yml`), lineage in dbt docs, Chiara reviews
every model change.
""")

NOTES["adr-0014-snowflake-over-redshift"] = ("ADR 0014: Snowflake over Redshift", """
Status: accepted (2025-09). Context: Redshift dc2 nodes were full and resizes took hours.
Decision: Snowflake on AWS us-east-1, key-pair auth for services.
Consequences: per-second billing needs auto-suspend on every warehouse; cost review monthly.
Migration finished 2025-12.
""")

NOTES["celery-workers"] = ("Celery workers", """
Queues and workers (k8s deployments in namespace `kestrel`):
| queue | deployment | concurrency |
|---|---|---|
| `default` | `celery-default` | 8 |
| `exports` | `celery-exports` | 2 (memory heavy) |
| `emails` | `celery-emails` | 4 |

Settings that matter: `CELERY_WORKER_PREFETCH_MULTIPLIER=1`, `task_acks_late=True` for exports,
`worker_max_tasks_per_child=200` (leak in the xlsx writer). Beat runs as one replica
`celery-beat`; never scale it above 1.
""")

NOTES["celery-retry-policy"] = ("Celery retry policy", """
Tasks that call outside services use
`@app.task(autoretry_for=(RequestException,), retry_backoff=True, retry_backoff_max=600,
max_retries=5)`. Exports never retry automatically: a failed export is marked `failed` and the
user gets the E1101 email. Serialization failures use the `@retry_on_serialization` decorator,
not Celery retries.
""")

NOTES["ingest-orders-dag"] = ("ingest_orders DAG", """
`dags/ingest_orders.py`: hourly at :05. Pulls order files from the partner SFTP into
`s3://kestrel-raw-prod/orders/`, loads them with `COPY INTO RAW.ORDERS` on `LOADER_WH`, and
upserts into Postgres through `OrderUpsert` for the app.
- `max_active_runs=1` (since the 2026-09-09 duplicate rows).
- Tasks: `list_new_files` -> `copy_to_snowflake` -> `upsert_orders` -> `mark_done`.
- Idempotent by `_batch_id` = file name hash.
Owner: Aisha.
""")

NOTES["ingest-events-dag"] = ("ingest_events DAG", """
`dags/ingest_events.py`: every 15 minutes. Reads product events from Kinesis Firehose output
in `s3://kestrel-raw-prod/events/` and loads `RAW.EVENTS` with Snowpipe (`EVENTS_PIPE`);
the DAG only checks pipe status and lag.
- Alert when `SYSTEM$PIPE_STATUS` shows `pendingFileCount > 500`.
- Late events up to 3 days are handled by the incremental lookback of `fct_events_daily`.
Owner: Aisha.
""")

NOTES["terraform-layout"] = ("Terraform layout", """
`infra/` holds Terraform 1.9: `infra/modules/*` and one root per env in `infra/envs/{staging,prod}`.
State in S3 bucket `kestrel-tfstate` with DynamoDB lock table `kestrel-tf-locks`.
- Plan: `make tf-plan ENV=prod`; paste the plan into the PR (Bogdan's rule).
- Apply only from CI (`tf-apply` job) after approval; no applies from laptops.
- Provider pins in `versions.tf`; bump with `terraform init -upgrade` in a PR of its own.
""")

NOTES["terraform-state-lock"] = ("Terraform state lock", """
When a CI job dies mid-apply, the lock stays in `kestrel-tf-locks`:
`Error acquiring the state lock ... ConditionalCheckFailedException`.
1. Make sure no apply is running (CI jobs page, #infra).
2. `terraform force-unlock <LOCK_ID>` from `infra/envs/<env>`.
3. Re-run the plan before applying again.
Never delete the DynamoDB item by hand.
""")

NOTES["eks-cluster"] = ("EKS cluster", """
Cluster `kestrel-prod-eks` (k8s 1.30), managed node groups `ng-general` (m6i.xlarge, 3-6) and
`ng-airflow` (r6i.large, 2-4, taint `workload=airflow`). Namespaces: `kestrel`, `airflow`,
`monitoring`. IRSA roles per service account (`airflow-worker`, `celery-exports`).
Upgrades once a quarter, one minor version at a time; see the node group rotation steps in the
terraform layout note.
""")

NOTES["secrets-management"] = ("Secrets management", """
Secrets live in AWS Secrets Manager under `kestrel/<env>/<name>` and reach pods through the
External Secrets Operator (`ExternalSecret` objects in `k8s/secrets/`).
- Snowflake key pair: `kestrel/prod/snowflake-svc`, mounted at `SNOWFLAKE_PRIVATE_KEY_PATH`.
- Rotate the Snowflake key every 90 days: add the new key as `RSA_PUBLIC_KEY_2`, roll the
  secret, then unset the old key.
- Never put a secret in `values/*.yaml` or a DAG file.
""")

NOTES["env-vars"] = ("Environment variables", """
| variable | where | meaning |
|---|---|---|
| `DATABASE_URL` | web, workers | primary Postgres |
| `DATABASE_REPLICA_URL` | web | read replica |
| `CELERY_BROKER_URL` | web, workers | Redis broker |
| `SNOWFLAKE_ACCOUNT` | workers, Airflow | account locator per env |
| `SNOWFLAKE_PRIVATE_KEY_PATH` | workers, Airflow | key-pair file |
| `KESTREL_EXPORT_MAX_ROWS` | workers | export cap, 1,000,000 (E1101 above it) |
| `DBT_TARGET` | Airflow | dbt target |
| `VITE_API_BASE` | dashboard build | API base URL |
""")

NOTES["error-codes"] = ("Kestrel error codes", """
Codes returned by the API and shown in the dashboard:
- `E1101` export too large: more rows than `KESTREL_EXPORT_MAX_ROWS`.
- `E1102` export expired (links live 7 days).
- `E2040` dashboard query timeout (30 s on `ANALYTICS_WH`).
- `E2041` dashboard query cancelled by the user.
- `E3300` SSO assertion rejected (clock skew or wrong audience).
- `E4001` rate limit hit on the public API (not to be confused with SQLSTATE 40001).
""")

NOTES["flaky-tests"] = ("Flaky tests", """
Marked `@pytest.mark.flaky(reruns=2)` and listed here; each has a ticket.
- `tests/exports/test_build_export.py::test_xlsx_large` — timing on CI runners (DATA-1311).
- `tests/dags/test_ingest_orders.py::test_idempotent_batch` — depends on dict order of S3 list
  mocks (DATA-1377).
- `dashboard/src/charts/Funnel.test.tsx` — snapshot differs with the CI font (DATA-1402).
Fixed: `test_sso_clock_skew` (frozen clock with `time-machine`, DATA-1290).
""")

NOTES["django-migrations"] = ("Django migrations", """
Rules for migrations in `kestrel/*/migrations/`:
- One migration per PR; name it (`--name add_export_status`), no `auto_` names.
- Adding a column with a default on a big table: add nullable, backfill in batches, then set
  the default (Postgres 15 is fine with defaults, but the backfill must be batched).
- `RunPython` needs a reverse function or `migrations.RunPython.noop`.
- Anything over 60 s on prod data needs Tomasz's review and a window.
- `python manage.py sqlmigrate` output goes into the PR.
""")

NOTES["migration-0042-partition-events"] = ("Migration 0042: partition the events table", """
`analytics_events` in Postgres grew to 410 M rows. Migration `0042_partition_events` (DATA-1355)
turns it into a table partitioned by month (`PARTITION BY RANGE (created_at)`).
Plan: create `analytics_events_new` partitioned, copy month by month with the management
command `copy_events --month 2026-01`, swap names in one transaction, keep the old table 14
days. Ran on prod 2026-10-07 (Wednesday) 06:00-07:20 UTC; the swap took 2 s.
""")

NOTES["dashboard-build"] = ("Dashboard build", """
The dashboard is TypeScript + React in `dashboard/`, built with Vite 5 and pnpm 9.
- `pnpm install --frozen-lockfile`, `pnpm build`; output in `dashboard/dist/`, served by
  CloudFront from `s3://kestrel-dashboard-prod/`.
- `VITE_API_BASE` is set at build time, so staging and prod are two builds.
- Type check: `pnpm tsc --noEmit`; lint: `pnpm lint` (ESLint flat config).
- Release: tag `dashboard-v0.9.0`; CI uploads and invalidates `/*`.
""")

NOTES["dashboard-charts"] = ("Dashboard charts", """
Charts use ECharts through our wrapper `<KChart>` in `dashboard/src/charts/`.
`useMetricQuery(metricId, range)` fetches `/api/v1/metrics/<id>?from=&to=` and caches with
TanStack Query for 60 s. The funnel chart (`Funnel.tsx`) is the slow one: it asks for 5 steps
in one query and hits E2040 on large accounts; DATA-1405 tracks splitting it.
""")

NOTES["exports-api"] = ("Exports API", """
`POST /api/v1/exports` starts a Celery `build_export` task and returns `202` with an export id;
`GET /api/v1/exports/<id>` polls. Formats: csv, xlsx, parquet.
- Cap: `KESTREL_EXPORT_MAX_ROWS` (1,000,000); above it the API answers `E1101`.
- Files go to `s3://kestrel-exports-prod/<account>/<id>.<ext>`, presigned links valid 7 days
  (then `E1102`).
- Reads go to the replica through `ReplicaRouter`.
""")

NOTES["data-retention"] = ("Data retention and deletion", """
- Raw files in `kestrel-raw-prod`: S3 lifecycle moves them to Glacier after 90 days, deletes
  after 400.
- Snowflake `RAW` schema: time travel 1 day, `ANALYTICS` 7 days.
- Customer deletion requests (GDPR): the `delete_account_data` DAG removes rows by
  `account_id` in Postgres and Snowflake and writes an audit row to `ops.deletion_log`.
  It must finish within 30 days of the request.
""")

NOTES["pii-masking"] = ("PII masking in Snowflake", """
Columns tagged `pii` in dbt (`meta: {pii: true}`) get the masking policy `MASK_PII_STRING`
applied by the `apply_masking` post-hook. Only the `PII_READER` role sees clear text; analysts
see `***`. Email and phone in `dim_customers` are masked; `account_id` is not PII.
""")

NOTES["on-call"] = ("On-call", """
Weekly rotation, handoff Monday 10:00 in #data-oncall: Aisha, Bogdan, Tomasz, Ines.
PagerDuty service `kestrel-data`. The on-call owns: failed DAG runs, Celery queue alerts,
Snowflake credit alerts, and customer tickets tagged `data-late`.
Handoff note: open incidents, paused DAGs, anything running a backfill.
""")

NOTES["alerting"] = ("Alerting", """
Datadog monitors, defined in Terraform (`infra/modules/monitors/`):
| monitor | condition | pages |
|---|---|---|
| `celery.exports.queue_depth` | > 5,000 for 10 min | yes |
| `airflow.dag.failed` | any failed run of a `tier1` DAG | yes |
| `snowflake.credits.daily` | > 80 credits a day | no |
| `events.pipe.pending` | pendingFileCount > 500 | yes |
| `web.5xx.rate` | > 2% for 5 min | yes |
Every monitor links to a runbook.
""")

NOTES["observability"] = ("Observability", """
Datadog for metrics, APM and logs (agent as a DaemonSet); Sentry for Django, Celery and the
dashboard errors. Airflow task logs go to `s3://kestrel-airflow-logs/`. Structured logs with
`structlog`, JSON in prod; request id in `X-Request-ID`.
""")

NOTES["backfill-procedure"] = ("Backfill procedure", """
For re-loading a date range of an ingest DAG (current procedure, after the 2026-09-09 incident):
1. Pause the DAG in the UI (`airflow dags pause ingest_orders`).
2. `airflow dags backfill ingest_orders --start-date 2026-08-28 --end-date 2026-09-03
   --reset-dagruns --yes` from the scheduler pod.
3. Unpause, then `dbt build -s fct_orders+` (a `--full-refresh` only if the rows changed shape).
4. Note the range and the reason in the daily log and in #data-eng.
""")

NOTES["backfill-procedure-2025"] = ("Backfill procedure (2025, superseded)", """
Old way, from the EC2 days: `airflow backfill ingest_orders -s <start> -e <end>` (Airflow 1.10
syntax), without pausing the DAG. Superseded: it caused the 2026-09-09 duplicate rows when used
on Airflow 2. Use the backfill procedure note.
""")

NOTES["data-quality-checks"] = ("Data quality checks", """
dbt tests on every model (`unique`, `not_null`, `relationships`) plus `dbt_expectations` for
ranges. Freshness: `sources.yml` sets `warn_after: 2h`, `error_after: 6h` on `RAW.ORDERS`.
A failing `error` test stops the `dbt_daily` run; `warn` tests post to #data-quality.
Elementary reports go to https://dq.kestrel.dev.
""")

NOTES["team"] = ("Team", """
- Aisha Bello: data engineering lead, ingest DAGs, on-call.
- Bogdan Petrov: infrastructure, Terraform, EKS, Snowflake cost.
- Chiara Russo: analytics engineer, dbt models, naming.
- Tomasz Nowak: Django backend, Celery, migrations.
- Nkechi Obi: dashboard (TypeScript), design system.
- Ines Duarte: SRE, alerting, on-call.
- Ravi Menon: product manager, release calendar.
""")

NOTES["review-preferences"] = ("Review preferences", """
- Aisha: wants the DAG graph screenshot in DAG PRs.
- Bogdan: `terraform plan` output pasted in infra PRs; no `-target` applies.
- Chiara: dbt PRs list the models touched and the `dbt build` result.
- Tomasz: migrations in their own PR; `sqlmigrate` output in the description.
- Nkechi: screenshots or a short video for UI changes; Storybook link.
- Everyone: squash merge, PR title in the form `DATA-1234: short summary`.
""")

NOTES["onboarding"] = ("Onboarding", """
First week: access requests (AWS SSO, Snowflake role `ANALYST`, Airflow viewer, Datadog),
`make bootstrap` for the local stack, read the architecture overview and the dbt runbook,
shadow one on-call handoff. Buddy: Aisha for data, Tomasz for backend.
""")

NOTES["local-dev-setup"] = ("Local development setup", """
`make bootstrap` runs `docker compose up -d postgres redis` and `uv sync`.
- Python 3.12 with `uv`; `uv run pytest -n auto` for the tests.
- Airflow locally: `make airflow-standalone` (SQLite, SequentialExecutor), DAGs mounted.
- dbt against your dev schema: `DBT_TARGET=dev`, schema `DEV_<YOURNAME>`.
- Dashboard: `cd dashboard && pnpm dev` (port 5173), API proxy to localhost:8000.
""")

NOTES["ci-pipeline"] = ("CI pipeline", """
GitHub Actions, workflow `.github/workflows/ci.yml`:
`lint` (ruff, mypy), `test` (`uv run pytest -n auto --maxfail=5`), `dbt` (`dbt build` against
a CI schema with `--defer --state prod-manifest/`), `dashboard` (pnpm lint, tsc, vitest),
`tf-plan` on `infra/` changes. Required checks: lint, test, dbt.
Cache keys use `uv.lock` and `pnpm-lock.yaml`.
""")

NOTES["airflow-upgrade-2-10"] = ("Airflow upgrade to 2.10", """
From v2.8.4 to v2.10.3 (DATA-1390).
- Staging 2026-11-03, prod 2026-11-05.
- `airflow db migrate` replaced `airflow db upgrade`; the Helm chart runs it as a job.
- Deprecated: `schedule_interval` -> `schedule`; 14 DAGs changed.
- The `SnowflakeOperator` moved to `SQLExecuteQueryOperator` with `conn_id="snowflake_default"`.
- After the upgrade the scheduler needed `AIRFLOW__SCHEDULER__PARSING_PROCESSES=4`.
""")

NOTES["dependency-upgrades"] = ("Dependency upgrades", """
Renovate opens PRs every Monday. Policy:
- Patch versions: merge when CI is green.
- Django minor (5.0 -> 5.1 done in June), Celery, Airflow, dbt: one PR each, with a staging soak
  of 2 days.
- The dashboard: pnpm updates grouped weekly; ECharts majors need Nkechi.
- `uv lock --upgrade-package <name>` for one Python package.
""")

NOTES["architecture-overview"] = ("Architecture overview", """
Kestrel is an analytics product for e-commerce shops (repo `tidewater`).
- Ingest: Fivetran connectors and our own Airflow DAGs land raw data in S3 and Snowflake `RAW`.
- Transform: dbt in `analytics/` builds `ANALYTICS` marts.
- App: Django (`kestrel-web`) with Postgres for accounts, settings and exports; Celery for
  background work; Redis as broker.
- Dashboard: TypeScript/React app calling the Django API, which queries Snowflake on
  `ANALYTICS_WH`.
- Infra: AWS, EKS, Terraform in `infra/`.
""")

NOTES["fivetran-connectors"] = ("Fivetran connectors", """
Fivetran syncs Shopify, Stripe and HubSpot into Snowflake `RAW_FIVETRAN` every hour on
`LOADER_WH`. Connector ids are in `infra/modules/fivetran/connectors.tf` (Terraform provider
`fivetran/fivetran`). When a connector breaks (schema change upstream), it shows
"Broken" and sends an email to data-alerts@; re-sync a table from the connector page, never a
full re-sync of Shopify (costs ~200 credits).
""")

NOTES["freshness-slo"] = ("Data freshness SLO", """
Customer-facing promise: order data in the dashboard is at most 2 hours old, 99% of hours in a
month. Measured by the `freshness_probe` DAG, which writes `ops.freshness` every 10 min.
Error budget: about 7 hours a month. The 2026-07-02 incident used 6 of them.
""")

NOTES["customer-sla"] = ("Customer SLA", """
Enterprise contracts: 99.5% monthly uptime of the dashboard and the API, data freshness of 2
hours (see the data freshness SLO note), support response within 4 business hours. Credits:
10% of the monthly fee per 0.5% under. Ravi keeps the list of enterprise accounts.
""")

NOTES["sso-okta"] = ("SSO with Okta", """
Enterprise accounts log in with SAML through `django-saml2-auth`; config per account in the
admin (`SsoConfig`). Common failure: `E3300` when the IdP clock is off by more than 2 min or the
audience is not `https://app.kestrel.dev/sso/acs`. Test tenant: `kestrel-test.okta.com`.
""")

NOTES["api-rate-limits"] = ("Public API rate limits", """
`/api/v1/*` is limited per API key with `django-ratelimit`: 600 requests a minute, 20 exports
an hour. Over the limit: HTTP 429 with code `E4001` and `Retry-After`. Limits per plan in
`settings.RATE_LIMITS`; the key prefix is `kst_live_`.
""")

NOTES["redis"] = ("Redis", """
ElastiCache Redis 7 (`kestrel-prod-redis`, cache.r6g.large): Celery broker (db 0), Django cache
(db 1), rate limit counters (db 2). `maxmemory-policy noeviction` on the broker: a full Redis
stops Celery, so the alert fires at 75% memory.
""")

NOTES["sprint-process"] = ("Sprint process", """
Two-week sprints starting Monday. Planning Monday 14:00, demo and retro every second Friday at
15:00. Jira project `DATA`; tickets need an owner and an estimate before the sprint starts.
Bugs from customers get the label `customer` and jump the queue.
""")

NOTES["cost-review-aws"] = ("AWS cost review", """
Monthly, with Bogdan: Cost Explorer by tag `service`. Biggest lines: EKS nodes, NAT gateway
traffic (S3 goes through a VPC endpoint since May), RDS. Savings plan for the `ng-general`
nodes renewed in September for one year.
""")

NOTES["kubernetes-jobs"] = ("Kubernetes jobs and cron jobs", """
One-off management commands run as k8s Jobs from the `kestrel-web` image:
`kubectl -n kestrel create job --from=cronjob/manage-template copy-events-2026-01` then edit the
args. CronJobs: `cleanup-expired-exports` (daily 02:00), `refresh-materialized-views` (hourly).
Set `ttlSecondsAfterFinished: 86400` on every Job.
""")

NOTES["xlsx-export-memory"] = ("xlsx export memory use", """
`build_export` for xlsx held the whole sheet in memory (openpyxl) and OOM-killed
`celery-exports` pods at 2 GiB for exports over ~300k rows. Fix (DATA-1311, v2.12.0):
`write_only=True` workbooks and streaming rows from a server-side cursor; the pod limit is now
3 GiB and `worker_max_tasks_per_child=200` stays.
""")
