//! Workspaces, members, invitations, API keys, the message language and the system context of
//! B are out of A's reach.

use super::assert_resource_isolated;
use super::attacks::Resource;

#[tokio::test]
async fn bs_workspace_members_invitations_and_keys_are_not_found_for_a() {
    assert_resource_isolated(Resource::Identity).await;
}
