//! The scripted tool-calling fake model itself (no app involved): which round a request gets,
//! tool calls as JSON and as SSE deltas, malformed arguments sent verbatim, the final text
//! carrying the tool results it received, the answer without tools, and the recorded bodies.

use serde_json::{json, Value};

use crate::helpers::{
    raw_tool_call, tool_call, FakeOpenAi, Round, ToolScript, RESULTS, RESULTS_SEPARATOR,
};

fn tools() -> Value {
    json!([{ "type": "function", "function": { "name": "echo", "description": "",
             "parameters": { "type": "object" } } }])
}

/// A request of a turn that already had `rounds` tool rounds, with tool results.
fn request(rounds: &[(&str, &str)], stream: bool, with_tools: bool) -> Value {
    let mut messages = vec![
        json!({ "role": "system", "content": "be brief" }),
        json!({ "role": "user", "content": "an earlier turn" }),
        json!({ "role": "assistant", "content": null,
                "tool_calls": [{ "id": "old", "type": "function",
                                 "function": { "name": "echo", "arguments": "{}" } }] }),
        json!({ "role": "tool", "tool_call_id": "old", "content": "old result" }),
        json!({ "role": "assistant", "content": "old answer" }),
        json!({ "role": "user", "content": "now" }),
    ];
    for (id, result) in rounds {
        messages.push(json!({ "role": "assistant", "content": null,
            "tool_calls": [{ "id": id, "type": "function",
                             "function": { "name": "echo", "arguments": "{}" } }] }));
        messages.push(json!({ "role": "tool", "tool_call_id": id, "content": result }));
    }
    let mut body = json!({ "model": "m", "messages": messages, "stream": stream });
    if with_tools {
        body["tools"] = tools();
    }
    body
}

async fn post(fake: &FakeOpenAi, body: &Value) -> (String, String) {
    let res = reqwest::Client::new()
        .post(format!("{}/chat/completions", fake.base_url()))
        .json(body)
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), 200);
    let ct = res.headers()["content-type"]
        .to_str()
        .unwrap_or_default()
        .to_string();
    (ct, res.text().await.expect("body"))
}

/// Reassembles a streamed answer: (text, [(id, name, arguments)], finish_reason, usage seen).
fn reassemble(sse: &str) -> (String, Vec<(String, String, String)>, String, bool) {
    let mut text = String::new();
    let mut calls: Vec<(String, String, String)> = Vec::new();
    let mut finish = String::new();
    let mut usage = false;
    assert!(sse.trim_end().ends_with("data: [DONE]"), "{sse}");
    for data in sse.lines().filter_map(|l| l.strip_prefix("data: ")) {
        if data == "[DONE]" {
            continue;
        }
        let chunk: Value = serde_json::from_str(data).expect("chunk JSON");
        usage |= chunk["usage"].is_object();
        for choice in chunk["choices"].as_array().into_iter().flatten() {
            let delta = &choice["delta"];
            text.push_str(delta["content"].as_str().unwrap_or_default());
            for c in delta["tool_calls"].as_array().into_iter().flatten() {
                let i = c["index"].as_u64().unwrap() as usize;
                if calls.len() <= i {
                    calls.resize(i + 1, Default::default());
                }
                if let Some(id) = c["id"].as_str() {
                    calls[i].0 = id.into();
                }
                if let Some(name) = c["function"]["name"].as_str() {
                    calls[i].1 = name.into();
                }
                calls[i]
                    .2
                    .push_str(c["function"]["arguments"].as_str().unwrap_or_default());
            }
            if let Some(f) = choice["finish_reason"].as_str() {
                finish = f.into();
            }
        }
    }
    (text, calls, finish, usage)
}

#[test]
fn the_round_is_the_tool_rounds_since_the_last_user_message() {
    assert_eq!(ToolScript::round_of(&request(&[], true, true)), 0);
    assert_eq!(ToolScript::round_of(&request(&[("a", "r")], true, true)), 1);
    assert_eq!(
        ToolScript::round_of(&request(&[("a", "r"), ("b", "s")], true, true)),
        2
    );
}

