//! Message routes (`event_bindings`): their shape, normalization and validation on save.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::error::{ApiError, ApiResult};

pub const MAX_ROUTES: usize = 50;
pub const MAX_FILTERS: usize = 20;
pub const MESSAGE_RECEIVED: &str = "message.received";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Operator {
    Eq,
    Neq,
    Contains,
    NotContains,
    StartsWith,
    /// Rust `regex` syntax, pattern at most 1 KiB.
    Regex,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TargetType {
    Pipeline,
    Discard,
}

/// A condition on the event: `field` is a computed field (`chat_type`, `is_at_bot`,
/// `message_text`, `message_element_types`) or a dot path into the event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Filter {
    pub field: String,
    #[serde(default = "default_operator")]
    pub operator: Operator,
    #[serde(default)]
    #[schema(value_type = Object)]
    pub value: Value,
}

fn default_operator() -> Operator {
    Operator::Eq
}

fn yes() -> bool {
    true
}

/// A route as clients send it.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RouteInput {
    /// Kept when given, generated otherwise.
    pub id: Option<String>,
    /// `*`, `ns.*` or an exact event type such as `message.received`.
    pub event_pattern: String,
    pub target_type: TargetType,
    /// The pipeline (empty for `discard`).
    #[serde(default)]
    pub target_uuid: Option<String>,
    #[serde(default)]
    pub filters: Vec<Filter>,
    #[serde(default)]
    pub priority: i64,
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default)]
    pub description: String,
    /// Ignored: the position in the list is the order.
    #[serde(default)]
    pub order: Option<i64>,
}

/// A stored route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Route {
    pub id: String,
    pub event_pattern: String,
    pub target_type: TargetType,
    pub target_uuid: String,
    pub filters: Vec<Filter>,
    pub priority: i64,
    pub enabled: bool,
    pub description: String,
    /// The position in the list.
    pub order: i64,
}

fn invalid(path: String, why: impl Into<String>) -> ApiError {
    let why = why.into();
    ApiError::invalid(format!("Invalid route: {path} {why}")).field(path, why)
}

/// Whether `pattern` is `*`, `ns.*` or an exact dotted event type.
pub fn pattern_is_valid(pattern: &str) -> bool {
    let word = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    };
    if pattern == "*" {
        return true;
    }
    let body = pattern.strip_suffix(".*").unwrap_or(pattern);
    !body.is_empty() && body.split('.').all(word)
}

fn check_filter(prefix: &str, filter: &Filter) -> ApiResult<()> {
    let field = filter.field.trim();
    if field.is_empty() || field.len() > 255 {
        return Err(invalid(
            format!("{prefix}.field"),
            "must be 1 to 255 characters",
        ));
    }
    match filter.operator {
        Operator::StartsWith | Operator::Regex if !filter.value.is_string() => Err(invalid(
            format!("{prefix}.value"),
            "must be a string for this operator",
        )),
        Operator::Regex => {
            let pattern = filter.value.as_str().unwrap_or_default();
            if pattern.len() > 1024 {
                return Err(invalid(
                    format!("{prefix}.value"),
                    "must be a regular expression of at most 1 KiB",
                ));
            }
            regex::Regex::new(pattern).map(|_| ()).map_err(|e| {
                invalid(
                    format!("{prefix}.value"),
                    format!("is not a valid regular expression: {e}"),
                )
            })
        }
        _ if filter.value.to_string().len() > 4096 => {
            Err(invalid(format!("{prefix}.value"), "must be at most 4 KiB"))
        }
        _ => Ok(()),
    }
}

