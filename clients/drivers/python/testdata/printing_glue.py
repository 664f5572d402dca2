"""A glue for runtime.py's tests that prints, as many client libraries do: at import, in connect and in every
operation, with print(), straight to file descriptor 1, and from a child process that inherits it. None of it may
reach the protocol stream (runtime.py keeps the real stdout for itself)."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from runtime import main  # noqa: E402  (first: before anything that prints)

print("noise: a library printing while it is imported")


def noise(where):
    print(f"noise: print() in {where}")
    os.write(1, f"noise: fd 1 in {where}\n".encode())
    subprocess.run([sys.executable, "-c", f"print('noise: a child process in {where}')"], check=True)


class Printing:
    async def info(self):
        noise("info")
        return {"era": "legacy"}

    async def list_tools(self, timeout_ms):
        noise("list_tools")
        return [{"name": "echo"}]

    async def call_tool(self, name, arguments, timeout_ms):
        noise("call_tool")
        return {"content": [{"type": "text", "text": arguments.get("text", "")}]}

    async def close(self):
        noise("close")


async def connect(target, options):
    noise("connect")
    return Printing()


main({"name": "printing", "description": "runtime.py's test glue that prints", "revisions": ["2025-06-18"], "features": ["mode-legacy"]}, connect)
