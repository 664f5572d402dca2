//! rmcp, the official Rust MCP SDK (crates.io `rmcp`, pinned `=3.11.0`), driven over the line protocol.
//!
//!     rmcp-driver [--mode legacy|auto|discover]
//!
//! What rmcp 3.11.0 offers a client (its source: `src/service/client.rs`, `src/transport.rs`):
//!
//! - Transports: `StreamableHttpClientTransport` (Streamable HTTP, here on its default reqwest client,
//!   `StreamableHttpClientTransport::from_uri`) and `TokioChildProcess` (stdio: it spawns the server and speaks
//!   newline-delimited JSON-RPC on its stdin/stdout). There is no HTTP+SSE (2024-11-05) client transport, and so no
//!   fallback to it; `client_side_sse.rs` is only the SSE reader of Streamable HTTP.
//! - Lifecycles (`ClientLifecycleMode`, given to `ClientServiceExt::serve_with_lifecycle`):
//!   `Initialize` (the `initialize` handshake; what plain `ServiceExt::serve` does), `Discover { preferred_versions }`
//!   (`server/discover` and per-request `_meta`, no fallback: a legacy server is an error) and
//!   `Auto { preferred_versions, legacy_version }` (probe with `server/discover`, fall back to `initialize` when the
//!   server answers as a legacy one or does not answer within 10 s, `DEFAULT_AUTO_DISCOVER_TIMEOUT`).
//!   Each is its own program here, declaring only what that mode does:
//!
//!   | flag               | name           | lifecycle                                      | feature       | revisions              |
//!   |--------------------|----------------|------------------------------------------------|---------------|------------------------|
//!   | (none)             | `rmcp`         | `handler.serve(transport)` (= `Initialize`)    | `mode-legacy` | 2025-03-26 .. 2025-11-25 |
//!   | `--mode legacy`    | `rmcp-legacy`  | `serve_with_lifecycle(Initialize)`             | `mode-legacy` | 2025-03-26 .. 2025-11-25 |
//!   | `--mode auto`      | `rmcp-auto`    | `Auto { [2026-07-28], LATEST_WITH_INITIALIZE }`| `mode-auto`   | the above and 2026-07-28 |
//!   | `--mode discover`  | `rmcp-discover`| `Discover { [the pinned revision] }`           | `mode-pin`    | 2026-07-28             |
//!
//! - Protocol versions: `ProtocolVersion::KNOWN_VERSIONS` is 2024-11-05 .. 2026-07-28. 2024-11-05 is not declared: over
//!   HTTP it is HTTP+SSE, which rmcp does not speak, and the line protocol's `stdioRevisions` may only narrow
//!   `revisions` (rmcp's stdio transport would accept a 2024-11-05 answer to `initialize`). The version offered in
//!   `initialize` is the SDK's default `ClientConfig` one, `ProtocolVersion::default()` = `LATEST` (2026-07-28, see
//!   model.rs); the glue does not change it.
//!
//! How each op maps to the public API (no lifecycle logic of the glue's own):
//! - connect: `ClientConfig::new(capabilities, Implementation::new(..))` as the examples build it, with a
//!   `ClientHandler` answering roots/sampling/elicitation only when the case gives those answers (else the trait's
//!   defaults, those of `()`); then `serve` / `serve_with_lifecycle`. rmcp has no connect timeout: `timeoutMs` bounds
//!   the future with `tokio::time::timeout` (dropping it drops the transport, as any Rust caller's would).
//! - info: `peer_info().protocol_version` (and its era from `ProtocolVersion::has_initialize`). The session id is private
//!   to the Streamable HTTP worker: not reported.
//! - listTools: `Peer::list_tools(None)`; callTool: `RunningService::call_tool` (it drives 2026-07-28 `input_required`
//!   rounds through the handler itself).
//! - cancellation: rmcp's high-level calls take no cancel handle; "the only way a caller can abandon one is to drop
//!   the future" (tests/test_abandoned_request_cancel.rs), and the dropped future sends `notifications/cancelled`
//!   (`AbandonedRequestGuard`, service/client.rs). So `cancel` drops it.
//! - request-timeout: the same, with `tokio::time::timeout`, the case that guard names (its doc comment).
//! - close: `RunningService::close` (cancel the service, wait for its task, which closes the transport: DELETE of the
//!   session over HTTP, `TokioChildProcess::graceful_shutdown` over stdio). A call in flight holds the service too, so
//!   close first fires the service's own `cancellation_token()` (close's first step), then awaits it with `close`.
//! - dispose: drops what the case still holds (rmcp's drop guards cancel a service left running).
//!
//! Not declared, because the public API has no way to do it:
//! - `resume`: `StreamableHttpClientTransportConfig` takes no session id or negotiated version to resume with.
//! - `keep-session`: the Streamable HTTP worker always DELETEs its session when it ends (streamable_http_client.rs).
//! - `transport-fallback`: no HTTP+SSE client.
//! - `affinity-key`: no option to send a client-minted key in Mcp-Session-Id.
//! - `listen`: no option; the worker always opens the standalone GET stream once a session exists, so the scenarios
//!   judge it from the wire.
//!
//! `oauth` (line protocol 1.7), with the `auth` feature, as rmcp's OAuth example client does it: the application
//! authorizes before it connects (`OAuthState` over an `AuthorizationManager`, `start_authorization` with an
//! `AuthorizationRequest`: discovery, registration, PKCE and the authorization URL are the SDK's), hands the URL to the
//! harness's user agent where a browser would open it, gives the redirect to `handle_callback_url` (code, state,
//! `iss`), and connects through `AuthClient` (the authorized manager under the transport's http client), which adds
//! the token, and on a refused token refreshes once and retries (common/auth/streamable_http_client.rs). The manager
//! is kept per server for the case's later connections. `AuthorizationManager::new_allowing_private_addresses`: the
//! suite's authorization server is on 127.0.0.1 (the loopback base URL allows it).

