# Hand-written notes of the eval-d store, part 4: features, training, registry, serving (read by gen_store.py).

NOTES["feature-store"] = ("Feature store (Feast)", "feature views, online/offline stores, materialization, how to add a feature", """
Decided in ADR-0012. The Feast repository is `riverbed/features/repo/` (`RB_FEAST_REPO`).

- Offline store: Iceberg tables in the `ml` schema, read through Trino for point-in-time joins.
- Online store: Redis `rb-feast-redis` (ElastiCache, 2 shards), TTL per feature view.
- Materialization: `feast_materialize_hourly` (`5 * * * *`) pushes the last two hours of every
  view to Redis; freshness is `rb_feature_freshness_seconds`.

| feature view | entity | source table | TTL | used by |
|---|---|---|---|---|
| `customer_order_stats` | customer | `ml.customer_order_stats` | 2 d | churn-model, ltv-model |
| `customer_order_stats_7d` | customer | `ml.customer_order_stats_7d` | 2 d | churn-model v15 (new 2026-11-06) |
| `reorder_rate` | customer | `ml.reorder_rate_30d` | 2 d | reco-ranker |
| `payment_risk` | payment | `ml.payment_risk_features` | 1 h | fraud-score |
| `session_activity` | customer | `ml.session_activity` | 6 h | churn-model, reco-ranker |

Adding a feature:
1. Build the source table as a dbt model in `ml` with `event_ts` and the entity key.
2. Add the `FeatureView` in `riverbed/features/repo/views/`, run `feast plan` in CI.
3. `feast apply` happens on merge; the next materialization fills Redis.
4. Backfill the online store only if a model needs it immediately: `feast materialize <start> <end>`.

Error you will meet: `FeatureViewNotFoundException` from serving means `feast apply` did not run
after the merge (CI job `feast-apply` failed).
""")

NOTES["feature-store-2025"] = ("Feature tables in Postgres (2025) — superseded", "the homegrown feature store before Feast", """
Superseded by the Feast feature store (ADR-0012, June 2026). The tables were dropped on 2026-08-17.

In 2025 features lived in the `features` schema of the `ml-pg` Postgres: one table per feature
group (`features.customer_stats`, `features.payment_risk`), refreshed by cron scripts in
`scripts/features/*.py` at `0 */2 * * *`. Training read the tables with `AS OF` queries we wrote by
hand; serving read the current row. No point-in-time joins, so training labels leaked future data.
""")

NOTES["model-training"] = ("Model training on Ray", "how training jobs run, data, tracking, the weekly churn retrain", """
Training runs on the Ray cluster (see the Ray cluster note) as Ray jobs submitted by Dagster.

The weekly churn retrain (`train_churn_weekly`, Sunday 04:00):
1. Build the training set with a Feast point-in-time join over the last 12 months of labels
   (`ml.churn_labels`), features from `customer_order_stats`, `customer_order_stats_7d` (from v15)
   and `session_activity`.
2. Train a LightGBM model with Ray Train (4 workers, CPU); hyperparameters from
   `riverbed/train/configs/churn.yaml`.
3. Log params, metrics (AUC, PR-AUC, calibration) and the model to MLflow experiment `churn`.
4. Register the model as a new version of `churn-model`; it gets the alias `candidate`.
5. A human promotes it (see the model promotion checklist). The job never promotes.

Other models train on demand: `ltv-model`, `fraud-score` (weekly, Mateus's team signs off),
`reco-ranker`, `demand-forecast`.
""")

NOTES["ray-cluster"] = ("Ray cluster (KubeRay)", "the shared Ray cluster, node groups, job submission", """
KubeRay operator on `rb-data-prod`, cluster `rb-ray`, Ray 2.40 since 2026-11-05 (was 2.35).

| worker group | instance | min | max | use |
|---|---|---|---|---|
| `cpu` | m6i.4xlarge | 2 | 20 | tabular training, data prep |
| `gpu` | g5.2xlarge | 0 | 4 | reco-ranker, embeddings |

Submit: `ray job submit --address https://ray.rb.internal -- python -m riverbed.train.churn`.
The dashboard is `ray.rb.internal`. GPU nodes scale to zero after 15 idle minutes; the first GPU
job of the day waits about 6 minutes for a node.
""")

