//! The bare twins bench/run.sh compares the server with: plain actix handlers with nothing
//! but the work itself, reading the server's own SQLite file.
//!   GET /healthz          the fixed body of the server's /healthz
//!   GET /info             a fixed body as long as the server's system/info answer
//!   GET /bots?workspace=  the bots list: the server's query (one SELECT, paged in SQL with
//!                         the total beside each row) and the server's JSON, without
//!                         authentication, middleware or catalog
//! Environment: BARE_ADDR, BARE_DATABASE_URL (sqlite://…), BARE_PUBLIC_URL (the server's
//! public URL, for webhook_url), BARE_SECRET_KEYS (adapter_config keys shown as `***`).

use std::str::FromStr;

use actix_web::{web, App, HttpResponse, HttpServer};
use sea_orm::entity::prelude::*;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ConnectionTrait, DatabaseConnection, FromQueryResult, QueryOrder, QuerySelect, QueryTrait,
    SqlxSqliteConnector,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};

mod bot {
    use sea_orm::entity::prelude::*;

    /// The server's `bots` table.
    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "bots")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub uuid: String,
        pub workspace_uuid: String,
        pub name: String,
        pub description: String,
        pub adapter: String,
        pub adapter_config: Json,
        pub enable: bool,
        pub event_bindings: Json,
        pub created_at: DateTimeUtc,
        pub updated_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

struct State {
    db: DatabaseConnection,
    public_url: String,
    secret_keys: Vec<String>,
}

#[derive(Deserialize)]
struct BotsQuery {
    workspace: String,
    limit: Option<u64>,
    offset: Option<u64>,
}

#[derive(Serialize)]
struct Bot {
    uuid: String,
    workspace_uuid: String,
    name: String,
    description: String,
    adapter: String,
    adapter_config: Value,
    enable: bool,
    event_bindings: Value,
    webhook_url: String,
    created_at: chrono::DateTime<chrono::Utc>,
    updated_at: chrono::DateTime<chrono::Utc>,
}

#[derive(Serialize)]
struct Envelope<T> {
    code: i32,
    msg: &'static str,
    data: T,
}

#[derive(Serialize)]
struct BotList {
    bots: Vec<Bot>,
    total: u64,
    limit: u64,
    offset: u64,
}

async fn healthz() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(r#"{"status":"ok"}"#)
}

/// A fixed body as long as the server's system/info answer: the cost of its bytes alone.
async fn info_sized() -> HttpResponse {
    const BODY: &str = concat!(
        r#"{"code":0,"msg":"ok","data":{"version":"0.1.0","edition":"community","#,
        r#""initialized":true,"multi_workspace":false,"mcp_stdio_enabled":false,"debug":false,"#,
        r#""deployment_mode":"oss","enable_marketplace":false,"cloud_service_url":"","#,
        r#""allow_modify_login_info":true,"disable_models_service":true,"limitation":"#,
        r#"{"max_bots":-1,"max_pipelines":-1,"max_extensions":-1,"max_knowledge_bases":-1},"#,
        r#""outbound_ips":[],"invitation_delivery":{"enabled":false,"provider":null},"#,
        r#""wizard_status":"none","wizard_progress":null}}"#
    );
    HttpResponse::Ok()
        .content_type("application/json")
        .body(BODY)
}

async fn bots(
    state: web::Data<State>,
    query: web::Query<BotsQuery>,
) -> actix_web::Result<HttpResponse> {
    let limit = query.limit.unwrap_or(100);
    let offset = query.offset.unwrap_or(0);
    let select = bot::Entity::find()
        .filter(bot::Column::WorkspaceUuid.eq(query.workspace.as_str()))
        .expr_as(Expr::cust("COUNT(*) OVER ()"), "page_total")
        .order_by_asc(bot::Column::CreatedAt)
        .order_by_asc(bot::Column::Uuid)
        .limit(limit)
        .offset(offset);
    let statement = select.build(state.db.get_database_backend());
    let rows = state
        .db
        .query_all(statement)
        .await
        .map_err(actix_web::error::ErrorInternalServerError)?;
    let mut total = 0;
    let mut bots = Vec::with_capacity(rows.len());
    for row in rows {
        total = row
            .try_get::<i64>("", "page_total")
            .map_err(actix_web::error::ErrorInternalServerError)? as u64;
        let m = bot::Model::from_query_result(&row, "")
            .map_err(actix_web::error::ErrorInternalServerError)?;
        let mut config = m.adapter_config;
        if let Some(map) = config.as_object_mut() {
            for key in &state.secret_keys {
                if let Some(v) = map.get_mut(key) {
                    if v.as_str().is_none_or(|s| !s.is_empty()) && !v.is_null() {
                        *v = Value::String("***".into());
                    }
                }
            }
        }
        bots.push(Bot {
            webhook_url: format!("{}/bots/{}", state.public_url, m.uuid),
            uuid: m.uuid,
            workspace_uuid: m.workspace_uuid,
            name: m.name,
            description: m.description,
            adapter: m.adapter,
            adapter_config: config,
            enable: m.enable,
            event_bindings: m.event_bindings,
            created_at: m.created_at,
            updated_at: m.updated_at,
        });
    }
    Ok(HttpResponse::Ok().json(Envelope {
        code: 0,
        msg: "ok",
        data: BotList {
            bots,
            total,
            limit,
            offset,
        },
    }))
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is required"))
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let options =
        SqliteConnectOptions::from_str(&env("BARE_DATABASE_URL")).map_err(std::io::Error::other)?;
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let pool = SqlitePoolOptions::new()
        .max_connections((2 * cores).clamp(2, 8) as u32)
        .connect_with(options)
        .await
        .map_err(std::io::Error::other)?;
    let state = web::Data::new(State {
        db: SqlxSqliteConnector::from_sqlx_sqlite_pool(pool),
        public_url: env("BARE_PUBLIC_URL"),
        secret_keys: std::env::var("BARE_SECRET_KEYS")
            .unwrap_or_default()
            .split(',')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
    });
    HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .route("/healthz", web::get().to(healthz))
            .route("/info", web::get().to(info_sized))
            .route("/bots", web::get().to(bots))
    })
    .workers(cores)
    .bind(env("BARE_ADDR"))?
    .run()
    .await
}
