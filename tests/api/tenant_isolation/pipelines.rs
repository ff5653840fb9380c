//! B's pipelines are out of A's reach: not found, not changed, not copied, not run.

use super::assert_resource_isolated;
use super::attacks::Resource;

#[tokio::test]
async fn bs_pipelines_are_not_found_changed_or_run_for_a() {
    assert_resource_isolated(Resource::Pipelines).await;
}
