//! `/platform/adapters`.

use serde::Deserialize;
use utoipa::IntoParams;

use crate::access::Access;
use crate::access::RequestCtx;
use crate::bots::adapters;
use crate::bots::dto::{AdapterEnvelope, AdapterList};
use crate::catalog::{Image, Input, NoBody, NoParams, OpMeta, Operation};
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
            adapters: adapters::all().to_vec(),
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
        Ok(AdapterEnvelope {
            adapter: adapter.clone(),
        })
    }
}

/// `GET /platform/adapters/{adapter_name}/icon`: public, as it is an `<img src>`.
pub struct GetAdapterIcon;

impl Operation for GetAdapterIcon {
    const META: OpMeta = OpMeta::get("get_adapter_icon", "/platform/adapters/{adapter_name}/icon")
        .tag("bots")
        .summary("An adapter's icon (SVG)")
        .access(Access::Public);
    type Path = AdapterPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = Image;

    async fn run(
        _: &AppState,
        _: &RequestCtx,
        input: Input<AdapterPath, NoParams, NoBody>,
    ) -> ApiResult<Image> {
        let adapter = adapters::find(&input.path.adapter_name)
            .ok_or_else(|| ApiError::not_found().msg("adapter not found"))?;
        Ok(Image::svg(crate::icons::badge(
            adapter.name,
            adapter.label.en_us,
        )))
    }
}
