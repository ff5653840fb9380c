//! Paging for lists (SPEC §4): `limit` (default 100, max 500) and `offset`.

use sea_orm::sea_query::Expr;
use sea_orm::{
    ConnectionTrait, EntityTrait, FromQueryResult, PaginatorTrait, QuerySelect, QueryTrait, Select,
};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use validator::Validate;

use crate::error::ApiResult;

/// The column the paged query adds for the count of all matching rows.
const PAGE_TOTAL: &str = "page_total";

pub const DEFAULT_LIMIT: u64 = 100;

/// `?limit=&offset=`.
#[derive(Debug, Clone, Copy, Default, Deserialize, IntoParams, Validate)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Items per page (1–500, default 100).
    #[validate(range(min = 1, max = 500))]
    pub limit: Option<u64>,
    /// Items to skip (default 0).
    #[validate(range(max = 10_000_000))]
    pub offset: Option<u64>,
}

impl PageQuery {
    pub fn limit(&self) -> u64 {
        self.limit.unwrap_or(DEFAULT_LIMIT)
    }

    pub fn offset(&self) -> u64 {
        self.offset.unwrap_or(0)
    }

    /// The page's slice of an in-memory list.
    pub fn slice<T>(&self, items: Vec<T>) -> (Vec<T>, PageInfo) {
        let total = items.len() as u64;
        let page = items
            .into_iter()
            .skip(usize::try_from(self.offset()).unwrap_or(usize::MAX))
            .take(usize::try_from(self.limit()).unwrap_or(usize::MAX))
            .collect();
        (page, self.info(total))
    }

    /// The page of `select`'s rows, paged in the database: one query, which also counts every
    /// matching row (a window count, evaluated before `LIMIT`); a separate count only for a
    /// page past the end.
    pub async fn fetch<E, C>(
        &self,
        db: &C,
        select: Select<E>,
    ) -> ApiResult<(Vec<E::Model>, PageInfo)>
    where
        E: EntityTrait,
        E::Model: Send + Sync,
        C: ConnectionTrait,
    {
        let paged = select
            .clone()
            .expr_as(Expr::cust("COUNT(*) OVER ()"), PAGE_TOTAL)
            .limit(self.limit())
            .offset(self.offset())
            .build(db.get_database_backend());
        let rows = db.query_all(paged).await?;
        let total = match rows.first() {
            Some(row) => u64::try_from(row.try_get::<i64>("", PAGE_TOTAL)?).unwrap_or(0),
            None if self.offset() == 0 => 0,
            None => select.count(db).await?,
        };
        let models = rows
            .iter()
            .map(|row| E::Model::from_query_result(row, ""))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((models, self.info(total)))
    }

    pub fn info(&self, total: u64) -> PageInfo {
        PageInfo {
            total,
            limit: self.limit(),
            offset: self.offset(),
        }
    }
}

/// The paging facts every list response adds beside its items.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct PageInfo {
    pub total: u64,
    pub limit: u64,
    pub offset: u64,
}
