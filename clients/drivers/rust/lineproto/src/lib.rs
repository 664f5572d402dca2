//! The line protocol of mcp-client-conformance (docs/line-protocol.md, version 1.7), once, for Rust clients.
//!
//! A program prints its hello, then reads one JSON request per line on stdin and answers each with exactly one JSON
//! line on stdout, in any order. This crate does everything that is the protocol's and nothing that is a client's:
//!
//! - the hello first; every answer one flushed line (stdout holds nothing else: a client logs to stderr);
//! - every request dispatched at once to its own task, so operations of many cases run concurrently, `cancel` and
//!   `shutdown` answered at once;
//! - the cases (`start` .. `dispose`) and connection handles, with the protocol's error codes (`unknown-case`,
//!   `case-live`, `unknown-connection`, `unknown-op`, `invalid-request`);
//! - a cancellation token per in-flight `listTools` / `callTool`, fired by `cancel`;
//! - exit 0 on `shutdown` and when stdin ends.
//!
//! The client is a [`Client`]: `start` gives an [`Instance`] per case, whose `connect` gives a [`Connection`]. Those
//! are the adapter contract of `clients/adapter.ts` (ClientUnderTest, ClientConnection), one method per op.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::io::Write;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::io::AsyncBufReadExt;
pub use tokio_util::sync::CancellationToken;

/// The major version of the line protocol this crate speaks.
pub const PROTOCOL: u32 = 1;

/// A boxed, sendable future: what the client traits return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The hello: the adapter's declaration (`Hello` in clients/process/line-protocol.schema.json).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hello {
    pub protocol: u32,
    pub name: String,
    pub description: String,
    pub revisions: Vec<String>,
    pub features: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transports: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stdio_revisions: Option<Vec<String>>,
}

/// An error answer: the client's error (its type's name, its own code) or one of the protocol's codes.
#[derive(Debug, Clone)]
pub struct OpError {
    pub message: String,
    /// The error's type name in the client; the harness reports the error under it.
    pub name: Option<String>,
    /// The client's own code (a JSON-RPC code, an HTTP status) or a protocol code (`aborted`, `unsupported`, …).
    pub code: Option<Value>,
}

impl OpError {
    /// An error of the protocol (or of the glue), with a protocol code such as `unsupported`.
    pub fn protocol(code: &str, message: impl Into<String>) -> Self {
        OpError {
            message: message.into(),
            name: None,
            code: Some(Value::String(code.to_owned())),
        }
    }

    /// An error the client raised: its type name and message, and its own code when it has one.
    pub fn client(
        name: impl Into<String>,
        message: impl Into<String>,
        code: Option<Value>,
    ) -> Self {
        OpError {
            message: message.into(),
            name: Some(name.into()),
            code,
        }
    }

    fn to_json(&self) -> Value {
        let mut error = Map::new();
        error.insert("message".into(), Value::String(self.message.clone()));
        if let Some(name) = &self.name {
            error.insert("name".into(), Value::String(name.clone()));
        }
        if let Some(code) = &self.code {
            error.insert("code".into(), code.clone());
        }
        Value::Object(error)
    }
}

/// A server the client launches itself (`StdioTarget`): `command` with `args`, no shell; `env` on top of what the client
/// passes its servers by default; `cwd` when given.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StdioTarget {
    pub transport: String,
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    pub cwd: Option<String>,
}

/// What `connect` is given: a URL (transport `http`) or a command to launch (transport `stdio`).
#[derive(Debug, Clone)]
pub enum Target {
    Url(String),
    Stdio(StdioTarget),
}

/// How the client picks a revision: `"legacy"`, `"auto"` or `{"pin": revision}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Negotiation {
    Legacy,
    Auto,
    Pin(String),
}