/// Normalizes routes (ids kept or generated, `order` = position) and checks their shape.
/// `pipeline_exists` decides whether a pipeline target is valid (skipped for drafts with `None`).
pub fn normalize(inputs: Vec<RouteInput>, prefix: &str) -> ApiResult<Vec<Route>> {
    if inputs.len() > MAX_ROUTES {
        return Err(invalid(
            prefix.to_string(),
            format!("must have at most {MAX_ROUTES} routes"),
        ));
    }
    let mut routes = Vec::with_capacity(inputs.len());
    for (i, input) in inputs.into_iter().enumerate() {
        let at = format!("{prefix}[{i}]");
        let pattern = input.event_pattern.trim().to_string();
        if pattern.len() > 255 || !pattern_is_valid(&pattern) {
            return Err(invalid(
                format!("{at}.event_pattern"),
                "must be *, <namespace>.* or an event type such as message.received",
            ));
        }
        let target_uuid = input.target_uuid.unwrap_or_default().trim().to_string();
        match input.target_type {
            TargetType::Pipeline => {
                if pattern != MESSAGE_RECEIVED {
                    return Err(invalid(
                        format!("{at}.event_pattern"),
                        "must be message.received for a pipeline target",
                    ));
                }
                if uuid::Uuid::parse_str(&target_uuid).is_err() {
                    return Err(invalid(
                        format!("{at}.target_uuid"),
                        "must be the uuid of a pipeline",
                    ));
                }
            }
            TargetType::Discard if !target_uuid.is_empty() => {
                return Err(invalid(
                    format!("{at}.target_uuid"),
                    "must be empty for a discard target",
                ));
            }
            TargetType::Discard => {}
        }
        if input.filters.len() > MAX_FILTERS {
            return Err(invalid(
                format!("{at}.filters"),
                format!("must have at most {MAX_FILTERS} filters"),
            ));
        }
        for (j, filter) in input.filters.iter().enumerate() {
            check_filter(&format!("{at}.filters[{j}]"), filter)?;
        }
        if !(-1_000_000..=1_000_000).contains(&input.priority) {
            return Err(invalid(
                format!("{at}.priority"),
                "must be between -1000000 and 1000000",
            ));
        }
        if input.description.chars().count() > 255 {
            return Err(invalid(
                format!("{at}.description"),
                "must be at most 255 characters",
            ));
        }
        let id = input
            .id
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty());
        if id.as_ref().is_some_and(|s| s.len() > 64) {
            return Err(invalid(format!("{at}.id"), "must be at most 64 characters"));
        }
        routes.push(Route {
            id: id.unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
            event_pattern: pattern,
            target_type: input.target_type,
            target_uuid,
            filters: input
                .filters
                .into_iter()
                .map(|f| Filter {
                    field: f.field.trim().to_string(),
                    ..f
                })
                .collect(),
            priority: input.priority,
            enabled: input.enabled,
            description: input.description,
            order: i as i64,
        });
    }
    if let Some(dup) = routes
        .iter()
        .enumerate()
        .find(|(i, r)| routes[..*i].iter().any(|o| o.id == r.id))
    {
        return Err(invalid(
            format!("{prefix}[{}].id", dup.0),
            "duplicates an earlier route id",
        ));
    }
    Ok(routes)
}

/// The two routes a new bot gets: private chats, and group chats that @mention the bot.
pub fn default_routes(pipeline_uuid: &str) -> Vec<Route> {
    let route = |order: i64, filters: Vec<Filter>, description: &str| Route {
        id: uuid::Uuid::new_v4().to_string(),
        event_pattern: MESSAGE_RECEIVED.into(),
        target_type: TargetType::Pipeline,
        target_uuid: pipeline_uuid.to_string(),
        filters,
        priority: 0,
        enabled: true,
        description: description.into(),
        order,
    };
    let eq = |field: &str, value: Value| Filter {
        field: field.into(),
        operator: Operator::Eq,
        value,
    };
    vec![
        route(
            0,
            vec![eq("chat_type", "person".into())],
            "Private chat: respond directly",
        ),
        route(
            1,
            vec![
                eq("chat_type", "group".into()),
                eq("is_at_bot", true.into()),
            ],
            "Group chat: respond only when the bot is @mentioned",
        ),
    ]
}
