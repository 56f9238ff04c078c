# Hand-written notes of the eval-d store, part 2: Spark, Iceberg, backfills, S3 (read by gen_store.py).

NOTES["spark-on-k8s"] = ("Spark on Kubernetes", "how Spark applications are submitted and sized on EKS", """
Spark 3.5.3 runs on EKS through the Kubeflow Spark operator. A job is a `SparkApplication`
resource rendered from `spark/templates/` by the Dagster job that owns it (`dagster-k8s` + our
`spark_app` resource). Nobody runs `spark-submit` by hand in prod.

- Image: `RB_SPARK_IMAGE` (currently `rb-spark:3.5.3-iceberg1.7.0`).
- Node pools: `spark-driver` (on-demand, m6i.2xlarge) and `spark-exec` (spot, r6i.4xlarge). Driver
  pods must never land on spot: the pod template sets the node selector.
- Sizes come in three presets in `spark/presets.yaml`: `small` (4 executors), `medium` (20),
  `large` (dynamic allocation up to 60). Backfills use `large`.
- The Spark UI of a running application is port-forwarded with `make spark-ui APP=<name>`; the
  history server is `spark-history.rb.internal` (event logs in `s3://rb-lake-prod/spark-events/`).

When an executor dies with `OutOfMemoryError: Java heap space`, read the Spark tuning note before
raising memory: most of our OOMs were skew, not size.
""")

NOTES["spark-config-keys"] = ("Spark configuration keys we set", "table of spark.* keys with prod values and why", """
Defaults for every Riverbed Spark application, set in `spark/defaults.conf`. Per-job overrides live
in the job's preset and are listed in the last column. Change a default only with Kenji's review.

| key | prod value | why / overrides |
|---|---|---|
| `spark.sql.shuffle.partitions` | `800` | was 200 until 2026-02-17; `fct_sessions` job overrides to 1600 since 2026-11-17 |
| `spark.default.parallelism` | `400` | RDD code paths only |
| `spark.executor.memory` | `16g` | backfills with the `large` preset keep 16g |
| `spark.executor.memoryOverhead` | `4g` | raised from 2g after the August backfill OOM |
| `spark.executor.cores` | `4` | |
| `spark.driver.memory` | `8g` | |
| `spark.sql.adaptive.enabled` | `true` | |
| `spark.sql.adaptive.skewJoin.enabled` | `true` | turned on after the August backfill OOM |
| `spark.sql.adaptive.advisoryPartitionSizeInBytes` | `256m` | |
| `spark.sql.files.maxPartitionBytes` | `256m` | |
| `spark.dynamicAllocation.enabled` | `true` | with shuffle tracking |
| `spark.dynamicAllocation.maxExecutors` | `60` | `large` preset; 20 for `medium` |
| `spark.sql.catalog.lake` | `org.apache.iceberg.spark.SparkCatalog` | type `rest`, URI from `RB_ICEBERG_REST_URI` |
| `spark.sql.extensions` | `org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions` | needed for `CALL` procedures |
| `spark.sql.session.timeZone` | `UTC` | always UTC; see the churn-model skew incident |
| `spark.kubernetes.executor.podTemplateFile` | `spark/pod-exec.yaml` | spot node selector |
""")

NOTES["spark-tuning"] = ("Spark tuning guide", "what to try when a Spark job is slow or runs out of memory", """
A checklist in the order we try things. Most of our problems were skew and small files, not a lack
of memory.

1. **Look at the stage in the Spark UI.** If one task takes 10x the median, it is skew.
2. **Skew in a join:** make sure AQE skew join is on (`spark.sql.adaptive.skewJoin.enabled`); if a
   single key dominates (the marketplace customer `c_000001` in orders), salt it: add
   `salt = pmod(hash(order_id), 16)` on the big side and explode the small side.
3. **Too many small tasks:** lower `spark.sql.shuffle.partitions` for that job or rely on AQE
   coalescing; too few big tasks: raise it. Aim for 128–256 MB per shuffle partition.
4. **Small input files:** compact the Iceberg table first (see the compaction runbook).
5. **Executors killed by Kubernetes (exit code 137):** that is the memory overhead, not the heap;
   raise `spark.executor.memoryOverhead`.
6. **Java heap OOM on the driver:** someone called `collect()` or broadcast a big table; check
   `spark.sql.autoBroadcastJoinThreshold` (we leave it at 10 MB).
7. Only then raise `spark.executor.memory`.
""")

