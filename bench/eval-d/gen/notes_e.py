# Hand-written notes of the eval-d store, part 5: incidents, cost, metrics, process (read by gen_store.py).

NOTES["incident-2026-03-11-cdc-slot-bloat"] = ("Incident 2026-03-11: replication slot bloat on orders-db", "WAL piled up behind a stuck Debezium slot", """
**Impact**: `orders-db` disk went from 40% to 91% in six hours; the checkout team was minutes away
from a read-only primary. No data loss. CDC for orders was 5 hours behind.

**Timeline (UTC)**
- 03:10 — `rb-orders-cdc` task fails after a Kafka broker rolling restart; Connect does not retry it.
- 03:10–08:50 — the slot `rb_debezium_orders` holds WAL; nothing alerts us because lag was measured
  from the last event, and there were no events.
- 08:55 — the checkout DBA pages us about disk on `orders-db`.
- 09:20 — Adaeze restarts the task; the slot is consumed, WAL retained drops from 410 GB to 2 GB by 10:40.

**Root cause**: a failed task is not restarted automatically, and our lag metric could not tell
"no changes" from "not reading".

**Fixes**
- Heartbeat table + `heartbeat.interval.ms=10000` so lag keeps moving (DATA-1302, done 2026-03-24).
- Alert on WAL retained by each slot above 50 GB (done).
- Connect `errors.retry.timeout` raised and a Dagster sensor restarts failed tasks once (done).
""")

NOTES["incident-2026-05-19-fct-orders-duplicates"] = ("Incident 2026-05-19: duplicate orders in fct_orders", "CDC replay after a re-snapshot doubled orders", """
**Impact**: `analytics.fct_orders` held about 182,000 duplicated orders for 2026-05-18 and 05-19;
revenue dashboards showed +9% for two days. Finance noticed before we did.

**What happened**: Adaeze re-snapshotted `rb-orders-cdc` on 2026-05-18 to pick up a new column.
The snapshot emitted every order again with `_op = 'r'`. `stg_orders` treated each read event as a
new version, and `fct_orders` at the time used `append` for the last day.

**Fix**: new model `int_orders_deduped` (one row per `(order_id, _lsn)`), `fct_orders` switched to
`merge` on `order_id`, and a column `is_duplicate_suspect` with a warning check on its share
(DATA-1432, PR #2214). The two days were backfilled on 2026-05-20.

**Lessons**
- Re-snapshots are announced in `#rb-eng` and only done with a dedup in place.
- Finance dashboards get a day-over-day anomaly check (warn).
""")

NOTES["incident-2026-08-04-backfill-oom"] = ("Incident 2026-08-04: backfill of fct_daily_revenue runs out of memory", "OutOfMemoryError during the 2024 revenue backfill, skew", """
**Impact**: the backfill of `analytics.fct_daily_revenue` for 2024 (after the VAT fix, DATA-1503)
failed nine times over a day. While it retried with the `large` preset, it held 60 executors and
`ingest_orders_hourly` waited for executors: orders were up to 3 hours late. No wrong data published.

**Symptoms**: executors died with `java.lang.OutOfMemoryError: Java heap space` in the join stage
between `fct_orders` and the currency rates; one task read 38 GB while the median read 90 MB.

**Root cause**: skew. The marketplace account `c_000001` has 22% of all 2024 orders. AQE skew join was
off in our defaults, and raising executor memory to 32g only moved the failure to the next stage.

**Fixes**
- `spark.sql.adaptive.skewJoin.enabled=true` and `spark.executor.memoryOverhead=4g` in the defaults
  (PR #2519).
- Salting for the marketplace key in the revenue job (DATA-1517).
- The backfill runbook now says: at most 4 partitions in parallel so ingestion keeps executors.
- The backfill finished on 2026-08-06 in 3 hours once the skew was handled.
""")

