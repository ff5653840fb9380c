//! The built web UI (SPEC §13), read from `web.dir` (`LANGBOT_WEB_DIR`, default `web/dist`) on
//! every request, so a rebuilt UI is served without a restart.
//!
//! - Hashed files under `assets/` are cached for a year; `index.html` is never cached.
//! - A precompressed sibling (`.br`, then `.gz`, written by the UI build) is sent when the
//!   client accepts it.
//! - Any other GET that names no file is a client route and gets `index.html`.
//! - `/api/…`, `/mcp`, `/bots/…` and the health routes never fall back: they keep their JSON 404.

use std::path::{Path, PathBuf};

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};

use crate::state::AppState;

/// Path prefixes that belong to the server, never to the UI.
const SERVER_PREFIXES: &[&str] = &["/api", "/mcp", "/bots", "/healthz", "/readyz"];

const IMMUTABLE: &str = "public, max-age=31536000, immutable";
const NEVER: &str = "no-store";
const SHORT: &str = "public, max-age=3600";

/// The app's default service: a UI file, `index.html` for a client route, else the JSON 404.
pub async fn serve(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let path = req.path().to_string();
    if !matches!(*req.method(), Method::GET | Method::HEAD) || is_server_path(&path) {
        return super::not_found().await;
    }
    let dir = state.settings.web_dir();
    let encodings = Encodings::accepted(&req);
    let found = web::block(move || locate(&dir, &path, encodings)).await;
    match found {
        Ok(Lookup::File(file)) => file.response(),
        Ok(Lookup::NotBuilt(dir)) => not_built(&dir),
        Ok(Lookup::Missing) | Err(_) => super::not_found().await,
    }
}

fn is_server_path(path: &str) -> bool {
    SERVER_PREFIXES.iter().any(|prefix| {
        path.strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// Which precompressed variants the client takes (`q=0` refuses one).
#[derive(Debug, Clone, Copy, Default)]
struct Encodings {
    br: bool,
    gzip: bool,
}

impl Encodings {
    fn accepted(req: &HttpRequest) -> Self {
        let header = req
            .headers()
            .get(header::ACCEPT_ENCODING)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let mut out = Self::default();
        for item in header.split(',') {
            let mut parts = item.split(';').map(str::trim);
            let name = parts.next().unwrap_or("");
            let refused = parts.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            match name {
                "br" => out.br = !refused,
                "gzip" => out.gzip = !refused,
                _ => {}
            }
        }
        out
    }
}

enum Lookup {
    File(StaticFile),
    /// No `index.html` in the web dir: the UI was never built (or `LANGBOT_WEB_DIR` is wrong).
    NotBuilt(PathBuf),
    Missing,
}

struct StaticFile {
    bytes: Vec<u8>,
    content_type: &'static str,
    encoding: Option<&'static str>,
    cache: &'static str,
}

impl StaticFile {
    fn response(self) -> HttpResponse {
        let mut res = HttpResponse::Ok();
        res.insert_header((header::CONTENT_TYPE, self.content_type))
            .insert_header((header::CACHE_CONTROL, self.cache))
            .insert_header((header::VARY, "Accept-Encoding"))
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"));
        if let Some(encoding) = self.encoding {
            res.insert_header((header::CONTENT_ENCODING, HeaderValue::from_static(encoding)));
        }
        res.body(self.bytes)
    }
}

/// Finds what `path` should answer with (blocking file reads).
fn locate(dir: &Path, path: &str, encodings: Encodings) -> Lookup {
    let index = dir.join("index.html");
    let relative = path.trim_start_matches('/');
    if !relative.is_empty() {
        // Only plain names reach the file system: no `..`, no hidden files, no escapes.
        let segments: Vec<&str> = relative.split('/').collect();
        let plain = segments.iter().all(|s| is_plain_segment(s));
        if plain {
            let candidate = segments.iter().fold(dir.to_path_buf(), |p, s| p.join(s));
            if candidate.is_file() {
                let cache = if segments.first() == Some(&"assets") {
                    IMMUTABLE
                } else if candidate == index {
                    NEVER
                } else {
                    SHORT
                };
                return read(&candidate, encodings, cache).map_or(Lookup::Missing, Lookup::File);
            }
        }
        // A missing file (an old asset, a typo) is a 404, never a page of HTML.
        let names_file = segments.last().is_some_and(|s| s.contains('.'));
        if segments.first() == Some(&"assets") || names_file {
            return Lookup::Missing;
        }
    }
    if !index.is_file() {
        return Lookup::NotBuilt(dir.to_path_buf());
    }
    read(&index, encodings, NEVER).map_or(Lookup::Missing, Lookup::File)
}

fn is_plain_segment(segment: &str) -> bool {
    !segment.is_empty()
        && !segment.starts_with('.')
        && segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
}

/// Reads `file`, or its best accepted precompressed sibling.
fn read(file: &Path, encodings: Encodings, cache: &'static str) -> Option<StaticFile> {
    let content_type = content_type(file);
    let variants = [("br", encodings.br), ("gzip", encodings.gzip)];
    for (encoding, accepted) in variants {
        if !accepted {
            continue;
        }
        let suffix = if encoding == "br" { "br" } else { "gz" };
        let mut name = file.as_os_str().to_owned();
        name.push(".");
        name.push(suffix);
        if let Ok(bytes) = std::fs::read(PathBuf::from(name)) {
            return Some(StaticFile {
                bytes,
                content_type,
                encoding: Some(encoding),
                cache,
            });
        }
    }
    let bytes = std::fs::read(file).ok()?;
    Some(StaticFile {
        bytes,
        content_type,
        encoding: None,
        cache,
    })
}

fn content_type(file: &Path) -> &'static str {
    let ext = file
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn not_built(dir: &Path) -> HttpResponse {
    let body = format!(
        "<!doctype html><meta charset=utf-8><title>LangBot</title>\
         <h1>The web UI is not built</h1>\
         <p>No <code>index.html</code> in <code>{}</code>. Run <code>scripts/serve.sh</code> \
         (builds the UI, then starts the server), or build it with \
         <code>npm --prefix web ci &amp;&amp; npm --prefix web run build</code>, or point \
         <code>LANGBOT_WEB_DIR</code> at a built UI. The API is at <a href=/api/docs/>/api/docs/</a>.</p>",
        html_escape(&dir.display().to_string())
    );
    HttpResponse::build(StatusCode::SERVICE_UNAVAILABLE)
        .insert_header((header::CONTENT_TYPE, "text/html; charset=utf-8"))
        .insert_header((header::CACHE_CONTROL, NEVER))
        .body(body)
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_paths_never_reach_the_ui() {
        for path in [
            "/api",
            "/api/v1/x",
            "/mcp",
            "/bots/1",
            "/healthz",
            "/readyz",
        ] {
            assert!(is_server_path(path), "{path}");
        }
        for path in ["/", "/apikeys", "/mcpanel", "/botsy", "/settings/api"] {
            assert!(!is_server_path(path), "{path}");
        }
    }

    #[test]
    fn only_plain_segments_touch_the_file_system() {
        assert!(is_plain_segment("index-Ab12_c.js"));
        for bad in ["", "..", ".env", "a%2e", "a\\b", "a b"] {
            assert!(!is_plain_segment(bad), "{bad}");
        }
    }
}