#![allow(deprecated)] // roots and sampling are SEP-2577-deprecated in rmcp, still its API for them

use std::sync::{Arc, Mutex};
use std::time::Duration;

use lineproto::{
    BoxFuture, Client, ConnectOptions, Connection, Hello, Instance, Negotiation, OpError,
    OpOptions, Target, unless_cancelled,
};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationCapability, Implementation,
    ListRootsResult, ProtocolVersion, Root, RootsCapabilities, SamplingCapability,
};
use rmcp::service::{
    ClientInitializeError, RequestContext, RoleClient, RunningService, ServiceError,
};
use rmcp::transport::auth::{AuthClient, AuthorizationManager, AuthorizationRequest, OAuthState};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{
    ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData as McpError, ServiceExt,
};
use serde_json::{Map, Value, json};

const SDK_VERSION: &str = "3.11.0";
const MODERN: ProtocolVersion = ProtocolVersion::V_2026_07_28;
const LEGACY_REVISIONS: [&str; 3] = ["2025-03-26", "2025-06-18", "2025-11-25"];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `ServiceExt::serve`: what the documentation's examples call.
    Default,
    Legacy,
    Auto,
    Discover,
}

impl Mode {
    fn parse(args: &[String]) -> Result<Mode, String> {
        match args {
            [] => Ok(Mode::Default),
            [flag, mode] if flag == "--mode" => match mode.as_str() {
                "legacy" => Ok(Mode::Legacy),
                "auto" => Ok(Mode::Auto),
                "discover" => Ok(Mode::Discover),
                other => Err(format!("unknown mode {other:?} (legacy, auto, discover)")),
            },
            _ => Err("usage: rmcp-driver [--mode legacy|auto|discover]".into()),
        }
    }