NOTES["incident-2026-09-22-churn-model-skew"] = ("Incident 2026-09-22: churn-model v13 training/serving skew", "a feature computed in UTC for training and local time for serving", """
**Impact**: `churn-model v13`, promoted on 2026-09-21, scored 31% of active customers as likely to
churn (champion v12: 6%). CRM sent a win-back voucher to about 40,000 customers who were not leaving.

**Cause**: the new feature `days_since_last_order` was computed in the offline table with
`spark.sql.session.timeZone=UTC`, but the online path computed it in the gateway from the customer's
local time, off by one day for most of the Americas; the model had learned a sharp cliff at 0 days.

**Timeline**: 2026-09-21 14:00 promotion (canary was skipped, "a retrain only"); 09-22 09:30 CRM asks
why the audience tripled; 10:05 Yusuf moves `champion` back to v12; 11:00 cause found.

**Fixes**
- The feature is read from Feast for both paths; the gateway computes nothing (DATA-1574).
- Feature parity test added to the model promotion checklist; canary is never skipped.
- `churn-model v14` trained with the fix, canaried, promoted on 2026-09-30.
""")

NOTES["incident-2026-11-10-trino-coordinator"] = ("Incident 2026-11-10: Trino coordinator out of memory", "a dashboard query with a huge IN list took the coordinator down", """
**Impact**: `trino-prod` coordinator restarted three times between 08:40 and 10:15 UTC on Tuesday
2026-11-10. All queries failed during restarts; `dbt_build_nightly` was already done, but the
finance exports and every dashboard were down for about 90 minutes in total.

**Cause**: a new Superset dashboard generated queries with an `IN` list of 180,000 customer ids.
Planning happened on the coordinator (heap 64 GB at the time) and it ran out of memory
(`java.lang.OutOfMemoryError: Java heap space` in the coordinator log, not on the workers).

**Fixes**
- Dashboard rewritten to join against a table (Growth analytics, the same day).
- Coordinator heap 64 GB -> 96 GB, new instance type, done 2026-11-11 (DATA-1650, PR #2760).
- `query.max-length` lowered to 1,000,000 characters so such queries fail fast.
- An alert on coordinator heap above 85% for 5 minutes.
""")

NOTES["postmortem-template"] = ("Postmortem template", "the headings every incident note uses", """
Name the note `incident-YYYY-MM-DD-<short-slug>` and write it within two working days.

- **Impact**: who noticed what, for how long, what was wrong or late.
- **Timeline (UTC)**: from the first sign to the all clear.
- **Cause**: the technical cause and why nothing caught it earlier.
- **Fixes**: each with a Jira key and done / not done.
- **Lessons**: process changes, if any.

Blameless: write what the system let happen, not who typed what.
""")

NOTES["cost-tracking"] = ("Cost tracking", "how we attribute AWS cost to teams and datasets, the monthly report", """
Elodie owns this. Sources: the AWS Cost and Usage Report (CUR) in Iceberg (`finops.cur`), Kubecost
for EKS pod cost, and Trino query stats (`system.runtime.queries` exported hourly).

- Every Kubernetes workload carries labels `rb/team`, `rb/job` and `rb/dataset`; Spark applications
  get them from the pod template. Unlabelled cost is reported as `unallocated`.
- Trino cost is split by resource group and by scanned bytes.
- S3 cost is split by prefix (storage) and by requests (the `SlowDown` throttling is also a cost smell).
- `cost_report_monthly` (legacy Airflow, 1st of the month 07:00) runs `riverbed/cost/report.py` and
  posts the report to `#rb-cost`; the numbers are copied into the cost report note.

Budget for 2026: 95k USD per month for the whole platform. An anomaly above 20% day over day on one
label posts to `#rb-cost` the next morning.
""")

