//! HMAC-SHA256 signatures and the timestamp window: 40101 and 40102 refusals, the window's
//! edges, and unsigned requests when signatures are optional.

use std::time::Duration;

use langbot::runtime::signing::sign;
use serde_json::json;

use super::{now, ENDPOINTS};
use crate::helpers::fixtures::{
    body_for, post_with_headers, reply_text, signature_headers, text, Rig, INBOUND,
};
use crate::helpers::spawn_app;

#[tokio::test]
async fn bad_signatures_are_refused_with_40101() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let before = rig.baseline(&app).await;
    for suffix in ENDPOINTS {
        let path = format!("/bots/{}{suffix}", rig.bot);
        let body = body_for(suffix, "s1", "intruder");
        let ts = now().to_string();
        let what = |case: &str| format!("POST {suffix:?}: {case}");

        let res = post_with_headers(
            &app,
            &path,
            &body,
            &signature_headers("not-the-secret", &ts, &body),
        )
        .await;
        res.assert_refused(401, 40101, &what("signed with a wrong secret"));

        let changed = body_for(suffix, "s2", "changed after signing");
        let res = post_with_headers(
            &app,
            &path,
            &changed,
            &signature_headers(INBOUND, &ts, &body),
        )
        .await;
        res.assert_refused(401, 40101, &what("body changed after signing"));

        // One second before the signed one (not `now() - 1`: under load the clock may have
        // moved on a second since `ts`, making "earlier" the signed timestamp itself).
        let earlier = (ts.parse::<i64>().expect("a number") - 1).to_string();
        let headers = [
            ("x-lb-timestamp", earlier),
            ("x-lb-signature", sign(INBOUND, &ts, &body)),
        ];
        let res = post_with_headers(&app, &path, &body, &headers).await;
        res.assert_refused(401, 40101, &what("timestamp changed after signing"));

        let res = post_with_headers(&app, &path, &body, &[("x-lb-timestamp", ts.clone())]).await;
        res.assert_refused(401, 40101, &what("no X-LB-Signature"));

        let headers = [
            ("x-lb-timestamp", ts.clone()),
            ("x-lb-signature", String::new()),
        ];
        let res = post_with_headers(&app, &path, &body, &headers).await;
        res.assert_refused(401, 40101, &what("empty X-LB-Signature"));

        let bare = sign(INBOUND, &ts, &body).replace("sha256=", "");
        let headers = [("x-lb-timestamp", ts.clone()), ("x-lb-signature", bare)];
        let res = post_with_headers(&app, &path, &body, &headers).await;
        res.assert_refused(401, 40101, &what("signature without the sha256= prefix"));

        let res = post_with_headers(&app, &path, &body, &[]).await;
        assert_eq!(
            res.status,
            401,
            "{}: {}",
            what("no headers at all"),
            res.text
        );
    }
    rig.assert_untouched(&app, before).await;
}

#[tokio::test]
async fn missing_malformed_and_stale_timestamps_are_refused_with_40102() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let before = rig.baseline(&app).await;
    for suffix in ENDPOINTS {
        let path = format!("/bots/{}{suffix}", rig.bot);
        let body = body_for(suffix, "s1", "late");
        let what = |case: &str| format!("POST {suffix:?}: {case}");

        let sig = sign(INBOUND, &now().to_string(), &body);
        let res = post_with_headers(&app, &path, &body, &[("x-lb-signature", sig)]).await;
        res.assert_refused(401, 40102, &what("no X-LB-Timestamp"));

        for ts in [
            String::new(),
            "yesterday".to_string(),
            "12.5".to_string(),
            format!("{}ms", now()),
        ] {
            let res =
                post_with_headers(&app, &path, &body, &signature_headers(INBOUND, &ts, &body))
                    .await;
            res.assert_refused(401, 40102, &what(&format!("timestamp {ts:?}")));
        }

        for (case, ts) in [
            ("now - 301 s", now() - 301),
            // Ten seconds past the window: the server reads its clock later than this test, so
            // "now + 301 s" could land on the window's edge when a second turns in between.
            ("now + 310 s", now() + 310),
            ("milliseconds", now() * 1000),
            ("zero", 0),
        ] {
            let ts = ts.to_string();
            let res =
                post_with_headers(&app, &path, &body, &signature_headers(INBOUND, &ts, &body))
                    .await;
            res.assert_refused(401, 40102, &what(case));
        }
    }
    rig.assert_untouched(&app, before).await;
}

