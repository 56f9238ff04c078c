# Hand-written notes of the eval-d store, part 3: CDC, Kafka, dbt, Trino, quality, GDPR (read by gen_store.py).

NOTES["cdc-pipeline"] = ("CDC pipeline (Debezium and Kafka Connect)", "how change data capture works end to end, connectors and slots", """
Two Debezium Postgres connectors run on Kafka Connect (`connect-prod`, 3 workers, Strimzi):

| connector | source | replication slot | tables |
|---|---|---|---|
| `rb-orders-cdc` | `orders-db` | `rb_debezium_orders` | `orders`, `order_items`, `customers` |
| `rb-payments-cdc` | `payments-db` | `rb_debezium_payments` | `payments`, `refunds` (since 2026-11-16) |

Settings worth knowing: `plugin.name=pgoutput`, `snapshot.mode=initial`, `heartbeat.interval.ms=10000`
with a heartbeat table (added after the March slot incident), `tombstones.on.delete=true`,
`decimal.handling.mode=string`.

Events land in Kafka as `cdc.public.<table>` and the hourly ingestion jobs flatten the envelope in
`riverbed/ingest/cdc.py`: `after` fields become columns, plus `_op` (`c`, `u`, `d`, `r`), `_lsn`,
`_source_ts` and `_ingested_at`. Deduplication happens downstream in `int_orders_deduped`: one row per
`(order_id, _lsn)`, latest `_ingested_at` wins (since the May incident, DATA-1432).

Lag is `rb_cdc_lag_seconds` per connector; above 900 s for 10 minutes pages. The restart procedure
is in the Debezium connector runbook.
""")

NOTES["kafka-topics"] = ("Kafka topics", "every topic we own with partitions, retention, producer and consumer", """
Cluster `kafka-prod` (Strimzi, 5 brokers, Kafka 3.8 since 2026-10-07). Topics are declared as
`KafkaTopic` resources in `deploy/kafka/topics/`.

| topic | partitions | retention | producer | consumers |
|---|---|---|---|---|
| `cdc.public.orders` | 12 | 7 d | `rb-orders-cdc` | `ingest_orders_hourly` |
| `cdc.public.order_items` | 12 | 7 d | `rb-orders-cdc` | `ingest_orders_hourly` |
| `cdc.public.customers` | 6 | 7 d | `rb-orders-cdc` | `ingest_customers_hourly` |
| `cdc.public.payments` | 12 | 7 d | `rb-payments-cdc` | `ingest_payments_hourly` |
| `cdc.public.refunds` | 6 | 7 d | `rb-payments-cdc` | `ingest_payments_hourly` (since 2026-11-16) |
| `events.clickstream.v2` | 24 | 3 d | web + app SDK | none since 2026-11-02 (retired) |
| `events.clickstream.v3` | 48 | 3 d | web + app SDK | `riverbed/ingest/clickstream.py` |
| `rb.dq.results` | 3 | 30 d | check runner | the data quality dashboard |
| `__debezium-heartbeat.rb-orders-cdc` | 1 | 1 d | Debezium | none |

Consumer group names are `rb-<job id>`, e.g. `rb-ingest_orders_hourly`. The consumer lag runbook
covers what to do when a group falls behind.
""")

NOTES["runbook-debezium-restart"] = ("Runbook: restarting a Debezium connector", "restart, re-snapshot, replication slot checks", """
When a connector is `FAILED` or lag keeps growing:

1. Look at the status: `curl -s connect-prod:8083/connectors/rb-orders-cdc/status | jq`.
2. If a task failed with a transient error (broker rebalance, network), restart the task only:
   `curl -X POST connect-prod:8083/connectors/rb-orders-cdc/tasks/0/restart`.
3. If the error says `replication slot "rb_debezium_orders" is active for PID <n>`, an old task
   still holds the slot: terminate that backend on the source (`SELECT pg_terminate_backend(<n>)`,
   with the checkout team's DBA on the call) and restart the task.
4. Check WAL retained by the slot on the source:
   `SELECT slot_name, pg_size_pretty(pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)) FROM pg_replication_slots;`
   More than 50 GB -> tell the checkout team at once (March incident).
5. Only with Adaeze: a re-snapshot (`snapshot.mode=initial` with a new slot). It replays every
   row; downstream dedup handles it, but announce it because row counts in `raw.*` jump.

After a restart, confirm `rb_cdc_lag_seconds` drops under 60 within 15 minutes.
""")

