"""A glue for runtime.py's tests: no client at all. Its connections answer info and list_tools at once; call_tool
never settles unless its tool is "echo", so the runtime's 1.4 "hung" answer and its cancellation can be seen."""

import asyncio
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from runtime import main  # noqa: E402


class Stuck:
    async def info(self):
        return {"era": "legacy"}

    async def list_tools(self, timeout_ms):
        return [{"name": "echo"}]

    async def call_tool(self, name, arguments, timeout_ms):
        if name == "echo":
            return {"content": [{"type": "text", "text": arguments.get("text", "")}]}
        await asyncio.Event().wait()

    async def close(self):
        return None


async def connect(target, options):
    return Stuck()


main({"name": "stuck", "description": "runtime.py's test glue", "revisions": ["2025-06-18"], "features": ["mode-legacy", "cancellation"]}, connect)