#[tokio::test]
async fn timestamps_inside_the_window_are_accepted() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let path = format!("/bots/{}", rig.bot);
    for (i, ts) in [now() - 290, now() + 290].into_iter().enumerate() {
        let body = text(&format!("w{i}"), "in time").to_string().into_bytes();
        let res = post_with_headers(
            &app,
            &path,
            &body,
            &signature_headers(INBOUND, &ts.to_string(), &body),
        )
        .await;
        assert_eq!(res.status, 202, "offset {i}: {}", res.text);
    }
    let callbacks = rig.callbacks(2).await;
    assert!(callbacks
        .iter()
        .all(|(b, _, _)| reply_text(b) == "echo(1): in time"));
}

#[tokio::test]
async fn unsigned_requests_pass_only_when_signatures_are_optional() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let path = format!("/bots/{}", rig.bot);
    let body = text("s1", "unsigned").to_string().into_bytes();
    let res = post_with_headers(&app, &path, &body, &[]).await;
    assert_eq!(res.status, 401, "unsigned while required: {}", res.text);
    assert!(
        res.body["code"] == 40101 || res.body["code"] == 40102,
        "{}",
        res.text
    );

    rig.update_bot(
        &app,
        json!({ "adapter_config": rig.adapter_config(json!({ "signature_required": false })) }),
    )
    .await;
    let read = app
        .get_as(&rig.owner, &format!("/api/v1/platform/bots/{}", rig.bot))
        .await;
    assert_eq!(
        read.data()["bot"]["adapter_config"]["signature_required"],
        false,
        "{}",
        read.text
    );

    let res = post_with_headers(&app, &path, &body, &[]).await;
    assert_eq!(res.status, 202, "unsigned: {}", res.text);
    let callbacks = rig.callbacks(1).await;
    assert_eq!(reply_text(&callbacks[0].0), "echo(1): unsigned");

    // A signature that is present is still checked.
    let ts = now().to_string();
    let forged = text("s1", "forged").to_string().into_bytes();
    let res = post_with_headers(
        &app,
        &path,
        &forged,
        &signature_headers("not-the-secret", &ts, &forged),
    )
    .await;
    res.assert_refused(401, 40101, "optional signature, but a wrong one");
    let res = post_with_headers(
        &app,
        &path,
        &forged,
        &[("x-lb-signature", sign("not-the-secret", &ts, &forged))],
    )
    .await;
    res.assert_refused(
        401,
        40102,
        "optional signature, wrong and without timestamp",
    );
    let stale = (now() - 301).to_string();
    let res = post_with_headers(
        &app,
        &path,
        &forged,
        &signature_headers(INBOUND, &stale, &forged),
    )
    .await;
    res.assert_refused(401, 40102, "optional signature, stale timestamp");
    let res = post_with_headers(
        &app,
        &format!("{path}/sync"),
        &forged,
        &signature_headers("not-the-secret", &ts, &forged),
    )
    .await;
    res.assert_refused(401, 40101, "optional signature, wrong one on /sync");
    let reset = json!({ "session_id": "s1" }).to_string().into_bytes();
    let res = post_with_headers(
        &app,
        &format!("{path}/reset"),
        &reset,
        &signature_headers("not-the-secret", &ts, &reset),
    )
    .await;
    res.assert_refused(401, 40101, "optional signature, wrong one on /reset");

    // None of the refused requests ran; unsigned /sync and /reset work.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(rig.callback_count().await, 1);
    let sync = post_with_headers(
        &app,
        &format!("{path}/sync"),
        text("s1", "again").to_string().as_bytes(),
        &[],
    )
    .await;
    assert_eq!(sync.data()["text"], "echo(2): again");
    let res = post_with_headers(&app, &format!("{path}/reset"), &reset, &[]).await;
    assert_eq!(res.data()["reset"], true, "{}", res.text);
    let sync = post_with_headers(
        &app,
        &format!("{path}/sync"),
        text("s1", "fresh").to_string().as_bytes(),
        &[],
    )
    .await;
    assert_eq!(sync.data()["text"], "echo(1): fresh");
}
