//! The loop against each model script: tools offered in OpenAI function format; one call;
//! several in one answer (each result under its own `tool_call_id`); chained rounds; an
//! unknown tool and malformed argument JSON (an `Error:` result, the turn still answers);
//! a model that never stops (exactly `max-tool-rounds` rounds, then one request without tools).

use serde_json::{json, Value};

use super::{row_named, stateless};
use crate::helpers::fixtures::{offered_tools, tool_messages, ToolRig};
use crate::helpers::mcp_fixture::FIXTURE_TOOLS;
use crate::helpers::{raw_tool_call, spawn_app, tool_call, Round, ToolScript, RESULTS};

#[tokio::test]
async fn tools_are_offered_in_openai_function_format() {
    let app = spawn_app().await;
    let rig = ToolRig::new(
        &app,
        ToolScript::new(vec![Round::Final("no tools needed".into())]),
    )
    .await;
    let (_fixture, _) = stateless(&app, &rig, "fixture").await;
    assert_eq!(rig.answer(&app, "s1", "hi").await, "no tools needed");
    let body = &rig.fake.chat_bodies().await[0];
    let mut offered = offered_tools(body);
    offered.sort();
    let mut expected: Vec<String> = FIXTURE_TOOLS.iter().map(|s| s.to_string()).collect();
    expected.sort();
    assert_eq!(offered, expected, "{body:#}");
    let echo = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "echo")
        .unwrap();
    assert_eq!(echo["type"], "function", "{echo:#}");
    assert_eq!(
        echo["function"]["description"], "Returns the text it was given.",
        "{echo:#}"
    );
    let params = &echo["function"]["parameters"];
    assert_eq!(params["type"], "object", "{echo:#}");
    assert!(params["properties"]["text"].is_object(), "{echo:#}");
    assert_eq!(params["required"], json!(["text"]), "{echo:#}");
}

#[tokio::test]
async fn several_calls_in_one_answer_each_get_their_result() {
    let app = spawn_app().await;
    let rig = ToolRig::new(
        &app,
        ToolScript::calls_then_results(vec![
            tool_call("a", "echo", json!({ "text": "first" })),
            tool_call("b", "large", json!({ "size": 12 })),
            tool_call("c", "echo", json!({ "text": "third" })),
        ]),
    )
    .await;
    let (fixture, _) = stateless(&app, &rig, "fixture").await;
    let answer = rig.answer(&app, "s1", "three at once").await;
    for part in ["echo: first", &"x".repeat(12), "echo: third"] {
        assert!(answer.contains(part), "{part:?} in {answer:?}");
    }
    let bodies = rig.fake.chat_bodies().await;
    assert_eq!(bodies.len(), 2);
    let mut results = tool_messages(&bodies[1]);
    results.sort();
    assert_eq!(
        results,
        vec![
            ("a".to_string(), "echo: first".to_string()),
            ("b".to_string(), "x".repeat(12)),
            ("c".to_string(), "echo: third".to_string()),
        ]
    );
    // The assistant message with the three calls precedes the results.
    let messages = bodies[1]["messages"].as_array().unwrap();
    let assistant = messages
        .iter()
        .find(|m| m["role"] == "assistant" && m["tool_calls"].is_array())
        .expect("the assistant's tool calls are in the history");
    assert_eq!(assistant["tool_calls"].as_array().unwrap().len(), 3);
    assert_eq!(fixture.calls().len(), 3);
    let rows = rig.tool_calls(&app, "s1", 3).await;
    assert_eq!(rows.len(), 3, "{rows:#?}");
    row_named(&rows, "large");
}

#[tokio::test]
async fn chained_rounds_see_earlier_results() {
    let app = spawn_app().await;
    let rig = ToolRig::new(
        &app,
        ToolScript::new(vec![
            Round::Calls(vec![tool_call("r0", "echo", json!({ "text": "step one" }))]),
            Round::Calls(vec![tool_call("r1", "echo", json!({ "text": "step two" }))]),
            Round::Calls(vec![tool_call("r2", "large", json!({ "size": 3 }))]),
            Round::Final(format!("chain: {RESULTS}")),
        ]),
    )
    .await;
    let (fixture, _) = stateless(&app, &rig, "fixture").await;
    let answer = rig.answer(&app, "s1", "chain").await;
    assert_eq!(answer, "chain: echo: step one | echo: step two | xxx");
    let bodies = rig.fake.chat_bodies().await;
    assert_eq!(bodies.len(), 4, "three tool rounds and the final answer");
    for (i, body) in bodies.iter().enumerate() {
        assert_eq!(tool_messages(body).len(), i, "request {i}: {body:#}");
        assert!(!offered_tools(body).is_empty(), "request {i} offers tools");
    }
    let tools: Vec<String> = fixture.calls().iter().map(|c| c.tool.clone()).collect();
    assert_eq!(tools, ["echo", "echo", "large"], "in order");
    let rows = rig.tool_calls(&app, "s1", 3).await;
    let names: Vec<&str> = rows
        .iter()
        .filter_map(|r| r["tool_name"].as_str())
        .collect();
    assert_eq!(names, ["echo", "echo", "large"], "oldest first");
}

