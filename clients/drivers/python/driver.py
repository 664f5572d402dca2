#!/usr/bin/env python3
"""An MCP client in Python 3's standard library (http.client, subprocess), driven over the line protocol.

    python3 clients/drivers/python/driver.py

It speaks legacy Streamable HTTP and stdio at the wire level, straight from the spec. Over HTTP: `initialize` offering 2025-11-25
(and accepting 2025-03-26, 2025-06-18 or 2025-11-25 in the answer), `notifications/initialized`, the
Mcp-Session-Id issued with the InitializeResult on every later request, MCP-Protocol-Version from 2025-06-18,
answers as JSON or as an SSE stream, `tools/list`, `tools/call`, and DELETE of the session on close. A
cancelled call sends `notifications/cancelled` for its request (from a thread) and stops waiting for the answer.
It does not resume a broken SSE stream (GET + Last-Event-ID), answer requests the server sends, or paginate.

Over stdio (a `connect` with a stdio target): the server launched with subprocess in its own session (process
group), one JSON-RPC message per line on its stdin, answers read from its stdout by a thread, its stderr drained by
another (and never taken as an error), a ping from the server answered and any other request refused (-32601), a
cancelled call sent `notifications/cancelled`; close() closes its stdin, waits the grace the harness gives
(shutdownGraceMs), then SIGTERM to the group, waits again, then SIGKILL.

The line protocol (docs/line-protocol.md, version 1.4): a hello line first, then one JSON request per line on
stdin, each answered by exactly one JSON line on stdout; requests run concurrently, each in its own thread. A request
the client has not settled by its `deadlineMs` is answered `hung` a little before it (and left running, its later
answer dropped), so one hung operation does not get the program killed with every case in flight beside it.
Only protocol lines go to stdout; logs go to stderr. The driver exits on `shutdown` and when stdin ends.
"""

import http.client
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import urllib.parse

