"""The line protocol (docs/line-protocol.md, version 1.7) once, for every Python client's glue.

A glue module gives a hello and a `connect` (the hello goes out as given, with `protocol`: a glue built on an SDK
declares it there, `"wraps": {"package": "mcp", "version": ...}`); this runtime reads the harness's requests from stdin, runs each as its
own asyncio task (requests overlap), answers each by id on stdout, cancels a request's task when the harness sends
`cancel` (only for a glue that declares `cancellation`), and exits when stdin ends or on `shutdown`. It adds no
lifecycle logic: what a connection does on the wire is the client's doing.

The glue's connection is an object with `info()`, `list_tools(timeout_ms)`, `call_tool(name, arguments,
timeout_ms)` and `close()`, all coroutines. Most Python clients are async context managers, which must be entered
and left in one task: `Held` keeps one open in a task of its own until the connection is closed.

1.7 (`oauth`): ConnectOptions.authorization reaches the glue's connect as the harness sent it; `user_agent` is the
browser the harness lends for it (a glue whose client opens a browser calls it there instead). Both are data and a
POST: how the client authorizes, refreshes and retries is the client's doing.

The protocol's stream is the process's real stdout, kept by this module when it is imported; from then on everything
else that writes to stdout (a print() in the glue or in the client library, a C extension or a child process writing
to file descriptor 1) goes to stderr, with the logs. A glue imports this module before its client library, so even a
library that prints while it is imported cannot corrupt the protocol.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import traceback
from typing import Any, Awaitable, Callable, Protocol

PROTOCOL = 1


def _keep_protocol_out() -> Any:
    """The real stdout, for the protocol alone; file descriptor 1 and sys.stdout then lead to stderr."""
    real = sys.__stdout__
    if real is None:  # no stdout at all: nothing to keep, nothing to protect
        return sys.stdout
    real.flush()
    try:
        kept = os.fdopen(os.dup(real.fileno()), "w", encoding="utf-8", newline="\n")
        os.dup2(sys.__stderr__.fileno(), real.fileno())  # type: ignore[union-attr]
    except (AttributeError, OSError, ValueError):  # no file descriptors to move (an embedded interpreter)
        kept = real
    sys.stdout = sys.stderr
    return kept


# Kept at import, before a glue imports its client library (module docstring).
PROTOCOL_OUT = _keep_protocol_out()
# When an unsettled operation is answered "hung" (1.4): one carrying a client timeout, halfway from that timeout to
# the deadline (the client's own timeout fires first); any other at 90% of the deadline (room to reach the harness).
HUNG_AT = 0.9


def answer_by(request: dict[str, Any]) -> float | None:
    deadline = request.get("deadlineMs")
    if not isinstance(deadline, (int, float)) or deadline <= 0:
        return None
    own = request.get("timeoutMs", (request.get("options") or {}).get("timeoutMs"))
    if isinstance(own, (int, float)) and 0 < own < deadline:
        return (own + deadline) / 2 / 1000
    return deadline * HUNG_AT / 1000


def _post_to_user_agent(authorization: dict[str, Any], authorization_url: str) -> str:
    import urllib.error
    import urllib.request

    body = json.dumps({"authorizationUrl": authorization_url, "redirectUri": authorization["redirectUri"]}).encode()
    request = urllib.request.Request(authorization["userAgentUrl"], data=body, headers={"content-type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())["redirect"]
    except urllib.error.HTTPError as error:  # 400 {"error"}: the authorization server refused or the URL was wrong
        raise LineError(f"the user agent could not authorize: {error.read().decode(errors='replace')}", None, "UserAgentError") from error


async def user_agent(authorization: dict[str, Any], authorization_url: str) -> str:
    """1.7: what a browser would do with the authorization URL the client opens: the harness's user agent
    (`authorization.userAgentUrl`) follows it and answers with the redirect to `authorization.redirectUri`
    (`?code=…&state=…&iss=…`), which the glue hands to the client's callback."""
    return await asyncio.to_thread(_post_to_user_agent, authorization, authorization_url)


class LineError(Exception):
    """An error answer with one of the protocol's codes (unknown-op, unknown-case, aborted, …)."""

    def __init__(self, message: str, code: str | int | None = None, name: str | None = None):
        super().__init__(message)
        self.code = code
        self.name = name or type(self).__name__


class Connection(Protocol):
    async def info(self) -> dict[str, Any]: ...
    async def list_tools(self, timeout_ms: int | None) -> list[dict[str, Any]]: ...
    async def call_tool(self, name: str, arguments: dict[str, Any], timeout_ms: int | None) -> dict[str, Any]: ...
    async def close(self) -> None: ...


# connect(target, options): target is a URL (str) or a stdio target (dict); options are the harness's ConnectOptions.
Connect = Callable[[Any, dict[str, Any]], Awaitable[Connection]]


