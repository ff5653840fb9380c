//! The layering rules of `docs/ARCHITECTURE.md` that a machine can check, read from the
//! sources: which top-level modules a module's code names (`crate::<module>`), and which
//! external crates it uses.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The resources: modules with catalog operations over one kind of Workspace data.
const RESOURCES: &[&str] = &[
    "accounts",
    "apikeys",
    "bots",
    "mcp_servers",
    "monitoring",
    "pipelines",
    "providers",
    "system",
    "tools",
    "workspaces",
];

/// The shared base below the catalog and every resource.
const BASE: &[&str] = &[
    "config",
    "db",
    "entities",
    "error",
    "forms",
    "http",
    "i18n",
    "session_store",
    "telemetry",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Source lines without comments (a `crate::x` in prose is no import).
fn code_of(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|line| match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `crate::<module>` names in `code`.
fn crate_modules(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            found.insert(name);
        }
    }
    found
}

/// Each top-level module's files' code.
fn modules() -> BTreeMap<String, Vec<(PathBuf, String)>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut by_module: BTreeMap<String, Vec<(PathBuf, String)>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap_or(&file).to_path_buf();
        let first = relative
            .components()
            .next()
            .map(|c| {
                c.as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_string()
            })
            .unwrap_or_default();
        let code = code_of(&file);
        by_module.entry(first).or_default().push((relative, code));
    }
    by_module
}

/// Every `(file, named module)` where a module in `of` names one in `forbidden`.
fn violations(of: &[&str], forbidden: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for (module, files) in modules() {
        if !of.contains(&module.as_str()) {
            continue;
        }
        for (file, code) in files {
            for named in crate_modules(&code) {
                if named != module && forbidden.contains(&named.as_str()) {
                    found.push(format!("{} names crate::{named}", file.display()));
                }
            }
        }
    }
    found
}

#[test]
fn the_catalog_state_and_base_name_no_resource_and_not_the_runtime() {
    let mut forbidden = RESOURCES.to_vec();
    forbidden.extend(["runtime", "api", "startup", "cli"]);
    let mut of = BASE.to_vec();
    of.extend(["catalog", "state", "access"]);
    let found = violations(&of, &forbidden);
    assert!(found.is_empty(), "\n{}", found.join("\n"));
}

#[test]
fn the_access_layer_sits_below_the_catalog() {
    let found = violations(&["access"], &["catalog", "state"]);
    assert!(found.is_empty(), "\n{}", found.join("\n"));
}

#[test]
fn the_base_names_no_access_catalog_or_state_except_http_plumbing() {
    // Health checks (in `http`) read the state's database and store handles.
    let base: Vec<&str> = BASE.iter().copied().filter(|m| *m != "http").collect();
    let found = violations(&base, &["access", "catalog", "state"]);
    assert!(found.is_empty(), "\n{}", found.join("\n"));
}

#[test]
fn resources_never_touch_actix_or_the_mcp_protocol() {
    let mut found = Vec::new();
    for (module, files) in modules() {
        if !RESOURCES.contains(&module.as_str()) {
            continue;
        }
        for (file, code) in files {
            for banned in ["actix_web", "actix_ws", "actix_http", "catalog::mcp"] {
                if code.contains(banned) {
                    found.push(format!("{} uses {banned}", file.display()));
                }
            }
        }
    }
    assert!(found.is_empty(), "\n{}", found.join("\n"));
}

#[test]
fn entities_name_nothing_but_entities() {
    let mut found = Vec::new();
    for (file, code) in modules().remove("entities").unwrap_or_default() {
        for named in crate_modules(&code) {
            if named != "entities" {
                found.push(format!("{} names crate::{named}", file.display()));
            }
        }
    }
    assert!(found.is_empty(), "\n{}", found.join("\n"));
}

#[test]
fn the_route_engine_does_no_io() {
    let bots = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bots");
    for file in ["engine.rs", "engine_props.rs"] {
        let code = code_of(&bots.join(file));
        assert!(!code.is_empty(), "{file} is missing");
        for banned in [
            "sea_orm",
            "tokio",
            "reqwest",
            "std::fs",
            "std::net",
            "crate::db",
            "crate::state",
            "crate::session_store",
            "async fn",
        ] {
            assert!(!code.contains(banned), "bots/{file} uses {banned}");
        }
    }
}

#[test]
fn migrations_depend_on_nothing_of_the_backend() {
    let migration = Path::new(env!("CARGO_MANIFEST_DIR")).join("../migration");
    let manifest = std::fs::read_to_string(migration.join("Cargo.toml")).unwrap_or_default();
    assert!(!manifest.is_empty(), "migration/Cargo.toml is missing");
    assert!(
        !manifest.contains("langbot"),
        "migration depends on the backend"
    );
    let mut files = Vec::new();
    rust_files(&migration.join("src"), &mut files);
    assert!(!files.is_empty());
    for file in files {
        assert!(
            !code_of(&file).contains("langbot::"),
            "{} names the backend",
            file.display()
        );
    }
}

#[test]
fn test_files_stay_under_800_lines() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/api");
    let mut files = Vec::new();
    rust_files(&tests, &mut files);
    assert!(!files.is_empty());
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f)
                .unwrap_or_default()
                .lines()
                .count();
            (lines > 800).then(|| format!("{}: {lines} lines", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "\n{}", long.join("\n"));
}

#[test]
fn the_scanner_sees_imports() {
    let names = crate_modules("use crate::bots::x;\nlet y = crate::state::AppState;");
    assert_eq!(
        names.into_iter().collect::<Vec<_>>(),
        vec!["bots".to_string(), "state".to_string()]
    );
}
