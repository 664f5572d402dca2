// Package lineproto implements the conformance suite's line protocol (docs/line-protocol.md, version 1.7) once, for
// the Go client programs beside it: the hello, one JSON request per stdin line dispatched to its own goroutine, one
// JSON answer per request on stdout, `cancel` by context, `shutdown`, and exit when stdin ends.
//
// A program gives Run a Driver: its hello and a Start that makes one client instance per test case. Each instance
// connects (a URL or a stdio target) and returns a Connection: Info, ListTools, CallTool, Close. The glue behind
// these calls the SDK's public API; this package adds no lifecycle logic of its own. It only keeps the handles the
// harness names (cases, connections, in-flight requests) and turns the harness's `cancel` into the cancellation of
// the request's context, and an operation's `timeoutMs` into a deadline on it (when the hello declares
// `request-timeout`): a context is how Go code cancels or bounds a call, and every SDK here takes one per request.
// 1.7 (`oauth`): ConnectOptions.Authorization is the harness's authorization data as it sent it, and UserAgent the
// browser it lends; how the client authorizes, refreshes and retries is the client's doing.
package lineproto

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// Hello is the program's first line: what the client declares.
type Hello struct {
	Protocol       int      `json:"protocol"`
	Name           string   `json:"name"`
	Description    string   `json:"description"`
	Revisions      []string `json:"revisions"`
	Features       []string `json:"features"`
	Transports     []string `json:"transports,omitempty"`
	StdioRevisions []string `json:"stdioRevisions,omitempty"`
}

// StdioTarget is a server the client launches itself (a `connect` with `target`).
type StdioTarget struct {
	Transport string            `json:"transport"`
	Command   string            `json:"command"`
	Args      []string          `json:"args"`
	Env       map[string]string `json:"env,omitempty"`
	Cwd       string            `json:"cwd,omitempty"`
}

// EnvList is Env as KEY=VALUE strings, the form os/exec takes.
func (t *StdioTarget) EnvList() []string {
	list := make([]string, 0, len(t.Env))
	for key, value := range t.Env {
		list = append(list, key+"="+value)
	}
	return list
}

// Target is where to connect: URL for the http transport, else Stdio.
type Target struct {
	URL   string
	Stdio *StdioTarget
}

// Negotiation is ConnectOptions.negotiation: Mode "legacy", "auto" or "pin" (then Pin is the revision), or "" when
// the harness named none (the client's own default).
type Negotiation struct {
	Mode string
	Pin  string
}

func (n *Negotiation) UnmarshalJSON(data []byte) error {
	var mode string
	if err := json.Unmarshal(data, &mode); err == nil {
		n.Mode = mode
		return nil
	}
	var pin struct {
		Pin string `json:"pin"`
	}
	if err := json.Unmarshal(data, &pin); err != nil {
		return err
	}
	n.Mode, n.Pin = "pin", pin.Pin
	return nil
}

// ResumeState is what an earlier connection exported, to resume its session.
type ResumeState struct {
	ProtocolVersion string `json:"protocolVersion"`
	SessionID       string `json:"sessionId,omitempty"`
}

// Root, Sampling and Elicitation are the canned answers to the server's requests (ClientHandlers).
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

type Sampling struct {
	Role    string `json:"role"`
	Content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Model      string `json:"model"`
	StopReason string `json:"stopReason,omitempty"`
}

type Elicitation struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

type Handlers struct {
	Roots       []Root       `json:"roots,omitempty"`
	Sampling    *Sampling    `json:"sampling,omitempty"`
	Elicitation *Elicitation `json:"elicitation,omitempty"`
}

// Authorization is ConnectOptions.authorization (1.7, AuthorizationOptions in clients/adapter.ts): register
// RedirectURI, and where the client would open a browser hand the URL to UserAgent. ClientID (and ClientSecret) are
// credentials registered beforehand; ClientMetadataURL a Client ID Metadata Document the suite serves.
type Authorization struct {
	RedirectURI       string `json:"redirectUri"`
	UserAgentURL      string `json:"userAgentUrl"`
	ClientID          string `json:"clientId,omitempty"`
	ClientSecret      string `json:"clientSecret,omitempty"`
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
}

