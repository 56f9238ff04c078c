//! The shared root-resolution vectors (`conformance/roots/resolution.json`),
//! which the Python and Node hosts run too: same chain, same kinds, same
//! reply while memory is off.

use std::fs;
use std::path::{Path, PathBuf};

use agent_memory::RootResolver;
use serde_json::Value;

fn vectors() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/roots/resolution.json");
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn fill(text: &str, tmp: &Path) -> String {
    text.replace("{tmp}", &tmp.display().to_string())
}

#[test]
fn root_resolution_vectors() {
    let cases = vectors();
    assert!(cases.len() >= 20, "the vector file lost cases");
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let temp = tempfile::tempdir().unwrap();
        let tmp = temp.path();
        if let Some(config) = case["config"].as_str() {
            let dir = tmp.join("config/agent-memory");
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join("config.json"), config).unwrap();
        }
        if let Some(files) = case["files"].as_object() {
            for (file, text) in files {
                fs::write(tmp.join(file), text.as_str().unwrap()).unwrap();
            }
        }
        let env = |var: &str| case["env"][var].as_str().map(|v| fill(v, tmp).into());
        let resolver = RootResolver::default()
            .explicit(
                case["explicit"]
                    .as_str()
                    .map(|p| PathBuf::from(fill(p, tmp))),
            )
            .env_dir(env("AGENT_MEMORY_DIR"))
            .env_disable(env("AGENT_MEMORY_DISABLE"))
            .env_config(env("AGENT_MEMORY_CONFIG"))
            .home(Some(tmp.join("home")))
            .config_dir(Some(tmp.join("config")))
            .data_dir(Some(tmp.join("data")));
        let expect = &case["expect"];
        match (resolver.resolve(), expect["error"].as_str()) {
            (Err(error), Some(kind)) => {
                assert_eq!(error.kind().as_str(), kind, "{name}: {error}");
            }
            (Ok(choice), None) => {
                let root = fill(expect["root"].as_str().unwrap(), tmp);
                assert_eq!(choice.root, PathBuf::from(root), "{name}");
                assert_eq!(
                    choice.rule.as_str(),
                    expect["rule"].as_str().unwrap(),
                    "{name}"
                );
                let config = expect["config_file"]
                    .as_str()
                    .map(|p| PathBuf::from(fill(p, tmp)));
                assert_eq!(choice.config_file, config, "{name}");
                let reason = choice.disabled.as_ref().map(|d| d.reason());
                let want = expect["disabled"].as_str().map(|r| fill(r, tmp));
                assert_eq!(reason, want, "{name}");
                if let Some(reply) = expect["reply"].as_str() {
                    assert_eq!(choice.disabled.unwrap().tool_reply(), reply, "{name}");
                }
            }
            (got, _) => panic!("{name}: expected {expect}, got {got:?}"),
        }
    }
}
