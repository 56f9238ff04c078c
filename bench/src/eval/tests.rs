//! The eval set is whole and the harness scores what it should.

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

use super::*;

fn both_sets() -> (Vec<Question>, Vec<Question>) {
    sets_of(&default_dir())
}

fn sets_of(dir: &Path) -> (Vec<Question>, Vec<Question>) {
    (
        load_questions(dir, "tune").unwrap(),
        load_questions(dir, "holdout").unwrap(),
    )
}

/// A set written later by someone else next to set A: `eval-b` (set B),
/// `eval-c` (set C), `eval-d` (set D) or `eval-e` (set E, with its own
/// clock in `eval.json`), each split 50/50.
fn sibling(name: &str) -> PathBuf {
    default_dir().with_file_name(name)
}

/// The store-relative paths search looks at.
fn searchable() -> BTreeSet<String> {
    searchable_in(&default_dir())
}

fn searchable_in(dir: &Path) -> BTreeSet<String> {
    let root = store_root(dir);
    searchable_files(&root, &Setting::of(dir).unwrap())
        .unwrap()
        .into_iter()
        .map(|(p, _)| p)
        .collect()
}

#[test]
fn every_answer_exists_and_every_category_is_in_both_sets() {
    // About 60/40 within each category in set A, 50/50 in sets B and C.
    for (dir, shares) in [
        (default_dir(), 0.5..=0.7),
        (sibling("eval-b"), 0.4..=0.6),
        (sibling("eval-c"), 0.4..=0.6),
        (sibling("eval-d"), 0.4..=0.6),
        (sibling("eval-e"), 0.4..=0.6),
    ] {
        answers_exist_and_categories_split(&dir, &shares);
    }
}

fn answers_exist_and_categories_split(dir: &Path, shares: &std::ops::RangeInclusive<f64>) {
    let (tune, holdout) = sets_of(dir);
    assert!(tune.len() + holdout.len() >= 100);
    let searchable = searchable_in(dir);
    let mut ids = BTreeSet::new();
    for q in tune.iter().chain(&holdout) {
        assert!(ids.insert(&q.id), "{} is in both sets", q.id);
        assert!(!q.query.trim().is_empty(), "{}", q.id);
        for path in q.relevant.keys() {
            assert!(
                searchable.contains(path),
                "{}: `{path}` is not a file search looks at",
                q.id
            );
        }
    }
    for category in &CATEGORIES[..6] {
        let count = |set: &[Question]| set.iter().filter(|q| q.category == *category).count();
        let (t, h) = (count(&tune), count(&holdout));
        assert!(t > 0 && h > 0, "{category}: {t} tune, {h} holdout");
        let share = t as f64 / (t + h) as f64;
        assert!(shares.contains(&share), "{category}: {t}/{h}");
    }
}

#[test]
fn the_second_tuning_set_names_real_files_and_new_ids() {
    let (tune, holdout) = both_sets();
    let tune2 = load_questions(&default_dir(), "tune2").unwrap();
    assert!(tune2.len() >= 40, "{} questions", tune2.len());
    let searchable = searchable();
    let mut ids: BTreeSet<&str> = tune.iter().chain(&holdout).map(|q| q.id.as_str()).collect();
    for q in &tune2 {
        assert!(ids.insert(&q.id), "{} is in another set", q.id);
        for path in q.relevant.keys() {
            assert!(searchable.contains(path), "{}: `{path}`", q.id);
        }
    }
}

#[test]
fn the_store_has_the_layout_and_size_of_the_brief() {
    let root = store_root(&default_dir());
    let memory = open_store(&root, &Setting::of(&default_dir()).unwrap()).unwrap();
    assert_eq!(memory.project_dir(), "projects/tidewater-3be31366");
    let files = memory.list_files().unwrap();
    let count = |prefix: &str| {
        files
            .iter()
            .filter(|f| {
                f.path
                    .starts_with(&format!("{}/{prefix}", memory.project_dir()))
            })
            .count()
    };
    let (notes, daily) = (count("notes/"), count("daily/"));
    assert!((50..=70).contains(&notes), "{notes} notes");
    assert!((100..=130).contains(&daily), "{daily} daily logs");
    assert!((160..=180).contains(&files.len()), "{} files", files.len());
    let index = fs::read_to_string(root.join("MEMORY.md")).unwrap();
    assert!(index.lines().count() < 200);
    // Today and yesterday have logs, so the time questions have answers.
    for day in ["2026-11-20", "2026-11-19"] {
        assert!(
            files
                .iter()
                .any(|f| f.path.ends_with(&format!("daily/{day}.md")))
        );
    }
    assert_eq!(memory.today().to_string(), "2026-11-20");
}

