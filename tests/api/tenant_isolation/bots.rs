//! B's bots and their routes (dry-run and status included) are out of A's reach.

use super::assert_resource_isolated;
use super::attacks::Resource;

#[tokio::test]
async fn bs_bots_and_routes_are_not_found_for_a() {
    assert_resource_isolated(Resource::Platform).await;
}
