"""Glue for UiPath's MCP client (`uipath-langchain` on PyPI): `uipath_langchain.agent.tools.mcp.McpClient`.

Usage: python uipath_mcp.py [--name NAME]  (with the interpreter of a virtual environment made from
clients/drivers/python/envs/uipath-0.16.txt or uipath-latest.txt).

McpClient is the client of seed 000 (UiPath/uipath-langchain-python#1053, released in 0.17.0): 0.16.x speaks the
initialize handshake on mcp 1.x through its own copy of the Streamable HTTP transport; 0.17 and later run on mcp 2.x,
with `protocol_mode` ('legacy', 'auto', 'modern'), and persist the negotiated version beside the session id.

The platform. McpClient takes no URL: on first use it builds `uipath.platform.UiPath()` from UIPATH_URL and
UIPATH_ACCESS_TOKEN and asks the platform for the server by the resource's name
(`sdk.mcp.retrieve_async(name=…)`: GET <UIPATH_URL>/agenthub_/api/servers/<name>), then connects to the server's
`mcpUrl` with `Authorization: Bearer <token>`. This program points UIPATH_URL at a stand-in for that one lookup,
on 127.0.0.1 (an ephemeral port, in this process), which answers for a resource named by the target URL with
`{"mcpUrl": <that URL>}`; telemetry is turned off (UIPATH_TELEMETRY_ENABLED=false). The MCP traffic is the client's.

Everything else goes through McpClient's public API as its docstrings and the seed show it:
`McpClient(config=AgentMcpResourceConfig(…), session_info_factory=…, terminate_on_close=…[, protocol_mode=…])`,
`list_tools()`, `call_tool(name, arguments)`, `get_session_id()`, `dispose()` (its close: UiPathDisposableProtocol).
McpClient connects lazily, on its first call; `connect` here makes the call its own tool factory's users make first,
`list_tools()`. McpClient caches that list for its lifetime; the harness's listTools asks the server again with the
public `list_tools(force_refresh=True)`, so it reaches the wire. Declared only where that API has a way:
- resume (from 0.17): a SessionInfoFactory (the public seam SessionInfoDebugStateFactory uses) whose SessionInfo holds
  the stored session id and the stored negotiated version (SessionInfo.protocol_version). 0.16's SessionInfo holds the
  id only: with no version there is no resume state (ResumeState needs it), so 0.16 does not declare resume.
- keep-session: terminate_on_close=False.
- mode-legacy (0.16: the initialize handshake only); from 0.17 mode-auto and mode-pin too (protocol_mode 'auto',
  'modern'; 'modern' is 2026-07-28 only), and affinity-key (a SessionInfo holding the key: the modern strategy sends
  a stored id as its affinity id from the first request, minting one only when the store is empty).
- cancellation: a Python caller cancels an await by cancelling its task; what reaches the server is the client's doing.
info reports `get_session_id()` and, from 0.17, the version the client stored in its SessionInfo (0.16 exposes no
negotiated version anywhere, so it exports no resume state either: ResumeState needs the version).
Not declared: request-timeout (one httpx timeout for the client, no per-request timeout), roots / sampling /
elicitation (McpClient builds its ClientSession with no callbacks), transport-fallback and the stdio transport
(McpClient speaks Streamable HTTP only), listen (nothing to ask).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import version
from typing import Any
from urllib.parse import unquote, urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from runtime import LineError, main  # noqa: E402

os.environ["UIPATH_TELEMETRY_ENABLED"] = "false"

UIPATH_VERSION = version("uipath-langchain")
MCP_VERSION = version("mcp")
MODERN_LINE = int(MCP_VERSION.split(".")[0]) >= 2  # 0.17+: mcp 2.x, protocol_mode
if MODERN_LINE:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_MODERN_VERSION  # noqa: E402

    HANDSHAKE = [v for v in ["2025-03-26", "2025-06-18", "2025-11-25"] if v in HANDSHAKE_PROTOCOL_VERSIONS]
    REVISIONS = [*HANDSHAKE, LATEST_MODERN_VERSION]
else:
    import mcp.types as _types  # noqa: E402

    REVISIONS = [v for v in ["2025-03-26", "2025-06-18", "2025-11-25"] if v <= _types.LATEST_PROTOCOL_VERSION]
    LATEST_MODERN_VERSION = None


def load() -> Any:
    """uipath-langchain and its dependencies (LangChain, the UiPath platform SDK) take seconds to import: more than the
    harness waits for a hello. The hello goes out first, and the import runs beside it; a connect waits for it."""
    from uipath.agent.models.agent import AgentMcpResourceConfig
    from uipath_langchain.agent.tools import mcp as tools_mcp

    return AgentMcpResourceConfig, tools_mcp


LOADING = ThreadPoolExecutor(1).submit(load)


class Platform:
    """The stand-in for the platform's server lookup: GET …/agenthub_/api/servers/<name> answers {"mcpUrl": name}."""

    def __init__(self) -> None:
        self.started: asyncio.Task[None] | None = None

    async def ensure(self) -> None:
        if self.started is None:
            self.started = asyncio.ensure_future(self._start())
        await asyncio.shield(self.started)

    async def _start(self) -> None:
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        os.environ["UIPATH_URL"] = f"http://127.0.0.1:{port}/conformance/DefaultTenant"
        os.environ["UIPATH_ACCESS_TOKEN"] = "conformance-token"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request_line = (await reader.readline()).decode("latin-1").strip()
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                pass
            parts = request_line.split(" ")
            path = urlsplit(parts[1]).path if len(parts) > 1 else ""
            marker = "/agenthub_/api/servers/"
            if len(parts) > 1 and parts[0] == "GET" and marker in path:
                name = unquote(path.split(marker, 1)[1])
                status, body = "200 OK", json.dumps({"name": name, "slug": "conformance", "mcpUrl": name})
            else:
                print(f"platform stand-in: no answer for {request_line!r}", file=sys.stderr)
                status, body = "404 Not Found", json.dumps({"message": "not found"})
            data = body.encode()
            writer.write(f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data)
            await writer.drain()
        finally:
            writer.close()