    fn hello(self) -> Hello {
        let (name, feature, lifecycle, legacy, modern) = match self {
            Mode::Default => (
                "rmcp",
                "mode-legacy",
                "ServiceExt::serve (initialize)",
                true,
                false,
            ),
            Mode::Legacy => (
                "rmcp-legacy",
                "mode-legacy",
                "ClientLifecycleMode::Initialize",
                true,
                false,
            ),
            Mode::Auto => (
                "rmcp-auto",
                "mode-auto",
                "ClientLifecycleMode::Auto (server/discover, then initialize)",
                true,
                true,
            ),
            Mode::Discover => (
                "rmcp-discover",
                "mode-pin",
                "ClientLifecycleMode::Discover (server/discover only)",
                false,
                true,
            ),
        };
        let mut revisions: Vec<String> = Vec::new();
        if legacy {
            revisions.extend(LEGACY_REVISIONS.iter().map(|r| r.to_string()));
        }
        if modern {
            revisions.push(MODERN.to_string());
        }
        Hello {
            protocol: lineproto::PROTOCOL,
            name: name.into(),
            description: format!(
                "rmcp {SDK_VERSION} (official Rust SDK), {lifecycle}, StreamableHttpClientTransport (reqwest) or TokioChildProcess"
            ),
            revisions,
            features: [
                feature,
                "cancellation",
                "request-timeout",
                "roots",
                "sampling",
                "elicitation",
                "oauth",
            ]
            .map(String::from)
            .to_vec(),
            transports: Some(vec!["http".into(), "stdio".into()]),
            stdio_revisions: None,
        }
    }
}

/// The application side of the client: the answers a case gives to the server's requests, and the capabilities
/// declared for them. Without an answer, each method does what rmcp's default does (that of `()`).
#[derive(Clone)]
struct Handlers {
    config: ClientConfig,
    roots: Option<Vec<Root>>,
    sampling: Option<CreateMessageResult>,
    elicitation: Option<ElicitResult>,
}

impl Handlers {
    fn new(handlers: Option<lineproto::Handlers>) -> Result<Handlers, OpError> {
        fn parse<T: serde::de::DeserializeOwned>(
            what: &str,
            value: Option<Value>,
        ) -> Result<Option<T>, OpError> {
            value
                .map(|value| {
                    serde_json::from_value(value).map_err(|error| {
                        OpError::protocol("invalid-request", format!("handlers.{what}: {error}"))
                    })
                })
                .transpose()
        }
        let handlers = handlers.unwrap_or_default();
        let roots: Option<Vec<Root>> = parse("roots", handlers.roots)?;
        let sampling: Option<CreateMessageResult> = parse("sampling", handlers.sampling)?;
        let elicitation: Option<ElicitResult> = parse("elicitation", handlers.elicitation)?;
        let mut capabilities = ClientCapabilities::default();
        if roots.is_some() {
            capabilities.roots = Some(RootsCapabilities::default());
        }
        if sampling.is_some() {
            capabilities.sampling = Some(SamplingCapability::default());
        }
        if elicitation.is_some() {
            capabilities.elicitation = Some(ElicitationCapability::default());
        }
        let config = ClientConfig::new(
            capabilities,
            Implementation::new("mcp-client-conformance", "0.1.0"),
        );
        Ok(Handlers {
            config,
            roots,
            sampling,
            elicitation,
        })
    }
}

impl ClientHandler for Handlers {
    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }

    async fn list_roots(
        &self,
        context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, McpError> {
        match &self.roots {
            Some(roots) => Ok(ListRootsResult::new(roots.clone())),
            None => ().list_roots(context).await,
        }
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        match &self.sampling {
            Some(result) => Ok(result.clone()),
            None => ().create_message(params, context).await,
        }
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        match &self.elicitation {
            Some(result) => Ok(result.clone()),
            None => ().create_elicitation(request, context).await,
        }
    }
}

type Running = RunningService<RoleClient, Handlers>;

fn service_error(error: ServiceError) -> OpError {
    let code = match &error {
        ServiceError::McpError(data) => Some(json!(data.code.0)),
        _ => None,
    };
    let variant = match &error {
        ServiceError::McpError(_) => "McpError",
        ServiceError::TransportSend(_) => "TransportSend",
        ServiceError::TransportClosed => "TransportClosed",
        ServiceError::UnexpectedResponse => "UnexpectedResponse",
        ServiceError::Cancelled { .. } => "Cancelled",
        ServiceError::Timeout { .. } => "Timeout",
        _ => "ServiceError",
    };
    OpError::client(format!("ServiceError::{variant}"), error.to_string(), code)
}

fn initialize_error(error: ClientInitializeError) -> OpError {
    let code = match &error {
        ClientInitializeError::JsonRpcError(data) => Some(json!(data.code.0)),
        _ => None,
    };
    // The Debug form names the variant and keeps the transport's cause (an HTTP status, say).
    OpError::client(
        "ClientInitializeError",
        format!("{error} ({error:?})"),
        code,
    )
}

