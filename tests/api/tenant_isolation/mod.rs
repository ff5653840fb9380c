//! Tenant isolation (SPEC §3, §5.2, §11): another Workspace's resource is indistinguishable
//! from a missing one. Every test starts from the same two-Workspace [`world::World`] (B with
//! members, keys, providers and models, a pipeline, a bot, an MCP server and real monitoring
//! records; A with an admin, a developer, a key and a debug turn of its own); each resource's
//! operations are
//! aimed at B with A's credentials ([`attacks`]), which must all answer 404
//! `resource_not_found`, leave B unchanged and start no run; every monitoring read made with
//! A's credentials shows A's records and none of B's ([`monitoring_reads`]).

mod attacks;
mod bots;
mod identity;
mod mcp_servers;
mod monitoring;
mod monitoring_reads;
mod pipelines;
mod plugins;
mod providers;
mod records;
mod selectors;
mod tool_calls;
mod unavailable;
mod world;

/// Text in B's turns (and so in B's messages and replies): must never reach A.
const B_TEXT: &str = "b-private-5e0c";

/// The conversation session of B's completed turn (see `world::b_turn`).
const B_SESSION: &str = "person_b-user";

/// The conversation session of B's failing turn.
const B_FAIL_SESSION: &str = "person_b-fail";

/// Attacks every operation of `resource` at B, then checks B is untouched.
async fn assert_resource_isolated(resource: attacks::Resource) -> world::World {
    let w = world::World::build().await;
    let mut problems = attacks::attack(&w, resource).await;
    w.check_b_untouched(&mut problems).await;
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
    w
}
