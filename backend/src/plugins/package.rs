//! A plugin package (`.lbpkg`, a ZIP written by `lbp build`): checked as LangBot checks it
//! (entry count and sizes, compression ratio, paths, a manifest that is a mapping), its Tool
//! components read and their parameter schemas checked, and unpacked for a runtime.

use std::collections::HashSet;
use std::io::{Cursor, Read};
use std::path::Path;

use serde_json::Value;
use sha2::{Digest, Sha256};

pub const ENTRIES_MAX: usize = 512;
pub const ENTRY_MAX: u64 = 16 * 1024 * 1024;
pub const TOTAL_MAX: u64 = 64 * 1024 * 1024;
const RATIO_MAX: u64 = 100;
const MANIFEST_MAX: u64 = 1024 * 1024;

/// A checked package.
#[derive(Debug, Clone)]
pub struct Package {
    pub author: String,
    pub name: String,
    pub version: String,
    /// `manifest.yaml` as JSON.
    pub manifest: Value,
    /// Each component: `{owner, manifest, rel_path}` as the runtime lists them.
    pub components: Vec<Value>,
    /// sha256 of the file, lowercase hex.
    pub digest: String,
}

fn bad(why: impl Into<String>) -> String {
    why.into()
}

fn valid_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn safe_path(name: &str) -> bool {
    !(name.starts_with('/')
        || name.starts_with('\\')
        || name.contains('\\')
        || name.split('/').any(|p| p == "..")
        || name.chars().nth(1) == Some(':'))
}

fn yaml(bytes: &[u8], what: &str) -> Result<Value, String> {
    let v: serde_yaml::Value =
        serde_yaml::from_slice(bytes).map_err(|e| bad(format!("{what} is not valid YAML: {e}")))?;
    serde_json::to_value(v).map_err(|e| bad(format!("{what}: {e}")))
}

/// Checks a Tool's `spec.parameters`: a JSON Schema whose root is an object schema (or empty).
fn check_parameters(name: &str, p: &Value) -> Result<(), String> {
    let Some(map) = p.as_object() else {
        return Err(bad(format!(
            "Tool {name}: spec.parameters must be a JSON Schema object"
        )));
    };
    if map.is_empty() {
        return Ok(());
    }
    if map.get("type").and_then(Value::as_str) != Some("object") {
        return Err(bad(format!(
            "Tool {name}: spec.parameters must have type: object at its root"
        )));
    }
    if let Some(props) = map.get("properties") {
        let Some(props) = props.as_object() else {
            return Err(bad(format!(
                "Tool {name}: spec.parameters.properties must be a mapping"
            )));
        };
        for (key, schema) in props {
            if !schema.is_object() {
                return Err(bad(format!(
                    "Tool {name}: parameter {key} must be a schema object"
                )));
            }
        }
    }
    if let Some(req) = map.get("required") {
        let names = req.as_array().filter(|a| a.iter().all(Value::is_string));
        if names.is_none() {
            return Err(bad(format!(
                "Tool {name}: spec.parameters.required must be a list of names"
            )));
        }
    }
    Ok(())
}

