//! Property tests of the route engine.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::engine::{augment, evaluate, filter_matches};
use super::routes::{Filter, Operator, Route, TargetType};

fn operator() -> impl Strategy<Value = Operator> {
    prop_oneof![
        Just(Operator::Eq),
        Just(Operator::Neq),
        Just(Operator::Contains),
        Just(Operator::NotContains),
        Just(Operator::StartsWith),
        Just(Operator::Regex),
    ]
}

fn filter() -> impl Strategy<Value = Filter> {
    (
        prop_oneof![
            Just("chat_type"),
            Just("message_text"),
            Just("sender.id"),
            Just("missing.path")
        ],
        operator(),
        prop_oneof![
            Just(json!("group")),
            Just(json!("person")),
            Just(json!("hi")),
            Just(json!("^h")),
            Just(json!(1))
        ],
    )
        .prop_map(|(field, operator, value)| Filter {
            field: field.into(),
            operator,
            value,
        })
}

fn route() -> impl Strategy<Value = Route> {
    (
        prop_oneof![
            Just("message.received"),
            Just("message.*"),
            Just("*"),
            Just("group.member_joined")
        ],
        any::<bool>(),
        -3i64..3,
        prop::collection::vec(filter(), 0..3),
    )
        .prop_map(|(pattern, enabled, priority, filters)| Route {
            id: uuid::Uuid::new_v4().to_string(),
            event_pattern: pattern.into(),
            target_type: TargetType::Discard,
            target_uuid: String::new(),
            filters,
            priority,
            enabled,
            description: String::new(),
            order: 0,
        })
}

fn event() -> impl Strategy<Value = (String, Value)> {
    (
        prop_oneof![
            Just("message.received"),
            Just("group.member_joined"),
            Just("friend.added")
        ],
        any::<bool>(),
        "[a-z]{0,6}",
    )
        .prop_map(|(kind, group, text)| {
            let event = json!({
                "type": kind,
                "group": if group { json!({"id": "g"}) } else { Value::Null },
                "sender": {"id": "u1"},
                "message_chain": [{"type": "Plain", "text": text}],
            });
            (kind.to_string(), augment(&event, Some("bot")))
        })
}

proptest! {
    #[test]
    fn exactly_the_best_match_is_selected(routes in prop::collection::vec(route(), 0..8), (kind, ev) in event()) {
        let routes: Vec<Route> = routes.into_iter().enumerate().map(|(i, r)| Route { order: i as i64, ..r }).collect();
        let d = evaluate(&kind, &ev, &routes);
        prop_assert_eq!(d.steps.len(), routes.len());
        prop_assert_eq!(d.steps.iter().filter(|s| s.selected).count(), usize::from(d.selected.is_some()));
        let matched: Vec<usize> = d.steps.iter().filter(|s| s.matched).map(|s| s.index).collect();
        match d.selected {
            None => prop_assert!(matched.is_empty()),
            Some(sel) => {
                prop_assert!(routes[sel].enabled);
                let best = matched.iter().map(|i| routes[*i].priority).max().unwrap_or(i64::MIN);
                prop_assert_eq!(routes[sel].priority, best);
                let first = matched.iter().copied().find(|i| routes[*i].priority == best);
                prop_assert_eq!(Some(sel), first);
            }
        }
        for s in &d.steps {
            prop_assert!(routes[s.index].enabled || !s.matched);
        }
    }

    #[test]
    fn a_route_that_cannot_match_changes_nothing(routes in prop::collection::vec(route(), 0..6), (kind, ev) in event()) {
        let before = evaluate(&kind, &ev, &routes).selected;
        let mut more = routes.clone();
        more.push(Route { enabled: false, priority: 100, ..more.first().cloned().unwrap_or_else(|| Route {
            id: "x".into(), event_pattern: "*".into(), target_type: TargetType::Discard, target_uuid: String::new(),
            filters: vec![], priority: 0, enabled: true, description: String::new(), order: 0 }) });
        prop_assert_eq!(evaluate(&kind, &ev, &more).selected, before);
    }

    #[test]
    fn negated_operators_are_complements(f in filter(), (_kind, ev) in event()) {
        let negate = |op| match op {
            Operator::Eq => Some(Operator::Neq),
            Operator::Contains => Some(Operator::NotContains),
            _ => None,
        };
        if let Some(neg) = negate(f.operator) {
            let g = Filter { operator: neg, ..f.clone() };
            prop_assert_ne!(filter_matches(&f, &ev), filter_matches(&g, &ev));
        }
    }

    #[test]
    fn computed_fields_follow_the_event(texts in prop::collection::vec("[a-z ]{0,5}", 0..4), group in any::<bool>(), at in any::<bool>()) {
        let mut chain: Vec<Value> = texts.iter().map(|t| json!({"type": "Plain", "text": t})).collect();
        if at {
            chain.push(json!({"type": "At", "target": 42}));
        }
        let ev = augment(&json!({"group": if group { json!({"id": 1}) } else { Value::Null }, "message_chain": chain}), Some("42"));
        prop_assert_eq!(ev["message_text"].as_str().unwrap_or_default(), texts.concat());
        prop_assert_eq!(ev["chat_type"].as_str(), Some(if group { "group" } else { "person" }));
        prop_assert_eq!(ev["is_at_bot"].as_bool(), Some(at));
        prop_assert_eq!(ev["message_element_types"].as_array().map(Vec::len), Some(texts.len() + usize::from(at)));
    }
}
