# Hand-written key log entries of the eval-b store (read by gen_store.py).
# date -> list of (HH:MM, heading, body)
KEY = {
"2026-04-16": [("14:45", "Stripe currency bug", """DATA-1101: Stripe charges in JPY were divided by 100 in `stg_stripe_charges` (zero-decimal currency).
Fixed with a currency list in a seed; revenue for two Japanese shops corrected.""")],
"2026-04-08": [("11:20", "Terminated airflow-01", """The old EC2 Airflow box `airflow-01` is gone: EKS Airflow has run all DAGs for
two weeks without a miss. Snapshot of its disk kept as `snap-airflow-01-final` for 30 days.""")],
"2026-04-21": [("10:05", "Snowflake key rotation", """Rotated the service key pair: added `RSA_PUBLIC_KEY_2` on user `KESTREL_SVC`, rolled
`kestrel/prod/snowflake-svc`, restarted the Airflow workers, then unset the old key.
Next rotation due in 90 days (around 2026-07-20).""")],
"2026-05-06": [("15:40", "S3 VPC endpoint", """NAT gateway was 18% of the AWS bill in April: every S3 read of the loaders went through NAT.
Added a gateway VPC endpoint for S3 in `infra/modules/network/endpoints.tf`. Bogdan applied it from CI.""")],
"2026-05-14": [("09:25", "Exports stuck in pending", """Customers report CSV exports stuck in pending. The `exports` queue is at 31k and growing.
One `celery-exports` pod busy, the other idle. Paging Tomasz."""),
 ("11:45", "Exports backlog resolved", """Cause: the deploy this morning set `CELERY_WORKER_PREFETCH_MULTIPLIER=64`. Back to 1, queue drained
by 11:40. DATA-1042 for the follow-ups (acks_late, queue-depth monitor).""")],
"2026-05-15": [("14:10", "Backlog follow-ups", """`acks_late=True` on `build_export`, Datadog monitor `celery.exports.queue_depth` > 5,000 for 10 min.
Wrote the incident note.""")],
"2026-06-03": [("16:30", "Released v2.11.0 to prod", """Django 5.0 -> 5.1. Two deprecation fixes in the admin, staging soak since Monday. Promoted with
`argocd app sync kestrel-web-prod --revision v2.11.0`. Quiet.""")],
"2026-06-17": [("13:15", "xlsx exports OOM", """`celery-exports` pods OOM-killed at 2 GiB on big xlsx exports: openpyxl keeps the whole sheet.
DATA-1311. Plan: `write_only=True` and a server-side cursor.""")],
"2026-06-24": [("15:50", "Released v2.12.0 to prod", """Streaming xlsx writer (DATA-1311); a 900k-row export now peaks at 600 MiB. Pod limit raised to 3 GiB
anyway.""")],
"2026-07-02": [("08:40", "ingest_orders failing", """`ingest_orders` failed at 03:05, 04:05, 05:05 ... `SerializationFailure`, SQLSTATE 40001, in
`upsert_orders`. Dashboard orders 5 h late. Aisha on it."""),
 ("12:30", "ingest_orders fixed", """`OrderUpsert` had moved to REPEATABLE READ in last week's refactor and raced the admin bulk edit.
Back to READ COMMITTED with `FOR UPDATE SKIP LOCKED` batches plus `@retry_on_serialization`.
Catch-up runs done by 12:10. DATA-1266.""")],
"2026-07-03": [("10:00", "Postmortem: serialization failures", """Blameless review of yesterday's ingest outage. 6 h of the freshness error budget used.
Action items: isolation level test, alert on two failed runs in a row instead of three.""")],
"2026-07-20": [("09:30", "Snowflake key rotated again", """Second rotation of the `KESTREL_SVC` key pair, same steps as in April. Took 20 min. Calendar reminder
set for October.""")],
"2026-08-11": [("14:00", "Snowflake cost review (August)", """Credits in July: 1,720. `TRANSFORM_WH` 61% of it, mostly the full rebuild of `fct_events_daily` every
night. Chiara will make it incremental.""")],
"2026-08-19": [("16:20", "fct_events_daily is incremental", """Merged Chiara's PR: `fct_events_daily` now incremental with a 3-day lookback. Nightly dbt run from
52 min to 14 min.""")],
"2026-09-09": [("10:10", "Revenue doubled in fct_orders", """Ravi noticed revenue doubled for the last week of August in the dashboard. Checking `fct_orders`.
Raw `RAW.ORDERS` has every file twice for 2026-08-28..09-03."""),
 ("15:30", "Duplicate rows cleaned", """The backfill I started on Monday ran with `--reset-dagruns` while the scheduled runs for the same dates were
still queued. Deleted duplicates by `_batch_id`, ran `dbt build -s fct_orders --full-refresh`,
set `max_active_runs=1`. DATA-1340.""")],
"2026-09-10": [("11:00", "Backfill procedure rewritten", """Rewrote the backfill procedure note: pause the DAG first. Marked the 2025 one superseded.""")],
"2026-09-15": [("12:10", "Savings plan renewed", """Renewed the compute savings plan for `ng-general` for one year. Bogdan confirmed the commitment.""")],
"2026-09-22": [("09:50", "EKS upgraded to 1.30", """`kestrel-prod-eks` control plane 1.29 -> 1.30, then node groups rotated one at a time
(`ng-general`, then `ng-airflow`). No pod evictions failed. Staging was done last week.""")],
"2026-09-29": [("13:40", "SSO failures for Brightcart", """Brightcart users get `E3300` on SAML login. Their IdP clock was 3 minutes off. They fixed NTP;
we raised the allowed skew to 3 min in `SsoConfig` for them only.""")],
"2026-10-06": [("14:00", "Snowflake cost review (October)", """September credits: 1,430, under target. `ANALYTICS_WH` auto-suspend lowered from 600 s to 300 s.""")],
"2026-10-07": [("07:30", "Migration 0042 done", """`0042_partition_events` ran on prod from 06:00 to 07:20 UTC: copy month by month with
`copy_events`, swap in one transaction (2 s). Old table `analytics_events_old` kept 14 days. DATA-1355.""")],
"2026-10-14": [("16:05", "Released v2.13.0 to prod", """Partitioned events in the ORM (`AnalyticsEvent` now reads the partitioned table), new parquet export
format. Smoke test passed.""")],
"2026-10-19": [("10:15", "Snowflake key rotation (October)", """Third rotation of the `KESTREL_SVC` key pair. This time also rotated the staging key.""")],
"2026-10-21": [("09:05", "Dropped analytics_events_old", """14 days after migration 0042, dropped `analytics_events_old` (freed 180 GB on `kestrel-prod-pg`).""")],
"2026-10-27": [("14:10", "All ingest DAGs failing", """AccessDenied on GetObject for every loader since 14:02. Bucket policy of `kestrel-raw-prod` changed by
today's Terraform apply (DATA-1398)."""),
 ("15:35", "AccessDenied fixed", """Bogdan restored the `airflow-worker` IRSA statement in `infra/modules/raw_bucket/policy.tf`.
Cleared the failed runs, catch-up done 15:30.""")],
"2026-10-28": [("11:30", "terraform test for bucket policy", """Added `infra/modules/raw_bucket/tests/policy.tftest.hcl`: asserts the loader roles keep GetObject.
Runs in the `tf-plan` CI job.""")],
"2026-10-30": [("17:10", "Stuck Terraform lock", """CI runner died during `tf-apply`; `ConditionalCheckFailedException` on the next plan. Checked that nothing was
running, `terraform force-unlock` with the lock id from the error. Plan clean afterwards.""")],
"2026-11-02": [("10:20", "Funnel chart timeouts", """Large accounts get `E2040` on the funnel chart: one query for 5 steps takes 40 s on `ANALYTICS_WH`.
Opened DATA-1405 to split it per step.""")],
"2026-11-03": [("15:00", "Airflow 2.10.3 on staging", """Upgraded staging Airflow from v2.8.4 to v2.10.3 (DATA-1390). `airflow db migrate` job ran 4 min.
Import errors in 3 DAGs using the old `SnowflakeOperator` import.""")],
"2026-11-04": [("11:40", "schedule_interval cleanup", """Replaced `schedule_interval` with `schedule` in 14 DAGs and moved to `SQLExecuteQueryOperator`.
Staging green.""")],
"2026-11-05": [("16:45", "Airflow 2.10.3 on prod", """Prod Airflow upgraded to v2.10.3. Scheduler lagged parsing after the upgrade; set
`AIRFLOW__SCHEDULER__PARSING_PROCESSES=4`, DAG parse time back under 30 s.""")],
"2026-11-09": [("10:00", "On-call handoff", """Bogdan -> Tomasz. Open: DATA-1405 (funnel timeouts), nothing paused, no backfill running.""")],
"2026-11-10": [("15:20", "Released v2.14.2 to prod", """Fix: the public API sent a wrong `Retry-After` with `E4001` (seconds vs ms). Canary skipped, small
change. Staging since Monday.""")],
"2026-11-11": [("09:40", "Shopify connector broken", """Fivetran Shopify connector "Broken" after Shopify renamed a field in `orders`. Re-synced only the
`orders` table, not the whole connector.""")],
"2026-11-12": [("14:25", "test_idempotent_batch", """Made `test_idempotent_batch` sort the mocked S3 listing; removed its flaky marker. DATA-1377 closed.""")],
"2026-11-13": [("11:00", "dashboard-v0.9.0 on staging", """Tagged `dashboard-v0.9.0` (new date picker, funnel split behind a flag) and deployed it to staging only.
Prod after Nkechi's check next week."""),
 ("15:00", "Sprint retro", """Retro: too many manual backfills; Aisha wants a button in the admin. Ravi agreed to a spike.""")],
"2026-11-16": [("10:05", "On-call handoff", """Tomasz -> Ines. Open: DATA-1405 still, Shopify connector watched. Nothing paused.""")],
"2026-11-17": [("13:30", "fct_orders full refresh", """Chiara added `discount_code` and dropped `legacy_channel` in `fct_orders` (DATA-1421), so ran
`dbt build -s fct_orders --full-refresh` on prod: 38 min on `TRANSFORM_WH`.""")],
"2026-11-18": [("10:50", "ng-airflow node group resized", """Terraform: `ng-airflow` max from 4 to 5 (scheduler + 4 workers did not fit during the nightly dbt run).
Plan pasted in the PR, applied from CI."""),
 ("16:10", "dashboard-v0.9.0 to prod", """Nkechi checked staging; uploaded `dashboard-v0.9.0` to prod and invalidated CloudFront.""")],
"2026-11-19": [("15:40", "Released v2.14.3 to prod", """DATA-1412: the `E1101` email said "100,000 rows" although the cap is 1,000,000; it now reads
`KESTREL_EXPORT_MAX_ROWS`. Also the funnel split API (DATA-1405) for the dashboard flag.""")],
"2026-11-20": [("11:15", "TRANSFORM_WH for the quarter close", """Bumped `TRANSFORM_WH` to Large until Monday for the finance quarter-close models; resource monitor
`RM_MONTHLY` has room. Reminder in the scratchpad to size it back."""),
 ("16:30", "Weekly summary", """Released v2.14.3, dashboard 0.9.0 out, fct_orders refreshed, ng-airflow resized. Next week:
size `TRANSFORM_WH` back, funnel flag on for two accounts.""")],
}