/// The holdout set is frozen: this hash changes only if someone edits it,
/// which the README forbids.
#[test]
fn the_holdout_sets_are_unchanged() {
    for (dir, sha256) in [
        (default_dir(), HOLDOUT_SHA256),
        (sibling("eval-b"), HOLDOUT_B_SHA256),
        (sibling("eval-c"), HOLDOUT_C_SHA256),
        (sibling("eval-d"), HOLDOUT_D_SHA256),
        (sibling("eval-e"), HOLDOUT_E_SHA256),
        (sibling("eval-conv"), HOLDOUT_CONV_SHA256),
    ] {
        let bytes = fs::read(dir.join("questions-holdout.json")).unwrap();
        let text: Vec<u8> = bytes.into_iter().filter(|&b| b != b'\r').collect();
        let hex: String = Sha256::digest(&text)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(hex, sha256, "{}", dir.display());
    }
}

const HOLDOUT_SHA256: &str = "e74a52e431c057d4996fd0fe2646fe69bed5ad2ea224877555b646db1d1383aa";
const HOLDOUT_B_SHA256: &str = "6f09440f2119251b20f1ef33f0cd617edbc2eca6de5f4978e30a29170c9ab0cd";
const HOLDOUT_C_SHA256: &str = "e009d53a611758dfa7ad1281627b1fc5a9aab388183189f31f216c84174c968f";
const HOLDOUT_D_SHA256: &str = "4874cb9e159f408a379fdc197d219b0339ae8b63bfc5c131109634b4029f9bcb";
const HOLDOUT_E_SHA256: &str = "29ced4f09c90479c92d9584d2493275e96434734ed4d04e33670a77748f8bd2a";
const HOLDOUT_CONV_SHA256: &str =
    "eeb5886965537ec4b86866e687d375b726bc23222cb4df6e8be567cde7c4265e";

/// The five sets' `paraphrase-holdout` and `recency-holdout` files (issue 23)
/// are frozen the same way: set, file, sha256 without CRs.
const NEW_HOLDOUTS_SHA256: [(&str, &str, &str); 10] = [
    (
        "eval",
        "paraphrase-holdout",
        "32739ccb629409b337d9520a7c0b04d27655736f670c8138087e5eec84403f1a",
    ),
    (
        "eval",
        "recency-holdout",
        "b6fe111b53585cea798f8ccef8cfbd2fb882933ab88e1746afbe2b57b94cf87d",
    ),
    (
        "eval-b",
        "paraphrase-holdout",
        "fcccb9d7d8aba9d67a2de6676f79737d12107339f31116d6b0f1b78e9dbe6475",
    ),
    (
        "eval-b",
        "recency-holdout",
        "9134c31da4700194ec8a6b872b898b9c4039ece54abcbea89073e95cab2b0692",
    ),
    (
        "eval-c",
        "paraphrase-holdout",
        "a9e50c71dc61e52f3b761a9d1c56bf9e6e9a656f6195b698c358cf053350bb14",
    ),
    (
        "eval-c",
        "recency-holdout",
        "30b8aa72b30b5a9ead1bda81abe443042d550d3db1b54887ffcb638350fb8950",
    ),
    (
        "eval-d",
        "paraphrase-holdout",
        "647afea90d721c9a1f7c75aef177a940cf72d0d2ebc955d66fb67e5969223479",
    ),
    (
        "eval-d",
        "recency-holdout",
        "d0504fa8297452bf932401fa9f7457853dac7d3cbf7ea96fac6b01aa75900b8a",
    ),
    (
        "eval-e",
        "paraphrase-holdout",
        "ea16cb2b85c09726d202b59b86c7fe7a9cf1d22f6e66869eecbc39f8b59ffb28",
    ),
    (
        "eval-e",
        "recency-holdout",
        "3a2aad840c2b186682878aae0cd478cdb95c554ad8b18ccbf267b9bc9e97cbbb",
    ),
];

#[test]
fn the_paraphrase_and_recency_holdouts_are_unchanged() {
    for (set, name, sha256) in NEW_HOLDOUTS_SHA256 {
        let dir = default_dir().with_file_name(set);
        let bytes = fs::read(dir.join(format!("questions-{name}.json"))).unwrap();
        let text: Vec<u8> = bytes.into_iter().filter(|&b| b != b'\r').collect();
        let hex: String = Sha256::digest(&text)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(hex, sha256, "{set}/{name}");
    }
}

