# Hand-written key log entries of the eval-d store (read by gen_store.py).
# date -> list of (HH:MM, heading, body)
KEY = {
"2026-02-03": [("15:10", "Dagster spike", """I spent the afternoon porting `ingest_orders_hourly` to Dagster as a spike. The asset version is
about half the code of the Airflow DAG, and partitions give us backfills for free. I will write it up
as an ADR for Thursday's meeting.""")],
"2026-02-11": [("11:30", "ADR-0006 accepted: Dagster replaces Airflow", """We accepted ADR-0006 in the architecture meeting. Job names keep the Airflow DAG ids so alerts and
dashboards survive. Epic DATA-1350 tracks the migration; `ingest_orders_hourly` goes first, in
parallel with Airflow for a week.""")],
"2026-02-17": [("14:20", "Raised the default shuffle partitions", """Kenji and I changed `spark.sql.shuffle.partitions` in `spark/defaults.conf` from Spark's 200 to 800
(PR #1987). The nightly jobs had tasks of 2–3 GB each; with 800 they are around 250 MB and the
revenue job went from 74 to 41 minutes. Local runs keep 8 through `spark/local.conf`.""")],
"2026-02-24": [("16:00", "First release through Argo CD", """Tagged `v3.0.0`, the first riverbed release through Argo CD instead of `helm upgrade` from a
laptop. The 2025 release note is now marked superseded. Staging synced on its own, prod by hand
after the 17:00 runs were green.""")],
"2026-03-02": [("10:05", "ingest_orders_hourly runs on Dagster", """The first DAG is live on Dagster. The Airflow copy writes to `raw.orders_shadow` for the week and
`riverbed/tools/compare.py` runs after each hour. First three hours: row counts identical.""")],
"2026-03-04": [("13:45", "ADR-0009 accepted: Trino", """Elodie's ADR for Trino was accepted. Athena stays read-only until Superset has moved, then it is
switched off. dbt moves from Spark Thrift to dbt-trino; Renata expects two weeks of macro fixes.""")],
"2026-03-09": [("17:20", "Shadow comparison finished", """A full week of `ingest_orders_hourly` on both orchestrators: 168 hours, zero differences in counts
and checksums. I paused the Airflow DAG; it stays paused for two weeks before we delete it.""")],
"2026-03-11": [
 ("09:05", "orders-db disk alarm, CDC slot", """The checkout DBA paged us at 08:55: `orders-db` disk at 89% and climbing. The replication slot
`rb_debezium_orders` is holding about 400 GB of WAL. The `rb-orders-cdc` task has been FAILED since
03:10, after last night's broker rolling restart, and nothing told us."""),
 ("10:50", "Slot drained, CDC caught up", """Adaeze restarted the task at 09:20. WAL retained went from 410 GB to 2 GB by 10:40 and
`rb_cdc_lag_seconds` is back under a minute. Our lag metric stayed flat all night because there were no
events to measure; we need a heartbeat. Incident note tomorrow.""")],
"2026-03-12": [("14:00", "Postmortem of the slot bloat", """Postmortem with Adaeze, Kenji and the checkout DBA. Actions: Debezium heartbeat table (DATA-1302), an
alert on WAL retained per slot above 50 GB, and a Dagster sensor that restarts a failed connector task
once. The incident note is written.""")],
"2026-03-16": [("11:15", "Payments and customers ingestion moved", """`ingest_payments_hourly` and `ingest_customers_hourly` run on Dagster now, same procedure as the
orders one. Shorter shadow period (three days) because the code is the same module.""")],
"2026-03-23": [("15:30", "New column channel in raw.orders", """The checkout team added `channel` to the orders table. `riverbed/ingest/cdc.py` picked it up by
itself (`union_by_name`), as designed. Logged it in the schema migrations table (DATA-1310).""")],
"2026-03-24": [("10:40", "Debezium heartbeat is live", """DATA-1302 is done: heartbeat table on both source databases and `heartbeat.interval.ms=10000`.
`rb_cdc_lag_seconds` now moves even at night, and the WAL alert is in place.""")],
"2026-04-08": [("16:10", "GDPR erasure dry run", """Ines and I ran `riverbed/gdpr/erasure.py` on staging with last month's 41 requests. It touched 14
tables. Position deletes on `fct_orders` are fast, but reading afterwards is slower until the delete
files are rewritten, so the job will run `rewrite_position_delete_files` at the end.""")],
"2026-04-14": [
 ("07:20", "First automated GDPR erasure batch", """The first automated erasure batch ran on prod at 06:00 (DATA-1290): 37 requests, 14 PII tables, 52
minutes. All requests are marked done in `governance.erasure_log`. Ines checked three customers by
hand in Trino; nothing left outside the snapshots that expire in five days."""),
 ("15:40", "Erasure follow-ups", """Follow-ups from this morning's run:
- `rewrite_position_delete_files` on `analytics.fct_orders` took 31 of the 52 minutes; try it per partition.
- `dim_customers_history` was missing the `pii: true` tag; Ines added it, the next run covers it.
- The Monday schedule `0 6 * * 1` stays on Airflow until the Dagster move.""")],
"2026-04-27": [("12:00", "dbt_build_nightly on Dagster", """`dbt_build_nightly` now runs through `dagster-dbt`, one asset per model. Renata likes the lineage
view. The nightly build finished at 04:52, eight minutes faster than on Airflow.""")],
"2026-04-29": [("17:05", "Backfill runbook rewritten", """I rewrote the backfill runbook for Dagster: partition backfills from the UI or `dagster job backfill`,
at most 4 partitions in parallel, a row in the backfill log for each one. The 2025 Airflow version is
kept and marked superseded.""")],
"2026-05-11": [("10:30", "dq_checks_core moved", """`dq_checks_core` runs on Dagster, hourly at :45. Ines wants the results on `rb.dq.results` as before;
they are.""")],
"2026-05-18": [("16:45", "Re-snapshot of rb-orders-cdc", """Adaeze re-snapshotted `rb-orders-cdc` this afternoon to get the new `promo_code` column history. The
snapshot finished at 16:30; raw row counts jumped as expected.""")],
"2026-05-19": [
 ("09:40", "Revenue up 9%? No: duplicates in fct_orders", """Hugo from finance asked why yesterday's revenue is 9% higher. `analytics.fct_orders` has about 182,000
orders twice. They all come from yesterday's re-snapshot: the snapshot events (`_op = 'r'`) were taken
as new versions, and the last day of `fct_orders` was appended, not merged."""),
 ("13:10", "Deduplicating the orders", """Renata and I are writing `int_orders_deduped`: one row per `(order_id, _lsn)`, latest `_ingested_at`
wins. `fct_orders` switches to merge on `order_id`. Ticket DATA-1432. Finance dashboards have a
banner until the backfill of the two days is done.""")],
"2026-05-20": [("18:10", "Two days of fct_orders backfilled", """Backfilled `fct_orders` for 2026-05-18 and 05-19 with the dedup in place (PR #2214). Counts match the
source within 0.01%. Banner removed. Incident note written.""")],
"2026-05-26": [("11:50", "DATA-1432 closed", """Added `is_duplicate_suspect` to `analytics.fct_orders` and a warning check on its share. DATA-1432 is
closed. Re-snapshots are now announced in `#rb-eng` first, that is in MEMORY.md too.""")],
"2026-06-03": [("15:00", "ADR-0012: Feast", """We accepted Feast as the feature store. Offline on Iceberg through Trino, online in Redis. The
Postgres feature tables from 2025 go away once the churn-model reads from Feast.""")],
"2026-06-10": [("10:20", "Blocking check on stg_payments currency", """Added a `block` check: `currency` must not be null in `staging.stg_payments`. Two rows a week had no
currency and `fct_daily_revenue` silently dropped them.""")],
"2026-06-15": [("16:30", "Feast materialization running", """`feast_materialize_hourly` is live; the online store has `customer_order_stats`, `reorder_rate`
and `session_activity`. Freshness shows as `rb_feature_freshness_seconds` on the ML dashboard.""")],
"2026-06-24": [("14:10", "Trino workers on spot", """Elodie moved the Trino workers to spot nodes; the coordinator stays on demand. Queries retry on
worker loss with `retry-policy=TASK` for the `etl` group only.""")],
"2026-07-06": [("09:55", "train_churn_weekly on Dagster", """The weekly churn retrain is a Dagster job now and submits a Ray job. First run Sunday: AUC 0.806, it
registered `churn-model v12` as candidate. Signe promoted it on Tuesday after the canary.""")],
"2026-07-21": [("13:35", "S3 lifecycle for raw", """Raw prefixes move to Glacier Instant Retrieval after 180 days. Elodie expects 5k USD a month less
on S3. The lifecycle rules are in the S3 layout note.""")],
"2026-08-03": [("17:40", "Started the 2024 revenue backfill", """Started the backfill of `analytics.fct_daily_revenue` for all of 2024 after the VAT fix (DATA-1503),
366 partitions with the `large` preset. I left 12 partitions in parallel so that it finishes by
tomorrow morning.""")],
"2026-08-04": [
 ("08:30", "Backfill failing with OutOfMemoryError", """The revenue backfill failed overnight, several times: executors die with
`java.lang.OutOfMemoryError: Java heap space` in the join with the currency rates. `ingest_orders_hourly`
has been waiting for executors since 03:00, so orders are up to three hours late."""),
 ("11:15", "Backfill OOM: it is skew", """Raising `spark.executor.memory` to 32g only moved the failure. In the Spark UI one task reads 38 GB
while the median reads 90 MB: the marketplace account `c_000001`. AQE skew join was off in our
defaults. I stopped the backfill so ingestion gets its executors back."""),
 ("16:50", "Backfill OOM: plan", """Plan with Kenji: turn on `spark.sql.adaptive.skewJoin.enabled`, raise the memory overhead to 4g
(PR #2519), salt the marketplace key (DATA-1517), and never more than 4 partitions in parallel again.
That last rule goes into the backfill runbook.""")],
"2026-08-06": [("15:20", "Revenue backfill done", """With the skew handled the 2024 backfill took three hours. Counts and sums match the finance export.
The incident note about the backfill OOM is written.""")],
"2026-08-17": [("10:00", "Old feature tables dropped", """Dropped the `features` schema in the `ml-pg` Postgres. Everything reads from Feast now. The 2025
note is marked superseded.""")],
"2026-09-14": [("11:25", "gdpr_erasure_weekly moved to Dagster", """The erasure job runs on Dagster from today; first run next Monday. Ines asked for a failure to page
her directly, not just the on-call person.""")],
"2026-09-21": [("14:15", "churn-model v13 promoted", """Signe promoted `churn-model v13` to champion. It adds `days_since_last_order`. We skipped the canary
because it was only a retrain with one new feature.""")],
"2026-09-22": [
 ("09:50", "churn-model v13 scores look wrong", """CRM asked why the churn audience tripled overnight: v13 flags 31% of active customers, v12 flagged 6%.
About 40,000 customers already got a win-back voucher."""),
 ("10:10", "Rolled back to v12", """Yusuf moved the `champion` alias back to `churn-model v12` at 10:05. Cause found at 11:00: the offline
feature used UTC, the gateway computed `days_since_last_order` from local time. Classic
training/serving skew. DATA-1574 to make the gateway read the feature from Feast only.""")],
"2026-09-29": [("16:40", "DATA-1574 done", """The gateway computes no features any more; everything comes from Feast. Yusuf added the feature
parity test to the promotion checklist.""")],
"2026-09-30": [("15:05", "churn-model v14 is champion", """`churn-model v14` went through the full canary (10% Monday, 50% Tuesday) and is champion now. The
audience size is back to 6%.""")],
"2026-10-07": [("13:00", "Kafka 3.8 rolling upgrade", """Kenji upgraded `kafka-prod` to 3.8 through Strimzi, one broker at a time. Both connectors rode it out;
the heartbeat kept `rb_cdc_lag_seconds` honest the whole time. Unlike in March, no task failed.""")],
"2026-10-13": [("18:20", "Trino 467", """Elodie upgraded `trino-prod` from 455 to 467. We ran both clusters side by side for two days, which
will show on the October bill.""")],
"2026-10-15": [("11:05", "Slim CI for dbt", """Renata's slim CI is on: PRs build `state:modified+` with `--defer` against the prod manifest. A
one-model PR now takes four minutes instead of forty.""")],
"2026-10-20": [("10:45", "maintain_iceberg_nightly on Dagster", """The Iceberg maintenance job moved to Dagster today; ten DAGs moved, two left on Airflow
(`export_finance_daily` and `cost_report_monthly`, both in December).""")],
"2026-10-22": [("16:20", "Contracts on all tier-1 models", """All four tier-1 models enforce contracts now. Renata found two columns in `dim_customers` typed
`varchar` that should have been `date`; fixed before enforcing.""")],
"2026-10-27": [("11:35", "Clickstream v3: SchemaEvolutionError", """The staging run of the v3 clickstream writer stopped with
`SchemaEvolutionError: cannot change type of column session_id from string to uuid`. That is our own
guard doing its job. We keep `session_id` a string and validate the UUID format with a warn check
instead.""")],
"2026-10-28": [("15:50", "consent_flags added", """Added `consent_flags` (map) to `raw.clickstream_events` for the v3 events (DATA-1633), logged in
the schema migrations table. New checkpoint path `checkpoints/clickstream/v3/`.""")],
"2026-10-29": [("16:30", "Demo day", """Monthly demo: Renata showed slim CI, Yusuf the feature parity test, I showed the Dagster lineage of
the revenue models. Tomasz asked for the refunds data before the end of the year.""")],
"2026-10-30": [("16:10", "Weekly summary", """Shipped: contracts on tier-1 models, Iceberg maintenance on Dagster, v3 clickstream schema. Broke:
nothing in prod. Next: clickstream switch on Monday, the Q3 `fct_orders` backfill for DATA-1611.""")],
"2026-11-02": [
 ("10:15", "Handoff: Kenji on call", """On-call handoff, Kenji has the pager this week. Nothing open from last week."""),
 ("14:30", "Clickstream switched to v3", """The streaming job reads `events.clickstream.v3` since 14:00; the v2 consumer is stopped and
`events.clickstream.v2` is retired (3-day retention will empty it). Event rates match the apps'
own counts.""")],
"2026-11-03": [("09:40", "Q3 backfill of fct_orders started", """Started the backfill of `analytics.fct_orders` for 2026-07-01..2026-09-30 for the currency conversion
fix (DATA-1611): amounts are now converted at the rate of the order time, not of the load time. 92
partitions, 4 in parallel, `large` preset. First partition took 6 minutes.""")],
"2026-11-04": [("12:10", "Q3 backfill finished", """The Q3 `fct_orders` backfill finished at 11:30. `riverbed/tools/compare.py`: row counts identical,
amount sums differ by 0.4% as expected from the rate change. `fct_daily_revenue` re-derived for the
same range; Hugo confirmed the numbers. Row added to the backfill log.""")],
"2026-11-05": [("15:15", "Ray 2.40", """Signe upgraded the KubeRay cluster to Ray 2.40 and pinned `ray==2.40.0`. The churn training test run
took the same time; the GPU group scales to zero properly now.""")],
"2026-11-06": [
 ("11:00", "New feature view customer_order_stats_7d", """Signe added the `customer_order_stats_7d` feature view (orders and spend in the last 7 days) for the
next churn-model. Materialization picked it up at 11:05."""),
 ("16:25", "Weekly summary", """Shipped: clickstream on v3, the Q3 currency backfill of `fct_orders`, Ray 2.40, a new feature view.
Broke: nothing. Next week: Maya on call, churn-model v15 training on Friday.""")],
"2026-11-09": [
 ("10:05", "Handoff: I am on call", """I took the pager from Kenji. Open item: `maintain_iceberg_nightly` was slow on Saturday (orphan file
scan on `raw.clickstream_events`); watching it."""),
 ("12:30", "GDPR weekly run", """`gdpr_erasure_weekly` processed 12 requests this morning, 14 tables, 38 minutes. Nothing failed.""")],
"2026-11-10": [
 ("08:50", "Trino coordinator restarting", """Paged at 08:43: the `trino-prod` coordinator restarted, and again at 09:10. All dashboards and the
finance export fail while it is down. Workers look fine; the coordinator log shows
`java.lang.OutOfMemoryError: Java heap space`."""),
 ("10:30", "Trino: found the query", """Cause: a new Superset dashboard from Growth sends queries with an `IN` list of 180,000 customer ids;
planning them fills the 64 GB coordinator heap. Third restart at 10:15, then Priyanka disabled the
dashboard and things are stable since. Finance export rerun at 10:40."""),
 ("17:10", "Trino follow-ups", """Follow-ups for tomorrow: coordinator heap to 96 GB (DATA-1650), `query.max-length` limit, an alert on
coordinator heap. Growth rewrites the dashboard to join against a table.""")],
"2026-11-11": [
 ("11:20", "Coordinator heap 96 GB", """Elodie moved the coordinator to a bigger instance with 96 GB heap (PR #2760) and set
`query.max-length=1000000`. Yesterday's incident note is written and reviewed."""),
 ("15:00", "Postmortem: Trino coordinator", """Short postmortem. The coordinator had never been sized for planning big queries; nobody watched its
heap. Alert added at 85% for 5 minutes.""")],
"2026-11-12": [
 ("09:30", "Backfilling fct_sessions for late October", """Started a backfill of `analytics.fct_sessions` for 2026-10-26..2026-11-01: during the v2/v3
overlap both event streams were sessionized and sessions were counted twice. Seven partitions,
4 in parallel."""),
 ("16:45", "fct_sessions backfill is slow", """The sessions backfill took 2 h 10 min per partition; the shuffle stage has 800 tasks of 1.5 GB each.
That table is much bigger than the default assumes. All seven partitions done at 16:30; counts now
match the v3 stream alone. I will try a per-job override of the shuffle partitions next week.""")],
"2026-11-13": [
 ("14:40", "churn-model v15 training failed the gate", """The churn retrain with the new `customer_order_stats_7d` view reached AUC 0.789, below the 0.80 gate,
so it was not registered. Signe found that the 7-day view is null for customers younger than 7
days and LightGBM treats that as a strong signal. She will fill it with zeros and rerun Monday."""),
 ("16:30", "Weekly summary", """Shipped: Trino coordinator fix, `fct_sessions` corrected for late October. Broke: Trino on Tuesday
(90 minutes of dashboards). Next week: refunds CDC, churn-model v15 retry, the `fct_orders` amount
widening.""")],
"2026-11-16": [
 ("10:10", "Handoff: Yusuf on call", """Handed the pager to Yusuf. My week: the Trino incident on Tuesday, otherwise quiet. Open: nothing."""),
 ("11:45", "Refunds CDC live", """Added `refunds` to the `rb-payments-cdc` connector; the new topic `cdc.public.refunds` has 6
partitions, 7-day retention. `ingest_payments_hourly` lands it into `raw.refunds`, and Renata's
`stg_refunds` model is merged. DATA-1688."""),
 ("13:20", "Connector restart after the refunds change", """After the config change the task failed with `replication slot "rb_debezium_payments" is active for
PID 48211`: the old task still held the slot. With the checkout DBA we terminated that backend and
restarted the task, exactly as in the Debezium runbook. Lag back under a minute at 13:35."""),
 ("17:00", "churn-model v15 passes", """Signe reran the churn training with the 7-day features filled with zeros: AUC 0.812. Registered as
`churn-model v15` with alias `candidate`. The canary plan is written in the ticket.""")],
"2026-11-17": [
 ("10:30", "Shuffle partitions override for fct_sessions", """Set `spark.sql.shuffle.partitions=1600` for the `build_fct_sessions` job only, in its preset, with
Kenji's review. The default of 800 stays for everything else. Yesterday's nightly sessions build went from
2 h 10 min to 48 minutes."""),
 ("15:15", "Refunds history backfill plan", """The refunds topic only has changes since yesterday. For the history we will backfill `raw.refunds`
from a one-off export of `payments-db.refunds` (2024-01 to now), then build `stg_refunds`. Plan:
start Friday so it runs over the weekend, 4 partitions in parallel, before the finance close.""")],
"2026-11-18": [
 ("11:10", "amount widened in fct_orders", """`analytics.fct_orders.amount` is `decimal(18,2)` now (DATA-1679); a marketplace order of 14 billion
IDR overflowed `decimal(12,2)`. The contract change and the Iceberg type widening went in one PR;
Trino views needed no change. Released as `v3.8.2`."""),
 ("14:50", "stg_payments currency check blocked", """The `block` check on `currency` in `staging.stg_payments` stopped the 14:00 write: 312 payments
from the new provider arrive with `currency = null` and the code in `provider_currency`. The rows are
in `s3://rb-lake-prod/quarantine/stg_payments/`. Renata maps the provider field; the check stays."""),
 ("17:30", "Currency mapping merged", """Renata's fix is merged; the 16:00 write passed the check and the quarantined rows were replayed.""")],
"2026-11-19": [
 ("09:15", "ingest_orders_hourly failing: S3 SlowDown", """`ingest_orders_hourly` failed three runs in a row (06:15, 07:15, 08:15) with
`SlowDown: Please reduce your request rate` from S3 on `s3://rb-lake-prod/raw/orders/`. The writer
commits many small files per hour into one hour partition with 32 concurrent tasks."""),
 ("11:40", "S3 throttling mitigated", """Lowered the writer concurrency of the orders ingestion from 32 to 8 and turned on the Iceberg
object storage layout (`write.object-storage.enabled=true`) so files spread over prefixes. The 10:15
and 11:15 runs passed; the three failed hours were rerun. Ticket DATA-1702 stays open for a proper fix."""),
 ("15:30", "churn-model v15 canary at 10%", """Yusuf set `challenger` to `churn-model v15` and the canary share to 10% in
`deploy/inference/routes.yaml`. p99 latency the same as v14, prediction mean within 2%. 50% on Monday if
it stays like this.""")],
"2026-11-20": [
 ("09:50", "Refunds history backfill started", """Started the refunds history backfill (DATA-1688): `raw.refunds` from the one-off export, monthly
partitions 2024-01..2026-11, 4 in parallel. Then `stg_refunds` and the refunds columns in `fct_payments`.
It should be done on Sunday, well before the finance close on 12-01."""),
 ("14:00", "October cost review", """Cost review with Elodie: October was 92.8k USD, under the 95k budget but up 6.6k on September.
Movers: the two days of parallel Trino clusters for the upgrade, and the clickstream v2/v3 double
run. Both one-offs. She will tag the Ray GPU jobs per model next month."""),
 ("16:40", "Weekly summary", """Shipped: refunds CDC (history backfill running), churn-model v15 on a 10% canary, `fct_sessions`
shuffle override, `amount` widened, S3 throttling mitigated. Broke: orders ingestion yesterday morning
(three hours late). Next week: canary to 50%, DATA-1702, Airflow leftovers before the finance close.""")],
}
