"""Glue for the OpenAI Agents SDK's MCP client (`openai-agents` on PyPI): its MCPServerStreamableHttp and MCPServerStdio.

Usage: python openai_agents.py [--name NAME]  (with the interpreter of a virtual environment made from
clients/drivers/python/envs/openai-agents.txt). No model is called: no API key, no network beyond the MCP server.

Everything goes through the public API as the Agents SDK's docs show it: `MCPServerStreamableHttp(params={"url": …,
"terminate_on_close": …, "headers": …})` or `MCPServerStdio(params={"command", "args", "env", "cwd"})`, then
`connect()`, `list_tools()`, `call_tool(name, arguments)`, `cleanup()`; `server.session_id` and the connected
`server.session` (its ClientSession's protocol_version) for what it negotiated. Every other constructor argument
keeps its default (client_session_timeout_seconds=5, max_retry_attempts=0, cache_tools_list=False): those defaults
are what a user gets and what is judged. Declared only where that API has a way:
- mode-auto: with mcp 2.x installed the SDK always builds `mcp.Client(mode="auto")` (agents/mcp/_compat.py,
  create_v2_client): no option picks the handshake-only or a pinned mode.
- resume: the session_id property's documented way, a new server with `headers={"Mcp-Session-Id": session_id}`
  (the negotiated revision has no way in: only the id is passed).
- keep-session: params terminate_on_close=False.
- cancellation: a Python caller cancels an await by cancelling its task; what reaches the server is the SDK's doing.
- oauth (line protocol 1.7): params auth, "the authentication handler for the installed MCP SDK's HTTP stack": the mcp
  SDK's OAuthClientProvider (mcp_oauth.py), its redirect handler handing the URL to the harness's user agent.
Not declared: request-timeout (only the server-wide client_session_timeout_seconds, no per-request timeout), roots /
sampling / elicitation (the server classes take no such callbacks, only message_handler), transport-fallback
(MCPServerSse is another class the caller picks), listen (nothing to ask), affinity-key (no option).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from importlib.metadata import version
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcp_oauth import oauth_provider  # noqa: E402
from runtime import Held, LineError, main  # noqa: E402

# No model is called and nothing is traced; tracing off all the same, so nothing can try to reach api.openai.com.
os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")

from agents.mcp import MCPServerStdio, MCPServerStreamableHttp  # noqa: E402
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS  # noqa: E402

AGENTS_VERSION = version("openai-agents")
MCP_VERSION = version("mcp")
REVISIONS = [*[v for v in ["2025-03-26", "2025-06-18", "2025-11-25"] if v in HANDSHAKE_PROTOCOL_VERSIONS], MODERN_PROTOCOL_VERSIONS[0]]


class AgentsConnection:
    def __init__(self, held: Held, server: Any):
        self.held = held
        self.server = server
        # What the client negotiated, read while connected: it stays the answer after cleanup().
        self.version = getattr(server.session, "protocol_version", None)
        self.session_id = server.session_id if isinstance(server, MCPServerStreamableHttp) else None

    async def info(self) -> dict[str, Any]:
        info: dict[str, Any] = {}
        if self.version:
            info["negotiatedVersion"] = self.version
            info["era"] = "modern" if self.version in MODERN_PROTOCOL_VERSIONS else "legacy"
        if self.session_id:
            info["sessionId"] = self.session_id
            if self.version:
                info["resumeState"] = {"protocolVersion": self.version, "sessionId": self.session_id}
        return info

    async def list_tools(self, timeout_ms: int | None) -> list[dict[str, Any]]:
        return [{"name": tool.name} for tool in await self.server.list_tools()]

    async def call_tool(self, name: str, arguments: dict[str, Any], timeout_ms: int | None) -> dict[str, Any]:
        result = await self.server.call_tool(name, arguments)
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    async def close(self) -> None:
        # Leaving the context managers is the client's close (Held leaves them once).
        await self.held.close()


async def connect(target: Any, options: dict[str, Any]) -> AgentsConnection:
    negotiation = options.get("negotiation")
    if negotiation not in (None, "auto"):
        raise LineError(f"the Agents SDK negotiates only mcp.Client(mode='auto'), not {negotiation!r}", "unsupported")
    if isinstance(target, dict):
        params: dict[str, Any] = {"command": target["command"], "args": target.get("args", [])}
        if target.get("env") is not None:
            params["env"] = target["env"]
        if target.get("cwd") is not None:
            params["cwd"] = target["cwd"]
        server: Any = MCPServerStdio(params=params)
    else:
        http: dict[str, Any] = {"url": target}
        if options.get("keepSessionOnClose"):
            http["terminate_on_close"] = False
        resume = options.get("resume")
        if resume and resume.get("sessionId"):
            http["headers"] = {"Mcp-Session-Id": resume["sessionId"]}
        if options.get("authorization"):
            http["auth"] = oauth_provider(target, options["authorization"])
        server = MCPServerStreamableHttp(params=http)
    held = Held()

    async def enter(stack: contextlib.AsyncExitStack) -> Any:
        stack.push_async_callback(server.cleanup)
        # The connect's bound, the way a Python caller bounds an await.
        async with asyncio.timeout(options["timeoutMs"] / 1000):
            await server.connect()
        return server

    try:
        return AgentsConnection(held, await held.open(enter))
    except (asyncio.TimeoutError, TimeoutError) as error:
        raise LineError(f"connect did not complete within {options['timeoutMs']} ms", "timeout", "TimeoutError") from error


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", default="openai-agents")
    name = parser.parse_args().name
    main(
        {
            "name": name,
            "description": f"the OpenAI Agents SDK {AGENTS_VERSION} (on mcp {MCP_VERSION}): MCPServerStreamableHttp and MCPServerStdio, connect/list_tools/call_tool/cleanup",
            "revisions": REVISIONS,
            "features": ["mode-auto", "resume", "keep-session", "cancellation", "oauth"],
            "transports": ["http", "stdio"],
            # The SDK it is built on (line protocol 1.6): the mcp its environment's lock pins (envs/*.txt), as installed.
            "wraps": {"package": "mcp", "version": MCP_VERSION},
        },
        connect,
    )
