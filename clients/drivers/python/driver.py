#!/usr/bin/env python3
"""An MCP client in Python 3's standard library (http.client), driven over the line protocol.

    python3 clients/drivers/python/driver.py

It speaks legacy Streamable HTTP at the wire level, straight from the spec: `initialize` offering 2025-11-25
(and accepting 2025-03-26, 2025-06-18 or 2025-11-25 in the answer), `notifications/initialized`, the
Mcp-Session-Id issued with the InitializeResult on every later request, MCP-Protocol-Version from 2025-06-18,
answers as JSON or as an SSE stream, `tools/list`, `tools/call`, and DELETE of the session on close. A
cancelled call sends `notifications/cancelled` for its request (from a thread) and stops waiting for the answer.
It does not resume a broken SSE stream (GET + Last-Event-ID), answer requests the server sends, or paginate.

The line protocol (docs/line-protocol.md, version 1): a hello line first, then one JSON request per line on
stdin, each answered by exactly one JSON line on stdout; requests run concurrently, each in its own thread.
Only protocol lines go to stdout; logs go to stderr. The driver exits on `shutdown` and when stdin ends.
"""

import http.client
import itertools
import json
import os
import socket
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
}
POST_HEADERS = {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream'}
NOTIFY_TIMEOUT_S = 5
CLOSE_TIMEOUT_S = 5

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


def read_sse_answer(response, request_id):
    """Reads SSE events until the response to request_id arrives (other messages are skipped)."""
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
                answer = find_answer(json.loads(payload), request_id)
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
    """One cancellable request. A cancel notifies the server (from a thread) once the request is on the wire."""

    def __init__(self):
        self._lock = threading.Lock()
        self.cancelled = False
        self._session = None
        self._connection = None
        self._request_id = None

    def sent(self, session, connection, request_id):
        with self._lock:
            self._session, self._connection, self._request_id = session, connection, request_id
            cancelled = self.cancelled
        if cancelled:
            self._notify()
            raise AbortError('the request was cancelled')

    def finished(self):
        with self._lock:
            self._connection = None

    def cancel(self):
        with self._lock:
            if self.cancelled:
                return
            self.cancelled = True
            connection = self._connection
        if connection is None:
            return  # not on the wire yet (sent() will notify) or already answered
        self._notify()
        # Stop waiting: the thread reading the answer sees the stream end and reports the cancellation.
        sock = connection.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _notify(self):
        session, request_id = self._session, self._request_id

        def notify():
            try:
                session.notify(
                    'notifications/cancelled', {'requestId': request_id, 'reason': 'cancelled by the caller'}, NOTIFY_TIMEOUT_S
                )
            except Exception as error:  # noqa: BLE001 - a failed notification is logged, not fatal
                log('notifications/cancelled for request %s failed: %r' % (request_id, error))

        threading.Thread(target=notify, daemon=True).start()


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
        connection = self._open(timeout)
        try:
            if call is not None and call.cancelled:
                raise AbortError('the request was cancelled before it was sent')
            connection.request('POST', self._target, body=json.dumps(message).encode(), headers=self.headers(POST_HEADERS))
            if call is not None:
                call.sent(self, connection, request_id)
            response = connection.getresponse()
            if not 200 <= response.status < 300:
                raise HttpError(response.status, response.read().decode('utf-8', 'replace'))
            content_type = response.getheader('Content-Type', '')
            if 'application/json' in content_type:
                answer = find_answer(json.loads(response.read()), request_id)
                if answer is None:
                    raise ClientError('JSON response carried no answer to request %d' % request_id)
            elif 'text/event-stream' in content_type:
                answer = read_sse_answer(response, request_id)
            else:
                raise ClientError('unexpected content type %r' % content_type)
            if call is not None and call.cancelled:
                raise AbortError('the request was cancelled')  # a late answer is ignored
            if 'error' in answer:
                raise JsonRpcError(answer['error'])
            return answer.get('result') or {}, response
        except AbortError:
            raise
        except Exception:
            if call is not None and call.cancelled:
                raise AbortError('the request was cancelled') from None
            raise
        finally:
            if call is not None:
                call.finished()
            connection.close()

    def close(self):
        if self.closed:
            return
        self.closed = True
        if self.session_id is None:
            return
        connection = self._open(CLOSE_TIMEOUT_S)
        try:
            # Any answer ends the session from our side; 405 means the server keeps it, which is its choice.
            connection.request('DELETE', self._target, headers=self.headers())
            connection.getresponse().read()
        finally:
            connection.close()


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
        session = Session(request.get('url'))
        session.initialize(_seconds(options.get('timeoutMs')))
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
        session = _session(request)
        with _state:
            case_of, _ = _connections.pop(request.get('connection'))
            _instances.get(case_of, set()).discard(request.get('connection'))
        session.close()
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


def handle(request):
    try:
        send({'id': request['id'], 'result': perform(request)})
    except Exception as error:  # noqa: BLE001 - every failure is an answer
        send({'id': request['id'], 'error': error_answer(error)})
    finally:
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
