# Hand-written notes of the eval-d store, part 1 (read by gen_store.py).
# name -> (title, one-line description for MEMORY.md, body)
NOTES = {}

NOTES["architecture"] = ("Riverbed platform architecture", "the big picture: ingestion, lake, orchestration, serving", """
Riverbed is the internal data platform of the company; the repository is still called `tidewater`
for historical reasons (it started as the tide of nightly exports). Everything that moves data from
the operational databases into the lake, everything that shapes it with dbt, and everything that
trains and serves our models lives here.

The layers, from source to consumer:

1. **Sources.** The `orders-db` and `payments-db` Postgres clusters (owned by the checkout team),
   plus the clickstream from the web and mobile apps.
2. **Ingestion.** Debezium on Kafka Connect reads the Postgres WAL and writes change events to
   Kafka topics named `cdc.public.<table>` (see the Kafka topics note). The clickstream arrives on
   `events.clickstream.v3`. Hourly Dagster jobs land the topics as Iceberg tables in the raw zone.
3. **Lake.** Apache Iceberg tables on S3 (`s3://rb-lake-prod/`), one Glue-less REST catalog
   (`lake`) served by our Iceberg REST service. Zones: `raw`, `staging`, `analytics`, `ml`.
4. **Transformation.** dbt (dbt-trino adapter) builds `stg_*`, `int_*`, `fct_*` and `dim_*` models;
   heavy incremental work runs as Spark 3.5 jobs on Kubernetes through the Spark operator.
5. **Query.** Trino (cluster `trino-prod`) is the only interactive engine. Analysts, Superset and
   the finance exports all go through it.
6. **ML.** Features are defined in the Feast feature store (offline store = Iceberg via Trino,
   online store = Redis). Training runs on Ray (KubeRay), experiments and the model registry are in
   MLflow, and online inference is served by Triton behind the `rb-inference` gateway.
7. **Orchestration.** Dagster since the 2026 migration (ADR-0006); a few legacy Airflow DAGs remain
   until the end of the year.

Everything runs on the `rb-data-prod` EKS cluster in `eu-west-1`; staging is `rb-data-staging`.
""")

NOTES["people"] = ("People and who owns what", "team members, areas, review preferences", """
| person | role | owns | review preferences |
|---|---|---|---|
| Tomasz Wierzbicki | engineering manager | priorities, roadmap, hiring | wants a Jira key in every PR title |
| Adaeze Okafor | data engineer | CDC, Debezium, Kafka Connect, ingestion DAGs | reviews every connector config change |
| Renata Duarte | analytics engineer | dbt project, model contracts, finance exports | asks for a dbt test with every new model |
| Kenji Morita | platform engineer | Spark on Kubernetes, EKS, Iceberg maintenance | likes the Spark UI screenshot in the PR |
| Signe Lund | ML engineer | training on Ray, MLflow registry, churn-model | wants the MLflow run link in the PR |
| Yusuf Demir | ML engineer | serving (Triton, rb-inference), feature store online path | canary plan written down before merge |
| Ines Carvalho | data governance | data quality checks, GDPR erasure, access reviews | reads every PR that touches PII columns |
| Elodie Marchand | FinOps / Trino | Trino cluster, cost tracking, resource groups | asks for an estimate of scanned bytes |
| Maya (me) | data engineer | backfills, Dagster migration, the glue in between | — |

Stakeholders outside the team: Finance (Hugo, month-end close), Growth analytics (Priyanka),
Fraud (Mateus, consumer of `fraud-score`).
""")

