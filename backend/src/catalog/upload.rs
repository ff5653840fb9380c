//! A file upload body: `multipart/form-data` over HTTP (the file in the `file` field, other
//! text fields beside it), `{filename, content_base64}` through MCP or JSON.

use std::borrow::Cow;
use std::collections::BTreeMap;

use base64::Engine;
use serde::{Deserialize, Deserializer};
use utoipa::openapi::schema::{ObjectBuilder, SchemaFormat, Type};
use utoipa::openapi::{KnownFormat, RefOr, Schema};
use utoipa::{PartialSchema, ToSchema};
use validator::Validate;

use crate::error::{ApiError, ApiResult};

/// The largest upload (a plugin package is at most 64 MiB unpacked; its ZIP is smaller).
pub const UPLOAD_MAX: u64 = 64 * 1024 * 1024;

#[derive(Debug, Clone, Default)]
pub struct Upload {
    pub filename: String,
    pub bytes: Vec<u8>,
    /// The other form fields.
    pub fields: BTreeMap<String, String>,
}

impl<'de> Deserialize<'de> for Upload {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Json {
            filename: Option<String>,
            content_base64: String,
        }
        let j = Json::deserialize(d)?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(j.content_base64.trim())
            .map_err(|_| serde::de::Error::custom("content_base64 is not valid base64"))?;
        Ok(Self {
            filename: j.filename.unwrap_or_default(),
            bytes,
            fields: BTreeMap::new(),
        })
    }
}

impl Validate for Upload {
    fn validate(&self) -> Result<(), validator::ValidationErrors> {
        Ok(())
    }
}

impl PartialSchema for Upload {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .property(
                "file",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .format(Some(SchemaFormat::KnownFormat(KnownFormat::Binary))),
            )
            .required("file")
            .into()
    }
}

impl ToSchema for Upload {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Upload")
    }
}

fn bad(why: &str) -> ApiError {
    ApiError::invalid(format!("Invalid multipart body: {why}")).field("file", why.to_string())
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    (from..=hay.len() - needle.len()).find(|&i| &hay[i..i + needle.len()] == needle)
}

/// Parses `multipart/form-data`; JSON bodies (`{filename, content_base64}`) are accepted too.
pub fn parse(content_type: &str, body: &[u8]) -> ApiResult<Upload> {
    let ct = content_type.to_ascii_lowercase();
    if ct.starts_with("application/json") {
        return super::input::parse_body::<Upload>(body);
    }
    if !ct.starts_with("multipart/form-data") {
        return Err(bad(
            "send multipart/form-data with the file in the `file` field",
        ));
    }
    let boundary = content_type
        .split(';')
        .filter_map(|p| p.trim().split_once('='))
        .find(|(k, _)| k.eq_ignore_ascii_case("boundary"))
        .map(|(_, v)| v.trim_matches('"').to_string())
        .filter(|b| !b.is_empty())
        .ok_or_else(|| bad("no boundary"))?;
    let delim = format!("--{boundary}").into_bytes();
    let mut upload = Upload::default();
    let mut found = false;
    let mut pos = find(body, &delim, 0).ok_or_else(|| bad("no parts"))?;
    loop {
        pos += delim.len();
        if body[pos..].starts_with(b"--") {
            break;
        }
        // Each part: CRLF, headers, CRLF CRLF, content, CRLF, delimiter.
        let head_end = find(body, b"\r\n\r\n", pos).ok_or_else(|| bad("a part has no headers"))?;
        let headers = String::from_utf8_lossy(&body[pos..head_end]).to_string();
        let start = head_end + 4;
        let mut next_delim = b"\r\n".to_vec();
        next_delim.extend_from_slice(&delim);
        let end = find(body, &next_delim, start).ok_or_else(|| bad("a part is not terminated"))?;
        let content = &body[start..end];
        let disposition = headers
            .lines()
            .find(|l| l.to_ascii_lowercase().starts_with("content-disposition"))
            .unwrap_or_default();
        let param = |key: &str| {
            disposition.split(';').find_map(|p| {
                let (k, v) = p.trim().split_once('=')?;
                (k.trim() == key).then(|| v.trim().trim_matches('"').to_string())
            })
        };
        match (param("name"), param("filename")) {
            (Some(name), Some(filename)) if name == "file" => {
                upload.filename = filename;
                upload.bytes = content.to_vec();
                found = true;
            }
            (Some(name), _) => {
                upload
                    .fields
                    .insert(name, String::from_utf8_lossy(content).to_string());
            }
            _ => {}
        }
        pos = end + 2;
    }
    if !found {
        return Err(ApiError::invalid("file is required").field("file", "is required"));
    }
    Ok(upload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multipart_bodies_are_read() -> ApiResult<()> {
        let body = b"--XyZ\r\nContent-Disposition: form-data; name=\"administrator_force\"\r\n\r\ntrue\r\n--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.lbpkg\"\r\nContent-Type: application/octet-stream\r\n\r\nPK\x03\x04\r\n\r\nbin\r\n--XyZ--\r\n";
        let u = parse("multipart/form-data; boundary=XyZ", body)?;
        assert_eq!(u.filename, "a.lbpkg");
        assert_eq!(u.bytes, b"PK\x03\x04\r\n\r\nbin");
        assert_eq!(
            u.fields.get("administrator_force").map(String::as_str),
            Some("true")
        );
        assert!(parse("multipart/form-data; boundary=XyZ", b"--XyZ--\r\n").is_err());
        assert!(parse("text/plain", b"x").is_err());
        let j = parse(
            "application/json",
            br#"{"filename":"p.lbpkg","content_base64":"UEs="}"#,
        )?;
        assert_eq!(j.bytes, b"PK");
        Ok(())
    }
}
