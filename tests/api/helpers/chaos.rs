//! A TCP proxy the test can break and mend, to take a dependency "down" without stopping it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::io::copy_bidirectional;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

pub struct ChaosProxy {
    pub port: u16,
    up: Arc<AtomicBool>,
    generation: watch::Sender<u64>,
}

impl ChaosProxy {
    /// Proxies a local port to `target` (`host:port`).
    pub async fn start(target: String) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let port = listener.local_addr().expect("proxy addr").port();
        let up = Arc::new(AtomicBool::new(true));
        let (generation, _) = watch::channel(0u64);
        let (up2, gen2) = (up.clone(), generation.clone());
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if !up2.load(Ordering::SeqCst) {
                    drop(inbound);
                    continue;
                }
                let target = target.clone();
                let mut cut = gen2.subscribe();
                tokio::spawn(async move {
                    let Ok(mut outbound) = TcpStream::connect(&target).await else {
                        return;
                    };
                    tokio::select! {
                        _ = copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = cut.changed() => {}
                    }
                });
            }
        });
        Self {
            port,
            up,
            generation,
        }
    }

    /// Cuts every open connection and refuses new ones.
    pub fn break_link(&self) {
        self.up.store(false, Ordering::SeqCst);
        self.generation.send_modify(|g| *g += 1);
    }

    pub fn mend(&self) {
        self.up.store(true, Ordering::SeqCst);
    }
}

/// The `host:port` of a service URL (credentials and path dropped).
pub fn host_port(url: &str) -> String {
    let after_scheme = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = after_scheme.split('/').next().unwrap_or(after_scheme);
    authority
        .rsplit_once('@')
        .map_or(authority, |(_, hp)| hp)
        .to_string()
}