fn timed_out(what: &str, timeout_ms: f64) -> OpError {
    OpError::client(
        "Elapsed",
        format!("{what} did not complete within {timeout_ms} ms (tokio::time::timeout)"),
        None,
    )
}

/// Bounds a request by its per-request timeout, if it has one: the future is dropped when it runs out.
async fn with_timeout<T>(
    timeout_ms: Option<f64>,
    what: &str,
    request: impl Future<Output = Result<T, OpError>>,
) -> Result<T, OpError> {
    match timeout_ms {
        Some(ms) => tokio::time::timeout(Duration::from_secs_f64(ms / 1000.0), request)
            .await
            .unwrap_or_else(|_| Err(timed_out(what, ms))),
        None => request.await,
    }
}

struct Rmcp {
    mode: Mode,
}

impl Client for Rmcp {
    fn start(&self, _case: &str) -> BoxFuture<'_, Result<Box<dyn Instance>, OpError>> {
        let mode = self.mode;
        Box::pin(async move { Ok(Box::new(RmcpInstance { mode, authorized: Default::default() }) as Box<dyn Instance>) })
    }
}

/// rmcp keeps nothing across connections (no era cache, no shared HTTP client): an instance is only its mode.
struct RmcpInstance {
    mode: Mode,
    /// Each server's authorized client (oauth), kept for the case's later connections as an application keeps it.
    authorized: tokio::sync::Mutex<std::collections::HashMap<String, AuthClient<reqwest::Client>>>,
}

/// The http client under AuthClient. The transport's own default (same-origin redirects only) is private to rmcp;
/// this one follows no redirect at all, and keeps no idle connection, as that default does not.
fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a reqwest client")
}

fn auth_error(error: impl std::fmt::Display + std::fmt::Debug) -> OpError {
    OpError::client("AuthError", format!("{error} ({error:?})"), None)
}

/// The server's authorized client: the one this case made earlier, else a new authorization through rmcp's OAuthState.
async fn authorized_client(
    instance: &RmcpInstance,
    url: &str,
    authorization: &lineproto::Authorization,
) -> Result<AuthClient<reqwest::Client>, OpError> {
    let mut authorized = instance.authorized.lock().await;
    if let Some(client) = authorized.get(url) {
        return Ok(client.clone());
    }
    let manager = AuthorizationManager::new_allowing_private_addresses(url)
        .await
        .map_err(auth_error)?;
    let mut state = OAuthState::Unauthorized(manager);
    let mut request = AuthorizationRequest::new(authorization.redirect_uri.clone())
        .with_client_name("mcp-client-conformance");
    if let Some(client_id) = &authorization.client_id {
        request = request.with_preregistered_client(client_id.clone());
        if let Some(secret) = &authorization.client_secret {
            request = request.with_client_secret(secret.clone());
        }
    }
    if let Some(metadata_url) = &authorization.client_metadata_url {
        request = request.with_client_metadata_url(metadata_url.clone());
    }
    state.start_authorization(request).await.map_err(auth_error)?;
    let authorization_url = state.get_authorization_url().await.map_err(auth_error)?;
    let redirect = user_agent(authorization, &authorization_url).await?;
    state.handle_callback_url(&redirect).await.map_err(auth_error)?;
    let manager = state
        .into_authorization_manager()
        .ok_or_else(|| auth_error("no authorization manager after the callback"))?;
    let client = AuthClient::new(http_client(), manager);
    authorized.insert(url.to_string(), client.clone());
    Ok(client)
}

/// What a browser would do with the authorization URL: the harness's user agent follows it and answers with the
/// redirect to the registered redirect URI.
async fn user_agent(
    authorization: &lineproto::Authorization,
    authorization_url: &str,
) -> Result<String, OpError> {
    let response = reqwest::Client::new()
        .post(&authorization.user_agent_url)
        .json(&authorization.user_agent_body(authorization_url))
        .send()
        .await
        .map_err(|error| OpError::client("UserAgentError", error.to_string(), None))?;
    let ok = response.status().is_success();
    let answer: Value = response
        .json()
        .await
        .map_err(|error| OpError::client("UserAgentError", error.to_string(), None))?;
    match (ok, answer.get("redirect").and_then(Value::as_str)) {
        (true, Some(redirect)) => Ok(redirect.to_string()),
        _ => Err(OpError::client(
            "UserAgentError",
            format!("the user agent could not authorize: {answer}"),
            None,
        )),
    }
}

