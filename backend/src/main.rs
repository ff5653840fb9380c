//! `langbot`: serve (default), migrate, or print the OpenAPI document.

use clap::Parser;
use langbot::cli::{Cli, Command};

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => langbot::cli::serve().await,
        Command::Migrate => langbot::cli::migrate().await,
        Command::Openapi => {
            print!("{}", langbot::catalog::openapi::document_json());
            Ok(())
        }
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("langbot: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