/// The `content` of the tool message answering call `id` in the last request.
fn result_for(bodies: &[Value], id: &str) -> String {
    let last = bodies.last().expect("a request");
    tool_messages(last)
        .into_iter()
        .find(|(i, _)| i == id)
        .map(|(_, c)| c)
        .unwrap_or_else(|| panic!("no result for {id}: {last:#}"))
}

#[tokio::test]
async fn an_unknown_tool_is_an_error_result_and_the_turn_answers() {
    let app = spawn_app().await;
    let rig = ToolRig::new(
        &app,
        ToolScript::calls_then_results(vec![
            tool_call("u", "no_such_tool", json!({ "x": 1 })),
            tool_call("e", "echo", json!({ "text": "still works" })),
        ]),
    )
    .await;
    let (fixture, _) = stateless(&app, &rig, "fixture").await;
    let answer = rig.answer(&app, "s1", "call something unknown").await;
    assert!(answer.contains("echo: still works"), "{answer}");
    let bodies = rig.fake.chat_bodies().await;
    let unknown = result_for(&bodies, "u");
    assert!(unknown.starts_with("Error:"), "{unknown:?}");
    assert!(unknown.contains("no_such_tool"), "{unknown:?}");
    assert_eq!(result_for(&bodies, "e"), "echo: still works");
    let tools: Vec<String> = fixture.calls().iter().map(|c| c.tool.clone()).collect();
    assert_eq!(tools, ["echo"]);
    let execution = rig.last_execution(&app, "s1").await;
    assert_eq!(execution["status"], "completed", "{execution:#}");
}

#[tokio::test]
async fn malformed_argument_json_is_an_error_result_without_calling() {
    let app = spawn_app().await;
    let rig = ToolRig::new(
        &app,
        ToolScript::calls_then_results(vec![
            raw_tool_call("bad", "echo", r#"{"text": "unterminated"#),
            raw_tool_call("list", "echo", r#"["not", "an", "object"]"#),
        ]),
    )
    .await;
    let (fixture, _) = stateless(&app, &rig, "fixture").await;
    let answer = rig.answer(&app, "s1", "garbled").await;
    assert!(answer.starts_with("results: "), "{answer}");
    let bodies = rig.fake.chat_bodies().await;
    for id in ["bad", "list"] {
        let result = result_for(&bodies, id);
        assert!(result.starts_with("Error:"), "{id}: {result:?}");
    }
    assert!(
        fixture.calls().is_empty(),
        "bad arguments never reach the server"
    );
    let execution = rig.last_execution(&app, "s1").await;
    assert_eq!(execution["status"], "completed", "{execution:#}");
}

#[tokio::test]
async fn a_model_that_never_stops_is_ended_by_the_round_cap() {
    let app = spawn_app().await;
    let rig = ToolRig::with_rounds(
        &app,
        ToolScript::never_stopping(tool_call("loop", "echo", json!({ "text": "again" }))),
        3,
    )
    .await;
    let (fixture, _) = stateless(&app, &rig, "fixture").await;
    let answer = rig.answer(&app, "s1", "loop forever").await;
    assert_eq!(
        answer, "final without tools: echo: again | echo: again | echo: again",
        "after the cap the model is asked once more, without tools"
    );
    let bodies = rig.fake.chat_bodies().await;
    assert_eq!(bodies.len(), 4, "3 tool rounds + the final request");
    for body in &bodies[..3] {
        assert!(!offered_tools(body).is_empty(), "{body:#}");
    }
    let last = &bodies[3];
    assert!(
        last.get("tools")
            .is_none_or(|t| t.is_null() || t == &json!([])),
        "the final request offers no tools: {last:#}"
    );
    assert_eq!(tool_messages(last).len(), 3);
    assert_eq!(fixture.calls().len(), 3, "exactly max-tool-rounds calls");
    assert_eq!(rig.tool_calls(&app, "s1", 3).await.len(), 3);
}
