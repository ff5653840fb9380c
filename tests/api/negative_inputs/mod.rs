//! Bad input on every resource (SPEC §4): each case expects the API's real answer — a 4xx with
//! the stable error code (and, where the API names one, the field), never a 5xx. The catalog-
//! wide tables (`every_operation`) reach every operation; the per-resource tables add the
//! resource's own fields (wrong types, unknown fields, over-long strings, bad enums).

mod http_bot;
mod identity;
mod monitoring;
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

struct Case {
    method: Method,
    path: String,
    body: Option<Value>,
    /// A raw (possibly malformed) JSON body instead of `body`.
    raw: Option<&'static str>,
    expect: Expect,
    /// A field the `errors` array must name.
    field: Option<&'static str>,
}

fn get(path: String, expect: Expect, field: Option<&'static str>) -> Case {
    Case {
        method: Method::GET,
        path,
        body: None,
        raw: None,
        expect,
        field,
    }
}

fn post(path: String, body: Value, expect: Expect, field: Option<&'static str>) -> Case {
    Case {
        method: Method::POST,
        path,
        body: Some(body),
        raw: None,
        expect,
        field,
    }
}

const BAD: Expect = Expect::Error(400, "invalid_request");

/// Runs every case; returns one line per case that did not answer as expected.
async fn run_cases(app: &TestApp, token: &str, cases: &[Case]) -> Vec<String> {
    let mut failures = Vec::new();
    for case in cases {
        let req = app.request(case.method.clone(), &case.path).bearer(token);
        let req = match (&case.body, case.raw) {
            (_, Some(raw)) => req.raw_json(raw.as_bytes().to_vec()),
            (Some(body), None) => req.json(body),
            (None, None) => req,
        };
        let res = req.send().await;
        let what = format!(
            "{} {}{}",
            case.method,
            case.path,
            case.body
                .as_ref()
                .map(|b| format!(" {b}"))
                .or(case.raw.map(|r| format!(" {r}")))
                .unwrap_or_default()
        );
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