impl RmcpInstance {
    fn lifecycle(
        &self,
        negotiation: Option<&Negotiation>,
    ) -> Result<Option<ClientLifecycleMode>, OpError> {
        let unsupported = |n: &Negotiation| {
            OpError::protocol(
                "unsupported",
                format!("this program's rmcp lifecycle does not do negotiation {n:?}"),
            )
        };
        Ok(match (self.mode, negotiation) {
            (Mode::Default, None | Some(Negotiation::Legacy)) => None,
            (Mode::Legacy, None | Some(Negotiation::Legacy)) => {
                Some(ClientLifecycleMode::Initialize)
            }
            (Mode::Auto, None | Some(Negotiation::Auto)) => Some(ClientLifecycleMode::Auto {
                preferred_versions: vec![MODERN],
                legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
            }),
            (Mode::Discover, None) => Some(ClientLifecycleMode::Discover {
                preferred_versions: vec![MODERN],
            }),
            (Mode::Discover, Some(Negotiation::Pin(revision))) => {
                let version: ProtocolVersion =
                    serde_json::from_value(json!(revision)).map_err(|error| {
                        OpError::protocol(
                            "unsupported",
                            format!("not a protocol version {revision:?}: {error}"),
                        )
                    })?;
                Some(ClientLifecycleMode::Discover {
                    preferred_versions: vec![version],
                })
            }
            (_, Some(negotiation)) => return Err(unsupported(negotiation)),
        })
    }
}

async fn start_service<T, E, A>(
    handlers: Handlers,
    transport: T,
    lifecycle: Option<ClientLifecycleMode>,
) -> Result<Running, ClientInitializeError>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    match lifecycle {
        None => handlers.serve(transport).await,
        Some(lifecycle) => handlers.serve_with_lifecycle(transport, lifecycle).await,
    }
}

impl Instance for RmcpInstance {
    fn connect(
        &self,
        target: Target,
        options: ConnectOptions,
    ) -> BoxFuture<'_, Result<Arc<dyn Connection>, OpError>> {
        Box::pin(async move {
            let lifecycle = self.lifecycle(options.negotiation.as_ref())?;
            for (set, option) in [
                (options.resume.is_some(), "resume"),
                (options.affinity_key.is_some(), "affinityKey"),
                (
                    options.keep_session_on_close == Some(true),
                    "keepSessionOnClose",
                ),
                (options.listen == Some(true), "listen"),
            ] {
                if set {
                    return Err(OpError::protocol(
                        "unsupported",
                        format!("rmcp has no way to do {option}"),
                    ));
                }
            }
            let handlers = Handlers::new(options.handlers)?;
            let starting = async {
                match target {
                    Target::Url(url) => match &options.authorization {
                        None => start_service(
                            handlers,
                            StreamableHttpClientTransport::from_uri(url),
                            lifecycle,
                        )
                        .await
                        .map_err(initialize_error),
                        Some(authorization) => {
                            let client = authorized_client(self, &url, authorization).await?;
                            start_service(
                                handlers,
                                StreamableHttpClientTransport::with_client(
                                    client,
                                    StreamableHttpClientTransportConfig::with_uri(url),
                                ),
                                lifecycle,
                            )
                            .await
                            .map_err(initialize_error)
                        }
                    },
                    Target::Stdio(stdio) => {
                        // As a host configures a local server. TokioChildProcess keeps its defaults: stderr inherited
                        // (into this program's stderr, which the harness reads), its own fixed shutdown graces (3 s each:
                        // shutdownGraceMs has no place in its API).
                        let mut command = tokio::process::Command::new(&stdio.command);
                        command.args(&stdio.args).envs(&stdio.env);
                        if let Some(cwd) = &stdio.cwd {
                            command.current_dir(cwd);
                        }
                        let transport = TokioChildProcess::new(command).map_err(|error| {
                            initialize_error(ClientInitializeError::ConnectionClosed(format!(
                                "spawning {:?}: {error}",
                                stdio.command
                            )))
                        })?;
                        start_service(handlers, transport, lifecycle)
                            .await
                            .map_err(initialize_error)
                    }
                }
            };
            let running = tokio::time::timeout(
                Duration::from_secs_f64(options.timeout_ms / 1000.0),
                starting,
            )
            .await
            .map_err(|_| timed_out("connect", options.timeout_ms))??;
            let peer = running.peer().clone();
            Ok(Arc::new(RmcpConnection {
                peer,
                running: Mutex::new(Some(Arc::new(running))),
            }) as Arc<dyn Connection>)
        })
    }

    fn dispose(&self) -> BoxFuture<'_, Result<(), OpError>> {
        Box::pin(async { Ok(()) })
    }
}