NOTES["kafka-consumer-lag"] = ("Runbook: Kafka consumer lag", "what to do when an ingestion consumer group falls behind", """
Consumer lag (messages) per group is on the Kafka dashboard; the hourly ingestion jobs read in
batches, so some lag between runs is normal. Worry when lag at the start of a run is bigger than at
the start of the previous one three runs in a row.

- [ ] Is the job running at all? Check the Dagster run history of the job.
- [ ] Did the job fail on a schema change (`SchemaEvolutionError`)? Then see the schema note.
- [ ] Is the batch too small? `RB_INGEST_MAX_RECORDS` per run defaults to 5 million.
- [ ] Is S3 throttling the writer (`SlowDown`)? Lower the writer concurrency.
- [ ] Retention is 7 days for CDC topics: if lag approaches that, escalate to Adaeze at once, we
      would lose events and need a re-snapshot.
""")

NOTES["clickstream-ingest"] = ("Clickstream ingestion", "the Spark streaming job, checkpoints, v2 to v3 switch", """
`riverbed/ingest/clickstream.py` is a Spark structured streaming job (always on, `medium` preset)
reading `events.clickstream.v3` and appending to `raw.clickstream_events` every 2 minutes
(trigger `processingTime='2 minutes'`). The checkpoint is at
`s3://rb-lake-prod/checkpoints/clickstream/v3/`; never delete it, or the job re-reads the topic from
the earliest offset.

Streaming commits create many small files; `clickstream_compact_daily` compacts yesterday's
partition at 02:00.

History: v2 events ran until 2026-11-02; v3 adds `consent_flags` and `session_id` as a UUID. The
switch needed a schema change on `raw.clickstream_events` (2026-10-28) and a new checkpoint path.
Sessions are built by the Spark job `build_fct_sessions` into `analytics.fct_sessions`.
""")

NOTES["dbt-style-guide"] = ("dbt style guide", "naming layers, tests, incremental models, contracts", """
Layers and prefixes:
- `stg_<source>_<table>` or `stg_<table>`: one per source table, renames and casts only
  (`stg_orders`, `stg_payments`, `stg_customers`).
- `int_<what>`: intermediate logic, never queried by consumers (`int_orders_deduped`).
- `fct_<process>`: facts at a clear grain (`fct_orders`: one row per order).
- `dim_<entity>`: dimensions (`dim_customers`).

Rules:
1. Every model has a YAML entry with a description and at least `unique` + `not_null` on its key.
2. Incremental models use `incremental_strategy='merge'` with `unique_key`, and a lookback
   (`var('lookback_days', 3)`) so late rows are picked up (see the watermarks note).
3. Tier-1 models enforce contracts.
4. SQL style: lowercase keywords, CTEs named after what they hold, no `select *` in `fct_`/`dim_`.
5. Money is `decimal(18,2)` and always comes with a `currency` column.
""")