impl<'de> Deserialize<'de> for Negotiation {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Mode(String),
            Pin { pin: String },
        }
        match Raw::deserialize(deserializer)? {
            Raw::Mode(mode) if mode == "legacy" => Ok(Negotiation::Legacy),
            Raw::Mode(mode) if mode == "auto" => Ok(Negotiation::Auto),
            Raw::Mode(mode) => Err(serde::de::Error::custom(format!(
                "unknown negotiation {mode:?}"
            ))),
            Raw::Pin { pin } => Ok(Negotiation::Pin(pin)),
        }
    }
}

/// The answers to the server's requests (`ClientHandlers`), each sent only to a program declaring its feature. Kept as
/// JSON: a client turns each into its own type.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Handlers {
    pub roots: Option<Value>,
    pub sampling: Option<Value>,
    pub elicitation: Option<Value>,
}

/// ConnectOptions.authorization (1.7, feature `oauth`; AuthorizationOptions in clients/adapter.ts), as data: register
/// `redirect_uri`; where the client would open a browser, POST `{"authorizationUrl","redirectUri"}` as JSON to
/// `user_agent_url` (see [`Authorization::user_agent_body`]) and read the redirect (`?code=…&state=…&iss=…`) from the
/// answer's `redirect`. `client_id` (and `client_secret`) are credentials registered beforehand; `client_metadata_url` a
/// Client ID Metadata Document the suite serves. How the client authorizes, refreshes and retries is the client's.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Authorization {
    pub redirect_uri: String,
    pub user_agent_url: String,
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub client_metadata_url: Option<String>,
}

impl Authorization {
    /// The body of the POST to `user_agent_url` for an authorization URL the client would open.
    pub fn user_agent_body(&self, authorization_url: &str) -> Value {
        json!({ "authorizationUrl": authorization_url, "redirectUri": self.redirect_uri })
    }
}

/// ConnectOptions (clients/adapter.ts). A program sees only the members of the features it declares.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectOptions {
    /// Upper bound for the connect itself (always present).
    pub timeout_ms: f64,
    pub negotiation: Option<Negotiation>,
    pub resume: Option<Value>,
    pub affinity_key: Option<String>,
    pub keep_session_on_close: Option<bool>,
    /// stdio only: the grace the harness suggests for each step of the shutdown.
    pub shutdown_grace_ms: Option<f64>,
    pub handlers: Option<Handlers>,
    pub listen: Option<bool>,
    /// 1.7: sent only to a program declaring `oauth`.
    pub authorization: Option<Authorization>,
}

/// What an operation is given besides its arguments.
#[derive(Debug, Clone)]
pub struct OpOptions {
    /// The per-request timeout (feature `request-timeout`), in milliseconds.
    pub timeout_ms: Option<f64>,
    /// Fired when the harness sends `cancel` for this request (feature `cancellation`).
    pub cancel: CancellationToken,
}

/// A client under test: one [`Instance`] per case.
pub trait Client: Send + Sync + 'static {
    fn start(&self, case: &str) -> BoxFuture<'_, Result<Box<dyn Instance>, OpError>>;
}

/// One client instance, for one case (`ClientUnderTest`).
pub trait Instance: Send + Sync {
    fn connect(
        &self,
        target: Target,
        options: ConnectOptions,
    ) -> BoxFuture<'_, Result<Arc<dyn Connection>, OpError>>;
    /// Releases the instance. The harness has closed its connections before; the handles this crate held are dropped
    /// before this is called.
    fn dispose(&self) -> BoxFuture<'_, Result<(), OpError>>;
}

/// One connection (`ClientConnection`). It stays usable for `info` after `close`, and a second `close` succeeds.
pub trait Connection: Send + Sync {
    /// ConnectionInfo: what the client says about the connection, from its public API only.
    fn info(&self) -> BoxFuture<'_, Result<Value, OpError>>;
    /// The tools, as `[{"name": …}, …]`.
    fn list_tools(&self, options: OpOptions) -> BoxFuture<'_, Result<Vec<Value>, OpError>>;
    /// The tool result as the client returns it.
    fn call_tool(
        &self,
        name: String,
        arguments: Map<String, Value>,
        options: OpOptions,
    ) -> BoxFuture<'_, Result<Value, OpError>>;
    fn close(&self) -> BoxFuture<'_, Result<(), OpError>>;
}

