//! The `/api/v1` router: every operation's path in one radix tree (matchit), built once per
//! process, so a request costs one lookup. actix tries its resources one by one and each
//! try initializes and drops a table of sixteen path items: behind twenty nested scopes,
//! `system/info` spent a microsecond there, more than the rest of its handling.

use std::collections::HashMap;

use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::{web, Error, HttpRequest, HttpResponse, ResponseError};
use futures_util::future::LocalBoxFuture;

use crate::error::ApiError;
use crate::state::AppState;

/// What serves one method of one path: an operation's generic handler, type-erased.
pub type Handler =
    fn(HttpRequest, Payload, web::Data<AppState>) -> LocalBoxFuture<'static, HttpResponse>;

/// The paths under `/api/v1` and the handlers of each path's methods.
pub struct ApiRouter {
    paths: matchit::Router<usize>,
    endpoints: Vec<Vec<(Method, Handler)>>,
}

impl ApiRouter {
    /// Routes from `(path, method, handler)`; a path may repeat with other methods. An
    /// invalid or conflicting path is a programming error, reported with the path.
    pub fn new<'a>(
        routes: impl IntoIterator<Item = (&'a str, Method, Handler)>,
    ) -> anyhow::Result<Self> {
        let mut paths = matchit::Router::new();
        let mut index_of: HashMap<&str, usize> = HashMap::new();
        let mut endpoints: Vec<Vec<(Method, Handler)>> = Vec::new();
        for (path, method, handler) in routes {
            let index = match index_of.get(path) {
                Some(&index) => index,
                None => {
                    paths
                        .insert(path, endpoints.len())
                        .map_err(|e| anyhow::anyhow!("route {path}: {e}"))?;
                    index_of.insert(path, endpoints.len());
                    endpoints.push(Vec::new());
                    endpoints.len() - 1
                }
            };
            endpoints[index].push((method, handler));
        }
        Ok(Self { paths, endpoints })
    }

    /// Serves a request whose unmatched path is below `/api/v1`: 404 for an unknown path,
    /// 405 for a known path with another method (both JSON).
    pub async fn dispatch(
        &'static self,
        mut req: ServiceRequest,
    ) -> Result<ServiceResponse, Error> {
        let Some((handler, params)) = self.find(&req) else {
            let res = if self.paths.at(req.match_info().unprocessed()).is_ok() {
                crate::http::method_not_allowed().await
            } else {
                crate::http::not_found().await
            };
            return Ok(req.into_response(res));
        };
        for (name, value) in params {
            req.match_info_mut().add_static(name, value);
        }
        let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
            let error = ApiError::internal(anyhow::anyhow!("no application state"));
            return Ok(req.into_response(error.error_response()));
        };
        let (http_req, payload) = req.into_parts();
        let res = handler(http_req.clone(), payload, state).await;
        Ok(ServiceResponse::new(http_req, res))
    }

    /// The handler of the request's path and method, with the path's parameters (values
    /// copied: they borrow the request, which the caller then changes).
    fn find(&'static self, req: &ServiceRequest) -> Option<(Handler, Params)> {
        let found = self.paths.at(req.match_info().unprocessed()).ok()?;
        let handler = self.handler_of(*found.value, req.method())?;
        let params = found
            .params
            .iter()
            .map(|(name, value)| (name, value.to_string()))
            .collect();
        Some((handler, params))
    }

    /// The handler of `method` at the path numbered `index`.
    fn handler_of(&self, index: usize, method: &Method) -> Option<Handler> {
        self.endpoints[index]
            .iter()
            .find(|(m, _)| m == method)
            .map(|(_, handler)| *handler)
    }
}

type Params = Vec<(&'static str, String)>;

#[cfg(test)]
impl ApiRouter {
    /// The handler `method path` reaches.
    pub fn handler_at(&self, method: &Method, path: &str) -> Option<Handler> {
        self.handler_of(*self.paths.at(path).ok()?.value, method)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16) -> Handler {
        match status {
            1 => |_, _, _| Box::pin(async { HttpResponse::Ok().body("1") }),
            2 => |_, _, _| Box::pin(async { HttpResponse::Ok().body("2") }),
            _ => |_, _, _| Box::pin(async { HttpResponse::Ok().body("3") }),
        }
    }

    fn same(a: Option<Handler>, b: Handler) -> bool {
        a.is_some_and(|a| std::ptr::fn_addr_eq(a, b))
    }

    #[test]
    fn a_literal_segment_wins_over_a_parameter_and_methods_share_a_path() {
        let router = ApiRouter::new([
            ("/plugins/{author}/{name}", Method::GET, answer(1)),
            ("/plugins/install/github", Method::POST, answer(2)),
            ("/plugins/{author}/{name}", Method::DELETE, answer(3)),
        ])
        .unwrap_or_else(|e| panic!("{e:#}"));
        let at = |method: Method, path: &str| router.handler_at(&method, path);
        assert!(same(at(Method::POST, "/plugins/install/github"), answer(2)));
        assert!(same(at(Method::GET, "/plugins/acme/github"), answer(1)));
        assert!(same(at(Method::DELETE, "/plugins/acme/github"), answer(3)));
        // A known path with another method, and unknown paths.
        assert!(at(Method::PUT, "/plugins/install/github").is_none());
        assert!(router.paths.at("/plugins/install/github").is_ok());
        assert!(router.paths.at("/plugins/acme").is_err());
        assert!(router.paths.at("/plugins/acme/github/x").is_err());
        let found = router
            .paths
            .at("/plugins/acme/github")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(found.params.get("author"), Some("acme"));
        assert_eq!(found.params.get("name"), Some("github"));
    }

    #[test]
    fn a_conflicting_route_is_refused_with_its_path() {
        let refused = ApiRouter::new([
            ("/a/{x}", Method::GET, answer(1)),
            ("/a/{y}", Method::GET, answer(2)),
        ]);
        let error = refused.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("/a/{y}"), "{error}");
    }
}
