"""The callbacks of the official Python SDK (1.x and 2.x alike) that answer the server's requests with the
scenario's canned answers (ConnectOptions.handlers): list_roots_callback, sampling_callback, elicitation_callback.
`types` is the SDK line's types module (mcp.types in 1.x, mcp_types in 2.x)."""

from __future__ import annotations

from typing import Any


def handlers_of(given: dict[str, Any], types: Any) -> dict[str, Any]:
    """The ClientSession callbacks answering with the scenario's canned answers (ConnectOptions.handlers)."""
    callbacks: dict[str, Any] = {}
    if "roots" in given:
        roots = [types.Root(uri=r["uri"], name=r.get("name")) for r in given["roots"]]

        async def list_roots(_context: Any):
            return types.ListRootsResult(roots=roots)

        callbacks["list_roots_callback"] = list_roots
    if "sampling" in given:
        answer = given["sampling"]

        async def sample(_context: Any, _params: Any):
            return types.CreateMessageResult(role=answer["role"], content=types.TextContent(type="text", text=answer["content"]["text"]), model=answer["model"], stopReason=answer.get("stopReason"))

        callbacks["sampling_callback"] = sample
    if "elicitation" in given:
        answer = given["elicitation"]

        async def elicit(_context: Any, _params: Any):
            return types.ElicitResult(action=answer["action"], content=answer.get("content"))

        callbacks["elicitation_callback"] = elicit
    return callbacks
