//! The shared store on Redis: every key and channel carries the configured prefix.

use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{AsyncCommands, Script};

use super::{new_token, LockToken, SessionStore, StoreError, StoreResult, Subscription};

const TIMEOUT: Duration = Duration::from_secs(2);

/// Redis-backed [`SessionStore`]; the connection manager reconnects after failures.
#[derive(Clone)]
pub struct RedisStore {
    client: redis::Client,
    conn: ConnectionManager,
    prefix: String,
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

impl RedisStore {
    pub async fn connect(url: &str, prefix: &str) -> anyhow::Result<Self> {
        let client = redis::Client::open(url)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(TIMEOUT)
            .set_response_timeout(TIMEOUT)
            .set_number_of_retries(2);
        let conn = ConnectionManager::new_with_config(client.clone(), config)
            .await
            .map_err(|e| anyhow::anyhow!("cannot connect to Redis: {e}"))?;
        Ok(Self {
            client,
            conn,
            prefix: prefix.to_string(),
        })
    }

    fn key(&self, key: &str) -> String {
        format!("{}{}", self.prefix, key)
    }

    fn conn(&self) -> ConnectionManager {
        self.conn.clone()
    }
}

async fn timed<T>(fut: impl std::future::Future<Output = redis::RedisResult<T>>) -> StoreResult<T> {
    match tokio::time::timeout(TIMEOUT, fut).await {
        Ok(result) => result.map_err(StoreError::from),
        Err(_) => Err(StoreError::Timeout),
    }
}

const INCR: &str = r"
local v = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return v";

const UNLOCK: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

const EXTEND: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";

#[async_trait]
impl SessionStore for RedisStore {
    fn kind(&self) -> &'static str {
        "redis"
    }

    async fn ping(&self) -> StoreResult<()> {
        let mut conn = self.conn();
        timed(redis::cmd("PING").query_async::<String>(&mut conn))
            .await
            .map(|_| ())
    }

    async fn get(&self, key: &str) -> StoreResult<Option<Vec<u8>>> {
        let mut conn = self.conn();
        timed(conn.get::<_, Option<Vec<u8>>>(self.key(key))).await
    }

    async fn set(&self, key: &str, value: &[u8], ttl: Option<Duration>) -> StoreResult<()> {
        let mut conn = self.conn();
        let mut cmd = redis::cmd("SET");
        cmd.arg(self.key(key)).arg(value);
        if let Some(ttl) = ttl {
            cmd.arg("PX").arg(millis(ttl));
        }
        timed(cmd.query_async::<()>(&mut conn)).await
    }

    async fn set_if_absent(&self, key: &str, value: &[u8], ttl: Duration) -> StoreResult<bool> {
        let mut conn = self.conn();
        let mut cmd = redis::cmd("SET");
        cmd.arg(self.key(key))
            .arg(value)
            .arg("PX")
            .arg(millis(ttl))
            .arg("NX");
        timed(cmd.query_async::<Option<String>>(&mut conn))
            .await
            .map(|r| r.is_some())
    }

    async fn delete(&self, key: &str) -> StoreResult<bool> {
        let mut conn = self.conn();
        timed(conn.del::<_, i64>(self.key(key)))
            .await
            .map(|n| n > 0)
    }

    async fn expire(&self, key: &str, ttl: Duration) -> StoreResult<bool> {
        let mut conn = self.conn();
        let ms = i64::try_from(millis(ttl)).unwrap_or(i64::MAX);
        timed(conn.pexpire::<_, i64>(self.key(key), ms))
            .await
            .map(|n| n > 0)
    }

    async fn ttl(&self, key: &str) -> StoreResult<Option<Duration>> {
        let mut conn = self.conn();
        let ms: i64 = timed(conn.pttl(self.key(key))).await?;
        Ok(u64::try_from(ms).ok().map(Duration::from_millis))
    }

    async fn incr(&self, key: &str, by: i64, window: Duration) -> StoreResult<i64> {
        let mut conn = self.conn();
        let script = Script::new(INCR);
        let mut invocation = script.key(self.key(key));
        invocation.arg(by).arg(millis(window));
        timed(invocation.invoke_async::<i64>(&mut conn)).await
    }

    async fn publish(&self, channel: &str, message: &[u8]) -> StoreResult<()> {
        let mut conn = self.conn();
        timed(conn.publish::<_, _, i64>(self.key(channel), message))
            .await
            .map(|_| ())
    }

    async fn subscribe(&self, channel: &str) -> StoreResult<Subscription> {
        let client = self.client.clone();
        let mut pubsub = timed(client.get_async_pubsub()).await?;
        timed(pubsub.subscribe(self.key(channel))).await?;
        Ok(Box::pin(
            pubsub
                .into_on_message()
                .map(|msg| msg.get_payload_bytes().to_vec()),
        ))
    }

    async fn try_lock(&self, key: &str, ttl: Duration) -> StoreResult<Option<LockToken>> {
        let token = new_token();
        let acquired = self.set_if_absent(key, token.0.as_bytes(), ttl).await?;
        Ok(acquired.then_some(token))
    }

    async fn unlock(&self, key: &str, token: &LockToken) -> StoreResult<bool> {
        let mut conn = self.conn();
        let script = Script::new(UNLOCK);
        let mut invocation = script.key(self.key(key));
        invocation.arg(&token.0);
        timed(invocation.invoke_async::<i64>(&mut conn))
            .await
            .map(|n| n > 0)
    }

    async fn extend_lock(&self, key: &str, token: &LockToken, ttl: Duration) -> StoreResult<bool> {
        let mut conn = self.conn();
        let script = Script::new(EXTEND);
        let mut invocation = script.key(self.key(key));
        invocation.arg(&token.0).arg(millis(ttl));
        timed(invocation.invoke_async::<i64>(&mut conn))
            .await
            .map(|n| n > 0)
    }
}
