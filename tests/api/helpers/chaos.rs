//! A TCP proxy the test can break and mend, to take a dependency "down" without stopping it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::io::copy_bidirectional;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

pub struct ChaosProxy {
    pub port: u16,
    target: String,
    up: Arc<AtomicBool>,
    generation: watch::Sender<u64>,
    accepting: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl ChaosProxy {
    /// Proxies a local port to `target` (`host:port`).
    pub async fn start(target: String) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let port = listener.local_addr().expect("proxy addr").port();
        let (generation, _) = watch::channel(0u64);
        let proxy = Self {
            port,
            target,
            up: Arc::new(AtomicBool::new(true)),
            generation,
            accepting: std::sync::Mutex::new(None),
        };
        proxy.accept_on(listener);
        proxy
    }

    fn accept_on(&self, listener: TcpListener) {
        let (up, generation, target) = (
            self.up.clone(),
            self.generation.clone(),
            self.target.clone(),
        );
        let task = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if !up.load(Ordering::SeqCst) {
                    drop(inbound);
                    continue;
                }
                let target = target.clone();
                let mut cut = generation.subscribe();
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
        let old = self.accepting.lock().unwrap().replace(task);
        if let Some(old) = old {
            old.abort();
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

    /// Cuts every open connection and closes the port, so connecting is refused, as with a
    /// stopped server (a client may retry a refused connection; a broken link fails at once).
    pub async fn stop_listening(&self) {
        self.generation.send_modify(|g| *g += 1);
        let task = self.accepting.lock().unwrap().take();
        if let Some(task) = task {
            task.abort();
            let _ = task.await;
        }
    }

    /// Listens on the same port again (after [`Self::stop_listening`]).
    pub fn listen_again(&self) {
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        socket.set_reuseaddr(true).expect("SO_REUSEADDR");
        socket
            .bind(([127, 0, 0, 1], self.port).into())
            .expect("the proxy's port again");
        self.accept_on(socket.listen(128).expect("listen"));
    }
}

impl Drop for ChaosProxy {
    fn drop(&mut self) {
        let task = self.accepting.lock().unwrap().take();
        if let Some(task) = task {
            task.abort();
        }
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