NOTES["cost-report-2026"] = ("Monthly cost report 2026", "platform cost per month and the main movers", """
Numbers in thousands of USD, from `cost_report_monthly`.

| month | total | EKS compute | S3 | Trino | Ray / GPU | main mover |
|---|---|---|---|---|---|---|
| 2026-01 | 88.1 | 41.0 | 18.2 | 19.5 | 9.4 | baseline |
| 2026-02 | 86.4 | 40.2 | 18.5 | 18.9 | 8.8 | Athena switched off |
| 2026-03 | 91.7 | 43.1 | 18.9 | 21.0 | 8.7 | Dagster running in parallel with Airflow |
| 2026-04 | 90.2 | 42.5 | 19.3 | 20.1 | 8.3 | first GDPR batches (rewrites) |
| 2026-05 | 93.9 | 44.0 | 19.8 | 20.4 | 9.7 | duplicates backfill |
| 2026-06 | 89.5 | 41.2 | 20.4 | 18.3 | 9.6 | spot workers for Trino |
| 2026-07 | 84.0 | 39.9 | 15.1 | 18.6 | 10.4 | Glacier IR for raw > 180 days |
| 2026-08 | 97.3 | 49.8 | 15.4 | 19.2 | 12.9 | revenue backfill and its OOM retries |
| 2026-09 | 86.2 | 40.7 | 15.7 | 18.8 | 11.0 | |
| 2026-10 | 92.8 | 42.3 | 16.0 | 21.7 | 12.8 | Trino upgrade overlap, clickstream v3 double run |

October was reviewed on 2026-11-20 (see the log of that day).
""")

NOTES["metrics"] = ("Platform metrics", "table of rb_* Prometheus metrics with labels and alerts", """
All metrics are scraped by Prometheus (`prometheus-data`) and shown in the Grafana folder *Riverbed*.

| metric | labels | meaning | alert |
|---|---|---|---|
| `rb_cdc_lag_seconds` | `connector` | now minus source timestamp of the last event read | > 900 for 10 m pages |
| `rb_slot_wal_retained_bytes` | `slot` | WAL held by a replication slot on the source | > 50 GB pages |
| `rb_dag_run_duration_seconds` | `job`, `status` | Dagster run duration | none, dashboards |
| `rb_dag_sla_missed_total` | `job` | SLA misses | any increase pages for tier-1 jobs |
| `rb_dq_failures_total` | `table`, `severity` | failed checks | `block` on tier-1 pages |
| `rb_model_watermark_lag_seconds` | `model` | now minus the dbt model's watermark | > 6 h warns |
| `rb_feature_freshness_seconds` | `feature_view` | age of the newest online feature | > 2 h warns |
| `rb_inference_latency_seconds` | `model`, `version` | gateway latency histogram | p99 > 250 ms pages |
| `rb_trino_queued_queries` | `resource_group` | queued queries | > 200 pages |
| `rb_iceberg_small_files` | `table` | data files below 64 MB | none |
""")

NOTES["slas-and-alerts"] = ("Dataset SLAs and alerting rules", "when each tier-1 dataset must be ready, and who is paged", """
| dataset | ready by (UTC) | produced by | consumers |
|---|---|---|---|
| `analytics.fct_orders` | 06:00 daily, hourly refresh by :55 | `dbt_build_nightly`, hourly merge | finance, growth, CRM |
| `analytics.fct_payments` | 06:00 | `dbt_build_nightly` | finance |
| `analytics.fct_daily_revenue` | 06:30 | `dbt_build_nightly` | finance close |
| `analytics.dim_customers` | 06:00 | `dbt_build_nightly` | everyone |
| Feast online store | newest features < 2 h old | `feast_materialize_hourly` | rb-inference |

Misses page the on-call person (see the on-call note). During the finance close (first three working
days of the month) a miss on `fct_daily_revenue` also goes to Hugo directly.
""")

NOTES["jira-epics"] = ("Jira epics and notable tickets", "DATA-project keys we refer to often", """
| key | what | status |
|---|---|---|
| DATA-1290 | automate GDPR erasure | done 2026-04-14 |
| DATA-1302 | Debezium heartbeat after slot bloat | done 2026-03-24 |
| DATA-1350 | epic: Airflow -> Dagster migration | in progress (2 DAGs left) |
| DATA-1432 | dedup CDC events for orders (`int_orders_deduped`) | done 2026-05-26 |
| DATA-1503 | VAT fix in revenue, 2024 backfill | done 2026-08-06 |
| DATA-1517 | salting for the marketplace key | done 2026-08-12 |
| DATA-1574 | churn features from Feast only (skew fix) | done 2026-09-29 |
| DATA-1611 | currency conversion at order time in `fct_orders` | done, Q3 backfill 2026-11-03 |
| DATA-1633 | clickstream v3 | done 2026-11-02 |
| DATA-1650 | Trino coordinator memory | done 2026-11-11 |
| DATA-1679 | widen `amount` to decimal(18,2) | done 2026-11-18 |
| DATA-1688 | refunds CDC (`cdc.public.refunds`) | in progress, backfill running |
| DATA-1702 | S3 throttling in `ingest_orders_hourly` | in progress |
""")

