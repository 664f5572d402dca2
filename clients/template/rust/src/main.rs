//! A line-protocol program to copy and change: it drives rmcp, the official Rust MCP SDK.
//!
//!     cargo build && npx mcp-client-conformance run --adapter-command target/debug/my-client-conformance
//!
//! `lineproto` (the crate beside this one) is the line protocol: the hello, one task per request, the answers, a
//! cancellation token per operation, shutdown. Keep it as it is. Replace the three marked places with your client's
//! calls, the way its documentation shows a user. Guide: WRITING-AN-ADAPTER.md (in the package:
//! node_modules/mcp-client-conformance/clients/WRITING-AN-ADAPTER.md), section 4.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use lineproto::{
    BoxFuture, Client, ConnectOptions, Connection, Hello, Instance, OpError, OpOptions, Target,
    unless_cancelled,
};
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ServiceExt;
use serde_json::{Map, Value, json};

fn hello() -> Hello {
    Hello {
        protocol: lineproto::PROTOCOL,
        name: "my-client".into(), // stable: used in test titles and baselines
        description: "template: rmcp over Streamable HTTP and stdio".into(),
        revisions: ["2025-03-26", "2025-06-18", "2025-11-25"].map(String::from).to_vec(),
        // Only what your client really does through its public API (docs/line-protocol.md lists every feature).
        features: ["mode-legacy", "cancellation", "request-timeout"].map(String::from).to_vec(),
        transports: Some(vec!["http".into(), "stdio".into()]),
        stdio_revisions: None,
    }
}

fn client_error(name: &str, error: impl std::fmt::Display) -> OpError {
    OpError::client(name, error.to_string(), None)
}

fn service_error(error: ServiceError) -> OpError {
    let code = match &error {
        ServiceError::McpError(data) => Some(json!(data.code.0)),
        _ => None,
    };
    OpError::client("ServiceError", error.to_string(), code)
}

/// Bounds a request by its per-request timeout (feature `request-timeout`) and ends it on `cancel` (feature
/// `cancellation`): rmcp's requests are cancelled by dropping their future.
async fn bounded<T>(options: &OpOptions, request: impl Future<Output = Result<T, OpError>>) -> Result<T, OpError> {
    let timed = async {
        match options.timeout_ms {
            Some(ms) => tokio::time::timeout(Duration::from_secs_f64(ms / 1000.0), request)
                .await
                .unwrap_or_else(|_| Err(client_error("Elapsed", format!("no answer within {ms} ms")))),
            None => request.await,
        }
    };
    unless_cancelled(&options.cancel, timed, "cancelled").await
}

struct MyClient;

impl Client for MyClient {
    fn start(&self, _case: &str) -> BoxFuture<'_, Result<Box<dyn Instance>, OpError>> {
        Box::pin(async { Ok(Box::new(MyInstance) as Box<dyn Instance>) })
    }
}

/// One case's client.
struct MyInstance;

impl Instance for MyInstance {
    fn connect(&self, target: Target, options: ConnectOptions) -> BoxFuture<'_, Result<Arc<dyn Connection>, OpError>> {
        Box::pin(async move {
            // (1) Create and connect your client the way your documentation shows. A stdio target is a command your
            // client launches: pass it, and its environment, as your users configure a local server.
            let connecting = async {
                match target {
                    Target::Url(url) => ().serve(StreamableHttpClientTransport::from_uri(url)).await,
                    Target::Stdio(stdio) => {
                        let mut command = tokio::process::Command::new(&stdio.command);
                        command.args(&stdio.args).envs(&stdio.env);
                        if let Some(cwd) = &stdio.cwd {
                            command.current_dir(cwd);
                        }
                        let transport = TokioChildProcess::new(command).map_err(|error| {
                            rmcp::service::ClientInitializeError::ConnectionClosed(error.to_string())
                        })?;
                        ().serve(transport).await
                    }
                }
            };
            // The contract's connect timeout.
            let running = tokio::time::timeout(Duration::from_secs_f64(options.timeout_ms / 1000.0), connecting)
                .await
                .map_err(|_| client_error("Elapsed", format!("connect did not complete within {} ms", options.timeout_ms)))?
                .map_err(|error| client_error("ClientInitializeError", error))?;
            let peer = running.peer().clone();
            Ok(Arc::new(MyConnection { peer, running: Mutex::new(Some(running)) }) as Arc<dyn Connection>)
        })
    }

    fn dispose(&self) -> BoxFuture<'_, Result<(), OpError>> {
        Box::pin(async { Ok(()) })
    }
}

struct MyConnection {
    peer: rmcp::Peer<RoleClient>,
    running: Mutex<Option<RunningService<RoleClient, ()>>>,
}

impl Connection for MyConnection {
    /// (2) What your client says it negotiated: leave out what it cannot tell. Never send anything to answer.
    fn info(&self) -> BoxFuture<'_, Result<Value, OpError>> {
        Box::pin(async move {
            Ok(match self.peer.peer_info() {
                Some(server) => json!({ "negotiatedVersion": server.protocol_version.as_str(), "era": "legacy" }),
                None => json!({}),
            })
        })
    }

    fn list_tools(&self, options: OpOptions) -> BoxFuture<'_, Result<Vec<Value>, OpError>> {
        Box::pin(async move {
            bounded(&options, async {
                let result = self.peer.list_tools(None).await.map_err(service_error)?;
                Ok(result.tools.iter().map(|tool| json!({ "name": tool.name })).collect())
            })
            .await
        })
    }

    fn call_tool(&self, name: String, arguments: Map<String, Value>, options: OpOptions) -> BoxFuture<'_, Result<Value, OpError>> {
        Box::pin(async move {
            bounded(&options, async {
                let params = CallToolRequestParams::new(name).with_arguments(arguments);
                let result = self.peer.call_tool(params).await.map_err(service_error)?;
                serde_json::to_value(result).map_err(|error| client_error("serde_json::Error", error))
            })
            .await
        })
    }

    /// (3) Close the way your documentation says: RunningService::close ends the session (DELETE over HTTP; over
    /// stdio the child's graceful shutdown). A second close is harmless.
    fn close(&self) -> BoxFuture<'_, Result<(), OpError>> {
        Box::pin(async move {
            let running = self.running.lock().unwrap().take();
            if let Some(mut running) = running {
                running.close().await.map_err(|error| client_error("JoinError", error))?;
            }
            Ok(())
        })
    }
}

#[tokio::main]
async fn main() {
    lineproto::serve(hello(), Arc::new(MyClient)).await
}