NOTES["oncall"] = ("On-call rotation and handoff", "who carries the pager, the Monday handoff, what pages", """
We run a one-week rotation, handing over on **Monday at 10:00** in `#rb-oncall`. The outgoing
person writes a short handoff: what paged, what was snoozed, what is still open.

Rotation order: Adaeze, Kenji, Maya, Yusuf, Elodie, Renata. Signe and Ines are in the secondary
rotation only (they get escalations, not first pages).

What pages (PagerDuty service `riverbed-prod`):
- a Dagster asset or job with an SLA missing it by more than 30 minutes (see the SLAs note);
- `rb_cdc_lag_seconds` above 900 for 10 minutes on any connector;
- Trino coordinator down or queued queries above 200;
- `rb-inference` p99 above 250 ms or 5xx above 1%;
- a data quality check with severity `block` failing on a tier-1 table.

What does not page: dbt test warnings, cost anomalies (they go to `#rb-cost` the next morning),
staging anything.

Checklist for the person on call, first thing each day:
- [ ] Look at the Dagster run timeline for red runs since yesterday.
- [ ] Check the CDC lag dashboard (all connectors below 60 s).
- [ ] Skim `#rb-alerts` for snoozed alerts that came back.
- [ ] Confirm last night's `dbt_build_nightly` finished before 06:00.
""")

NOTES["dag-catalog"] = ("DAG and job catalog", "every scheduled Dagster job/Airflow DAG id with cron, owner, SLA", """
The schedule of every job we run in production. Dagster job names keep the old Airflow DAG ids so
that dashboards and alerts did not have to change during the migration. Crons are in UTC.

| job / DAG id | orchestrator | cron | owner | SLA (UTC) | what it does |
|---|---|---|---|---|---|
| `ingest_orders_hourly` | Dagster | `15 * * * *` | Adaeze | :55 past | lands `cdc.public.orders` + `order_items` into `raw.orders` |
| `ingest_payments_hourly` | Dagster | `20 * * * *` | Adaeze | :55 past | lands `cdc.public.payments` and `refunds` |
| `ingest_customers_hourly` | Dagster | `25 * * * *` | Adaeze | :55 past | lands `cdc.public.customers` |
| `clickstream_compact_daily` | Dagster | `0 2 * * *` | Kenji | 04:00 | compacts the streaming clickstream files |
| `dbt_build_nightly` | Dagster | `0 3 * * *` | Renata | 06:00 | `dbt build` of all tier-1 models |
| `dq_checks_core` | Dagster | `45 * * * *` | Ines | — | runs the core data quality suites |
| `maintain_iceberg_nightly` | Dagster | `30 1 * * *` | Kenji | 03:00 | compaction, snapshot expiry, orphan files |
| `feast_materialize_hourly` | Dagster | `5 * * * *` | Yusuf | :30 past | pushes feature views to the Redis online store |
| `train_churn_weekly` | Dagster | `0 4 * * 0` | Signe | Sunday 12:00 | retrains churn-model on Ray |
| `gdpr_erasure_weekly` | Dagster | `0 6 * * 1` | Ines | Monday 12:00 | applies erasure requests to every PII table |
| `export_finance_daily` | Airflow (legacy) | `30 5 * * *` | Renata | 07:00 | CSV exports for finance |
| `cost_report_monthly` | Airflow (legacy) | `0 7 1 * *` | Elodie | 2nd of month | cost per team and per dataset |

Partitioned assets (Dagster) have daily or hourly partitions; backfills go through the Dagster UI
or `dagster job backfill` (see the backfill runbook).
""")