NOTES["dbt-models"] = ("Important dbt models", "table of key models, grain, materialization, owner", """
| model | Trino table | grain | materialized | owner | notes |
|---|---|---|---|---|---|
| `stg_orders` | `staging.stg_orders` | one row per CDC event | view | Renata | from `raw.orders` |
| `stg_order_items` | `staging.stg_order_items` | one row per CDC event | view | Renata | |
| `stg_payments` | `staging.stg_payments` | one row per CDC event | view | Renata | `currency` must not be null |
| `stg_refunds` | `staging.stg_refunds` | one row per CDC event | view | Renata | new 2026-11-16 |
| `int_orders_deduped` | `staging.int_orders_deduped` | one row per order version | incremental | Renata | dedup on `(order_id, _lsn)`, DATA-1432 |
| `fct_orders` | `analytics.fct_orders` | one row per order | incremental, merge | Renata | tier-1; currency conversion DATA-1611 |
| `fct_payments` | `analytics.fct_payments` | one row per payment | incremental | Renata | tier-1 |
| `dim_customers` | `analytics.dim_customers` | one row per customer | table | Renata | tier-1; SCD2 history in `dim_customers_history` |
| `fct_daily_revenue` | `analytics.fct_daily_revenue` | one row per day and country | incremental | Renata | tier-1; finance |
| `fct_sessions` | `analytics.fct_sessions` | one row per session | built by Spark, not dbt | Kenji | documented as a dbt source |
| `reorder_rate_30d` | `ml.reorder_rate_30d` | one row per customer and day | incremental | Signe | feeds the feature store |
""")

NOTES["dbt-ci"] = ("dbt CI (slim CI)", "how PRs build only modified models and defer to prod", """
Every PR that touches `dbt/` runs `dbt build --select state:modified+ --defer --state prod-manifest/`
against the `ci` schema prefix in Trino. The prod manifest is uploaded by `dbt_build_nightly` to
`s3://rb-lake-prod/dbt/manifest/`.

- CI fails on any test error; warnings are shown but do not block.
- A model with an enforced contract fails CI when a column type changes.
- The CI schemas `ci_<pr number>_*` are dropped by a nightly cleanup after the PR closes.
- Slim CI arrived in October 2026; before that every PR built the whole project (40 minutes).
""")

NOTES["watermarks-and-late-data"] = ("Watermarks and late-arriving data", "how incremental models and streaming handle late events", """
Orders can change for weeks (refunds, address corrections), and the clickstream can arrive hours
late from phones that were offline.

- dbt incremental models re-read `lookback_days` (default 3, `fct_orders` uses 7) behind the maximum
  `_source_ts` already in the target and merge on the key. That maximum is the model's watermark.
- The clickstream streaming job uses `withWatermark('event_ts', '6 hours')` for sessionization;
  events later than that land in `raw.clickstream_late` and are merged by the daily compaction.
- When a source fixes data older than the lookback, we do a backfill, not a bigger lookback.
- The watermark of each tier-1 model is exported as `rb_model_watermark_lag_seconds`.
""")

NOTES["trino"] = ("Trino cluster", "trino-prod setup, catalogs, resource groups, upgrades", """
`trino-prod` runs on EKS: one coordinator (on-demand r6i.4xlarge, 96 GB heap since 2026-11-11) and
8–24 workers on spot (autoscaled by queue length). Version 467 since 2026-10-13 (was 455).

Catalogs: `lake` (Iceberg REST), `orders_pg` (read replica of orders-db, for spot checks only),
`system`. Clients read the catalog name from `RB_TRINO_CATALOG`.

Resource groups (`deploy/trino/resource-groups.json`):

| group | who | max running | max queued | memory share |
|---|---|---|---|---|
| `etl` | dbt, Dagster | 20 | 200 | 50% |
| `dashboards` | Superset | 30 | 300 | 25% |
| `analysts` | people | 10 per user | 50 | 20% |
| `adhoc-heavy` | approved big queries | 2 | 10 | 30% (borrowed) |

Limits: `query.max-memory-per-node=24GB`, `query.max-execution-time=2h` for `analysts`. A query over
the node limit fails with `Query exceeded per-node memory limit of 24GB`
(`EXCEEDED_LOCAL_MEMORY_LIMIT`); rewrite it rather than asking for more.
""")

