//! `/provider/requesters`: the requester catalog.

use serde::Deserialize;
use utoipa::IntoParams;

use crate::access::Access;
use crate::access::RequestCtx;
use crate::catalog::{Image, Input, NoBody, NoParams, OpMeta, Operation};
use crate::error::{ApiError, ApiResult};
use crate::providers::dto::{RequesterEnvelope, RequesterList, RequesterQuery};
use crate::providers::requesters;
use crate::state::AppState;

/// `{name}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct RequesterPath {
    pub name: String,
}

pub struct ListRequesters;

impl Operation for ListRequesters {
    const META: OpMeta = OpMeta::get("list_requesters", "/provider/requesters")
        .tag("providers")
        .summary("The requesters models can be called through, with their config schemas")
        .description("`type` filters by `support_type` (`llm`, `text-embedding`, `rerank`).");
    type Path = NoParams;
    type Query = RequesterQuery;
    type Body = NoBody;
    type Output = RequesterList;

    async fn run(
        _: &AppState,
        _: &RequestCtx,
        input: Input<NoParams, RequesterQuery, NoBody>,
    ) -> ApiResult<RequesterList> {
        let kind = input.query.kind.filter(|k| !k.is_empty());
        Ok(RequesterList {
            requesters: requesters::all()
                .into_iter()
                .filter(|r| kind.as_deref().is_none_or(|k| r.support_type.contains(&k)))
                .collect(),
        })
    }
}

pub struct GetRequester;

impl Operation for GetRequester {
    const META: OpMeta = OpMeta::get("get_requester", "/provider/requesters/{name}")
        .tag("providers")
        .summary("One requester");
    type Path = RequesterPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = RequesterEnvelope;

    async fn run(
        _: &AppState,
        _: &RequestCtx,
        input: Input<RequesterPath, NoParams, NoBody>,
    ) -> ApiResult<RequesterEnvelope> {
        let requester = requesters::find(&input.path.name).ok_or_else(ApiError::not_found)?;
        Ok(RequesterEnvelope { requester })
    }
}

/// `GET /provider/requesters/{name}/icon`: public, as it is an `<img src>`.
pub struct GetRequesterIcon;

impl Operation for GetRequesterIcon {
    const META: OpMeta = OpMeta::get("get_requester_icon", "/provider/requesters/{name}/icon")
        .tag("providers")
        .summary("A requester's icon (SVG)")
        .access(Access::Public);
    type Path = RequesterPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = Image;

    async fn run(
        _: &AppState,
        _: &RequestCtx,
        input: Input<RequesterPath, NoParams, NoBody>,
    ) -> ApiResult<Image> {
        let requester = requesters::find(&input.path.name)
            .ok_or_else(|| ApiError::not_found().msg("requester not found"))?;
        Ok(Image::svg(crate::icons::badge(
            requester.name,
            requester.label.en_us,
        )))
    }
}