NOTES["dagster-migration"] = ("Airflow to Dagster migration status", "which DAGs moved, which remain, the cutover checklist", """
The migration decided in ADR-0006 started in February 2026. We move one DAG at a time and keep the
DAG id as the Dagster job name.

| DAG id | moved | notes |
|---|---|---|
| `ingest_orders_hourly` | 2026-03-02 | first one; ran in parallel with Airflow for a week |
| `ingest_payments_hourly` | 2026-03-16 | |
| `ingest_customers_hourly` | 2026-03-16 | |
| `dbt_build_nightly` | 2026-04-27 | uses `dagster-dbt`, one asset per model |
| `dq_checks_core` | 2026-05-11 | |
| `feast_materialize_hourly` | 2026-06-15 | new, never existed in Airflow |
| `train_churn_weekly` | 2026-07-06 | |
| `clickstream_compact_daily` | 2026-08-24 | |
| `gdpr_erasure_weekly` | 2026-09-14 | |
| `maintain_iceberg_nightly` | 2026-10-20 | |
| `export_finance_daily` | planned 2026-12 | after the finance close, Renata |
| `cost_report_monthly` | planned 2026-12 | Elodie |

Cutover checklist for one DAG:
1. Port the DAG to `dagster_riverbed/jobs/<name>.py`, same schedule, same name.
2. Run both for at least three days, the Airflow one writing to a shadow table.
3. Compare row counts and a checksum per partition (`riverbed/tools/compare.py`).
4. Pause the Airflow DAG, do not delete it for two weeks.
5. Move the alerts and the SLA in PagerDuty, update the DAG catalog note.
""")

NOTES["airflow-legacy"] = ("Legacy Airflow (what is still there)", "the remaining Airflow 2.7 deployment and how to touch it", """
The old Airflow 2.7 deployment (`airflow-legacy` namespace, web UI at `airflow.rb.internal`) still
runs two DAGs: `export_finance_daily` and `cost_report_monthly`. Everything else was moved to
Dagster in 2026 and is paused there.

- Do not add new DAGs to Airflow.
- The scheduler pod restarts itself when the metadata DB connection pool is exhausted; if
  `export_finance_daily` has not started by 05:45, restart the scheduler
  (`kubectl -n airflow-legacy rollout restart deploy/airflow-scheduler`).
- Backfills in Airflow: `airflow dags backfill -s <start> -e <end> <dag_id>`; see the 2025 backfill
  runbook for the old procedure. We do not backfill these two DAGs any more; we rerun single days.
- Shutdown plan: after both DAGs move to Dagster in December, the namespace is deleted in January.
""")

NOTES["adr-0003-iceberg"] = ("ADR-0003: Apache Iceberg as the table format", "why Iceberg over Delta Lake and Hive tables (2025)", """
Status: accepted (2025-04-08). Deciders: Kenji, Tomasz, Maya.

Context: the lake was a pile of Hive-partitioned Parquet on S3 with a Hive metastore. Schema changes
broke readers, partition listing on S3 was slow and there were no atomic commits, so a failed job
left half-written partitions.

Decision: use Apache Iceberg (format version 2) for every table in the lake, with a REST catalog.

Why not Delta Lake: Trino support was behind at the time and we did not want to depend on one
vendor's runtime for the good features.

Consequences:
- Hidden partitioning lets us change partitioning without rewriting queries (see partitioning guide).
- Row-level deletes (position and equality deletes) make GDPR erasure possible without rewriting
  whole partitions every time.
- We must run table maintenance ourselves: compaction, snapshot expiry, orphan file removal.
""")

NOTES["adr-0006-dagster"] = ("ADR-0006: Dagster replaces Airflow", "orchestration decision of February 2026", """
Status: accepted (2026-02-11). Deciders: Maya, Adaeze, Renata, Tomasz.

Context: Airflow DAGs were task-centric; nobody could say which table a DAG produced, backfills of
partitioned tables were manual, and local testing of a DAG was painful.

Decision: move orchestration to Dagster (software-defined assets, partitions, `dagster-dbt`).
Keep job names equal to the old DAG ids.

Alternatives: stay on Airflow 2 with datasets (too little, and no partition-aware backfills);
Prefect (no asset model at the time).

Consequences: a migration over 2026 (tracked in the Dagster migration note, epic DATA-1350);
Dagster code lives in `dagster_riverbed/`; the Dagster webserver is `dagster.rb.internal`.
""")

