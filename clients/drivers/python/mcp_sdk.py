"""Glue for the official Python MCP SDK (`mcp` on PyPI), its ClientSession over its own transports.

Usage: python mcp_sdk.py [--name NAME]  (run with the interpreter of a virtual environment that has `mcp` installed:
`npm run clients:setup` makes them, clients/drivers/python/envs/).

Everything goes through the SDK's public API as its README shows it: `streamable_http_client(url,
terminate_on_close=…)` or `stdio_client(StdioServerParameters(…))`, then `ClientSession(read, write, callbacks…)`,
`initialize()`, `list_tools()`, `call_tool(name, args, read_timeout_seconds=…)`, and leaving the context managers to
close. Declared only where that API has a way:
- mode-legacy: the SDK speaks the initialize handshake only (it offers types.LATEST_PROTOCOL_VERSION).
- cancellation: a Python caller cancels an await by cancelling its task; what reaches the server is the SDK's doing.
- request-timeout: call_tool's read_timeout_seconds (list_tools has none: its timeout is not applied).
- keep-session: streamable_http_client(terminate_on_close=False).
- roots, sampling, elicitation: ClientSession's list_roots_callback, sampling_callback, elicitation_callback.
- oauth (line protocol 1.7): the SDK's OAuthClientProvider as the auth of the httpx client streamable_http_client
  takes (mcp_oauth.py); its redirect handler hands the URL to the harness's user agent.
Not declared: resume (no public way to give streamable_http_client a stored session id), transport-fallback (HTTP+SSE
is another transport, sse_client, that the caller picks), listen (the SDK opens the GET stream on its own; nothing to
ask), mode-auto / mode-pin / affinity-key (2026-07-28 is not spoken by this line).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from datetime import timedelta
from importlib.metadata import version
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcp_handlers import handlers_of  # noqa: E402
from mcp_oauth import authorized_http_client  # noqa: E402
from runtime import Held, LineError, main  # noqa: E402

import mcp.types as types  # noqa: E402
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

try:  # 1.x from 1.24: streamable_http_client(url, http_client=…, terminate_on_close=…)
    from mcp.client.streamable_http import streamable_http_client as _streamable
except ImportError:  # earlier: streamablehttp_client(url, …, terminate_on_close=…)
    from mcp.client.streamable_http import streamablehttp_client as _streamable

MCP_VERSION = version("mcp")
HTTP_REVISIONS = [v for v in ["2025-03-26", "2025-06-18", "2025-11-25"] if v <= types.LATEST_PROTOCOL_VERSION]


class SdkConnection:
    def __init__(self, held: Held, session: ClientSession, initialized: types.InitializeResult, session_id: Any):
        self.held = held
        self.session = session
        self.initialized = initialized
        self.session_id = session_id

    async def info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"negotiatedVersion": str(self.initialized.protocolVersion), "era": "legacy"}
        sid = self.session_id() if self.session_id is not None else None
        if sid:
            info["sessionId"] = sid
        return info

    async def list_tools(self, timeout_ms: int | None) -> list[dict[str, Any]]:
        result = await self.session.list_tools()
        return [{"name": tool.name} for tool in result.tools]

    async def call_tool(self, name: str, arguments: dict[str, Any], timeout_ms: int | None) -> dict[str, Any]:
        timeout = timedelta(milliseconds=timeout_ms) if timeout_ms is not None else None
        result = await self.session.call_tool(name, arguments, read_timeout_seconds=timeout)
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    async def close(self) -> None:
        # Leaving the context managers is the client's close (Held leaves them once).
        await self.held.close()


async def connect(target: Any, options: dict[str, Any]) -> SdkConnection:
    callbacks = handlers_of(options.get("handlers", {}), types)
    held = Held()

    async def enter(stack: contextlib.AsyncExitStack) -> tuple[ClientSession, types.InitializeResult, Any]:
        if isinstance(target, dict):
            params = StdioServerParameters(command=target["command"], args=target.get("args", []), env=target.get("env"), cwd=target.get("cwd"))
            read, write = await stack.enter_async_context(stdio_client(params))
            session_id = None
        else:
            http: dict[str, Any] = {}
            if options.get("authorization"):
                # A client the caller gives is the caller's to close.
                http["http_client"] = await stack.enter_async_context(authorized_http_client(target, options["authorization"]))
            read, write, session_id = await stack.enter_async_context(_streamable(target, terminate_on_close=not options.get("keepSessionOnClose", False), **http))
        session = await stack.enter_async_context(ClientSession(read, write, **callbacks))
        # The connect's bound, the way a Python caller bounds an await.
        async with asyncio.timeout(options["timeoutMs"] / 1000):
            initialized = await session.initialize()
        return session, initialized, session_id

    try:
        session, initialized, session_id = await held.open(enter)
    except (asyncio.TimeoutError, TimeoutError) as error:
        raise LineError(f"initialize did not complete within {options['timeoutMs']} ms", "timeout", "TimeoutError") from error
    return SdkConnection(held, session, initialized, session_id)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", default=f"python-mcp@{MCP_VERSION.split('.')[0]}")
    name = parser.parse_args().name
    main(
        {
            "name": name,
            "description": f"the official Python MCP SDK, mcp {MCP_VERSION}: ClientSession over streamable_http_client and stdio_client",
            "revisions": HTTP_REVISIONS,
            "features": ["mode-legacy", "cancellation", "request-timeout", "keep-session", "roots", "sampling", "elicitation", "oauth"],
            "transports": ["http", "stdio"],
        },
        connect,
    )
