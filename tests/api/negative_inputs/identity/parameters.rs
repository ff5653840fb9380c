//! Path parameters (`{key_id}`, `{workspace_uuid}`, `{account_uuid}`, `{invitation_uuid}`)
//! and list query parameters.

use reqwest::Method;
use serde_json::{json, Value};

use super::fixture;

#[tokio::test]
async fn invalid_path_parameters_are_4xx_never_5xx() {
    let fx = fixture().await;
    let ws = &fx.ws;
    let send = |method: Method, path: String, body: Option<Value>, selector: Option<String>| {
        let fx = &fx;
        async move {
            let mut req = fx.app.request(method, &path).bearer(&fx.owner);
            if let Some(body) = body {
                req = req.json(&body);
            }
            if let Some(selector) = selector {
                req = req.header("x-workspace-id", &selector);
            }
            req.send().await
        }
    };
    // `{key_id}` must be an integer.
    let long = "9".repeat(400);
    for bad in [
        "abc",
        "1.5",
        "1e3",
        "0x1",
        "99999999999999999999",
        "%20",
        "1%20",
        "true",
        "null",
        long.as_str(),
    ] {
        for (method, body) in [
            (Method::GET, None),
            (Method::PUT, Some(json!({ "name": "x" }))),
            (Method::DELETE, None),
        ] {
            let res = send(method.clone(), format!("/api/v1/apikeys/{bad}"), body, None).await;
            res.expect_error(
                400,
                "invalid_request",
                &format!("{method} /apikeys/{bad:.30}"),
            );
        }
    }
    // Integers that name no key of this Workspace.
    for missing in [
        "0",
        "-1",
        "999999",
        "9223372036854775807",
        "-9223372036854775808",
    ] {
        for (method, body) in [
            (Method::GET, None),
            (Method::PUT, Some(json!({ "name": "x" }))),
            (Method::DELETE, None),
        ] {
            let res = send(
                method.clone(),
                format!("/api/v1/apikeys/{missing}"),
                body,
                None,
            )
            .await;
            res.expect_error(
                404,
                "resource_not_found",
                &format!("{method} /apikeys/{missing}"),
            );
        }
    }
    let key = fx
        .owner_call(Method::GET, &format!("/api/v1/apikeys/{}", fx.key_id))
        .await;
    assert_eq!(key.data()["key"]["status"], "active");
    assert_eq!(key.data()["key"]["name"], "test key");

    // `{workspace_uuid}` that is not a uuid, or no Workspace of the caller: not found.
    let random = uuid::Uuid::new_v4();
    for bad in [
        "not-a-uuid".to_string(),
        "123".to_string(),
        random.to_string(),
    ] {
        let calls = [
            (Method::GET, format!("/api/v1/workspaces/{bad}"), None),
            (
                Method::PUT,
                format!("/api/v1/workspaces/{bad}"),
                Some(json!({ "name": "w" })),
            ),
            (
                Method::GET,
                format!("/api/v1/workspaces/{bad}/members"),
                None,
            ),
            (
                Method::GET,
                format!("/api/v1/workspaces/{bad}/invitations"),
                None,
            ),
            (
                Method::POST,
                format!("/api/v1/workspaces/{bad}/invitations"),
                Some(json!({ "email": "x@example.com" })),
            ),
            (
                Method::PATCH,
                format!("/api/v1/workspaces/{bad}/members/{}", fx.owner_uuid),
                Some(json!({ "role": "viewer" })),
            ),
            (
                Method::DELETE,
                format!("/api/v1/workspaces/{bad}/invitations/{random}"),
                None,
            ),
        ];
        for (method, path, body) in calls {
            let res = send(method.clone(), path.clone(), body, None).await;
            res.expect_error(404, "resource_not_found", &format!("{method} {path}"));
        }
    }
    // With the Workspace selected by header, a malformed path uuid is a 400 and a foreign one
    // a 404.
    let res = send(
        Method::GET,
        "/api/v1/workspaces/not-a-uuid".into(),
        None,
        Some(ws.clone()),
    )
    .await;
    res.expect_error(
        400,
        "invalid_request",
        "malformed path uuid, selected Workspace",
    );
    let res = send(
        Method::GET,
        format!("/api/v1/workspaces/{random}"),
        None,
        Some(ws.clone()),
    )
    .await;
    res.expect_error(
        404,
        "resource_not_found",
        "foreign path uuid, selected Workspace",
    );

    // `{account_uuid}` and `{invitation_uuid}` must be uuids; unknown ones are not found.
    for (method, body) in [
        (Method::PATCH, Some(json!({ "role": "viewer" }))),
        (Method::DELETE, None),
    ] {
        for bad in ["not-a-uuid", "1", "00000000-0000-0000-0000-00000000000g"] {
            let path = format!("/api/v1/workspaces/{ws}/members/{bad}");
            let res = send(method.clone(), path.clone(), body.clone(), None).await;
            res.expect_error(400, "invalid_request", &format!("{method} {path}"));
        }
        let path = format!("/api/v1/workspaces/{ws}/members/{random}");
        let res = send(method.clone(), path.clone(), body, None).await;
        res.expect_error(404, "resource_not_found", &format!("{method} {path}"));
    }
    for bad in ["not-a-uuid", "42"] {
        let path = format!("/api/v1/workspaces/{ws}/invitations/{bad}");
        let res = send(Method::DELETE, path.clone(), None, None).await;
        res.expect_error(400, "invalid_request", &format!("DELETE {path}"));
    }
    let path = format!("/api/v1/workspaces/{ws}/invitations/{random}");
    let res = send(Method::DELETE, path.clone(), None, None).await;
    res.expect_error(404, "resource_not_found", &format!("DELETE {path}"));
}