#[tokio::test]
async fn one_call_then_the_results_as_json_and_as_a_stream() {
    let fake = FakeOpenAi::start().await;
    fake.mount_tool_script(ToolScript::calls_then_results(vec![tool_call(
        "c1",
        "echo",
        json!({ "text": "hi" }),
    )]))
    .await;
    // Round 0, JSON.
    let (ct, body) = post(&fake, &request(&[], false, true)).await;
    assert!(ct.starts_with("application/json"), "{ct}");
    let v: Value = serde_json::from_str(&body).unwrap();
    let msg = &v["choices"][0]["message"];
    assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(msg["tool_calls"][0]["id"], "c1");
    assert_eq!(msg["tool_calls"][0]["type"], "function");
    assert_eq!(msg["tool_calls"][0]["function"]["name"], "echo");
    assert_eq!(
        msg["tool_calls"][0]["function"]["arguments"],
        r#"{"text":"hi"}"#
    );
    // Round 0, streamed.
    let (ct, body) = post(&fake, &request(&[], true, true)).await;
    assert!(ct.starts_with("text/event-stream"), "{ct}");
    let (text, calls, finish, usage) = reassemble(&body);
    assert_eq!(text, "");
    assert_eq!(
        calls,
        vec![("c1".into(), "echo".into(), r#"{"text":"hi"}"#.into())]
    );
    assert_eq!(finish, "tool_calls");
    assert!(usage);
    // Round 1: the final text carries the tool result of this turn only.
    let (_, body) = post(&fake, &request(&[("c1", "echo: hi")], true, true)).await;
    let (text, calls, finish, _) = reassemble(&body);
    assert!(calls.is_empty());
    assert_eq!(finish, "stop");
    assert_eq!(text, "results: echo: hi", "this turn's results only");
    let (_, body) = post(&fake, &request(&[("c1", "echo: hi")], false, true)).await;
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["choices"][0]["message"]["content"], "results: echo: hi");
    // Every body was recorded.
    let bodies = fake.chat_bodies().await;
    assert_eq!(bodies.len(), 4);
    assert_eq!(bodies[0]["tools"], tools());
}

#[tokio::test]
async fn several_calls_at_once_and_chained_rounds() {
    let fake = FakeOpenAi::start().await;
    fake.mount_tool_script(ToolScript::new(vec![
        Round::Calls(vec![
            tool_call("a", "echo", json!({ "text": "one" })),
            tool_call("b", "sleep", json!({ "seconds": 1.5 })),
        ]),
        Round::Calls(vec![tool_call("c", "large", json!({ "size": 3 }))]),
        Round::Final(format!("done: {RESULTS}")),
    ]))
    .await;
    let (_, body) = post(&fake, &request(&[], true, true)).await;
    let (_, calls, _, _) = reassemble(&body);
    let names: Vec<&str> = calls.iter().map(|c| c.1.as_str()).collect();
    assert_eq!(names, ["echo", "sleep"]);
    assert_eq!(calls[1].2, r#"{"seconds":1.5}"#);
    let (_, body) = post(&fake, &request(&[("a", "x")], true, true)).await;
    assert_eq!(reassemble(&body).1[0].1, "large");
    let (_, body) = post(&fake, &request(&[("a", "x"), ("c", "y")], true, true)).await;
    assert_eq!(reassemble(&body).0, format!("done: x{RESULTS_SEPARATOR}y"));
}

#[tokio::test]
async fn malformed_arguments_and_unknown_tools_are_sent_verbatim() {
    let fake = FakeOpenAi::start().await;
    fake.mount_tool_script(ToolScript::calls_then_results(vec![
        raw_tool_call("m", "echo", r#"{"text": "unterminated"#),
        tool_call("u", "no_such_tool", json!({})),
    ]))
    .await;
    for stream in [false, true] {
        let (_, body) = post(&fake, &request(&[], stream, true)).await;
        let calls = if stream {
            reassemble(&body).1
        } else {
            let v: Value = serde_json::from_str(&body).unwrap();
            v["choices"][0]["message"]["tool_calls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    (
                        c["id"].as_str().unwrap().to_string(),
                        c["function"]["name"].as_str().unwrap().to_string(),
                        c["function"]["arguments"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        };
        assert_eq!(calls[0].2, r#"{"text": "unterminated"#, "stream {stream}");
        assert_eq!(calls[1].1, "no_such_tool", "stream {stream}");
    }
}

#[tokio::test]
async fn never_stopping_asks_again_with_fresh_ids_until_no_tools_are_offered() {
    let fake = FakeOpenAi::start().await;
    fake.mount_tool_script(ToolScript::never_stopping(tool_call(
        "loop",
        "echo",
        json!({ "text": "again" }),
    )))
    .await;
    let mut ids = Vec::new();
    let mut done: Vec<(String, String)> = Vec::new();
    for _ in 0..5 {
        let rounds: Vec<(&str, &str)> =
            done.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let (_, body) = post(&fake, &request(&rounds, true, true)).await;
        let (_, calls, finish, _) = reassemble(&body);
        assert_eq!(finish, "tool_calls");
        assert_eq!(calls.len(), 1);
        ids.push(calls[0].0.clone());
        done.push((calls[0].0.clone(), "echo: again".into()));
    }
    assert_eq!(ids, ["loop", "loop-r1", "loop-r2", "loop-r3", "loop-r4"]);
    // Without tools the script gives its final answer.
    let rounds: Vec<(&str, &str)> = done.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let (_, body) = post(&fake, &request(&rounds, true, false)).await;
    let (text, calls, finish, _) = reassemble(&body);
    assert!(calls.is_empty());
    assert_eq!(finish, "stop");
    assert!(text.starts_with("final without tools: "), "{text}");
    assert!(text.ends_with("echo: again"), "{text}");
}
