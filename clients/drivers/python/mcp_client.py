"""Glue for the official Python MCP SDK's 2.x line (`mcp` 2.x on PyPI): its unified `Client`, in one of its modes.

Usage: python mcp_client.py --mode legacy|auto|pinned [--name NAME]  (with the interpreter of a virtual environment
that has `mcp` 2.x installed: `npm run clients:setup`).

Everything goes through the public API as its README shows it: `async with Client(url or StdioServerParameters(…),
mode=…, callbacks…) as client`, `client.list_tools()`, `client.call_tool(name, args, read_timeout_seconds=…)`,
leaving the context manager to close, `client.protocol_version` for what it negotiated. `mode` is the SDK's own:
'legacy' (the initialize handshake), 'auto' (server/discover, falling back to initialize), or a pinned modern
revision ('2026-07-28', adopted without a probe). Declared only where that API has a way:
- cancellation: a Python caller cancels an await by cancelling its task; what reaches the server is the SDK's doing.
- request-timeout: call_tool's read_timeout_seconds (list_tools has none: its timeout is not applied).
- keep-session (legacy and auto): a transport made with streamable_http_client(url, terminate_on_close=False).
- roots, sampling, elicitation: Client's list_roots_callback, sampling_callback, elicitation_callback (at 2026-07-28
  they answer the multi round-trip inputs too).
- oauth (line protocol 1.7): the SDK's OAuthClientProvider as the auth of the httpx2 client streamable_http_client
  takes (mcp_oauth.py); its redirect handler hands the URL to the harness's user agent.
Not declared: resume (no public way to give the client a stored session id), transport-fallback (HTTP+SSE is
another transport the caller picks), listen (the SDK opens the GET stream on its own), affinity-key (no option).
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

from mcp_handlers import handlers_of  # noqa: E402
from mcp_oauth import authorized_http_client  # noqa: E402
from runtime import Held, LineError, main  # noqa: E402

from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
import mcp_types  # noqa: E402
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS  # noqa: E402

MCP_VERSION = version("mcp")
MODERN = MODERN_PROTOCOL_VERSIONS[0]
STREAMABLE = [v for v in ["2025-03-26", "2025-06-18", "2025-11-25"] if v in HANDSHAKE_PROTOCOL_VERSIONS]
MODES = {
    "legacy": {"mode": "legacy", "feature": "mode-legacy", "revisions": STREAMABLE},
    "auto": {"mode": "auto", "feature": "mode-auto", "revisions": [*STREAMABLE, MODERN]},
    "pinned": {"mode": MODERN, "feature": "mode-pin", "revisions": [MODERN]},
}


class ClientConnection:
    def __init__(self, held: Held, client: Client):
        self.held = held
        self.client = client
        # What the client negotiated, read while connected: it stays the answer after close.
        self.version = client.protocol_version

    async def info(self) -> dict[str, Any]:
        return {"negotiatedVersion": self.version, "era": "modern" if self.version in MODERN_PROTOCOL_VERSIONS else "legacy"}

    async def list_tools(self, timeout_ms: int | None) -> list[dict[str, Any]]:
        result = await self.client.list_tools()
        return [{"name": tool.name} for tool in result.tools]

    async def call_tool(self, name: str, arguments: dict[str, Any], timeout_ms: int | None) -> dict[str, Any]:
        result = await self.client.call_tool(name, arguments, read_timeout_seconds=timeout_ms / 1000 if timeout_ms is not None else None)
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    async def close(self) -> None:
        # Leaving the context managers is the client's close (Held leaves them once).
        await self.held.close()


def connector(mode: str):
    async def connect(target: Any, options: dict[str, Any]) -> ClientConnection:
        if isinstance(target, dict):
            server: Any = StdioServerParameters(command=target["command"], args=target.get("args", []), env=target.get("env"), cwd=target.get("cwd"))
        elif options.get("keepSessionOnClose") or options.get("authorization"):
            server = None  # the transport, made in enter (its authorized http client is entered there)
        else:
            server = target
        held = Held()

        async def enter(stack: contextlib.AsyncExitStack) -> Client:
            nonlocal server
            if server is None:
                http: dict[str, Any] = {}
                if options.get("authorization"):
                    # A client the caller gives is the caller's to close.
                    http["http_client"] = await stack.enter_async_context(authorized_http_client(target, options["authorization"]))
                server = streamable_http_client(target, terminate_on_close=not options.get("keepSessionOnClose", False), **http)
            client = Client(server, mode=mode, **handlers_of(options.get("handlers", {}), mcp_types))
            # The connect's bound, the way a Python caller bounds an await.
            async with asyncio.timeout(options["timeoutMs"] / 1000):
                return await stack.enter_async_context(client)

        try:
            return ClientConnection(held, await held.open(enter))
        except (asyncio.TimeoutError, TimeoutError) as error:
            raise LineError(f"connect did not complete within {options['timeoutMs']} ms", "timeout", "TimeoutError") from error

    return connect


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=MODES, required=True)
    parser.add_argument("--name")
    args = parser.parse_args()
    chosen = MODES[args.mode]
    features = [chosen["feature"], "cancellation", "request-timeout", "roots", "sampling", "elicitation", "oauth"]
    if args.mode != "pinned":
        features.append("keep-session")
    main(
        {
            "name": args.name or f"python-mcp-{args.mode}@{MCP_VERSION.split('.')[0]}",
            "description": f"the official Python MCP SDK, mcp {MCP_VERSION}: Client(mode={chosen['mode']!r}) over Streamable HTTP and stdio",
            "revisions": chosen["revisions"],
            "features": features,
            "transports": ["http", "stdio"],
        },
        connector(chosen["mode"]),
    )