NOTES["adr-0009-trino"] = ("ADR-0009: Trino as the query engine", "Trino over Athena and Spark Thrift, March 2026", """
Status: accepted (2026-03-04). Deciders: Elodie, Kenji, Renata.

Context: analysts used Athena, dbt used Spark Thrift Server. Two engines meant two SQL dialects in
dbt macros, and Athena cost per scanned terabyte was hard to control.

Decision: run our own Trino cluster on EKS (`trino-prod`) for interactive queries and for dbt
(dbt-trino). Spark stays for heavy batch jobs and streaming.

Consequences:
- Resource groups per team to stop one dashboard eating the cluster (see the Trino note).
- Spot nodes for workers, on-demand for the coordinator.
- The catalog name is `lake`; clients read it from `RB_TRINO_CATALOG`.
""")

NOTES["adr-0012-feature-store"] = ("ADR-0012: Feast as the feature store", "replaces the homegrown Postgres feature tables, June 2026", """
Status: accepted (2026-06-03). Deciders: Signe, Yusuf, Maya.

Context: features lived in Postgres tables filled by cron scripts (see the 2025 feature store note).
Training read them with a different query than serving did, which is exactly how training/serving
skew happens; point-in-time correctness was not guaranteed.

Decision: use Feast. Offline store = Iceberg tables read through Trino; online store = Redis
(`rb-feast-redis`). Feature definitions in `riverbed/features/repo/`.

Consequences: one definition per feature for training and serving; point-in-time joins for training
sets; a materialization job (`feast_materialize_hourly`). The old Postgres tables are dropped after
the churn-model moves over.
""")

NOTES["adr-0014-debezium"] = ("ADR-0014: Debezium CDC instead of nightly extracts", "log-based change data capture decision", """
Status: accepted (2025-11-19). Deciders: Adaeze, Maya, Kenji.

Context: nightly `COPY` extracts of the orders and payments databases took four hours, missed
deletes, and data was a day old.

Decision: capture changes with Debezium (Postgres connector, `pgoutput` plugin) on Kafka Connect,
one connector per source database, topics `cdc.public.<table>`.

Consequences:
- Replication slots on the source databases; a stuck connector makes WAL pile up on the source
  (we learned that in March 2026, see the incident note on slot bloat).
- Consumers must deduplicate: after a connector restart or a re-snapshot, events repeat.
- Deletes arrive as tombstones and `op = 'd'` events; ingestion keeps them as soft deletes.
""")

NOTES["repo-layout"] = ("Repository layout", "where the Python modules, Dagster code and dbt project live", """
| path | what |
|---|---|
| `riverbed/ingest/cdc.py` | reads CDC topics, flattens Debezium envelopes, writes raw Iceberg tables |
| `riverbed/ingest/s3_landing.py` | file drops from partners into `s3://rb-lake-prod/landing/` |
| `riverbed/ingest/clickstream.py` | Spark structured streaming job for the clickstream |
| `riverbed/quality/checks.py` | the check runner; suites in `riverbed/quality/suites/*.yaml` |
| `riverbed/gdpr/erasure.py` | erasure requests -> Iceberg deletes |
| `riverbed/maintenance/iceberg.py` | compaction, expire snapshots, orphan files |
| `riverbed/features/repo/` | Feast feature repository |
| `riverbed/train/churn.py` | churn-model training on Ray |
| `riverbed/serve/triton_export.py` | exports registered models to the Triton model repository |
| `riverbed/cost/report.py` | the monthly cost report |
| `riverbed/tools/compare.py` | row count and checksum comparison between two tables |
| `dagster_riverbed/definitions.py` | the Dagster `Definitions` object: all jobs, schedules, sensors |
| `dagster_riverbed/jobs/` | one module per job |
| `dbt/` | the dbt project (`rb_dbt`) |
| `spark/` | Spark application templates and pod templates |
| `deploy/` | Helm values per environment |
""")