/// Runs `operation` unless `cancel` fires first; then the operation's future is dropped (for a client whose requests are
/// cancelled by dropping them) and the answer is the protocol's `aborted`.
pub async fn unless_cancelled<T>(
    cancel: &CancellationToken,
    operation: impl Future<Output = Result<T, OpError>>,
    message: &str,
) -> Result<T, OpError> {
    tokio::select! {
        biased;
        _ = cancel.cancelled() => Err(OpError::client("Aborted", message, Some(Value::String("aborted".into())))),
        result = operation => result,
    }
}

/// Writes one line to stdout and flushes it. A harness that is gone ends the program.
pub fn send(message: &Value) {
    let mut line = serde_json::to_string(message).expect("a JSON value serializes");
    line.push('\n');
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if out
        .write_all(line.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        std::process::exit(0);
    }
}

/// A log line on stderr.
pub fn log(program: &str, message: impl std::fmt::Display) {
    eprintln!("{program}: {message}");
}

struct CaseState {
    instance: Arc<dyn Instance>,
    connections: Vec<String>,
}

#[derive(Default)]
struct State {
    cases: HashMap<String, CaseState>,
    connections: HashMap<String, (String, Arc<dyn Connection>)>,
    /// The cancellation token of each in-flight listTools / callTool, by request id.
    calls: HashMap<u64, CancellationToken>,
}

struct Server {
    client: Arc<dyn Client>,
    state: Mutex<State>,
    next_connection: AtomicU64,
}

/// A request as read: its op, case, and the whole object for the op's arguments.
struct Request {
    op: String,
    case: Option<String>,
    body: Map<String, Value>,
}

impl Request {
    fn case(&self) -> Result<&str, OpError> {
        self.case.as_deref().ok_or_else(|| {
            OpError::protocol("invalid-request", format!("{} needs a case", self.op))
        })
    }

    fn string(&self, member: &str) -> Result<String, OpError> {
        match self.body.get(member) {
            Some(Value::String(value)) => Ok(value.clone()),
            _ => Err(OpError::protocol(
                "invalid-request",
                format!("{} needs a string {member}", self.op),
            )),
        }
    }

    fn timeout_ms(&self) -> Option<f64> {
        self.body.get("timeoutMs").and_then(Value::as_f64)
    }
}

impl Server {
    fn connection(&self, request: &Request) -> Result<Arc<dyn Connection>, OpError> {
        let handle = request.string("connection")?;
        let state = self.state.lock().unwrap();
        match state.connections.get(&handle) {
            Some((case, connection)) if Some(case.as_str()) == request.case.as_deref() => {
                Ok(connection.clone())
            }
            Some((case, _)) => Err(OpError::protocol(
                "unknown-connection",
                format!("connection {handle:?} belongs to case {case:?}"),
            )),
            None => Err(OpError::protocol(
                "unknown-connection",
                format!("no connection {handle:?}"),
            )),
        }
    }

    fn instance(&self, case: &str) -> Result<Arc<dyn Instance>, OpError> {
        let state = self.state.lock().unwrap();
        match state.cases.get(case) {
            Some(entry) => Ok(entry.instance.clone()),
            None => Err(OpError::protocol(
                "unknown-case",
                format!("no client instance for case {case:?}"),
            )),
        }
    }

