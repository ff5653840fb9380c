//! The `http_bot` adapter's ingress, `/bots/{bot_uuid}` (`/sync`, `/reset`): signed messages
//! through routing and the pipeline to signed callbacks, and every refusal of its contract
//! (status and the envelope's integer code; no callback; no change to the conversation). Bad
//! bodies and paths are in `negative_inputs::http_bot`.

mod durability;
mod idempotency;
mod mentions;
mod sessions;
mod signatures;
mod turns;

/// The adapter's three endpoints, below `/bots/{bot_uuid}`.
const ENDPOINTS: [&str; 3] = ["", "/sync", "/reset"];

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}
