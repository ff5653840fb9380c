//! A response and the assertions every suite makes on it: the success envelope, the error
//! body, and the fields an error names.

use serde_json::Value;

/// A response with its body parsed as JSON (`Value::Null` when not JSON).
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
    pub body: Value,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The `data` of a success envelope, asserting the envelope.
    #[track_caller]
    pub fn data(&self) -> &Value {
        assert_eq!(
            self.status, 200,
            "expected success, got {}: {}",
            self.status, self.text
        );
        assert_eq!(self.body["code"], 0, "{}", self.text);
        assert_eq!(self.body["msg"], "ok", "{}", self.text);
        &self.body["data"]
    }

    /// Asserts an error response with `status` and `code`, and the error body shape.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) -> &Self {
        assert_eq!(self.status, status, "{}", self.text);
        assert_eq!(self.body["code"], code, "{}", self.text);
        assert!(
            self.body["msg"].as_str().is_some_and(|m| !m.is_empty()),
            "{}",
            self.text
        );
        assert!(
            self.body["request_id"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{}",
            self.text
        );
        self
    }

    /// Like [`Self::assert_error`], first asserting that bad input (`what`) produced no 5xx.
    #[track_caller]
    pub fn expect_error(&self, status: u16, code: &str, what: &str) -> &Self {
        assert!(
            self.status < 500,
            "{what}: bad input produced a server error {}: {}",
            self.status,
            self.text
        );
        assert_eq!(
            (self.status, self.body["code"].as_str()),
            (status, Some(code)),
            "{what}: {}",
            self.text
        );
        self.assert_error(status, code)
    }

    /// [`Self::expect_error`], and the `errors` array names `field`.
    #[track_caller]
    pub fn expect_field_error(&self, status: u16, code: &str, field: &str, what: &str) -> &Self {
        self.expect_error(status, code, what);
        let fields = self.error_fields();
        assert!(
            fields.iter().any(|f| f == field),
            "{what}: expected `errors` to name `{field}`, got {fields:?}: {}",
            self.text
        );
        self
    }

    /// Asserts a client error (4xx, never 5xx) with an error code and a request id.
    #[track_caller]
    pub fn assert_client_error(&self, what: &str) -> &Self {
        assert!(
            (400..500).contains(&self.status),
            "{what}: expected a 4xx, got {}: {}",
            self.status,
            self.text
        );
        assert!(
            self.body["code"].as_str().is_some_and(|c| !c.is_empty()),
            "{what}: no error code: {}",
            self.text
        );
        assert!(
            self.body["request_id"]
                .as_str()
                .is_some_and(|c| !c.is_empty()),
            "{what}: no request_id: {}",
            self.text
        );
        self
    }

    /// The `field` of every entry of the error's `errors` array.
    pub fn error_fields(&self) -> Vec<String> {
        error_fields(&self.body)
    }
}

/// The `field` of every entry of an error body's `errors` array (HTTP bodies and MCP tool
/// errors alike).
pub fn error_fields(body: &Value) -> Vec<String> {
    body["errors"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|e| e["field"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}