NOTES["iceberg-maintenance"] = ("Iceberg table maintenance", "compaction, snapshot expiry and orphan files, and the nightly job", """
Iceberg does not clean up after itself. `maintain_iceberg_nightly` (Dagster, `30 1 * * *`, Kenji)
runs `riverbed/maintenance/iceberg.py` over every table in the `lake` catalog:

- **Compaction**: `CALL lake.system.rewrite_data_files(...)` with the `binpack` strategy, target
  file size 512 MB, only partitions with more than 20 files below 64 MB. Streaming tables
  (`raw.clickstream_events`) are compacted separately by `clickstream_compact_daily`.
- **Delete files**: `rewrite_position_delete_files` after compaction, so GDPR deletes do not pile up.
- **Snapshot expiry**: `expire_snapshots` older than 7 days, keeping at least 10 snapshots. Tables
  with PII keep only 5 days, so erased rows also disappear from time travel within 30 days.
- **Orphan files**: `remove_orphan_files` older than 3 days, weekly on Sundays only.
- **Manifests**: `rewrite_manifests` when a table has more than 500 manifests.

Until 2026-10-20 this ran as an Airflow DAG with the same id. A failed maintenance run does not page;
it shows up in the morning checklist.
""")

NOTES["iceberg-compaction-runbook"] = ("Runbook: manual Iceberg compaction", "compacting one table by hand when the nightly job is not enough", """
Use this when a table has so many small files that queries or the nightly job time out.

1. Check the file count per partition in Trino:
   `SELECT partition, file_count FROM lake.analytics."fct_orders$partitions" ORDER BY file_count DESC LIMIT 20`.
2. Pause the writers of the table if they commit more often than every 10 minutes, or expect
   `CommitFailedException` retries.
3. Run the compaction from a Spark shell with the `large` preset:
   `CALL lake.system.rewrite_data_files(table => 'analytics.fct_orders', where => 'order_date >= date ''2026-10-01''', options => map('partial-progress.enabled','true','max-concurrent-file-group-rewrites','20'))`.
4. Rewrite the position deletes: `CALL lake.system.rewrite_position_delete_files('analytics.fct_orders')`.
5. Expire the old snapshots so the small files are actually removed.
6. Unpause the writers; note the run in the channel and in the daily log.

`partial-progress.enabled` matters: without it one conflicting commit throws away an hour of work.
""")

NOTES["partitioning-guide"] = ("Partitioning guide for Iceberg tables", "how we choose partition specs, and partition evolution", """
We use Iceberg hidden partitioning; queries filter on the source column and never on a partition
column.

| table kind | spec | example |
|---|---|---|
| event facts (orders, payments) | `days(event_ts)` | `analytics.fct_orders` is partitioned by `days(order_ts)` |
| very large facts | `days(event_ts), bucket(16, customer_id)` | `analytics.fct_sessions` |
| raw CDC landings | `hours(_ingested_at)` | `raw.orders` |
| dimensions | unpartitioned | `analytics.dim_customers` |
| features | `days(event_ts)` | `ml.customer_order_stats` |

Rules:
- Aim for partitions between 1 and 50 GB; below that, partition coarser (`months`).
- Changing a spec is partition evolution: `ALTER TABLE ... ADD PARTITION FIELD`; old data keeps the
  old spec until it is rewritten. Note it in the schema migrations log.
- Never partition by a high-cardinality column without a bucket transform.
""")

NOTES["backfill-runbook"] = ("Backfill runbook (current, Dagster)", "step-by-step procedure to backfill a partitioned asset or table", """
This replaces the 2025 runbook for Airflow. Use it for any backfill of more than one partition.

Before you start:
- [ ] Open a Jira ticket (DATA project) and write the reason, the date range and the tables.
- [ ] Estimate size: rows and bytes per partition from `$partitions`; ask Elodie if more than 5 TB
      will be scanned.
- [ ] Check that the range does not overlap the finance close (first three working days of a month)
      for `fct_orders`, `fct_payments` and `fct_daily_revenue`.
- [ ] Tell `#rb-eng` which tables will be rewritten and when.

Running it:
1. In the Dagster UI, select the asset, choose *Materialize -> backfill*, select the partitions.
   From the CLI: `dagster job backfill -j <job> --partitions 2026-07-01...2026-07-31`.
2. Use the `large` Spark preset and at most 4 partitions in parallel (`max_concurrent` tag), or
   the job starves the hourly ingestion of executors.
3. Backfill writes with `INSERT OVERWRITE` per partition (dynamic overwrite mode), so a rerun is
   idempotent.
4. Watch the first partition to the end before leaving it alone.

Afterwards:
- [ ] Run the data quality suite of the table for the range.
- [ ] Compare row counts with `riverbed/tools/compare.py` against the old snapshot (time travel).
- [ ] Expire the snapshots only after the consumers confirm.
- [ ] Add a row to the backfill log note.
""")