PROTOCOL = 1
OFFERED = '2025-11-25'
ACCEPTED = ('2025-03-26', '2025-06-18', '2025-11-25')
CLIENT_INFO = {'name': 'mcp-client-conformance-python', 'version': '0.1.0'}
HELLO = {
    'protocol': PROTOCOL,
    'name': 'python-stdlib',
    'description': 'Python %d.%d standard-library MCP client (http.client), legacy Streamable HTTP, initialize only'
    % sys.version_info[:2],
    'revisions': list(ACCEPTED),
    'features': ['mode-legacy', 'cancellation'],
    'transports': ['http', 'stdio'],
}
POST_HEADERS = {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream'}
NOTIFY_TIMEOUT_S = 5
CLOSE_TIMEOUT_S = 5
# When an unsettled request is answered `hung` without a client timeout of its own: 90% of its deadline.
HUNG_AT = 0.9
# The stdio shutdown grace when the harness gives none (it always does: options.shutdownGraceMs).
DEFAULT_GRACE_S = 2

# Protocol lines go to the real stdout only; a stray print() goes to stderr with the logs.
_protocol_out = sys.stdout
sys.stdout = sys.stderr
_out_lock = threading.Lock()


def send(message):
    line = json.dumps(message, separators=(',', ':'))
    with _out_lock:
        try:
            _protocol_out.write(line + '\n')
            _protocol_out.flush()
        except (BrokenPipeError, ValueError):
            os._exit(0)  # the harness is gone: nobody is left to answer


def log(*parts):
    print('python driver:', *parts, file=sys.stderr, flush=True)


class ClientError(Exception):
    code = None


class HttpError(ClientError):
    def __init__(self, status, body):
        super().__init__('HTTP %d%s' % (status, ': ' + body[:200] if body else ''))
        self.code = status


class JsonRpcError(ClientError):
    def __init__(self, error):
        super().__init__('JSON-RPC error %s: %s' % (error.get('code'), error.get('message')))
        code = error.get('code')
        self.code = code if isinstance(code, int) else None


class AbortError(ClientError):
    code = 'aborted'


class OperationError(ClientError):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def find_answer(message, request_id):
    """The response to request_id in a JSON-RPC message or batch, or None."""
    for candidate in message if isinstance(message, list) else [message]:
        if (
            isinstance(candidate, dict)
            and candidate.get('id') == request_id
            and 'method' not in candidate
            and ('result' in candidate or 'error' in candidate)
        ):
            return candidate
    return None


def reply_to(message):
    """The reply to a request from the server: the client declares no capability, so only ping gets a result."""
    if message['method'] == 'ping':
        return {'jsonrpc': '2.0', 'id': message['id'], 'result': {}}
    return {'jsonrpc': '2.0', 'id': message['id'], 'error': {'code': -32601, 'message': 'Method not found'}}


def server_requests(message):
    """The requests from the server in a JSON-RPC message or batch."""
    return [
        candidate
        for candidate in (message if isinstance(message, list) else [message])
        if isinstance(candidate, dict) and 'method' in candidate and candidate.get('id') is not None
    ]


def read_sse_answer(response, request_id, on_request):
    """Reads SSE events until the response to request_id arrives; each request from the server on the stream goes to
    on_request (to be answered), other messages are skipped."""
    data, event = [], None
    while True:
        raw = response.readline()
        if not raw:
            raise ClientError('SSE stream ended without an answer to request %d' % request_id)
        line = raw.decode('utf-8')
        line = line[:-1] if line.endswith('\n') else line
        line = line[:-1] if line.endswith('\r') else line
        if line == '':
            payload = '\n'.join(data)
            # An event with empty data (the 2025-11-25 priming event) carries no message.
            if payload.strip() and event in (None, 'message'):
                message = json.loads(payload)
                for request in server_requests(message):
                    on_request(request)
                answer = find_answer(message, request_id)
                if answer is not None:
                    return answer
            data, event = [], None
        elif not line.startswith(':'):
            name, _, value = line.partition(':')
            value = value[1:] if value.startswith(' ') else value
            if name == 'data':
                data.append(value)
            elif name == 'event':
                event = value


class Call:
    """One cancellable request. A cancel notifies the server (from a thread) once the request is on the wire,
    and wakes the thread waiting for the answer (`wake`: over HTTP it shuts the socket down)."""

    def __init__(self):
        self._lock = threading.Lock()
        self.cancelled = False
        self._session = None
        self._wake = None
        self._request_id = None

    def sent(self, session, request_id, wake):
        with self._lock:
            self._session, self._wake, self._request_id = session, wake, request_id
            cancelled = self.cancelled
        if cancelled:
            self._notify()
            raise AbortError('the request was cancelled')

    def finished(self):
        with self._lock:
            self._wake = None

    def cancel(self):
        """Cancels the call; returns the thread sending notifications/cancelled, if one was started."""
        with self._lock:
            if self.cancelled:
                return None
            self.cancelled = True
            wake = self._wake
        if wake is None:
            return None  # not on the wire yet (sent() will notify) or already answered
        thread = self._notify()
        wake()
        return thread

    def _notify(self):
        session, request_id = self._session, self._request_id

        def notify():
            try:
                session.notify(
                    'notifications/cancelled', {'requestId': request_id, 'reason': 'cancelled by the caller'}, NOTIFY_TIMEOUT_S
                )
            except Exception as error:  # noqa: BLE001 - a failed notification is logged, not fatal
                log('notifications/cancelled for request %s failed: %r' % (request_id, error))

        thread = threading.Thread(target=notify, daemon=True)
        thread.start()
        return thread


class InFlight:
    """The calls of a connection on the wire: its close() cancels each (notifications/cancelled) and waits for the
    notifications to go out before it ends the session (a server answering with JSON ends no stream at the end)."""

    def __init__(self):
        self._calls = set()
        self._lock = threading.Lock()

    def add(self, method, call):
        if method != 'initialize':  # the initialize request is never cancelled (cancellation: MUST NOT)
            with self._lock:
                self._calls.add(call)

    def discard(self, call):
        with self._lock:
            self._calls.discard(call)

    def cancel_all(self):
        with self._lock:
            calls = list(self._calls)
        for thread in [call.cancel() for call in calls]:
            if thread is not None:
                thread.join(NOTIFY_TIMEOUT_S)


class Session:
    """One connection to one MCP endpoint: the negotiated version and the issued session id."""

    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ('http', 'https') or not parts.hostname:
            raise OperationError('invalid-url', 'not an http(s) URL: %r' % url)
        self._https = parts.scheme == 'https'
        self._host, self._port = parts.hostname, parts.port
        self._target = (parts.path or '/') + ('?' + parts.query if parts.query else '')
        self._ids = itertools.count(1)
        self._ids_lock = threading.Lock()
        self.version = None
        self.session_id = None
        self.closed = False
        self.in_flight = InFlight()

    def _open(self, timeout):
        kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        return kind(self._host, self._port, timeout=timeout)

    def headers(self, extra=None):
        headers = dict(extra or {})
        if self.session_id is not None:
            headers['Mcp-Session-Id'] = self.session_id
        if self.version is not None and self.version >= '2025-06-18':
            headers['MCP-Protocol-Version'] = self.version
        return headers

    def initialize(self, timeout):
        params = {'protocolVersion': OFFERED, 'capabilities': {}, 'clientInfo': CLIENT_INFO}
        result, response = self.request('initialize', params, timeout)
        version = result.get('protocolVersion')
        if version not in ACCEPTED:
            raise ClientError('server answered unsupported protocol version %r' % (version,))
        self.version = version
        self.session_id = response.getheader('Mcp-Session-Id')
        self.notify('notifications/initialized', None, timeout)

    def notify(self, method, params, timeout):
        message = {'jsonrpc': '2.0', 'method': method}
        if params is not None:
            message['params'] = params
        self.post(message, timeout)

    def answer(self, request):
        """Answers a request from the server with a POST of its own (in a thread: the stream it came on is being read)."""

        def post():
            try:
                self.post(reply_to(request), NOTIFY_TIMEOUT_S)
            except Exception as error:  # noqa: BLE001 - a failed answer is logged, not fatal
                log('the answer to %s %r failed: %r' % (request['method'], request['id'], error))

        threading.Thread(target=post, daemon=True).start()

    def post(self, message, timeout):
        """POSTs a notification or a response: the server accepts it (202) with no answer to read."""
        connection = self._open(timeout)
        try:
            connection.request('POST', self._target, body=json.dumps(message).encode(), headers=self.headers(POST_HEADERS))
            response = connection.getresponse()
            body = response.read()
            if not 200 <= response.status < 300:
                raise HttpError(response.status, body.decode('utf-8', 'replace'))
        finally:
            connection.close()

    def request(self, method, params, timeout, call=None):
        if self.closed:
            raise ClientError('connection is closed')
        with self._ids_lock:
            request_id = next(self._ids)
        message = {'jsonrpc': '2.0', 'id': request_id, 'method': method, 'params': params}
        call = call if call is not None else Call()
        self.in_flight.add(method, call)
        connection = self._open(timeout)
        try:
            if call.cancelled:
                raise AbortError('the request was cancelled before it was sent')
            connection.request('POST', self._target, body=json.dumps(message).encode(), headers=self.headers(POST_HEADERS))
            # Stop waiting on cancel: the thread reading the answer sees the stream end and reports the cancellation.
            call.sent(self, request_id, lambda: _shut(connection))
            response = connection.getresponse()
            if not 200 <= response.status < 300:
                raise HttpError(response.status, response.read().decode('utf-8', 'replace'))
            content_type = response.getheader('Content-Type', '')
            if 'application/json' in content_type:
                answer = find_answer(json.loads(response.read()), request_id)
                if answer is None:
                    raise ClientError('JSON response carried no answer to request %d' % request_id)
            elif 'text/event-stream' in content_type:
                answer = read_sse_answer(response, request_id, self.answer)
            else:
                raise ClientError('unexpected content type %r' % content_type)
            if call.cancelled:
                raise AbortError('the request was cancelled')  # a late answer is ignored
            if 'error' in answer:
                raise JsonRpcError(answer['error'])
            return answer.get('result') or {}, response
        except AbortError:
            raise
        except Exception:
            if call.cancelled:
                raise AbortError('the request was cancelled') from None
            raise
        finally:
            call.finished()
            self.in_flight.discard(call)
            connection.close()

    def close(self):
        if self.closed:
            return
        self.closed = True
        # Every call in flight settles now, cancelled on the wire before the DELETE ends the session.
        self.in_flight.cancel_all()
        if self.session_id is None:
            return
        connection = self._open(CLOSE_TIMEOUT_S)
        try:
            # Any answer ends the session from our side; 405 means the server keeps it, which is its choice.
            connection.request('DELETE', self._target, headers=self.headers())
            connection.getresponse().read()
        finally:
            connection.close()


def _shut(connection):
    sock = connection.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class StdioSession:
    """One stdio server, launched for one connection: JSON-RPC lines on its stdin and stdout."""

    def __init__(self, target, grace_s):
        command = target.get('command')
        if not isinstance(command, str) or not command:
            raise OperationError('invalid-request', 'a stdio target needs a command')
        env = dict(os.environ)
        env.update(target.get('env') or {})
        self._grace = grace_s
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._waiting = {}  # request id -> [threading.Event, answer or None]
        self.in_flight = InFlight()
        self._write_lock = threading.Lock()
        self.version = None
        self.session_id = None
        self.closed = False
        self._ended = None  # why the server can no longer be talked to
        try:
            self._process = subprocess.Popen(
                [command] + list(target.get('args') or []),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=env, cwd=target.get('cwd'), start_new_session=True,
            )
        except OSError as error:
            raise ClientError('the server %r could not be started: %s' % (command, error)) from None
        threading.Thread(target=self._read, daemon=True).start()
        # Reading stderr keeps a chatty server from blocking on a full pipe; what it says is logs, never an error.
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _drain_stderr(self):
        while self._process.stderr.read1(65536):
            pass

    def _read(self):
        for raw in self._process.stdout:
            try:
                message = json.loads(raw.decode('utf-8'))
            except ValueError:
                continue  # not a message: the server MUST NOT write it, and it is never taken for an answer
            for item in message if isinstance(message, list) else [message]:
                if isinstance(item, dict):
                    self._dispatch(item)
        self._end('the server closed its stdout (exit code %s)' % self._process.poll())

    def _dispatch(self, message):
        if 'method' not in message:
            with self._lock:
                slot = self._waiting.pop(message.get('id'), None)
            if slot is not None:  # else late (cancelled) and ignored
                slot[1] = message
                slot[0].set()
            return
        if message.get('id') is None:
            return  # a notification
        self._write(reply_to(message))

    def _end(self, why):
        with self._lock:
            if self._ended is None:
                self._ended = why
            waiting, self._waiting = self._waiting, {}
        for slot in waiting.values():
            slot[0].set()

    def _write(self, message):
        line = json.dumps(message, separators=(',', ':')) + '\n'  # json.dumps escapes every newline in a string
        with self._write_lock:
            try:
                self._process.stdin.write(line.encode('utf-8'))
                self._process.stdin.flush()
            except (OSError, ValueError):
                self._end('writing to the server failed: its stdin is closed')

    def initialize(self, timeout):
        params = {'protocolVersion': OFFERED, 'capabilities': {}, 'clientInfo': CLIENT_INFO}
        result, _ = self.request('initialize', params, timeout)
        version = result.get('protocolVersion')
        if version not in ACCEPTED:
            raise ClientError('server answered unsupported protocol version %r' % (version,))
        self.version = version
        self.notify('notifications/initialized', None, timeout)

    def notify(self, method, params, timeout):
        message = {'jsonrpc': '2.0', 'method': method}
        if params is not None:
            message['params'] = params
        self._write(message)

    def request(self, method, params, timeout, call=None):
        if self.closed:
            raise ClientError('connection is closed')
        if self._ended is not None:
            raise ClientError(self._ended)
        request_id = next(self._ids)
        slot = [threading.Event(), None]
        with self._lock:
            self._waiting[request_id] = slot
        call = call if call is not None else Call()
        self.in_flight.add(method, call)
        try:
            if call.cancelled:
                raise AbortError('the request was cancelled before it was sent')
            self._write({'jsonrpc': '2.0', 'id': request_id, 'method': method, 'params': params})
            call.sent(self, request_id, slot[0].set)
            if not slot[0].wait(timeout):
                raise ClientError('no answer to %s within %s s' % (method, timeout))
            if call.cancelled:
                raise AbortError('the request was cancelled')  # a late answer is ignored
            answer = slot[1]
            if answer is None:
                raise ClientError(self._ended or 'the connection ended before the answer')
            if 'error' in answer:
                raise JsonRpcError(answer['error'])
            return answer.get('result') or {}, None
        finally:
            with self._lock:
                self._waiting.pop(request_id, None)
            call.finished()
            self.in_flight.discard(call)

    def close(self):
        """The spec's shutdown: close stdin, wait; SIGTERM to the group, wait; SIGKILL to the group."""
        if self.closed:
            return
        # Every call in flight settles now, cancelled on stdin before the server's stdin is closed.
        self.in_flight.cancel_all()
        self.closed = True
        process = self._process
        try:
            process.stdin.close()
        except OSError:
            pass
        for sent in (signal.SIGTERM, signal.SIGKILL):
            try:
                process.wait(self._grace)
                break
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(process.pid, sent)
                except OSError:
                    pass
        else:
            try:
                process.wait(self._grace)
            except subprocess.TimeoutExpired:
                pass
        # What is left of its group (a descendant it started) goes too.
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass
        self._end('the connection is closed')


_state = threading.Lock()
_instances = {}  # case -> set of connection ids
_connections = {}  # connection id -> (case, Session)
_calls = {}  # harness request id -> Call
_connection_ids = itertools.count(1)


def _session(request):
    with _state:
        entry = _connections.get(request.get('connection'))
    if entry is None:
        raise OperationError('unknown-connection', 'no connection %r' % (request.get('connection'),))
    return entry[1]


def _seconds(milliseconds):
    return None if milliseconds is None else milliseconds / 1000


def perform(request):
    op, case = request.get('op'), request.get('case')
    if op == 'start':
        with _state:
            if case in _instances:
                raise OperationError('case-live', 'case %r is already started' % (case,))
            _instances[case] = set()
        return {}
    if op == 'connect':
        with _state:
            known = case in _instances
        if not known:
            raise OperationError('unknown-case', 'no client instance for case %r' % (case,))
        options = request.get('options') or {}
        if options.get('negotiation', 'legacy') != 'legacy':
            raise OperationError('unsupported', 'this client speaks only the initialize handshake (negotiation "legacy")')
        for option in ('resume', 'affinityKey', 'keepSessionOnClose'):
            if options.get(option):
                raise OperationError('unsupported', 'this client does not support %s' % option)
        target = request.get('target')
        if target is not None:
            grace = options.get('shutdownGraceMs')
            session = StdioSession(target, DEFAULT_GRACE_S if grace is None else grace / 1000)
        else:
            session = Session(request.get('url'))
        try:
            session.initialize(_seconds(options.get('timeoutMs')))
        except Exception:
            if target is not None:
                session.close()
            raise
        with _state:
            connection = 'c%d' % next(_connection_ids)
            _connections[connection] = (case, session)
            _instances.setdefault(case, set()).add(connection)
        return {'connection': connection}
    if op == 'info':
        session = _session(request)
        info = {'era': 'legacy'}
        if session.version is not None:
            info['negotiatedVersion'] = session.version
            info['resumeState'] = {'protocolVersion': session.version}
            if session.session_id is not None:
                info['resumeState']['sessionId'] = session.session_id
        if session.session_id is not None:
            info['sessionId'] = session.session_id
        return info
    if op == 'listTools':
        session = _session(request)
        result, _ = session.request('tools/list', {}, _seconds(request.get('timeoutMs')), _calls.get(request['id']))
        return {'tools': [{'name': tool.get('name')} for tool in result.get('tools', [])]}
    if op == 'callTool':
        session = _session(request)
        params = {'name': request.get('name'), 'arguments': request.get('arguments') or {}}
        result, _ = session.request('tools/call', params, _seconds(request.get('timeoutMs')), _calls.get(request['id']))
        return result
    if op == 'close':
        # Closing twice is harmless (the session closes once); the connection stays known for info until dispose.
        _session(request).close()
        return {}
    if op == 'dispose':
        with _state:
            if case not in _instances:
                raise OperationError('unknown-case', 'no client instance for case %r' % (case,))
            for connection in _instances.pop(case):
                _connections.pop(connection, None)
        return {}
    raise OperationError('unknown-op', 'unknown op %r' % (op,))


def error_answer(error):
    answer = {'message': str(error) or error.__class__.__name__, 'name': error.__class__.__name__}
    code = getattr(error, 'code', None)
    if isinstance(code, (int, str)) and not isinstance(code, bool):
        answer['code'] = code
    return answer


def answer_by(request):
    """When to answer `hung` (1.4), in seconds: halfway from the client's own timeout to the deadline when the request
    carries one (that timeout fires first), else at HUNG_AT of the deadline; None without a deadline."""
    deadline = request.get('deadlineMs')
    if not isinstance(deadline, (int, float)) or deadline <= 0:
        return None
    own = request.get('timeoutMs', (request.get('options') or {}).get('timeoutMs'))
    if isinstance(own, (int, float)) and 0 < own < deadline:
        return (own + deadline) / 2 / 1000
    return deadline * HUNG_AT / 1000


def handle(request):
    answered = []
    lock = threading.Lock()

    def answer(message):
        # Exactly one answer per request: the client's, or `hung` when that comes too late.
        with lock:
            if answered:
                return
            answered.append(True)
        send(message)

    by = answer_by(request)
    timer = None
    if by is not None:
        hung = {'code': 'hung', 'name': 'ClientHung', 'message': 'the client did not settle %s within %s ms' % (request.get('op'), request.get('deadlineMs'))}
        timer = threading.Timer(by, answer, args=({'id': request['id'], 'error': hung},))
        timer.daemon = True
        timer.start()
    try:
        answer({'id': request['id'], 'result': perform(request)})
    except Exception as error:  # noqa: BLE001 - every failure is an answer
        answer({'id': request['id'], 'error': error_answer(error)})
    finally:
        if timer is not None:
            timer.cancel()
        with _state:
            _calls.pop(request['id'], None)


def main():
    send(HELLO)
    for raw in sys.stdin.buffer:
        line = raw.decode('utf-8', 'replace').strip()
        if not line:
            continue
        try:
            request = json.loads(line)
        except ValueError:
            log('ignoring a line that is not JSON: %s' % line[:200])
            continue
        if not isinstance(request, dict) or type(request.get('id')) is not int:
            log('ignoring a request without an integer id: %s' % line[:200])
            continue
        op = request.get('op')
        if op == 'shutdown':
            send({'id': request['id'], 'result': {}})
            os._exit(0)
        if op == 'cancel':
            with _state:
                call = _calls.get(request.get('target'))
            if call is not None:
                call.cancel()
            send({'id': request['id'], 'result': {}})
            continue
        if op in ('listTools', 'callTool'):
            with _state:
                _calls[request['id']] = Call()
        threading.Thread(target=handle, args=(request,), daemon=True).start()
    os._exit(0)  # stdin ended: the harness is gone


if __name__ == '__main__':
    main()