/// Issue 23: every set has paraphrase and recency questions split in half,
/// each file of one category, ids new in the directory, answers that search
/// looks at; a recency question has one answer, a daily log.
#[test]
fn every_set_has_paraphrase_and_recency_questions() {
    for set in ["eval", "eval-b", "eval-c", "eval-d", "eval-e"] {
        let dir = default_dir().with_file_name(set);
        let searchable = searchable_in(&dir);
        let mut ids: BTreeSet<String> = ["tune", "tune2", "holdout"]
            .iter()
            .filter(|n| dir.join(format!("questions-{n}.json")).is_file())
            .flat_map(|n| load_questions(&dir, n).unwrap())
            .map(|q| q.id)
            .collect();
        for (category, least) in [("paraphrase", 20), ("recency", 10)] {
            let tune = load_questions(&dir, &format!("{category}-tune")).unwrap();
            let holdout = load_questions(&dir, &format!("{category}-holdout")).unwrap();
            assert!(tune.len() + holdout.len() >= least, "{set} {category}");
            assert!(tune.len().abs_diff(holdout.len()) <= 1, "{set} {category}");
            for q in tune.iter().chain(&holdout) {
                assert_eq!(q.category, category, "{set} {}", q.id);
                assert!(ids.insert(q.id.clone()), "{set}: {} twice", q.id);
                for path in q.relevant.keys() {
                    assert!(searchable.contains(path), "{set} {}: `{path}`", q.id);
                }
                if category == "recency" {
                    let answers: Vec<&String> = q
                        .relevant
                        .iter()
                        .filter(|(_, g)| **g == 2)
                        .map(|(p, _)| p)
                        .collect();
                    assert_eq!(answers.len(), 1, "{set} {}", q.id);
                    assert!(answers[0].contains("/daily/"), "{set} {}", q.id);
                }
            }
        }
    }
}

#[test]
fn set_all_scores_the_sets_a_directory_has() {
    // Set E has no tune2: `all` is its other six files, in this order, every
    // system scoring every question.
    let dir = sibling("eval-e");
    let names = [
        "tune",
        "holdout",
        "paraphrase-tune",
        "paraphrase-holdout",
        "recency-tune",
        "recency-holdout",
    ];
    let expected: Vec<(&str, usize)> = names
        .iter()
        .map(|n| (*n, load_questions(&dir, n).unwrap().len()))
        .collect();
    let reports = run(&dir, Set::All).unwrap();
    let shape: Vec<(&str, usize)> = reports
        .iter()
        .map(|r| (r.set.as_str(), r.questions.len()))
        .collect();
    assert_eq!(shape, expected);
    for report in &reports {
        let names: Vec<&str> = report.systems.iter().map(|s| s.name.as_str()).collect();
        // `ranked+semantic` joins when the MiniLM weights are on this machine.
        match super::semantic::weights_path() {
            Some(_) => assert_eq!(names, ["ranked", "ranked+semantic", "literal", "bm25"]),
            None => assert_eq!(names, ["ranked", "literal", "bm25"]),
        }
        for system in &report.systems {
            assert_eq!(system.outcomes.len(), report.questions.len());
        }
    }
}

/// Returns the answers of each question in grade order: a perfect system.
struct Oracle(BTreeMap<String, Vec<String>>);

impl System for Oracle {
    fn name(&self) -> &str {
        "oracle"
    }
    fn search(&mut self, query: &str) -> Result<Vec<String>> {
        Ok(self.0.get(query).cloned().unwrap_or_default())
    }
}

struct Nothing;

impl System for Nothing {
    fn name(&self) -> &str {
        "nothing"
    }
    fn search(&mut self, _: &str) -> Result<Vec<String>> {
        Ok(Vec::new())
    }
}