struct RmcpConnection {
    /// For info (it keeps the peer's info after close) and list_tools.
    peer: rmcp::Peer<RoleClient>,
    /// The running service until close.
    running: Mutex<Option<Arc<Running>>>,
}

/// How long close waits for calls in flight to let go of the service once it is cancelled (they end as soon as its
/// loop does), before it leaves the rest of the clean-up to the service's task.
const RELEASE_BOUND: Duration = Duration::from_secs(3);

impl Connection for RmcpConnection {
    fn info(&self) -> BoxFuture<'_, Result<Value, OpError>> {
        Box::pin(async move {
            let mut info = Map::new();
            if let Some(server) = self.peer.peer_info() {
                let version = &server.protocol_version;
                info.insert("negotiatedVersion".into(), json!(version.as_str()));
                info.insert(
                    "era".into(),
                    json!(if version.has_initialize() {
                        "legacy"
                    } else {
                        "modern"
                    }),
                );
            }
            Ok(Value::Object(info))
        })
    }

    fn list_tools(&self, options: OpOptions) -> BoxFuture<'_, Result<Vec<Value>, OpError>> {
        Box::pin(async move {
            let request = async {
                let result = self.peer.list_tools(None).await.map_err(service_error)?;
                Ok(result
                    .tools
                    .iter()
                    .map(|tool| json!({ "name": tool.name }))
                    .collect())
            };
            unless_cancelled(
                &options.cancel,
                with_timeout(options.timeout_ms, "tools/list", request),
                "the tools/list future was dropped (cancelled)",
            )
            .await
        })
    }

    fn call_tool(
        &self,
        name: String,
        arguments: Map<String, Value>,
        options: OpOptions,
    ) -> BoxFuture<'_, Result<Value, OpError>> {
        Box::pin(async move {
            let params = CallToolRequestParams::new(name).with_arguments(arguments);
            let running = self.running.lock().unwrap().clone();
            let request = async {
                let result = match running {
                    Some(running) => running.call_tool(params).await,
                    // Closed: the peer answers as rmcp does after close.
                    None => self.peer.call_tool(params).await,
                }
                .map_err(service_error)?;
                serde_json::to_value(result)
                    .map_err(|error| OpError::client("serde_json::Error", error.to_string(), None))
            };
            unless_cancelled(
                &options.cancel,
                with_timeout(options.timeout_ms, "tools/call", request),
                "the tools/call future was dropped (cancelled)",
            )
            .await
        })
    }

    fn close(&self) -> BoxFuture<'_, Result<(), OpError>> {
        Box::pin(async move {
            let Some(mut running) = self.running.lock().unwrap().take() else {
                return Ok(()); // closed before: harmless
            };
            let started = tokio::time::Instant::now();
            let mut cancelled = false;
            loop {
                match Arc::try_unwrap(running) {
                    Ok(mut service) => {
                        service.close().await.map_err(|error| {
                            OpError::client("JoinError", error.to_string(), None)
                        })?;
                        return Ok(());
                    }
                    Err(shared) => {
                        if !cancelled {
                            shared.cancellation_token().cancel();
                            cancelled = true;
                        }
                        if started.elapsed() >= RELEASE_BOUND {
                            return Ok(()); // the last holder's drop leaves the rest to the service's task
                        }
                        running = shared;
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                }
            }
        })
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = match Mode::parse(&args) {
        Ok(mode) => mode,
        Err(message) => {
            eprintln!("rmcp-driver: {message}");
            std::process::exit(2);
        }
    };
    lineproto::serve(mode.hello(), Arc::new(Rmcp { mode })).await
}