class Held:
    """An async context manager held open in a task of its own, from `open()` until `close()` (anyio's cancel scopes
    must be left by the task that entered them). The stack's exit is the client's close: its errors are close's."""

    def __init__(self) -> None:
        self._closing = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def open(self, enter: Callable[[contextlib.AsyncExitStack], Awaitable[Any]]) -> Any:
        ready: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        async def hold() -> None:
            async with contextlib.AsyncExitStack() as stack:
                try:
                    ready.set_result(await enter(stack))
                except BaseException as error:  # the connect failed: the stack unwinds what it entered
                    if not ready.done():
                        ready.set_exception(error)
                    return
                await self._closing.wait()

        self._task = asyncio.create_task(hold())
        try:
            return await asyncio.shield(ready)
        except asyncio.CancelledError:
            # The harness gave up on the connect: leave what was entered.
            self._task.cancel()
            raise

    async def close(self) -> None:
        # The context managers cannot be left twice: a second close has nothing to do but wait for the first, and the
        # first reports how leaving them went.
        first = not self._closing.is_set()
        self._closing.set()
        if self._task is None:
            return
        if first:
            await asyncio.shield(self._task)
        else:
            await asyncio.wait([self._task])

    def abandon(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()


def error_of(error: BaseException) -> dict[str, Any]:
    """An error answer: the client's message, class name and, where it has one, its code (a JSON-RPC or HTTP code)."""
    if isinstance(error, asyncio.CancelledError):
        return {"message": "the request was cancelled", "name": "CancelledError", "code": "aborted"}
    message = str(error) or type(error).__name__
    answer: dict[str, Any] = {"message": message, "name": getattr(error, "name", None) if isinstance(error, LineError) else type(error).__name__}
    code = getattr(error, "code", None)
    if code is None:
        code = getattr(getattr(error, "error", None), "code", None)  # mcp's McpError carries ErrorData
    if isinstance(code, (str, int)) and not isinstance(code, bool):
        answer["code"] = code
    return answer


class Runtime:
    def __init__(self, hello: dict[str, Any], connect: Connect):
        self.hello = {"protocol": PROTOCOL, **hello}
        self.connect = connect
        self.cancellable = "cancellation" in hello.get("features", [])
        # case -> its live connections (handle -> connection)
        self.cases: dict[str, dict[str, Connection]] = {}
        self.tasks: dict[int, asyncio.Task[Any]] = {}
        self.next_handle = 0
        self.out = PROTOCOL_OUT
        self.done = asyncio.Event()

    def write(self, message: dict[str, Any]) -> None:
        self.out.write(json.dumps(message, separators=(",", ":")) + "\n")
        self.out.flush()

    def connection(self, request: dict[str, Any]) -> Connection:
        connections = self.case(request)
        handle = request.get("connection")
        if handle not in connections:
            raise LineError(f"no connection {handle!r} in case {request['case']!r}", "unknown-connection")
        return connections[handle]

    def case(self, request: dict[str, Any]) -> dict[str, Connection]:
        if request.get("case") not in self.cases:
            raise LineError(f"no live case {request.get('case')!r}", "unknown-case")
        return self.cases[request["case"]]

    async def op(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        if op == "start":
            if request["case"] in self.cases:
                raise LineError(f"case {request['case']!r} is live", "case-live")
            self.cases[request["case"]] = {}
            return {}
        if op == "connect":
            connections = self.case(request)
            target = request.get("target", request.get("url"))
            connection = await self.connect(target, request.get("options", {}))
            self.next_handle += 1
            handle = f"c{self.next_handle}"
            connections[handle] = connection
            return {"connection": handle}
        if op == "info":
            return await self.connection(request).info()
        if op == "listTools":
            return {"tools": await self.connection(request).list_tools(request.get("timeoutMs"))}
        if op == "callTool":
            return await self.connection(request).call_tool(request["name"], request.get("arguments", {}), request.get("timeoutMs"))
        if op == "close":
            await self.connection(request).close()
            return {}
        if op == "dispose":
            # The harness closed the case's connections first; what it could not close goes with the instance.
            self.cases.pop(request["case"], None)
            return {}
        if op == "cancel":
            target = self.tasks.get(request.get("target"))
            if target is not None and self.cancellable:
                target.cancel()
            return {}
        if op == "shutdown":
            self.done.set()
            return {}
        raise LineError(f"unknown op {op!r}", "unknown-op")

    async def serve(self, request: dict[str, Any]) -> None:
        id_ = request.get("id")
        work = asyncio.ensure_future(self.op(request))
        self.tasks[id_] = work
        try:
            done, _ = await asyncio.wait([work], timeout=answer_by(request))
            if not done:
                # The client has not settled it: said so before the harness's deadline, and left running (1.4), so
                # this program stays alive for the cases in flight beside it.
                work.add_done_callback(lambda task: task.cancelled() or task.exception())
                self.write({"id": id_, "error": {"message": f"the client did not settle {request.get('op')} within {request.get('deadlineMs')} ms", "name": "ClientHung", "code": "hung"}})
                return
            self.write({"id": id_, "result": work.result()})
        except BaseException as error:
            if not isinstance(error, (LineError, asyncio.CancelledError)):
                traceback.print_exc(file=sys.stderr)
            self.write({"id": id_, "error": error_of(error)})
        finally:
            self.tasks.pop(id_, None)

    async def run(self) -> None:
        self.write(self.hello)
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=16 * 1024 * 1024)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        reading = asyncio.create_task(self.read(reader))
        await asyncio.wait([reading, asyncio.create_task(self.done.wait())], return_when=asyncio.FIRST_COMPLETED)

    async def read(self, reader: asyncio.StreamReader) -> None:
        while line := await reader.readline():
            if not line.strip():
                continue
            request = json.loads(line)
            self.tasks[request.get("id")] = asyncio.create_task(self.serve(request))
        # stdin ended: the harness is gone.


def main(hello: dict[str, Any], connect: Connect) -> None:
    """Runs the program; its client's own logging goes to stderr, never to the protocol stream."""
    import logging

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    try:
        asyncio.run(Runtime(hello, connect).run())
    except KeyboardInterrupt:
        pass
    # Whatever the client left running (a server process, a socket) ends with the program.
    PROTOCOL_OUT.flush()
    sys.stderr.flush()
    import os

    os._exit(0)