NOTES["backfill-runbook-2025"] = ("Backfill runbook (2025, Airflow) — superseded", "the old Airflow backfill procedure, kept for history", """
Superseded by the current backfill runbook (Dagster) in April 2026. Kept because the two legacy
Airflow DAGs still use parts of it.

1. Pause the DAG in the Airflow UI.
2. `airflow dags backfill -s 2025-06-01 -e 2025-06-30 --reset-dagruns <dag_id>`.
3. Watch the pool `spark_pool` (8 slots); the backfill takes all of them.
4. Spark jobs ran with `spark.sql.shuffle.partitions=200` and 8g executors; raise by hand for big
   ranges.
5. Hive partitions were overwritten with `INSERT OVERWRITE ... PARTITION (dt=...)`.
6. Unpause the DAG and clear the failed task instances.

Known problems then: the backfill and the scheduled runs raced on the same partition; no checksum
comparison; nobody logged which backfills were done.
""")

NOTES["schema-migrations"] = ("Schema changes and migrations", "how to evolve Iceberg and dbt schemas safely; SchemaEvolutionError", """
Iceberg supports adding, renaming, widening and dropping columns without rewriting data. Our rules:

- **Add a column**: always allowed. Add it as optional; readers that do not know it ignore it.
- **Rename**: allowed in Iceberg, but dbt models and Trino views refer to names; rename in one PR
  with every downstream model, and keep a view with the old name for one release.
- **Widen a type** (`int` -> `bigint`, `float` -> `double`, decimal precision up): allowed.
- **Narrow or change a type** (`string` -> `int`): not allowed; create a new column.
- **Drop**: only after a deprecation period of 30 days with the column announced in `#rb-eng`.

Streaming and CDC: when the source adds a column, `riverbed/ingest/cdc.py` adds it to the raw table
automatically (`union_by_name`). When the source *changes a type*, the writer stops with
`SchemaEvolutionError: cannot change type of column <col> from <a> to <b>` and the hourly job fails
until someone decides. That is deliberate.

dbt contracts: tier-1 models have `contract: {enforced: true}`; a changed column type fails the build
with a contract error, which is the point.

Keep a line per migration in the table below.

| date | table | change | ticket |
|---|---|---|---|
| 2026-03-23 | `raw.orders` | add `channel` (string) | DATA-1310 |
| 2026-05-26 | `analytics.fct_orders` | add `is_duplicate_suspect` (boolean) | DATA-1432 |
| 2026-07-14 | `analytics.dim_customers` | partition evolution: none -> none, sort order by `country` | DATA-1488 |
| 2026-10-28 | `raw.clickstream_events` | add `consent_flags` (map) for v3 events | DATA-1633 |
| 2026-11-18 | `analytics.fct_orders` | `amount` decimal(12,2) -> decimal(18,2) | DATA-1679 |
""")

NOTES["s3-layout"] = ("S3 buckets and prefixes", "bucket names, prefixes per zone, lifecycle rules", """
| bucket / prefix | what | lifecycle |
|---|---|---|
| `s3://rb-lake-prod/raw/` | raw Iceberg tables from CDC and files (`raw/orders/`, `raw/payments/`, ...) | Glacier IR after 180 days |
| `s3://rb-lake-prod/warehouse/analytics/` | dbt-built Iceberg tables | none |
| `s3://rb-lake-prod/warehouse/ml/` | feature tables, training sets | 365 days |
| `s3://rb-lake-prod/landing/` | partner file drops before ingestion | delete after 30 days |
| `s3://rb-lake-prod/quarantine/` | rows rejected by data quality checks | delete after 90 days |
| `s3://rb-lake-prod/checkpoints/` | Spark streaming checkpoints | never delete by hand |
| `s3://rb-lake-prod/spark-events/` | Spark event logs for the history server | 30 days |
| `s3://rb-ml-artifacts-prod/mlflow/` | MLflow artifacts (models, plots) | none |
| `s3://rb-ml-artifacts-prod/triton/` | the Triton model repository | none |
| `s3://rb-lake-staging/` | staging copies of all of the above | 30 days everywhere |

The raw orders landing path is `s3://rb-lake-prod/raw/orders/` (Iceberg data and metadata under it).
Requests are throttled per prefix: many small writes to one prefix give `SlowDown: Please reduce
your request rate`. Spread writes over partitions or lower the writer concurrency.
""")

NOTES["retention-policy"] = ("Data retention policy", "how long each zone and kind of data is kept", """
Agreed with Ines and legal in 2025, reviewed 2026-06.

- Raw CDC tables: 2 years, then deleted; older history lives only in the analytics facts.
- Clickstream raw events: 13 months.
- Analytics facts and dimensions: 7 years (finance requirement for orders and payments).
- Feature tables: 1 year; training sets are regenerated, not kept.
- Quarantine prefix: 90 days. Landing prefix: 30 days.
- Iceberg snapshots: 7 days (5 for tables with PII), see the Iceberg maintenance note.
- Kafka topics: 7 days for CDC topics, 3 days for clickstream.
- Personal data of an erased customer: removed from every table within 30 days of the request.
""")
