//! `/platform/adapters`.

use serde::Deserialize;
use utoipa::IntoParams;

use crate::access::RequestCtx;
use crate::bots::adapters;
use crate::bots::dto::{AdapterEnvelope, AdapterList};
use crate::catalog::{Input, NoBody, NoParams, OpMeta, Operation};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// `{adapter_name}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct AdapterPath {
    pub adapter_name: String,
}

pub struct ListAdapters;

impl Operation for ListAdapters {
    const META: OpMeta = OpMeta::get("list_adapters", "/platform/adapters")
        .tag("bots")
        .summary("The adapters bots can use, with their config schemas");
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = AdapterList;

    async fn run(
        _: &AppState,
        _: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<AdapterList> {
        Ok(AdapterList {
            adapters: adapters::all(),
        })
    }
}

pub struct GetAdapter;

impl Operation for GetAdapter {
    const META: OpMeta = OpMeta::get("get_adapter", "/platform/adapters/{adapter_name}")
        .tag("bots")
        .summary("One adapter");
    type Path = AdapterPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = AdapterEnvelope;

    async fn run(
        _: &AppState,
        _: &RequestCtx,
        input: Input<AdapterPath, NoParams, NoBody>,
    ) -> ApiResult<AdapterEnvelope> {
        let adapter = adapters::find(&input.path.adapter_name).ok_or_else(ApiError::not_found)?;
        Ok(AdapterEnvelope { adapter })
    }
}