/// Reads and checks a package; the error says what is wrong with it.
pub fn read(bytes: &[u8]) -> Result<Package, String> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| bad(format!("The file is not a plugin package (ZIP): {e}")))?;
    if zip.len() > ENTRIES_MAX {
        return Err(bad(format!(
            "The package has more than {ENTRIES_MAX} files"
        )));
    }
    let mut seen = HashSet::new();
    let mut total = 0u64;
    let mut files: Vec<(String, u64)> = Vec::new();
    for i in 0..zip.len() {
        let entry = zip
            .by_index_raw(i)
            .map_err(|e| bad(format!("Unreadable package entry: {e}")))?;
        let name = entry.name().to_string();
        if entry.encrypted() {
            return Err(bad(format!("Encrypted entry {name}")));
        }
        if !safe_path(&name) {
            return Err(bad(format!("Unsafe path in the package: {name}")));
        }
        if !seen.insert(name.to_lowercase()) {
            return Err(bad(format!("Duplicate entry {name}")));
        }
        if entry.size() > ENTRY_MAX {
            return Err(bad(format!("Entry {name} is over 16 MiB")));
        }
        if entry.compressed_size() > 0 && entry.size() / entry.compressed_size().max(1) > RATIO_MAX
        {
            return Err(bad(format!("Entry {name} is compressed suspiciously well")));
        }
        total += entry.size();
        if total > TOTAL_MAX {
            return Err(bad("The package unpacks to more than 64 MiB"));
        }
        if !entry.is_dir() {
            files.push((name, entry.size()));
        }
    }
    let mut read_file = |name: &str, max: u64| -> Result<Vec<u8>, String> {
        let mut f = zip.by_name(name).map_err(|e| bad(format!("{name}: {e}")))?;
        let mut buf = Vec::new();
        f.by_ref()
            .take(max + 1)
            .read_to_end(&mut buf)
            .map_err(|e| bad(format!("{name}: {e}")))?;
        if buf.len() as u64 > max {
            return Err(bad(format!("{name} is too large")));
        }
        Ok(buf)
    };
    let manifest_name = ["manifest.yaml", "manifest.yml"]
        .into_iter()
        .find(|n| files.iter().any(|(f, _)| f == n))
        .ok_or_else(|| bad("The package has no manifest.yaml"))?;
    let manifest = yaml(&read_file(manifest_name, MANIFEST_MAX)?, "manifest.yaml")?;
    if !manifest.is_object() {
        return Err(bad("manifest.yaml must be a mapping"));
    }
    if manifest["kind"] != "Plugin" {
        return Err(bad("manifest.yaml: kind must be Plugin"));
    }
    let meta = &manifest["metadata"];
    let author = meta["author"].as_str().unwrap_or_default().to_string();
    let name = meta["name"].as_str().unwrap_or_default().to_string();
    if !valid_id(&author) || !valid_id(&name) {
        return Err(bad(
            "manifest.yaml: metadata.author and metadata.name must be non-empty names of letters, digits, _ and -",
        ));
    }
    let version = meta["version"].as_str().unwrap_or_default().to_string();
    let owner = format!("{author}/{name}");
    let mut components = Vec::new();
    let dirs: Vec<(String, String)> = manifest["spec"]["components"]
        .as_object()
        .map(|kinds| {
            kinds
                .iter()
                .flat_map(|(kind, spec)| {
                    spec["fromDirs"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                        .into_iter()
                        .filter_map(|d| d["path"].as_str().map(str::to_string))
                        .map(|p| (kind.clone(), p))
                        .collect::<Vec<_>>()
                })
                .collect()
        })
        .unwrap_or_default();
    for (kind, dir) in dirs {
        let dir = dir
            .trim_start_matches("./")
            .trim_end_matches('/')
            .to_string()
            + "/";
        let mut yamls: Vec<&String> = files
            .iter()
            .map(|(f, _)| f)
            .filter(|f| {
                f.starts_with(&dir)
                    && !f[dir.len()..].contains('/')
                    && (f.ends_with(".yaml") || f.ends_with(".yml"))
            })
            .collect();
        yamls.sort();
        for path in yamls.into_iter().cloned().collect::<Vec<_>>() {
            let comp = yaml(&read_file(&path, MANIFEST_MAX)?, &path)?;
            if comp["kind"].as_str() != Some(kind.as_str()) {
                continue;
            }
            if kind == "Tool" {
                let tool = comp["metadata"]["name"].as_str().unwrap_or_default();
                if !valid_id(tool) || tool.len() > 64 {
                    return Err(bad(format!(
                        "{path}: metadata.name must be 1–64 letters, digits, _ or -"
                    )));
                }
                check_parameters(tool, &comp["spec"]["parameters"])?;
            }
            components
                .push(serde_json::json!({"owner": owner, "manifest": comp, "rel_path": path}));
        }
    }
    Ok(Package {
        author,
        name,
        version,
        manifest,
        components,
        digest: hex::encode(Sha256::digest(bytes)),
    })
}

/// One file of the package (readme, icon), if present and small enough.
pub fn file(bytes: &[u8], name: &str) -> Option<Vec<u8>> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).ok()?;
    let mut f = zip.by_name(name.trim_start_matches("./")).ok()?;
    let mut buf = Vec::new();
    f.by_ref().take(ENTRY_MAX).read_to_end(&mut buf).ok()?;
    Some(buf)
}

/// Unpacks a checked package into `dir` (created; paths were checked by [`read`]).
pub fn unpack(bytes: &[u8], dir: &Path) -> std::io::Result<()> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(std::io::Error::other)?;
    std::fs::create_dir_all(dir)?;
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(std::io::Error::other)?;
        let Some(rel) = entry.enclosed_name() else {
            continue;
        };
        let target = dir.join(rel);
        if entry.is_dir() {
            std::fs::create_dir_all(&target)?;
            continue;
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut out = std::fs::File::create(&target)?;
        std::io::copy(&mut entry.by_ref().take(ENTRY_MAX), &mut out)?;
    }
    Ok(())
}

