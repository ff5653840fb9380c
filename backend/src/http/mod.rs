//! HTTP plumbing shared by all endpoints: request ids, fallbacks, health, client address.

mod body;
mod compress;
mod db_gate;
mod frame;
pub mod health;
mod request_id;
pub mod web_ui;

use std::net::IpAddr;

use actix_web::{HttpRequest, HttpResponse, ResponseError};
use ipnet::IpNet;

use crate::error::{ApiError, ErrorCode};

pub use body::read_body;
pub use frame::RequestFrame;

/// JSON 404 for any unknown path.
pub async fn not_found() -> HttpResponse {
    ApiError::not_found()
        .msg("No such endpoint")
        .error_response()
}

/// JSON 405 for a known path with another method.
pub async fn method_not_allowed() -> HttpResponse {
    ApiError::new(ErrorCode::MethodNotAllowed).error_response()
}

/// Parses `api.trusted_proxies` (addresses or CIDR blocks).
pub fn parse_trusted_proxies(items: &[String]) -> anyhow::Result<Vec<IpNet>> {
    items
        .iter()
        .map(|s| {
            s.parse::<IpNet>()
                .or_else(|_| s.parse::<IpAddr>().map(IpNet::from))
                .map_err(|_| {
                    anyhow::anyhow!("api.trusted_proxies: {s:?} is not an address or CIDR block")
                })
        })
        .collect()
}

/// The client address: the peer, or — when the peer is a trusted proxy — the last
/// untrusted address of `X-Forwarded-For`.
pub fn client_ip(req: &HttpRequest, trusted: &[IpNet]) -> Option<IpAddr> {
    let peer = req.peer_addr().map(|a| a.ip())?;
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return Some(peer);
    }
    let forwarded = req
        .headers()
        .get("x-forwarded-for")
        .and_then(|v| v.to_str().ok());
    let hops: Vec<IpAddr> = forwarded
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_default();
    Some(
        hops.into_iter()
            .rev()
            .find(|ip| !is_trusted(ip))
            .unwrap_or(peer),
    )
}