PLATFORM = Platform()


class Store:
    """The session store McpClient is given (a SessionInfoFactory): a SessionInfo holding what a user persisted (resume,
    affinity key)."""

    def __init__(self, tools_mcp: Any, session_id: str | None, protocol_version: str | None):
        self.tools_mcp = tools_mcp
        self.session_id = session_id
        self.protocol_version = protocol_version
        self.info: Any = None

    def create_session(self, mcp_server: Any) -> Any:
        info = self.tools_mcp.SessionInfo(self.session_id)
        if self.protocol_version is not None and MODERN_LINE:
            info.protocol_version = self.protocol_version
        self.info = info
        return info


class UiPathConnection:
    def __init__(self, client: Any, store: Store, tools: Any):
        self.client = client
        self.store = store
        self.tools = tools
        self.session_id: str | None = None
        self.version: str | None = None
        self.closed = False

    async def read_state(self) -> None:
        # What the client says it holds, read while connected (dispose() drops its SessionInfo).
        self.session_id = await self.client.get_session_id()
        if MODERN_LINE and self.store.info is not None:
            self.version = await self.store.info.get_protocol_version()

    async def info(self) -> dict[str, Any]:
        if not self.closed:
            await self.read_state()
        info: dict[str, Any] = {}
        if self.version:
            info["negotiatedVersion"] = self.version
            info["era"] = "modern" if self.version == LATEST_MODERN_VERSION else "legacy"
        if self.session_id:
            info["sessionId"] = self.session_id
        if self.version:
            info["resumeState"] = {"protocolVersion": self.version, **({"sessionId": self.session_id} if self.session_id else {})}
        return info

    async def list_tools(self, timeout_ms: int | None) -> list[dict[str, Any]]:
        result = await self.client.list_tools(force_refresh=True)
        return [{"name": tool.name} for tool in result.tools]

    async def call_tool(self, name: str, arguments: dict[str, Any], timeout_ms: int | None) -> dict[str, Any]:
        result = await self.client.call_tool(name, arguments)
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    async def close(self) -> None:
        # dispose() is the client's close; a second close has nothing to do.
        if self.closed:
            return
        await self.read_state()
        self.closed = True
        await self.client.dispose()


def protocol_mode_of(negotiation: Any) -> str | None:
    if not MODERN_LINE:
        if negotiation not in (None, "legacy"):
            raise LineError(f"McpClient {UIPATH_VERSION} speaks only the initialize handshake, not {negotiation!r}", "unsupported")
        return None
    if negotiation is None:
        return None  # the client's own default
    if negotiation in ("legacy", "auto"):
        return negotiation
    if isinstance(negotiation, dict) and negotiation.get("pin") == LATEST_MODERN_VERSION:
        return "modern"
    raise LineError(f"McpClient has no protocol_mode for {negotiation!r}", "unsupported")


async def connect(target: Any, options: dict[str, Any]) -> UiPathConnection:
    if not isinstance(target, str):
        raise LineError("McpClient speaks Streamable HTTP only", "unsupported")
    AgentMcpResourceConfig, tools_mcp = await asyncio.wrap_future(LOADING)
    await PLATFORM.ensure()
    resume = options.get("resume") or {}
    store = Store(tools_mcp, resume.get("sessionId") or options.get("affinityKey"), resume.get("protocolVersion"))
    config = AgentMcpResourceConfig.model_validate({"name": target, "description": "conformance", "folderPath": "Shared", "slug": "conformance", "availableTools": []})
    kwargs: dict[str, Any] = {"config": config, "session_info_factory": store, "terminate_on_close": not options.get("keepSessionOnClose", False)}
    mode = protocol_mode_of(options.get("negotiation"))
    if mode is not None:
        kwargs["protocol_mode"] = mode
    client = tools_mcp.McpClient(**kwargs)
    try:
        # The connect's bound, the way a Python caller bounds an await.
        async with asyncio.timeout(options["timeoutMs"] / 1000):
            tools = await client.list_tools()
    except (asyncio.TimeoutError, TimeoutError) as error:
        await client.dispose()
        raise LineError(f"connect did not complete within {options['timeoutMs']} ms", "timeout", "TimeoutError") from error
    except BaseException:
        await client.dispose()
        raise
    connection = UiPathConnection(client, store, tools)
    await connection.read_state()
    return connection


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--name")
    name = parser.parse_args().name
    # resume from 0.17 only: 0.16's SessionInfo holds no negotiated version, so it has no resume state to export.
    features = ["mode-legacy", "keep-session", "cancellation"]
    if MODERN_LINE:
        features[1:1] = ["mode-auto", "mode-pin", "affinity-key", "resume"]
    line = "latest" if MODERN_LINE else ".".join(UIPATH_VERSION.split(".")[:2])
    main(
        {
            "name": name or f"uipath-langchain@{line}",
            "description": f"UiPath's McpClient, uipath-langchain {UIPATH_VERSION} (on mcp {MCP_VERSION}), over Streamable HTTP",
            "revisions": REVISIONS,
            "features": features,
            "transports": ["http"],
            # The SDK it is built on (line protocol 1.6): the mcp its environment's lock pins (envs/*.txt), as installed.
            "wraps": {"package": "mcp", "version": MCP_VERSION},
        },
        connect,
    )