/// Packs a plugin directory the way `lbp build` does (for installs from a local directory):
/// every file but VCS data, caches, environments and built packages.
pub fn pack_dir(dir: &Path) -> std::io::Result<Vec<u8>> {
    fn skip(name: &str) -> bool {
        matches!(
            name,
            ".git" | "__pycache__" | ".pytest_cache" | ".venv" | "venv" | ".env" | ".coverage"
        ) || name.ends_with(".lbpkg")
            || name.ends_with(".pyc")
            || name.ends_with(".pyo")
            || name.ends_with(".pyd")
    }
    fn walk(base: &Path, dir: &Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
        let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name().to_string_lossy().to_string();
            if skip(&name) {
                continue;
            }
            let path = e.path();
            let kind = e.file_type()?;
            if kind.is_dir() {
                walk(base, &path, out)?;
            } else if kind.is_file() {
                out.push(
                    path.strip_prefix(base)
                        .map_err(std::io::Error::other)?
                        .to_path_buf(),
                );
            }
            if out.len() > ENTRIES_MAX {
                return Err(std::io::Error::other("more than 512 files"));
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    walk(dir, dir, &mut files)?;
    let mut buf = Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut buf);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for rel in files {
            let name = rel.to_string_lossy().replace('\\', "/");
            zip.start_file(name, options)
                .map_err(std::io::Error::other)?;
            let mut f = std::fs::File::open(dir.join(&rel))?;
            std::io::copy(&mut f, &mut zip)?;
        }
        zip.finish().map_err(std::io::Error::other)?;
    }
    Ok(buf.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/plugins/weather")
    }

    #[test]
    fn the_fixture_plugin_packs_and_reads() -> Result<(), String> {
        let bytes = pack_dir(&fixture()).map_err(|e| e.to_string())?;
        let p = read(&bytes)?;
        assert_eq!((p.author.as_str(), p.name.as_str()), ("tester", "weather"));
        let names: Vec<&str> = p
            .components
            .iter()
            .filter_map(|c| c["manifest"]["metadata"]["name"].as_str())
            .collect();
        assert!(names.contains(&"get_weather_alerts"), "{names:?}");
        assert_eq!(p.digest.len(), 64);
        assert!(file(&bytes, "README.md").is_some());
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        unpack(&bytes, dir.path()).map_err(|e| e.to_string())?;
        assert!(dir
            .path()
            .join("components/tools/get_weather_alerts.py")
            .is_file());
        Ok(())
    }

    fn zip_of(files: &[(&str, &str)]) -> Vec<u8> {
        let mut buf = Cursor::new(Vec::new());
        {
            let mut zip = zip::ZipWriter::new(&mut buf);
            for (name, body) in files {
                let _ = zip.start_file(*name, zip::write::SimpleFileOptions::default());
                let _ = std::io::Write::write_all(&mut zip, body.as_bytes());
            }
            let _ = zip.finish();
        }
        buf.into_inner()
    }

    const MANIFEST: &str = "apiVersion: v1\nkind: Plugin\nmetadata:\n  author: a\n  name: b\n  version: 0.1.0\nspec:\n  components:\n    Tool:\n      fromDirs:\n      - path: components/tools/\n";

    #[test]
    fn bad_packages_say_why() {
        assert!(read(b"not a zip")
            .unwrap_err()
            .contains("not a plugin package"));
        assert!(read(&zip_of(&[("main.py", "")]))
            .unwrap_err()
            .contains("manifest.yaml"));
        assert!(read(&zip_of(&[("manifest.yaml", "- a list")]))
            .unwrap_err()
            .contains("mapping"));
        assert!(
            read(&zip_of(&[("../evil", ""), ("manifest.yaml", MANIFEST)]))
                .unwrap_err()
                .contains("Unsafe path")
        );
        let bad_schema =
            "kind: Tool\nmetadata:\n  name: t\nspec:\n  parameters:\n    type: string\n";
        let err = read(&zip_of(&[
            ("manifest.yaml", MANIFEST),
            ("components/tools/t.yaml", bad_schema),
        ]))
        .unwrap_err();
        assert!(err.contains("type: object"), "{err}");
        let ok = "kind: Tool\nmetadata:\n  name: t\nspec:\n  parameters: {}\n  llm_prompt: x\n";
        assert!(read(&zip_of(&[
            ("manifest.yaml", MANIFEST),
            ("components/tools/t.yaml", ok)
        ]))
        .is_ok());
    }
}
