//! MCP tools derived from the catalog: each tool's `inputSchema` is assembled from the
//! operation's OpenAPI parameters and request body, so both faces share one schema.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::access::RequestCtx;
use crate::catalog::{Catalog, McpResult, McpTool, OpMeta};
use crate::error::{ApiError, ApiResult};

/// One tool: the operation and how its arguments map onto path, query and body.
pub struct Tool {
    /// The operation's position in the catalog.
    pub index: usize,
    pub meta: &'static OpMeta,
    has_body: bool,
    pub name: &'static str,
    description: String,
    input_schema: Value,
    path_params: Vec<String>,
    query_params: Vec<String>,
    mcp: McpTool,
}

fn mcp_name(mcp: &McpTool, field: &str) -> String {
    mcp.renames
        .iter()
        .find(|(_, f)| *f == field)
        .map(|(a, _)| a.to_string())
        .unwrap_or_else(|| field.to_string())
}

fn field_name(mcp: &McpTool, arg: &str) -> String {
    mcp.renames
        .iter()
        .find(|(a, _)| *a == arg)
        .map(|(_, f)| f.to_string())
        .unwrap_or_else(|| arg.to_string())
}

/// Rewrites component refs to `$defs` refs and collects the components they need.
fn localize(
    value: &mut Value,
    components: &Map<String, Value>,
    defs: &mut BTreeMap<String, Value>,
) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get_mut("$ref") {
                if let Some(name) = r.strip_prefix("#/components/schemas/").map(str::to_string) {
                    *r = format!("#/$defs/{name}");
                    if !defs.contains_key(&name) {
                        let mut schema = components.get(&name).cloned().unwrap_or(json!({}));
                        defs.insert(name.clone(), Value::Null);
                        localize(&mut schema, components, defs);
                        defs.insert(name, schema);
                    }
                }
            }
            for v in map.values_mut() {
                localize(v, components, defs);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| localize(v, components, defs)),
        _ => {}
    }
}

