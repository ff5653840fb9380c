//! Black-box tests: the app spawned in-process on port 0, one fresh database per test.
//! The back ends come from the environment (see `helpers::backend`).

mod helpers;

mod basics;
mod openapi;
mod readiness;
mod session_store;