NOTES["data-quality"] = ("Data quality checks: how they work", "the check runner, severities, quarantine, alerts", """
Checks are Great Expectations-style expectations written in YAML suites under
`riverbed/quality/suites/` and run by `riverbed/quality/checks.py`, either inside the job that
writes a table (before the Iceberg commit is published) or on a schedule (`dq_checks_core`).

Severities:
- `block`: the write is not published; the new snapshot stays on a branch (`audit`) and the rows go
  to `s3://rb-lake-prod/quarantine/`. Tier-1 tables page.
- `warn`: written, reported to `#rb-alerts` and to the `rb.dq.results` topic.

This is write-audit-publish on Iceberg branches: writers commit to the `audit` branch, the checks
run, and only then `fast_forward` moves `main`. `RB_DQ_FAIL_MODE=warn` turns every `block` into a
`warn` (staging only).

The checks per table are listed in the data quality checks note.
""")

NOTES["data-quality-checks"] = ("Data quality checks per table", "table of expectations on the tier-1 tables", """
| table | check | severity | since |
|---|---|---|---|
| `analytics.fct_orders` | `order_id` unique | block | 2025 |
| `analytics.fct_orders` | `amount` >= 0 unless `status = 'refunded'` | block | 2025 |
| `analytics.fct_orders` | row count within 30% of the same weekday last week | warn | 2026-02 |
| `analytics.fct_orders` | `is_duplicate_suspect` share < 0.1% | warn | 2026-05 (after the duplicates incident) |
| `analytics.fct_payments` | `payment_id` unique | block | 2025 |
| `staging.stg_payments` | `currency` not null | block | 2026-06 |
| `analytics.dim_customers` | `customer_id` unique where `is_current` | block | 2025 |
| `analytics.fct_daily_revenue` | sum equals `fct_orders` sum per day (tolerance 0.01%) | block | 2026-03 |
| `raw.clickstream_events` | `session_id` is a UUID | warn | 2026-10 |
| `ml.customer_order_stats` | freshness < 2 h | warn | 2026-06 |
""")

NOTES["gdpr-erasure"] = ("GDPR erasure procedure", "how a deletion request is applied to the lake within 30 days", """
Erasure requests come from the privacy tool as rows in `orders-db.privacy_requests`, which reach us
through CDC as `raw.privacy_requests`. `gdpr_erasure_weekly` (Monday 06:00) runs
`riverbed/gdpr/erasure.py`:

1. Collect open requests older than 48 hours (the grace period for cancelled requests).
2. For every table tagged `pii: true` in the dbt YAML or the raw table registry, issue
   `DELETE FROM <table> WHERE customer_id IN (...)`. Iceberg writes position deletes (merge-on-read).
3. Run `rewrite_position_delete_files` on the touched tables so the deletes are applied to data files.
4. Snapshots older than 5 days are expired nightly on PII tables, so the old data disappears from
   time travel well within the 30-day deadline.
5. Write the request ids and the tables touched to `governance.erasure_log`; mark the requests done.

Checklist when a run fails:
- [ ] Which table failed? A `CommitFailedException` means a writer raced us; rerun the job.
- [ ] Tell Ines the same day; the 30-day clock does not stop.
- [ ] Never delete from the Kafka topics: their 7-day retention handles them.

The first automated batch ran on 2026-04-14 (DATA-1290). Before that Ines ran the deletes by hand.
""")

NOTES["access-requests"] = ("Access to the lake and Trino", "how people get access, PII roles, reviews", """
Access is granted through groups in the identity provider, never per user in Trino.

| group | can read | approve |
|---|---|---|
| `rb-analysts` | `analytics`, `staging` without PII columns | Renata |
| `rb-pii-readers` | everything including PII columns | Ines + manager |
| `rb-ml` | `ml`, `analytics` | Signe |
| `rb-engineers` | everything, write to `staging` | Tomasz |

PII columns are masked with Trino column masks for everyone outside `rb-pii-readers`. Access reviews
are quarterly (Ines); unused grants older than 90 days are removed.
""")
