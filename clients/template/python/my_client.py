"""A line-protocol program to copy and change: it drives the official Python MCP SDK (`mcp` 1.x, ClientSession).

    npx mcp-client-conformance run --adapter-command "python3 my_client.py"

Run it with the interpreter that has your client installed (here: `pip install mcp`). `runtime.py`, beside this file,
is the line protocol (the hello, one task per request, the answers, cancel, shutdown): keep it as it is. Replace the
three marked places with your client's calls, the way its documentation shows a user. Guide: WRITING-AN-ADAPTER.md
(in the package: node_modules/mcp-client-conformance/clients/WRITING-AN-ADAPTER.md), section 4.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from datetime import timedelta
from importlib.metadata import version
from typing import Any

# First, before your client library: from here on only protocol lines reach stdout (a print() goes to stderr).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runtime import Held, LineError, main  # noqa: E402

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

HELLO = {
    "name": "my-client",  # stable: used in test titles and baselines
    "description": f"template: the mcp {version('mcp')} ClientSession over Streamable HTTP and stdio",
    "revisions": ["2025-03-26", "2025-06-18", "2025-11-25"],
    # Only what your client really does through its public API (docs/line-protocol.md lists every feature).
    "features": ["mode-legacy", "cancellation", "request-timeout"],
    "transports": ["http", "stdio"],
    "wraps": {"package": "mcp", "version": version("mcp")},
}


class Connection:
    def __init__(self, held: Held, session: ClientSession, negotiated: str, session_id: Any):
        self.held, self.session, self.negotiated, self.session_id = held, session, negotiated, session_id

    async def info(self) -> dict[str, Any]:
        # (2) What your client says it negotiated: leave out what it cannot tell. Never send anything to answer.
        info: dict[str, Any] = {"negotiatedVersion": self.negotiated, "era": "legacy"}
        if self.session_id is not None and self.session_id():
            info["sessionId"] = self.session_id()
        return info

    async def list_tools(self, timeout_ms: int | None) -> list[dict[str, Any]]:
        return [{"name": tool.name} for tool in (await self.session.list_tools()).tools]

    async def call_tool(self, name: str, arguments: dict[str, Any], timeout_ms: int | None) -> dict[str, Any]:
        timeout = timedelta(milliseconds=timeout_ms) if timeout_ms is not None else None
        result = await self.session.call_tool(name, arguments, read_timeout_seconds=timeout)
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    async def close(self) -> None:
        # (3) Close the way your documentation says: here, leaving the SDK's context managers (Held leaves them once).
        await self.held.close()


async def connect(target: Any, options: dict[str, Any]) -> Connection:
    # (1) Create and connect your client the way your documentation shows. `target` is a URL, or (over stdio) a dict
    # with the command your client launches: pass it, and its env, as your users configure a local server.
    held = Held()

    async def enter(stack: contextlib.AsyncExitStack) -> tuple[ClientSession, str, Any]:
        if isinstance(target, dict):
            server = StdioServerParameters(command=target["command"], args=target.get("args", []), env=target.get("env"), cwd=target.get("cwd"))
            read, write = await stack.enter_async_context(stdio_client(server))
            session_id = None
        else:
            read, write, session_id = await stack.enter_async_context(streamable_http_client(target))
        session = await stack.enter_async_context(ClientSession(read, write))
        async with asyncio.timeout(options["timeoutMs"] / 1000):  # the contract's connect timeout
            initialized = await session.initialize()
        return session, str(initialized.protocolVersion), session_id

    try:
        return Connection(held, *await held.open(enter))
    except TimeoutError as error:
        raise LineError(f"initialize did not complete within {options['timeoutMs']} ms", "timeout", "TimeoutError") from error


if __name__ == "__main__":
    main(HELLO, connect)
