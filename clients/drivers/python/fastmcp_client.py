"""Glue for FastMCP's client (`fastmcp` 4.x on PyPI): `fastmcp.Client` over its Streamable HTTP and stdio transports.

Usage: python fastmcp_client.py [--name NAME]  (with the interpreter of a virtual environment made from
clients/drivers/python/envs/fastmcp-4.txt).

Everything goes through the public API as FastMCP's docs show it: `Client(StreamableHttpTransport(url), mode=…,
roots=…, sampling_handler=…, elicitation_handler=…)` or `Client(StdioTransport(command, args, env, cwd), …)`,
`async with client:`, `client.list_tools_mcp()`, `client.call_tool_mcp(name, args, timeout=…)` (the raw MCP result;
`call_tool` would raise on an error result), `client.protocol_version` and `transport.get_session_id()` for what it
negotiated. Close: leave the `async with` block, then `await client.close()`, which the docs give for ending a
stdio server kept alive between contexts (`keep_alive`, on by default); over HTTP it has nothing more to do.
Declared only where that API has a way:
- mode-legacy, mode-auto, mode-pin: Client(mode='legacy' | 'auto' | '2026-07-28'); without a negotiation the
  client's own default, 'auto'.
- cancellation: a Python caller cancels an await by cancelling its task; what reaches the server is the client's doing.
- request-timeout: call_tool_mcp's timeout (list_tools_mcp has none: its timeout is not applied).
- roots, sampling, elicitation: Client's roots, sampling_handler, elicitation_handler.
- oauth (line protocol 1.7): StreamableHttpTransport(url, auth=OAuth(…)), FastMCP's own OAuth provider (on the mcp
  SDK's OAuthClientProvider), with the case's pre-registered credentials when given. Its two browser methods are the
  only ones replaced (HeadlessOAuth): redirect_handler hands the URL to the harness's user agent instead of opening a
  browser (so FastMCP's pre-flight GET of the URL, part of that method, is not made), and callback_handler reads the
  redirect's code, state and iss instead of serving the callback on localhost. One provider per server per case, so
  its in-memory token storage serves the case's later connections.
Not declared: resume (no way to give the transport a stored session id or negotiated version), keep-session
(StreamableHttpTransport has no terminate_on_close: it always ends the session when it closes), transport-fallback
(SSETransport is another transport the caller picks), listen (nothing to ask: the SDK opens the GET stream on its
own), affinity-key (no option).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from importlib.metadata import version
from typing import Any
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from runtime import Held, LineError, main, user_agent  # noqa: E402

import mcp_types  # noqa: E402
from fastmcp import Client  # noqa: E402
from fastmcp.client.auth import OAuth  # noqa: E402
from fastmcp.client.elicitation import ElicitResult  # noqa: E402
from mcp.shared.auth import AuthorizationCodeResult  # noqa: E402
from fastmcp.client.transports import StdioTransport, StreamableHttpTransport  # noqa: E402
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS  # noqa: E402

FASTMCP_VERSION = version("fastmcp")
MCP_VERSION = version("mcp")
MODERN = MODERN_PROTOCOL_VERSIONS[0]
REVISIONS = [*[v for v in ["2025-03-26", "2025-06-18", "2025-11-25"] if v in HANDSHAKE_PROTOCOL_VERSIONS], MODERN]


def mode_of(negotiation: Any) -> str:
    if negotiation is None or negotiation == "auto":
        return "auto"
    if negotiation == "legacy":
        return "legacy"
    if isinstance(negotiation, dict) and negotiation.get("pin") in MODERN_PROTOCOL_VERSIONS:
        return negotiation["pin"]
    raise LineError(f"fastmcp.Client has no mode for negotiation {negotiation!r}", "unsupported")


def handlers_of(given: dict[str, Any]) -> dict[str, Any]:
    """Client's roots, sampling_handler and elicitation_handler, answering with the scenario's canned answers."""
    kwargs: dict[str, Any] = {}
    if "roots" in given:
        kwargs["roots"] = [mcp_types.Root(uri=r["uri"], name=r.get("name")) for r in given["roots"]]
    if "sampling" in given:
        answer = given["sampling"]

        async def sample(_messages: Any, _params: Any, _context: Any):
            return mcp_types.CreateMessageResult(role=answer["role"], content=mcp_types.TextContent(type="text", text=answer["content"]["text"]), model=answer["model"], stopReason=answer.get("stopReason"))

        kwargs["sampling_handler"] = sample
    if "elicitation" in given:
        answer = given["elicitation"]

        async def elicit(_message: Any, _response_type: Any, _params: Any, _context: Any):
            return ElicitResult(action=answer["action"], content=answer.get("content"))

        kwargs["elicitation_handler"] = elicit
    return kwargs


class HeadlessOAuth(OAuth):
    """FastMCP's OAuth with the harness's user agent for the browser and its answer for the localhost callback."""

    def __init__(self, authorization: dict[str, Any], **kwargs: Any):
        super().__init__(**kwargs)
        self.authorization = authorization
        self.redirects: list[str] = []

    async def redirect_handler(self, authorization_url: str) -> None:
        # FastMCP registers its own redirect URI (its localhost callback), which the user agent redirects to.
        redirect_uri = str(self.context.client_metadata.redirect_uris[0])
        self.redirects.append(await user_agent({**self.authorization, "redirectUri": redirect_uri}, authorization_url))

    async def callback_handler(self) -> AuthorizationCodeResult:
        query = parse_qs(urlsplit(self.redirects.pop()).query)
        return AuthorizationCodeResult(code=query["code"][0], state=query.get("state", [None])[0], iss=query.get("iss", [None])[0])


# One provider per (user agent, server): the harness's user agent is one per case, so cases never share tokens.
_providers: dict[tuple[str, str], HeadlessOAuth] = {}


def oauth_of(url: str, authorization: dict[str, Any]) -> HeadlessOAuth:
    key = (authorization["userAgentUrl"], url)
    if key not in _providers:
        given = {"client_id": authorization.get("clientId"), "client_secret": authorization.get("clientSecret"), "client_metadata_url": authorization.get("clientMetadataUrl")}
        _providers[key] = HeadlessOAuth(authorization, client_name="mcp-client-conformance", **{k: v for k, v in given.items() if v is not None})
    return _providers[key]


class FastMcpConnection:
    def __init__(self, held: Held, client: Client, transport: Any):
        self.held = held
        self.client = client
        self.transport = transport
        # What the client negotiated, read while connected: it stays the answer after close.
        self.version = client.protocol_version
        self.session_id = transport.get_session_id() if isinstance(transport, StreamableHttpTransport) else None
        self.closed = False

    async def info(self) -> dict[str, Any]:
        info: dict[str, Any] = {}
        if self.version:
            info["negotiatedVersion"] = self.version
            info["era"] = "modern" if self.version in MODERN_PROTOCOL_VERSIONS else "legacy"
        if self.session_id:
            info["sessionId"] = self.session_id
        return info

    async def list_tools(self, timeout_ms: int | None) -> list[dict[str, Any]]:
        result = await self.client.list_tools_mcp()
        return [{"name": tool.name} for tool in result.tools]

    async def call_tool(self, name: str, arguments: dict[str, Any], timeout_ms: int | None) -> dict[str, Any]:
        result = await self.client.call_tool_mcp(name, arguments, timeout=timeout_ms / 1000 if timeout_ms is not None else None)
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    async def close(self) -> None:
        # Leaving the context manager, then client.close() (the docs' way to end a kept-alive stdio server). A second
        # close has nothing to do.
        if self.closed:
            return
        self.closed = True
        await self.held.close()
        await self.client.close()


async def connect(target: Any, options: dict[str, Any]) -> FastMcpConnection:
    if isinstance(target, dict):
        transport: Any = StdioTransport(command=target["command"], args=target.get("args", []), env=target.get("env"), cwd=target.get("cwd"))
    elif options.get("authorization"):
        transport = StreamableHttpTransport(target, auth=oauth_of(target, options["authorization"]))
    else:
        transport = StreamableHttpTransport(target)
    client = Client(transport, mode=mode_of(options.get("negotiation")), **handlers_of(options.get("handlers", {})))
    held = Held()

    async def enter(stack: contextlib.AsyncExitStack) -> Client:
        # The connect's bound, the way a Python caller bounds an await.
        async with asyncio.timeout(options["timeoutMs"] / 1000):
            return await stack.enter_async_context(client)

    try:
        return FastMcpConnection(held, await held.open(enter), transport)
    except (asyncio.TimeoutError, TimeoutError) as error:
        raise LineError(f"connect did not complete within {options['timeoutMs']} ms", "timeout", "TimeoutError") from error


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", default=f"fastmcp@{FASTMCP_VERSION.split('.')[0]}")
    name = parser.parse_args().name
    main(
        {
            "name": name,
            "description": f"FastMCP {FASTMCP_VERSION} (on mcp {MCP_VERSION}): fastmcp.Client over StreamableHttpTransport and StdioTransport",
            "revisions": REVISIONS,
            "features": ["mode-legacy", "mode-auto", "mode-pin", "cancellation", "request-timeout", "roots", "sampling", "elicitation", "oauth"],
            "transports": ["http", "stdio"],
            # The SDK it is built on (line protocol 1.6): the mcp its environment's lock pins (envs/*.txt), as installed.
            "wraps": {"package": "mcp", "version": MCP_VERSION},
        },
        connect,
    )
