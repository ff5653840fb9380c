//! System information: version, edition, whether the instance is initialized.

mod dto;
pub mod ops;
pub mod wizard;

use sea_orm::{ActiveValue::Set, DatabaseConnection, EntityTrait};

use crate::entities::instance_metadata;

pub use dto::{InvitationDelivery, Limitation, SystemContext, SystemInfo};

const INSTANCE_UUID_KEY: &str = "instance_uuid";

/// Reads this installation's id, creating it on first start (first writer wins).
pub async fn instance_uuid(db: &DatabaseConnection) -> anyhow::Result<String> {
    if let Some(row) = instance_metadata::Entity::find_by_id(INSTANCE_UUID_KEY)
        .one(db)
        .await?
    {
        return Ok(row.value);
    }
    let candidate = instance_metadata::ActiveModel {
        key: Set(INSTANCE_UUID_KEY.into()),
        value: Set(uuid::Uuid::new_v4().to_string()),
    };
    let insert = instance_metadata::Entity::insert(candidate).on_conflict(
        sea_orm::sea_query::OnConflict::column(instance_metadata::Column::Key)
            .do_nothing()
            .to_owned(),
    );
    // Another replica may have won the race; either way the stored value is the answer.
    let _ = insert.exec_without_returning(db).await?;
    instance_metadata::Entity::find_by_id(INSTANCE_UUID_KEY)
        .one(db)
        .await?
        .map(|row| row.value)
        .ok_or_else(|| anyhow::anyhow!("instance id missing after insert"))
}
