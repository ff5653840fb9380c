//! `/api/v1/user/*`: initialization, login, sessions, password, account info.

use sea_orm::TransactionTrait;

use super::dto::{
    AccountInfo, ChangePasswordRequest, Credentials, InitStatus, LoginRequest, TokenResponse,
};
use super::service;
use crate::access::{login_limit, password, sessions};
use crate::access::{Access, Principal, RequestCtx};
use crate::catalog::{Input, NoBody, NoParams, Null, OpMeta, Operation};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;

/// `GET /user/init`.
pub struct GetInitStatus;

impl Operation for GetInitStatus {
    const META: OpMeta = OpMeta::get("get_init_status", "/user/init")
        .tag("user")
        .summary("Whether the first account exists")
        .access(Access::Public);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = InitStatus;

    async fn run(
        state: &AppState,
        _: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<InitStatus> {
        Ok(InitStatus {
            initialized: service::is_initialized(&state.db).await?,
        })
    }
}

/// `POST /user/init`: the first account, its Workspace and the owner membership, exactly once.
pub struct InitAccount;

impl Operation for InitAccount {
    const META: OpMeta = OpMeta::post("init_account", "/user/init")
        .tag("user")
        .summary("Create the first account and its Workspace (once)")
        .access(Access::Public)
        .errors(&[ErrorCode::Conflict, ErrorCode::RateLimited]);
    type Path = NoParams;
    type Query = NoParams;
    type Body = Credentials;
    type Output = Null;

    async fn run(
        state: &AppState,
        _: &RequestCtx,
        input: Input<NoParams, NoParams, Credentials>,
    ) -> ApiResult<Null> {
        let body = input.body;
        password::check_policy("password", &body.password)?;
        if service::is_initialized(&state.db).await? {
            return Err(ApiError::conflict("The system is already initialized"));
        }
        let hash = state.passwords.hash(body.password).await?;
        let txn = state.db.begin().await?;
        service::claim_initialization(&txn).await?;
        let account = service::insert(&txn, &body.user, hash).await?;
        crate::workspaces::service::create_with_owner(&txn, "Default Workspace", &account.uuid)
            .await?;
        txn.commit().await?;
        state.identity.invalidate().await;
        tracing::info!(account.uuid = %account.uuid, "instance initialized");
        Ok(Null)
    }
}

/// `POST /user/auth`.
pub struct Login;

impl Operation for Login {
    const META: OpMeta = OpMeta::post("login", "/user/auth")
        .tag("user")
        .summary("Log in; answers a session token")
        .access(Access::Public)
        .errors(&[ErrorCode::InvalidAuthentication, ErrorCode::RateLimited]);
    type Path = NoParams;
    type Query = NoParams;
    type Body = LoginRequest;
    type Output = TokenResponse;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, LoginRequest>,
    ) -> ApiResult<TokenResponse> {
        let email = service::normalize_email(&input.body.user);
        let store = state.store.as_ref();
        login_limit::check(store, &email, ctx.client_ip).await?;
        let account = service::find_by_email(&state.db, &email)
            .await?
            .filter(|a| a.status == "active" && !a.password.is_empty());
        let stored = account.as_ref().map(|a| a.password.clone());
        let ok = state.passwords.verify(input.body.password, stored).await?;
        let Some(account) = account.filter(|_| ok) else {
            login_limit::record_failure(store, &email, ctx.client_ip).await?;
            // One answer for an unknown account and a wrong password.
            return Err(ApiError::unauthenticated().msg("Invalid username or password"));
        };
        login_limit::record_success(store, &email).await?;
        let token = sessions::create(store, &account.uuid, state.settings.auth.session_ttl).await?;
        Ok(TokenResponse { token })
    }
}

fn session(ctx: &RequestCtx) -> ApiResult<(&str, &str)> {
    match &ctx.principal {
        Principal::Account {
            session_hash,
            token,
            ..
        } => Ok((session_hash, &token.0)),
        _ => Err(ApiError::unauthenticated()),
    }
}

/// `GET /user/check-token`: the same token, its expiry renewed.
pub struct CheckToken;

impl Operation for CheckToken {
    const META: OpMeta = OpMeta::get("check_token", "/user/check-token")
        .tag("user")
        .summary("Renew the session; answers the same token")
        .access(Access::Account);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = TokenResponse;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<TokenResponse> {
        let (hash, token) = session(ctx)?;
        let store = state.store.as_ref();
        let record = sessions::find(store, hash)
            .await?
            .ok_or_else(ApiError::unauthenticated)?;
        if !sessions::renew(store, hash, &record, state.settings.auth.session_ttl).await? {
            // The session is gone: no replica may keep it cached.
            state.identity.invalidate().await;
            return Err(ApiError::unauthenticated().msg("The session has reached its maximum age"));
        }
        Ok(TokenResponse {
            token: token.to_string(),
        })
    }
}

/// `POST /user/logout`.
pub struct Logout;

impl Operation for Logout {
    const META: OpMeta = OpMeta::post("logout", "/user/logout")
        .tag("user")
        .summary("End this session")
        .access(Access::Account);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = Null;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<Null> {
        let (hash, _) = session(ctx)?;
        sessions::delete(state.store.as_ref(), hash).await?;
        state.identity.invalidate().await;
        Ok(Null)
    }
}

/// `POST /user/change-password`: also ends every other session of the account.
pub struct ChangePassword;

impl Operation for ChangePassword {
    const META: OpMeta = OpMeta::post("change_password", "/user/change-password")
        .tag("user")
        .summary("Change the password and end the account's other sessions")
        .access(Access::Account)
        .errors(&[ErrorCode::RateLimited]);
    type Path = NoParams;
    type Query = NoParams;
    type Body = ChangePasswordRequest;
    type Output = Null;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, ChangePasswordRequest>,
    ) -> ApiResult<Null> {
        let account_uuid = ctx.account()?;
        let (hash, _) = session(ctx)?;
        let body = input.body;
        password::check_policy("new_password", &body.new_password)?;
        let account = service::find(&state.db, &account_uuid).await?;
        let stored = Some(account.password.clone()).filter(|p| !p.is_empty());
        if !state
            .passwords
            .verify(body.current_password, stored)
            .await?
        {
            return Err(ApiError::invalid("The current password is incorrect")
                .field("current_password", "is incorrect"));
        }
        let new_hash = state.passwords.hash(body.new_password).await?;
        service::set_password(&state.db, account, new_hash).await?;
        sessions::revoke_others(
            state.store.as_ref(),
            &account_uuid.to_string(),
            hash,
            state.settings.auth.session_ttl,
        )
        .await?;
        state.identity.invalidate().await;
        Ok(Null)
    }
}

/// `GET /user/info`.
pub struct GetUserInfo;

impl Operation for GetUserInfo {
    const META: OpMeta = OpMeta::get("get_user_info", "/user/info")
        .tag("user")
        .summary("The logged-in account")
        .access(Access::Account);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = AccountInfo;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<AccountInfo> {
        let account = service::find(&state.db, &ctx.account()?).await?;
        Ok(AccountInfo {
            account_uuid: account.uuid,
            user: account.user,
            email: account.normalized_email,
            account_type: "local".into(),
            has_password: !account.password.is_empty(),
            created_at: account.created_at,
        })
    }
}