NOTES["roadmap-h2"] = ("Roadmap for the second half of 2026", "H2 goals and their state", """
1. Finish the Dagster migration (DATA-1350): 10 of 12 DAGs moved; the last two in December.
2. Feature store for every online model: churn and reco done; fraud-score moves in Q1 2027.
3. Cost: stay under 95k USD a month; Trino on spot done, S3 Glacier IR done.
4. Data contracts on all tier-1 models: done in October.
5. Refunds in the lake (DATA-1688): CDC live since 2026-11-16, history backfill in progress.
6. Self-serve backfills for analysts: postponed to 2027.
""")

NOTES["release-process"] = ("Release process for the riverbed package and images", "how we tag and deploy riverbed versions (current)", """
The `riverbed` Python package, the Dagster code location and the Spark image are released together
from `main` with a tag `vX.Y.Z` (current: `v3.8.2`, 2026-11-18).

1. Merge to `main` (squash, PR title `DATA-1234: summary`).
2. `make release VERSION=3.8.3` bumps `pyproject.toml`, writes the changelog and pushes the tag.
3. CI builds `rb-dagster:<version>` and, if `spark/` changed, `rb-spark:<spark>-iceberg<iceberg>`.
4. Argo CD syncs staging automatically; prod is synced by hand after the staging runs of the next
   hour look green.
5. Rollback: sync the previous tag in Argo CD; Dagster picks up the code location within a minute.

No prod syncs on Friday after 14:00 and none during the finance close (first three working days of
the month).
""")

NOTES["release-process-2025"] = ("Release process (2025) — superseded", "the old release flow with Helm by hand", """
Superseded by the current release process (Argo CD, tags `vX.Y.Z`) in February 2026.

In 2025 we tagged `release-YYYY-MM-DD`, built images on a laptop with `make image`, and ran
`helm upgrade riverbed deploy/ -f values-prod.yaml` by hand. Airflow picked up DAG files from a
git-sync sidecar, so DAG changes went live on merge without a release at all.
""")

NOTES["python-deps"] = ("Python dependencies and versions", "uv, pinned versions of pyspark, dbt, dagster, feast, ray", """
We use `uv` with a single lockfile (`uv.lock`). Pins that matter:

| package | version | why pinned |
|---|---|---|
| `pyspark` | 3.5.3 | must match the Spark image |
| `pyiceberg` | 0.8.1 | REST catalog fixes |
| `dbt-core` / `dbt-trino` | 1.8.7 / 1.8.3 | 1.9 breaks our snapshot macros |
| `dagster` | 1.9.3 | |
| `feast` | 0.40.1 | |
| `ray` | 2.40.0 | since 2026-11-05 |
| `mlflow` | 2.16.2 | server is 2.16 |
| `lightgbm` | 4.5.0 | FIL backend in Triton supports it |

Upgrade one at a time, in its own PR, with the staging run of the affected jobs linked.
""")

NOTES["team-rituals"] = ("Team rituals and meetings", "standup, planning, weekly summary, demo", """
- Standup at 09:45, 15 minutes, in the `#rb-standup` huddle.
- Planning every second Monday at 14:00 (sprints start Monday).
- On-call handoff Monday 10:00 (see the on-call note).
- Weekly summary on Friday afternoon in `#rb-eng`, written by Maya: what shipped, what broke,
  what is next.
- Demo on the last Thursday of the month.
- Cost review with Elodie once a month, in the third week, on the previous month's report.
""")