// UserAgent does what a browser would with the authorization URL the client opens: the harness's user agent
// follows it and answers with the redirect to RedirectURI, whose query (`code`, `state`, `iss`) it returns.
func (a *Authorization) UserAgent(ctx context.Context, authorizationURL string) (url.Values, error) {
	body, _ := json.Marshal(map[string]string{"authorizationUrl": authorizationURL, "redirectUri": a.RedirectURI})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.UserAgentURL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var answer struct {
		Redirect string `json:"redirect"`
		Error    string `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &Error{Message: "the user agent could not authorize: " + answer.Error, Name: "UserAgentError"}
	}
	redirect, err := url.Parse(answer.Redirect)
	if err != nil {
		return nil, err
	}
	return redirect.Query(), nil
}

// ConnectOptions are `connect`'s options (ConnectOptions in clients/adapter.ts).
type ConnectOptions struct {
	TimeoutMs          float64      `json:"timeoutMs"`
	Negotiation        Negotiation  `json:"negotiation"`
	Resume             *ResumeState `json:"resume,omitempty"`
	AffinityKey        string       `json:"affinityKey,omitempty"`
	KeepSessionOnClose bool         `json:"keepSessionOnClose,omitempty"`
	ShutdownGraceMs    float64      `json:"shutdownGraceMs,omitempty"`
	Handlers           *Handlers    `json:"handlers,omitempty"`
	Listen             bool         `json:"listen,omitempty"`
	// 1.7: sent only to a program declaring oauth.
	Authorization *Authorization `json:"authorization,omitempty"`
}

// Timeout is TimeoutMs as a duration.
func (o ConnectOptions) Timeout() time.Duration { return Millis(o.TimeoutMs) }

// ShutdownGrace is ShutdownGraceMs as a duration (0 when not given).
func (o ConnectOptions) ShutdownGrace() time.Duration { return Millis(o.ShutdownGraceMs) }

// Millis converts the protocol's milliseconds.
func Millis(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// Info is what the client says about its connection (ConnectionInfo); empty members are left out.
type Info struct {
	NegotiatedVersion string       `json:"negotiatedVersion,omitempty"`
	Era               string       `json:"era,omitempty"`
	SessionID         string       `json:"sessionId,omitempty"`
	ResumeState       *ResumeState `json:"resumeState,omitempty"`
}

// EraOf is the era a negotiated revision belongs to ("" when none was negotiated).
func EraOf(version string) string {
	switch {
	case version == "":
		return ""
	case version >= "2026-07-28":
		return "modern"
	default:
		return "legacy"
	}
}

// Client is one client instance, for one test case.
type Client interface {
	Connect(ctx context.Context, target Target, options ConnectOptions) (Connection, error)
	// Dispose releases the instance; the harness closes its connections first.
	Dispose() error
}

// Connection is one connection of a client instance.
type Connection interface {
	Info() Info
	// ListTools returns the tool names the client lists.
	ListTools(ctx context.Context) ([]string, error)
	// CallTool returns the tool result as the client returns it (marshalled to JSON as is).
	CallTool(ctx context.Context, name string, arguments map[string]any) (any, error)
	// Close ends the connection the way the client's documentation says; a second Close must be harmless.
	Close() error
}

// Driver is a client program: its hello, and a fresh client instance per case.
type Driver struct {
	Hello Hello
	Start func(caseID string) (Client, error)
	// Describe names an error and gives its code (an HTTP status, a JSON-RPC code), when the glue knows better
	// than the defaults (the error's Go type; `aborted` for a cancelled context). Optional.
	Describe func(err error) (name string, code any)
}

// Error is an error answer. Glue may return one to choose the name and code.
type Error struct {
	Message string `json:"message"`
	Name    string `json:"name,omitempty"`
	Code    any    `json:"code,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// Errorf makes an error answer with one of the protocol's codes (unsupported, invalid-request, …).
func Errorf(code string, format string, args ...any) *Error {
	return &Error{Message: fmt.Sprintf(format, args...), Name: "LineProtocolError", Code: code}
}

type request struct {
	ID         int64           `json:"id"`
	Op         string          `json:"op"`
	Case       string          `json:"case"`
	URL        string          `json:"url"`
	Target     json.RawMessage `json:"target"`
	Options    json.RawMessage `json:"options"`
	Connection string          `json:"connection"`
	Name       string          `json:"name"`
	Arguments  map[string]any  `json:"arguments"`
	TimeoutMs  float64         `json:"timeoutMs"`
	DeadlineMs float64         `json:"deadlineMs"`
}

// hungAt is when an operation the client has not settled is answered "hung" (line protocol 1.4): one carrying a
// client timeout halfway from that timeout to the deadline (the client's own timeout fires first), any other at 90%
// of the deadline; zero when the request carries no deadline.
func hungAt(req *request) time.Duration {
	if req.DeadlineMs <= 0 {
		return 0
	}
	own := req.TimeoutMs
	if own <= 0 && len(req.Options) > 0 {
		var options struct {
			TimeoutMs float64 `json:"timeoutMs"`
		}
		_ = json.Unmarshal(req.Options, &options)
		own = options.TimeoutMs
	}
	if own > 0 && own < req.DeadlineMs {
		return Millis((own + req.DeadlineMs) / 2)
	}
	return Millis(req.DeadlineMs * 0.9)
}

type answer struct {
	ID     int64  `json:"id"`
	Result any    `json:"result,omitempty"`
	Error  *Error `json:"error,omitempty"`
}

type connection struct {
	caseID string
	conn   Connection
}

type runner struct {
	driver   Driver
	timeouts bool // the hello declares request-timeout

	out   *os.File
	outMu sync.Mutex

	mu          sync.Mutex
	cases       map[string]Client
	connections map[string]connection
	calls       map[int64]context.CancelFunc
	nextConn    int
}

// Run speaks the line protocol on stdin and stdout until stdin ends or `shutdown` is answered, then exits the
// process. Anything the SDK prints with the standard log package goes to stderr, never to stdout.
func Run(driver Driver) {
	r := &runner{
		driver:      driver,
		out:         os.Stdout,
		cases:       map[string]Client{},
		connections: map[string]connection{},
		calls:       map[int64]context.CancelFunc{},
	}
	for _, feature := range driver.Hello.Features {
		if feature == "request-timeout" {
			r.timeouts = true
		}
	}
	// Protocol lines go to the real stdout only: a library writing to os.Stdout writes to stderr instead.
	os.Stdout = os.Stderr
	hello := driver.Hello
	hello.Protocol = 1
	r.send(hello)

	reader := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := reader.ReadString('\n')
		if text := strings.TrimSpace(line); text != "" {
			r.dispatch(text)
		}
		if err != nil {
			if err != io.EOF {
				logf("reading stdin: %v", err)
			}
			os.Exit(0) // the harness is gone
		}
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "lineproto: "+format+"\n", args...)
}

func (r *runner) send(message any) {
	line, err := json.Marshal(message)
	if err != nil {
		logf("cannot marshal an answer: %v", err)
		return
	}
	r.outMu.Lock()
	defer r.outMu.Unlock()
	if _, err := r.out.Write(append(line, '\n')); err != nil {
		os.Exit(0) // nobody is left to answer
	}
}

func (r *runner) dispatch(text string) {
	var req request
	if err := json.Unmarshal([]byte(text), &req); err != nil || req.ID <= 0 {
		logf("ignoring a line that is not a request: %.200s", text)
		return
	}
	switch req.Op {
	case "shutdown":
		r.send(answer{ID: req.ID, Result: struct{}{}})
		os.Exit(0)
	case "cancel":
		// Answered at once; the target answers for itself once its context is cancelled.
		var target struct {
			Target int64 `json:"target"`
		}
		_ = json.Unmarshal([]byte(text), &target)
		r.mu.Lock()
		cancel := r.calls[target.Target]
		r.mu.Unlock()
		if cancel != nil {
			cancel()
		}
		r.send(answer{ID: req.ID, Result: struct{}{}})
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	if req.Op == "listTools" || req.Op == "callTool" {
		if r.timeouts && req.TimeoutMs > 0 {
			ctx, cancel = context.WithTimeout(context.Background(), Millis(req.TimeoutMs))
		}
		// Registered before the next line is read, so a cancel right behind its target finds it.
		r.mu.Lock()
		r.calls[req.ID] = cancel
		r.mu.Unlock()
	}
	// Each request is answered once: by its operation, or (1.4) as hung at its deadline, the operation left running so
	// this program stays alive for the cases in flight beside it.
	var once sync.Once
	reply := func(a answer) { once.Do(func() { r.send(a) }) }
	if at := hungAt(&req); at > 0 {
		timer := time.AfterFunc(at, func() {
			reply(answer{ID: req.ID, Error: &Error{Message: fmt.Sprintf("the client did not settle %s within %v ms", req.Op, req.DeadlineMs), Name: "ClientHung", Code: "hung"}})
		})
		go func() {
			r.settle(ctx, cancel, &req, reply)
			timer.Stop()
		}()
		return
	}
	go r.settle(ctx, cancel, &req, reply)
}

func (r *runner) settle(ctx context.Context, cancel context.CancelFunc, req *request, reply func(answer)) {
	defer func() {
		r.mu.Lock()
		delete(r.calls, req.ID)
		r.mu.Unlock()
		cancel()
	}()
	result, err := r.perform(ctx, req)
	if err != nil {
		reply(answer{ID: req.ID, Error: r.describe(err)})
		return
	}
	reply(answer{ID: req.ID, Result: result})
}

func (r *runner) describe(err error) *Error {
	var lineErr *Error
	if errors.As(err, &lineErr) && lineErr.Name == "LineProtocolError" {
		return lineErr
	}
	answer := &Error{Message: err.Error(), Name: strings.TrimPrefix(fmt.Sprintf("%T", err), "*")}
	if answer.Message == "" {
		answer.Message = answer.Name
	}
	switch {
	case errors.As(err, &lineErr):
		answer.Name, answer.Code = lineErr.Name, lineErr.Code
	case errors.Is(err, context.Canceled):
		answer.Name, answer.Code = "context.Canceled", "aborted"
	case errors.Is(err, context.DeadlineExceeded):
		answer.Name, answer.Code = "context.DeadlineExceeded", "timeout"
	}
	if r.driver.Describe != nil {
		if name, code := r.driver.Describe(err); name != "" || code != nil {
			if name != "" {
				answer.Name = name
			}
			if code != nil {
				answer.Code = code
			}
		}
	}
	return answer
}

func (r *runner) connection(req *request) (Connection, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	entry, ok := r.connections[req.Connection]
	if !ok {
		return nil, Errorf("unknown-connection", "no connection %q", req.Connection)
	}
	return entry.conn, nil
}

func (r *runner) perform(ctx context.Context, req *request) (any, error) {
	empty := struct{}{}
	switch req.Op {
	case "start":
		r.mu.Lock()
		_, live := r.cases[req.Case]
		r.mu.Unlock()
		if live {
			return nil, Errorf("case-live", "case %q is already started", req.Case)
		}
		client, err := r.driver.Start(req.Case)
		if err != nil {
			return nil, err
		}
		r.mu.Lock()
		r.cases[req.Case] = client
		r.mu.Unlock()
		return empty, nil
	case "connect":
		r.mu.Lock()
		client, ok := r.cases[req.Case]
		r.mu.Unlock()
		if !ok {
			return nil, Errorf("unknown-case", "no client instance for case %q", req.Case)
		}
		var options ConnectOptions
		if len(req.Options) > 0 {
			if err := json.Unmarshal(req.Options, &options); err != nil {
				return nil, Errorf("invalid-request", "connect options: %v", err)
			}
		}
		target := Target{URL: req.URL}
		if len(req.Target) > 0 {
			target.Stdio = &StdioTarget{}
			if err := json.Unmarshal(req.Target, target.Stdio); err != nil {
				return nil, Errorf("invalid-request", "connect target: %v", err)
			}
		}
		conn, err := client.Connect(ctx, target, options)
		if err != nil {
			return nil, err
		}
		r.mu.Lock()
		r.nextConn++
		handle := fmt.Sprintf("c%d", r.nextConn)
		r.connections[handle] = connection{caseID: req.Case, conn: conn}
		r.mu.Unlock()
		return map[string]string{"connection": handle}, nil
	case "info":
		conn, err := r.connection(req)
		if err != nil {
			return nil, err
		}
		return conn.Info(), nil
	case "listTools":
		conn, err := r.connection(req)
		if err != nil {
			return nil, err
		}
		names, err := conn.ListTools(ctx)
		if err != nil {
			return nil, err
		}
		tools := make([]map[string]string, 0, len(names))
		for _, name := range names {
			tools = append(tools, map[string]string{"name": name})
		}
		return map[string]any{"tools": tools}, nil
	case "callTool":
		conn, err := r.connection(req)
		if err != nil {
			return nil, err
		}
		arguments := req.Arguments
		if arguments == nil {
			arguments = map[string]any{}
		}
		return conn.CallTool(ctx, req.Name, arguments)
	case "close":
		conn, err := r.connection(req)
		if err != nil {
			return nil, err
		}
		// The connection stays known for info until dispose; closing twice is the client's Close twice.
		if err := conn.Close(); err != nil {
			return nil, err
		}
		return empty, nil
	case "dispose":
		r.mu.Lock()
		client, ok := r.cases[req.Case]
		delete(r.cases, req.Case)
		for handle, entry := range r.connections {
			if entry.caseID == req.Case {
				delete(r.connections, handle)
			}
		}
		r.mu.Unlock()
		if !ok {
			return nil, Errorf("unknown-case", "no client instance for case %q", req.Case)
		}
		if err := client.Dispose(); err != nil {
			return nil, err
		}
		return empty, nil
	}
	return nil, Errorf("unknown-op", "unknown op %q", req.Op)
}
