//! System operations.

use sea_orm::{EntityTrait, PaginatorTrait};

use crate::access::RequestCtx;
use crate::catalog::{Access, Input, Method, NoBody, NoParams, OpMeta, Operation};
use crate::entities::user;
use crate::error::ApiResult;
use crate::state::AppState;

use super::SystemInfo;

/// `GET /api/v1/system/info`.
pub struct GetSystemInfo;

impl Operation for GetSystemInfo {
    const META: OpMeta = OpMeta {
        id: "get_system_info",
        method: Method::Get,
        path: "/system/info",
        summary: "Instance version, edition and initialization state",
        description: "",
        tag: "system",
        access: Access::Public,
        permission: None,
        errors: &[],
        mcp: None,
    };
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = SystemInfo;

    async fn run(
        state: &AppState,
        _: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<SystemInfo> {
        let initialized = user::Entity::find().count(&state.db).await? > 0;
        let multi = state.settings.workspaces.multi;
        Ok(SystemInfo {
            version: env!("CARGO_PKG_VERSION").into(),
            edition: if multi {
                "multi-workspace"
            } else {
                "community"
            }
            .into(),
            initialized,
            multi_workspace: multi,
        })
    }
}
