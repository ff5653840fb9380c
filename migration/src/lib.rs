//! SeaORM migrations of LangBot Core. Depends on nothing internal: migrations describe
//! tables by name, never through today's entities.

pub use sea_orm_migration::prelude::*;

mod m20261130_000001_identity;
mod m20261130_000002_providers;
mod m20261130_000003_pipelines_bots;
mod m20261130_000004_runtime;
mod m20261130_000005_monitoring_indexes;
mod m20261130_000006_monitoring_rollups;
mod m20261201_000007_tools;
mod m20261202_000008_plugins;
pub mod rollups;

pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261130_000001_identity::Migration),
            Box::new(m20261130_000002_providers::Migration),
            Box::new(m20261130_000003_pipelines_bots::Migration),
            Box::new(m20261130_000004_runtime::Migration),
            Box::new(m20261130_000005_monitoring_indexes::Migration),
            Box::new(m20261130_000006_monitoring_rollups::Migration),
            Box::new(m20261201_000007_tools::Migration),
            Box::new(m20261202_000008_plugins::Migration),
        ]
    }
}