#[test]
fn a_perfect_system_scores_one_and_an_empty_one_zero() {
    let (tune, _) = both_sets();
    // Queries are unique within a set, so the oracle can key on them.
    let mut answers = BTreeMap::new();
    for q in &tune {
        let mut paths: Vec<(&String, &u8)> = q.relevant.iter().collect();
        paths.sort_by(|a, b| b.1.cmp(a.1));
        let ranking = paths.into_iter().map(|(p, _)| p.clone()).collect();
        assert!(
            answers.insert(q.query.clone(), ranking).is_none(),
            "{}",
            q.query
        );
    }
    let perfect = evaluate(&mut Oracle(answers), &tune).unwrap();
    let s = perfect.scores(None);
    assert_eq!((s.n, s.recall, s.mrr, s.ndcg), (tune.len(), 1.0, 1.0, 1.0));
    for category in &CATEGORIES[..6] {
        assert_eq!(perfect.scores(Some(category)).mrr, 1.0);
    }
    let empty = evaluate(&mut Nothing, &tune).unwrap();
    assert_eq!(
        empty.scores(None),
        Scores {
            n: tune.len(),
            ..Scores::default()
        }
    );
    assert!(empty.outcomes.iter().all(|o| o.first_answer.is_none()));
}

#[test]
fn the_two_systems_return_store_paths() {
    let searchable = searchable();
    for mut system in systems(
        &store_root(&default_dir()),
        &Setting::of(&default_dir()).unwrap(),
    )
    .unwrap()
    {
        let hits = system.search("acquire_timeout").unwrap();
        assert!(!hits.is_empty(), "{}", system.name());
        assert!(hits.iter().all(|p| searchable.contains(p)), "{hits:?}");
        assert!(
            hits.iter().any(|p| p.ends_with("notes/db-pool-tuning.md")),
            "{}: {hits:?}",
            system.name()
        );
    }
}

#[test]
fn the_table_has_a_row_per_category_and_system() {
    let (tune, _) = both_sets();
    let report = SetReport {
        set: "tune".into(),
        setting: Setting::of(&default_dir()).unwrap(),
        systems: vec![
            evaluate(&mut Nothing, &tune).unwrap(),
            evaluate(&mut Nothing, &tune).unwrap(),
        ],
        questions: tune,
    };
    let table = render_table(&report);
    // Header line, column line, 7 groups of 2 rows.
    assert_eq!(table.lines().count(), 2 + 7 * 2);
    assert!(table.lines().nth(2).unwrap().starts_with("identifiers"));
    assert!(table.lines().nth(14).unwrap().starts_with("overall"));
    // A file of one category: that row and the overall rows only.
    let paraphrase = load_questions(&sibling("eval-b"), "paraphrase-holdout").unwrap();
    let report = SetReport {
        set: "paraphrase-holdout".into(),
        setting: Setting::of(&sibling("eval-b")).unwrap(),
        systems: vec![evaluate(&mut Nothing, &paraphrase).unwrap()],
        questions: paraphrase,
    };
    let table = render_table(&report);
    assert_eq!(table.lines().count(), 2 + 2, "{table}");
    assert!(table.lines().nth(2).unwrap().starts_with("paraphrase"));
}

/// Set E is asked on a Wednesday in another project: its questions about
/// `yesterday` and `this week` have logs to answer them only with its own
/// clock.
#[test]
fn set_e_is_read_with_its_own_clock() {
    let dir = sibling("eval-e");
    let memory = open_store(&store_root(&dir), &Setting::of(&dir).unwrap()).unwrap();
    assert_eq!(memory.today().to_string(), "2026-12-02");
    assert_eq!(memory.project_dir(), "projects/lighthouse-28495fcc");
    let files = memory.list_files().unwrap();
    for day in ["2026-12-02", "2026-12-01", "2026-11-30"] {
        assert!(
            files
                .iter()
                .any(|f| f.path == format!("projects/lighthouse-28495fcc/daily/{day}.md")),
            "{day}"
        );
    }
}

#[test]
fn a_set_names_its_own_project_and_now_or_takes_the_defaults() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        Setting::of(dir.path()).unwrap(),
        Setting {
            project: PROJECT.into(),
            now: NOW.into()
        }
    );
    let own = r#"{"project": "/home/sam/code/lighthouse", "now": "2026-12-02T10:15:00+00:00"}"#;
    fs::write(dir.path().join("eval.json"), own).unwrap();
    let setting = Setting::of(dir.path()).unwrap();
    assert_eq!(setting.project, "/home/sam/code/lighthouse");
    let memory = open_store(&dir.path().join("store"), &setting).unwrap();
    assert_eq!(memory.today().to_string(), "2026-12-02");
    assert_eq!(memory.project_dir(), "projects/lighthouse-28495fcc");

    fs::write(
        dir.path().join("eval.json"),
        r#"{"project": "/p", "now": "Wednesday"}"#,
    )
    .unwrap();
    let err = format!("{:#}", Setting::of(dir.path()).unwrap_err());
    assert!(err.contains("\"Wednesday\" of the eval set"), "{err}");
}