NOTES["env-vars"] = ("Environment variables", "RB_* variables read by jobs and clients, with prod values", """
Every job reads its settings from environment variables prefixed `RB_`; Helm values set them per
environment. Local defaults live in `.env.example`.

| variable | prod value | used by |
|---|---|---|
| `RB_ENV` | `prod` | everything; `staging` or `local` elsewhere |
| `RB_TRINO_HOST` | `trino.rb.internal:8443` | dbt, Superset, notebooks |
| `RB_TRINO_CATALOG` | `lake` | dbt profiles, `riverbed/tools`, notebooks |
| `RB_LAKE_BUCKET` | `rb-lake-prod` | ingestion, maintenance |
| `RB_ICEBERG_REST_URI` | `https://iceberg.rb.internal` | Spark, Trino, pyiceberg |
| `RB_MLFLOW_TRACKING_URI` | `https://mlflow.rb.internal` | training, serving export |
| `RB_SPARK_IMAGE` | `rb-spark:3.5.3-iceberg1.7.0` | Spark applications |
| `RB_DQ_FAIL_MODE` | `block` | the check runner (`warn` in staging) |
| `RB_FEAST_REPO` | `riverbed/features/repo` | Feast CLI, materialization |
| `RB_KAFKA_BOOTSTRAP` | `kafka-prod.rb.internal:9094` | ingestion, Connect |

Changing `RB_TRINO_CATALOG` away from `lake` breaks every dbt source; do not do it outside local.
""")

NOTES["local-dev"] = ("Local development setup", "how to run jobs, dbt and Dagster on a laptop", """
1. Install `uv` and run `uv sync` at the repository root (Python 3.11).
2. `cp .env.example .env`; it sets `RB_ENV=local` and points `RB_TRINO_HOST` at the local Trino.
3. `make dev` starts docker compose with MinIO (S3), the Iceberg REST catalog, Trino, Kafka and
   a Postgres with a tiny copy of the orders schema.
4. `make seed` loads the sample data into `s3://rb-lake-local/`.
5. Dagster: `dagster dev -m dagster_riverbed.definitions`, UI on `localhost:3000`.
6. dbt: `cd dbt && dbt build --target local --select state:modified+`.
7. Spark jobs locally: `make spark-local JOB=<name>` uses `spark/local.conf` (shuffle partitions 8).

Common problems: MinIO bucket missing after `docker compose down -v` (run `make seed` again); Trino
returns `Catalog 'lake' does not exist` when `RB_TRINO_CATALOG` is unset in the shell.
""")

NOTES["onboarding"] = ("Onboarding checklist for new team members", "first-week checklist", """
- [ ] Access request for `rb-data-prod` read-only and Trino resource group `analysts` (see access note).
- [ ] Local setup (local development note) and a first `dbt build` on the local target.
- [ ] Read the architecture note, ADR-0003, ADR-0006 and ADR-0014.
- [ ] Shadow the on-call person for one week before joining the rotation.
- [ ] Do one backfill in staging with the backfill runbook.
- [ ] Pick a `good-first-issue` ticket in the DATA Jira project.
- [ ] Join `#rb-eng`, `#rb-oncall`, `#rb-alerts`, `#rb-cost`.
""")

NOTES["glossary"] = ("Glossary", "words we use with a specific meaning", """
- **Tier-1 table**: a table with an SLA and a paging data quality suite (`analytics.fct_orders`,
  `analytics.fct_payments`, `analytics.dim_customers`, `analytics.fct_daily_revenue`).
- **Watermark**: the highest event time we consider complete for an incremental model; see the note
  on watermarks and late data.
- **Lookback**: how many days an incremental model re-reads behind its watermark.
- **Re-snapshot**: Debezium reading a whole table again (`snapshot.mode`), which replays every row.
- **Tombstone**: the Kafka record with a null value that follows a delete event.
- **Shadow table**: a copy written by a new pipeline next to the old one, for comparison.
- **Skew** (two meanings): data skew in Spark (one key much larger than the rest) and
  training/serving skew in ML (a feature computed differently in the two paths).
- **Erasure**: a GDPR deletion request applied to the lake.
- **Canary**: a new model version taking a small share of live traffic.
""")
