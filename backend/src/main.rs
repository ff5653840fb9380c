//! `langbot`: serve (default), migrate, or print the OpenAPI document.

use clap::Parser;
use langbot::cli::{Cli, Command};

fn main() -> std::process::ExitCode {
    tune_allocator();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("langbot: cannot start the async runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(run(Cli::parse()));
    // The stop is over (bounded by the drain time): blocking work still running (a DNS
    // lookup, a file read) must not hold the exit, as dropping the runtime would.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    code
}

async fn run(cli: Cli) -> std::process::ExitCode {
    let result = match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => langbot::cli::serve().await,
        Command::Migrate => langbot::cli::migrate().await,
        Command::RebuildRollups => langbot::cli::rebuild_rollups().await,
        Command::Openapi => {
            print!(
                "{}",
                langbot::catalog::openapi::document_json(langbot::api::catalog())
            );
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

/// glibc keeps large freed blocks (a password hash's 19 MiB) and per-thread arenas resident.
/// Its tuning is read from the environment at process start, so the binary re-executes
/// itself once with four arenas and blocks over 256 KiB mapped separately (bench/run.sh:
/// ≈38 MiB instead of ≈56 under load). Set `MALLOC_ARENA_MAX` yourself to opt out.
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        use std::os::unix::process::CommandExt;
        if let Ok(exe) = std::env::current_exe() {
            let mut cmd = std::process::Command::new(exe);
            cmd.args(std::env::args_os().skip(1))
                .env("MALLOC_ARENA_MAX", "4")
                .env("MALLOC_MMAP_THRESHOLD_", "262144");
            // exec only returns on failure; then run untuned.
            let _ = cmd.exec();
        }
    }
}
