//! Bad input on every resource (SPEC §4): each case expects the API's real answer — a 4xx with
//! the stable error code (and, where the API names one, the field), never a 5xx.
//!
//! [`every_operation`] derives its tables from the catalog and the served OpenAPI document, so
//! they reach every operation: malformed JSON, non-object bodies, unknown body fields, oversize
//! bodies, malformed path ids, and bad query values (empty values, out-of-range paging, bad
//! enums, booleans and uuids, unknown parameters). The per-resource tables add each resource's
//! own fields: wrong types, over-long strings (names 255, URLs 512, emails 320), bad enums.

mod bots;
mod every_operation;
mod http_bot;
mod identity;
mod monitoring;
mod pipelines;
mod positional_arrays;
mod providers;

use reqwest::Method;
use serde_json::Value;

use crate::helpers::TestApp;

/// What a bad request must answer.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// This status and error code.
    Error(u16, &'static str),
    /// Something that does not exist: 404 `resource_not_found` or 400 `invalid_request`.
    Missing,
}

/// 400 `invalid_request`: what bad input is unless a case says otherwise.
const BAD: Expect = Expect::Error(400, "invalid_request");
/// 400 `invalid_json`: a body that is not JSON.
const NOT_JSON: Expect = Expect::Error(400, "invalid_json");
/// 404 `resource_not_found`.
const NOT_FOUND: Expect = Expect::Error(404, "resource_not_found");

/// One bad request and the answer it must get.
struct Case {
    method: Method,
    path: String,
    body: Option<Value>,
    /// A raw (possibly malformed or oversized) JSON body instead of `body`, and how to show it.
    raw: Option<(Vec<u8>, String)>,
    expect: Expect,
    /// A field the `errors` array must name.
    field: Option<&'static str>,
}

impl Case {
    fn new(method: Method, path: impl Into<String>, expect: Expect) -> Self {
        Case {
            method,
            path: path.into(),
            body: None,
            raw: None,
            expect,
            field: None,
        }
    }

    fn json(mut self, body: Value) -> Self {
        self.body = Some(body);
        self
    }

    /// A raw body, shown as `label` in failures.
    fn raw(mut self, bytes: impl Into<Vec<u8>>, label: impl Into<String>) -> Self {
        self.raw = Some((bytes.into(), label.into()));
        self
    }

    /// The `errors` array must name `field`.
    fn naming(mut self, field: &'static str) -> Self {
        self.field = Some(field);
        self
    }
}

fn get(path: String, expect: Expect, field: Option<&'static str>) -> Case {
    Case {
        field,
        ..Case::new(Method::GET, path, expect)
    }
}

fn post(path: String, body: Value, expect: Expect, field: Option<&'static str>) -> Case {
    Case {
        field,
        ..Case::new(Method::POST, path, expect).json(body)
    }
}

/// Runs every case as `token`; returns one line per case that did not answer as expected.
async fn run_cases(app: &TestApp, token: &str, cases: &[Case]) -> Vec<String> {
    let mut failures = Vec::new();
    for case in cases {
        let req = app.request(case.method.clone(), &case.path).bearer(token);
        let req = match (&case.body, &case.raw) {
            (_, Some((raw, _))) => req.raw_json(raw.clone()),
            (Some(body), None) => req.json(body),
            (None, None) => req,
        };
        let res = req.send().await;
        let shown: String = case
            .body
            .as_ref()
            .map(|b| format!(" {b}"))
            .or(case.raw.as_ref().map(|(_, label)| format!(" {label}")))
            .unwrap_or_default()
            .chars()
            .take(200)
            .collect();
        let what = format!("{} {}{shown}", case.method, case.path);
        let code = res.body["code"].as_str().unwrap_or_default().to_string();
        let matched = match case.expect {
            Expect::Error(status, expected) => res.status == status && code == expected,
            Expect::Missing => {
                (res.status == 404 && code == "resource_not_found")
                    || (res.status == 400 && code == "invalid_request")
            }
        };
        let shaped = res.body["msg"].as_str().is_some_and(|m| !m.is_empty())
            && res.body["request_id"]
                .as_str()
                .is_some_and(|m| !m.is_empty());
        let text: String = res.text.chars().take(300).collect();
        if res.status >= 500 {
            failures.push(format!("{what}\n    → SERVER ERROR {}: {text}", res.status));
        } else if !matched || !shaped {
            failures.push(format!(
                "{what}\n    → expected {:?}, got {}: {text}",
                case.expect, res.status
            ));
        } else if let Some(field) = case.field {
            let named = res.body["errors"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|e| e["field"] == field);
            if !named {
                failures.push(format!(
                    "{what}\n    → expected errors to name `{field}`: {text}"
                ));
            }
        }
    }
    failures
}

/// Runs every case as `token` and asserts each answered as expected (listing all that did not).
#[track_caller]
fn assert_no_failures(failures: &[String], cases: usize) {
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