fn resolve<'a>(schema: &'a Value, components: &'a Map<String, Value>) -> &'a Value {
    match schema["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
    {
        Some(name) => components.get(name).unwrap_or(schema),
        None => schema,
    }
}

/// The tools of a catalog: its MCP-marked operations.
pub fn build(catalog: &Catalog) -> Vec<Tool> {
    let doc = serde_json::to_value(crate::catalog::openapi::document(catalog)).unwrap_or_default();
    let components = doc["components"]["schemas"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    catalog
        .operations()
        .iter()
        .enumerate()
        .filter_map(|(index, op)| {
            let meta = op.meta();
            let mcp = meta.mcp?;
            let item =
                &doc["paths"][format!("/api/v1{}", meta.path)][meta.method.as_str().to_lowercase()];
            let mut properties = Map::new();
            let mut required: Vec<String> = Vec::new();
            let mut path_params = Vec::new();
            let mut query_params = Vec::new();
            for p in item["parameters"].as_array().into_iter().flatten() {
                let name = p["name"].as_str().unwrap_or_default().to_string();
                let is_path = p["in"] == "path";
                if !is_path && !mcp.query_args.contains(&name.as_str()) {
                    continue;
                }
                let arg = mcp_name(&mcp, &name);
                let mut schema = p["schema"].clone();
                if let Some(d) = p["description"].as_str() {
                    schema["description"] = json!(d);
                }
                properties.insert(arg.clone(), schema);
                if p["required"] == true {
                    required.push(arg);
                }
                if is_path {
                    path_params.push(name)
                } else {
                    query_params.push(name)
                }
            }
            let body = &item["requestBody"]["content"]["application/json"]["schema"];
            if !body.is_null() {
                let body = resolve(body, &components).clone();
                match mcp.body_arg {
                    Some(arg) => {
                        properties.insert(arg.to_string(), body);
                        required.push(arg.to_string());
                    }
                    None => {
                        let needed: Vec<&str> = body["required"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_str)
                            .collect();
                        for (k, v) in body["properties"].as_object().into_iter().flatten() {
                            let arg = mcp_name(&mcp, k);
                            if needed.contains(&k.as_str()) || mcp.all_required {
                                required.push(arg.clone());
                            }
                            properties.insert(arg, v.clone());
                        }
                    }
                }
            }
            let mut schema = json!({ "type": "object", "properties": properties });
            if !required.is_empty() {
                schema["required"] = json!(required);
            }
            let mut defs = BTreeMap::new();
            localize(&mut schema, &components, &mut defs);
            if !defs.is_empty() {
                schema["$defs"] = json!(defs);
            }
            let description = match meta.description {
                "" => meta.summary.to_string(),
                d => format!("{} {d}", meta.summary),
            };
            Some(Tool {
                index,
                meta,
                has_body: op.has_body(),
                name: meta.id,
                description,
                input_schema: schema,
                path_params,
                query_params,
                mcp,
            })
        })
        .collect()
}

/// The tools this caller may call.
pub fn list(tools: &[Tool], ctx: &RequestCtx) -> Vec<Value> {
    tools
        .iter()
        .filter(|t| match (t.meta.permission, ctx.workspace.as_ref()) {
            (None, _) => true,
            (Some(p), Some(ws)) => ws.permissions.contains(p),
            (Some(_), None) => false,
        })
        .map(|t| json!({ "name": t.name, "description": t.description, "inputSchema": t.input_schema }))
        .collect()
}

impl Tool {
    /// The result's text: LangBot's view of the HTTP data. A data shape the declaration does
    /// not fit is a bug of the declaration, reported rather than hidden.
    pub fn langbot_result(&self, data: &Value) -> ApiResult<Value> {
        let misfit = |what: &str| {
            ApiError::internal(anyhow::anyhow!(
                "tool {}: the data has no {what} for its declared result",
                self.name
            ))
        };
        Ok(match self.mcp.result {
            McpResult::Data => data.clone(),
            McpResult::Member(key) => data.get(key).cloned().ok_or_else(|| misfit(key))?,
            McpResult::Ok => {
                let mut out = Map::new();
                out.insert("ok".into(), Value::Bool(true));
                if let Value::Object(fields) = data {
                    out.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
                Value::Object(out)
            }
            McpResult::KeyedBy { items, key } => {
                let mut fields = data.as_object().cloned().ok_or_else(|| misfit("object"))?;
                let rows = fields.remove(items).ok_or_else(|| misfit(items))?;
                let name = match fields.remove(key) {
                    Some(Value::String(name)) => name,
                    _ => return Err(misfit(key)),
                };
                fields.insert(name, rows);
                Value::Object(fields)
            }
        })
    }

    /// Names error fields as the tool's arguments (`uuid` → `model_uuid`, `name` → `bot_data.name`).
    pub fn name_fields(&self, mut e: ApiError) -> ApiError {
        for f in &mut e.errors {
            let (head, rest) = match f.field.split_once(['.', '[']) {
                Some((h, _)) => (h.to_string(), f.field[h.len()..].to_string()),
                None => (f.field.clone(), String::new()),
            };
            if self.path_params.contains(&head) || self.query_params.contains(&head) {
                f.field = format!("{}{rest}", mcp_name(&self.mcp, &head));
            } else if let Some(arg) = self.mcp.body_arg {
                f.field = if f.field.is_empty() {
                    arg.to_string()
                } else {
                    format!("{arg}.{}", f.field)
                };
            } else if !head.is_empty() {
                f.field = format!("{}{rest}", mcp_name(&self.mcp, &head));
            }
        }
        e
    }

    /// Splits tool arguments into the operation's path, query and body (as JSON objects).
    pub fn split(&self, mut args: Map<String, Value>) -> ApiResult<(Value, Value, Value)> {
        let mut path = Map::new();
        for p in &self.path_params {
            let arg = mcp_name(&self.mcp, p);
            let v = args.remove(&arg).ok_or_else(|| {
                ApiError::invalid(format!("Missing argument {arg}")).field(&arg, "is required")
            })?;
            path.insert(p.clone(), v);
        }
        let mut query = Map::new();
        for q in &self.query_params {
            if let Some(v) = args.remove(&mcp_name(&self.mcp, q)) {
                query.insert(q.clone(), v);
            }
        }
        // Renamed fields are reachable only by their MCP names.
        if let Some((_, field)) = self.mcp.renames.iter().find(|(_, f)| args.contains_key(*f)) {
            return Err(ApiError::invalid(format!("Unknown argument {field}"))
                .field(*field, "is not an argument of this tool"));
        }
        let body = if !self.has_body {
            Value::Null
        } else if let Some(arg) = self.mcp.body_arg {
            args.remove(arg).unwrap_or(Value::Null)
        } else {
            Value::Object(
                std::mem::take(&mut args)
                    .into_iter()
                    .map(|(k, v)| (field_name(&self.mcp, &k), v))
                    .collect(),
            )
        };
        if let Some(extra) = args.keys().next() {
            return Err(ApiError::invalid(format!("Unknown argument {extra}"))
                .field(extra.clone(), "is not an argument of this tool"));
        }
        Ok((Value::Object(path), Value::Object(query), body))
    }
}