NOTES["mlflow-registry"] = ("MLflow tracking and model registry", "experiments, registered models, aliases, naming", """
MLflow 2.16 at `https://mlflow.rb.internal` (`RB_MLFLOW_TRACKING_URI`), artifacts in
`s3://rb-ml-artifacts-prod/mlflow/`.

- Experiments are named after the model (`churn`, `ltv`, `fraud`, `reco`, `demand`).
- Registered models are kebab-case with the `-model` suffix where it reads well
  (`churn-model`, `ltv-model`, `fraud-score`, `reco-ranker`, `demand-forecast`).
- We use **aliases**, not the deprecated stages: `champion` = serving in prod, `challenger` =
  canary, `candidate` = freshly trained. Stages (`Production`, `Staging`) were used until 2026-05
  and are ignored now.
- Every version carries tags `git_sha`, `training_set_snapshot` (the Iceberg snapshot id) and
  `feast_views`.

Versions are referred to as `churn-model v14` in conversation and `models:/churn-model/14` in code.
""")

NOTES["model-serving"] = ("Model serving (Triton and rb-inference)", "how models are exported, deployed, canaried, rolled back", """
Online inference runs on NVIDIA Triton 24.08 behind `rb-inference`, a small FastAPI gateway that
fetches features from the Feast online store and calls Triton.

Deploying a version:
1. `riverbed/serve/triton_export.py --model churn-model --version 15` converts the MLflow model
   (LightGBM via the FIL backend, PyTorch via TorchScript) into `s3://rb-ml-artifacts-prod/triton/`.
2. Triton polls the model repository every 60 s (`--model-control-mode=poll`) and loads it.
3. The gateway routes by alias: set `challenger` to the new version and the canary share in
   `deploy/inference/routes.yaml` (10% first, then 50%, then 100%).
4. Promote: move `champion` to the new version, remove the canary route.

Rollback: move the `champion` alias back and set the canary share to 0; Triton keeps the last three
versions loaded.

If Triton logs `failed to load 'churn-model' version 15: Invalid argument`, the FIL config in
`config.pbtxt` does not match the number of features; rerun the export.
""")

NOTES["model-catalog"] = ("Model catalog", "every model with its champion version, owner, consumers", """
| model | task | champion | challenger | owner | consumers |
|---|---|---|---|---|---|
| `churn-model` | churn in 60 days | v14 (since 2026-09-30) | v15 (10% canary since 2026-11-19) | Signe | CRM campaigns |
| `ltv-model` | 12-month value | v7 | — | Signe | Growth |
| `fraud-score` | payment fraud | v22 | — | Yusuf | Fraud (Mateus), checkout |
| `reco-ranker` | reorders candidate products per customer | v9 | — | Yusuf | app home screen |
| `demand-forecast` | daily demand per warehouse | v3 | — | Signe | operations |

`churn-model v13` was rolled back on 2026-09-22 (training/serving skew, see the incident note);
`churn-model v15` is a second attempt: the training run of 2026-11-13 failed the AUC gate and was
not registered; the retrain of 2026-11-16 passed it.
""")

NOTES["model-promotion-checklist"] = ("Model promotion checklist", "what must be true before a model version becomes champion", """
Copy this into the Jira ticket of the promotion.

Offline:
- [ ] The MLflow run is linked, with the training set snapshot id.
- [ ] AUC (or the model's main metric) is not worse than the champion by more than 0.005 on the
      same holdout month; for churn the gate is AUC >= 0.80.
- [ ] Calibration plot looks sane; no feature has importance > 40%.
- [ ] Feature parity test: `pytest tests/serving/test_feature_parity.py --model <name>` compares the
      offline training features with what `rb-inference` fetches online for 1,000 entities.

Online:
- [ ] Canary at 10% for at least 24 hours, then 50% for 24 hours.
- [ ] p99 latency within 10% of the champion; error rate unchanged.
- [ ] Prediction distribution (mean, p90) within 5% of the champion's on the same traffic.
- [ ] Consumers told in `#rb-ml` (CRM for churn, Fraud for fraud-score).

The feature parity test was added after the churn-model skew incident of September 2026.
""")