    async fn perform(
        &self,
        request: &Request,
        cancel: Option<CancellationToken>,
    ) -> Result<Value, OpError> {
        match request.op.as_str() {
            "start" => {
                let case = request.case()?;
                if self.state.lock().unwrap().cases.contains_key(case) {
                    return Err(OpError::protocol(
                        "case-live",
                        format!("case {case:?} is already started"),
                    ));
                }
                let instance: Arc<dyn Instance> = Arc::from(self.client.start(case).await?);
                let mut state = self.state.lock().unwrap();
                if state.cases.contains_key(case) {
                    return Err(OpError::protocol(
                        "case-live",
                        format!("case {case:?} is already started"),
                    ));
                }
                state.cases.insert(
                    case.to_owned(),
                    CaseState {
                        instance,
                        connections: Vec::new(),
                    },
                );
                Ok(json!({}))
            }
            "connect" => {
                let case = request.case()?;
                let instance = self.instance(case)?;
                let target = match (request.body.get("url"), request.body.get("target")) {
                    (Some(Value::String(url)), None) => Target::Url(url.clone()),
                    (None, Some(target)) => {
                        Target::Stdio(serde_json::from_value(target.clone()).map_err(|error| {
                            OpError::protocol(
                                "invalid-request",
                                format!("not a stdio target: {error}"),
                            )
                        })?)
                    }
                    _ => {
                        return Err(OpError::protocol(
                            "invalid-request",
                            "connect needs exactly one of url and target",
                        ));
                    }
                };
                let options: ConnectOptions = serde_json::from_value(
                    request
                        .body
                        .get("options")
                        .cloned()
                        .unwrap_or_else(|| json!({})),
                )
                .map_err(|error| {
                    OpError::protocol("invalid-request", format!("bad connect options: {error}"))
                })?;
                let connection = instance.connect(target, options).await?;
                let handle = format!(
                    "c{}",
                    self.next_connection.fetch_add(1, Ordering::Relaxed) + 1
                );
                let mut state = self.state.lock().unwrap();
                match state.cases.get_mut(case) {
                    Some(entry) => entry.connections.push(handle.clone()),
                    // Disposed while connecting: the connection is dropped with this answer.
                    None => {
                        return Err(OpError::protocol(
                            "unknown-case",
                            format!("case {case:?} was disposed while connecting"),
                        ));
                    }
                }
                state
                    .connections
                    .insert(handle.clone(), (case.to_owned(), connection));
                Ok(json!({ "connection": handle }))
            }
            "info" => self.connection(request)?.info().await,
            "listTools" => {
                let connection = self.connection(request)?;
                let options = OpOptions {
                    timeout_ms: request.timeout_ms(),
                    cancel: cancel.unwrap_or_default(),
                };
                Ok(json!({ "tools": connection.list_tools(options).await? }))
            }
            "callTool" => {
                let connection = self.connection(request)?;
                let name = request.string("name")?;
                let arguments = match request.body.get("arguments") {
                    Some(Value::Object(arguments)) => arguments.clone(),
                    None => Map::new(),
                    Some(_) => {
                        return Err(OpError::protocol(
                            "invalid-request",
                            "callTool arguments must be an object",
                        ));
                    }
                };
                let options = OpOptions {
                    timeout_ms: request.timeout_ms(),
                    cancel: cancel.unwrap_or_default(),
                };
                connection.call_tool(name, arguments, options).await
            }
            "close" => {
                self.connection(request)?.close().await?;
                Ok(json!({}))
            }
            "dispose" => {
                let case = request.case()?;
                let (instance, connections) = {
                    let mut state = self.state.lock().unwrap();
                    let Some(entry) = state.cases.remove(case) else {
                        return Err(OpError::protocol(
                            "unknown-case",
                            format!("no client instance for case {case:?}"),
                        ));
                    };
                    let connections: Vec<_> = entry
                        .connections
                        .iter()
                        .filter_map(|handle| state.connections.remove(handle))
                        .collect();
                    (entry.instance, connections)
                };
                drop(connections);
                instance.dispose().await?;
                Ok(json!({}))
            }
            op => Err(OpError::protocol(
                "unknown-op",
                format!("unknown op {op:?}"),
            )),
        }
    }
}