#[tokio::test]
async fn bad_list_query_parameters_are_400() {
    let fx = fixture().await;
    let ws = &fx.ws;
    let lists = [
        "/api/v1/apikeys".to_string(),
        "/api/v1/workspaces".to_string(),
        format!("/api/v1/workspaces/{ws}/members"),
        format!("/api/v1/workspaces/{ws}/invitations"),
    ];
    // Out of range: the `errors` array names the parameter.
    for (query, field) in [
        ("limit=0", "limit"),
        ("limit=501", "limit"),
        ("limit=100000", "limit"),
        ("offset=10000001", "offset"),
    ] {
        for list in &lists {
            let res = fx.owner_call(Method::GET, &format!("{list}?{query}")).await;
            res.expect_field_error(400, "invalid_request", field, &format!("{list}?{query}"));
        }
    }
    // Not a number, negative, empty, repeated or unknown.
    for query in [
        "limit=abc",
        "limit=-1",
        "limit=1.5",
        "limit=",
        "limit=1e2",
        "limit=99999999999999999999999",
        "offset=abc",
        "offset=-1",
        "offset=",
        "limit=1&limit=2",
        "foo=1",
        "limit=10&foo=bar",
        "page=2",
        "Limit=10",
    ] {
        for list in &lists {
            let res = fx.owner_call(Method::GET, &format!("{list}?{query}")).await;
            res.expect_error(400, "invalid_request", &format!("{list}?{query}"));
        }
    }
    // The bounds themselves are fine.
    for list in &lists {
        for (query, limit) in [("limit=1", 1), ("limit=500&offset=0", 500), ("", 100)] {
            let res = fx.owner_call(Method::GET, &format!("{list}?{query}")).await;
            assert_eq!(res.data()["limit"], limit, "{list}?{query}");
        }
        let res = fx
            .owner_call(Method::GET, &format!("{list}?offset=10000000"))
            .await;
        assert_eq!(res.data()["offset"], 10_000_000, "{list}");
    }
}