/// Prints the hello, then serves requests until `shutdown` or the end of stdin, and exits the process.
/// When an operation the client has not settled is answered "hung" (line protocol 1.4): one carrying a client timeout
/// halfway from that timeout to the deadline (the client's own timeout fires first), any other at 90% of the deadline.
fn hung_at(body: &Map<String, Value>) -> Option<std::time::Duration> {
    let deadline = body.get("deadlineMs").and_then(Value::as_f64).filter(|ms| *ms > 0.0)?;
    let own = body
        .get("timeoutMs")
        .or_else(|| body.get("options").and_then(|options| options.get("timeoutMs")))
        .and_then(Value::as_f64)
        .filter(|ms| *ms > 0.0 && *ms < deadline);
    let ms = own.map_or(deadline * 0.9, |own| (own + deadline) / 2.0);
    Some(std::time::Duration::from_secs_f64(ms / 1000.0))
}

pub async fn serve(hello: Hello, client: Arc<dyn Client>) -> ! {
    send(&serde_json::to_value(&hello).expect("the hello serializes"));
    let server = Arc::new(Server {
        client,
        state: Mutex::new(State::default()),
        next_connection: AtomicU64::new(0),
    });
    let program = hello.name.clone();
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => std::process::exit(0), // the harness is gone
            Err(error) => {
                log(&program, format!("reading stdin failed: {error}"));
                std::process::exit(0);
            }
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let body = match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(body)) => body,
            _ => {
                log(
                    &program,
                    format!(
                        "ignoring a line that is not a JSON object: {}",
                        line.chars().take(200).collect::<String>()
                    ),
                );
                continue;
            }
        };
        let Some(id) = body.get("id").and_then(Value::as_u64).filter(|id| *id > 0) else {
            log(
                &program,
                format!(
                    "ignoring a request without a positive integer id: {}",
                    line.chars().take(200).collect::<String>()
                ),
            );
            continue;
        };
        let op = body
            .get("op")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let case = body.get("case").and_then(Value::as_str).map(str::to_owned);
        match op.as_str() {
            "shutdown" => {
                send(&json!({ "id": id, "result": {} }));
                std::process::exit(0);
            }
            "cancel" => {
                // Answered at once; the target answers for itself (also when it has already finished).
                if let Some(target) = body.get("target").and_then(Value::as_u64) {
                    if let Some(token) = server.state.lock().unwrap().calls.get(&target) {
                        token.cancel();
                    }
                }
                send(&json!({ "id": id, "result": {} }));
                continue;
            }
            _ => {}
        }
        // Registered before the request runs, so a cancel sent right after it finds it.
        let cancel = matches!(op.as_str(), "listTools" | "callTool").then(|| {
            let token = CancellationToken::new();
            server.state.lock().unwrap().calls.insert(id, token.clone());
            token
        });
        let server = server.clone();
        let hung_after = hung_at(&body);
        tokio::spawn(async move {
            // The operation runs in a task of its own, so a panic in the client is an error answer, not silence.
            let running = server.clone();
            let op_name = op.clone();
            let mut operation = tokio::spawn(async move {
                let request = Request { op, case, body };
                running.perform(&request, cancel).await
            });
            // 1.4: not settled by (almost) the harness's deadline: answered hung, the operation left running (a
            // dropped JoinHandle detaches it), so this program stays alive for the cases in flight beside it.
            let settled = match hung_after {
                Some(after) => tokio::time::timeout(after, &mut operation).await.ok(),
                None => Some((&mut operation).await),
            };
            let Some(settled) = settled else {
                send(&json!({ "id": id, "error": { "message": format!("the client did not settle {op_name} by its deadline"), "name": "ClientHung", "code": "hung" } }));
                server.state.lock().unwrap().calls.remove(&id);
                return;
            };
            let answer = match settled {
                Ok(Ok(result)) => json!({ "id": id, "result": result }),
                Ok(Err(error)) => json!({ "id": id, "error": error.to_json() }),
                Err(error) => {
                    json!({ "id": id, "error": { "message": format!("the operation panicked: {error}"), "name": "JoinError" } })
                }
            };
            server.state.lock().unwrap().calls.remove(&id);
            send(&answer);
        });
    }
}
