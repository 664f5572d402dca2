// The official Go SDK (github.com/modelcontextprotocol/go-sdk, the version pinned in go.mod) as a line-protocol
// client program:
//
//	go build -trimpath -o .clients/go/go-sdk . && .clients/go/go-sdk
//
// One mcp.Client per connect, used as the SDK's documentation shows: mcp.NewClient with the handlers the case gives
// (each capability declared by setting its handler), Client.Connect over a StreamableClientTransport (a URL) or a
// CommandTransport (a stdio target: an exec.Cmd with the target's command, arguments, environment and directory),
// then ClientSession.ListTools, ClientSession.CallTool and ClientSession.Close. A request's context is its
// cancellation (the SDK sends notifications/cancelled when it is cancelled) and its per-request timeout.
package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"runtime/debug"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"mcpconformance/lineproto"
)

const sdkPath = "github.com/modelcontextprotocol/go-sdk"

// legacyVersion is what Connect offers in `initialize` in the legacy mode: the newest revision with the handshake.
// The SDK's default (no ProtocolVersion) is its newest, 2026-07-28: it probes with server/discover and falls back
// to `initialize` (the auto mode).
const legacyVersion = "2025-11-25"

// Declared, and why the rest is not:
//   - mode-legacy: ClientSessionOptions.ProtocolVersion earlier than 2026-07-28 sends `initialize` only.
//   - mode-auto: the default (ProtocolVersion empty, the SDK's newest): server/discover, then `initialize`.
//   - no mode-pin: nothing keeps the client on 2026-07-28: Connect falls back to `initialize` on any failed probe
//     (mcp/client.go, Client.Connect).
//   - cancellation, request-timeout: the request's context (mcp/transport.go, call: notifications/cancelled).
//   - roots (Client.AddRoots; the capability is the SDK's default), sampling (ClientOptions.CreateMessageHandler),
//     elicitation (ClientOptions.ElicitationHandler); at 2026-07-28 the SDK's multi round-trip middleware answers
//     input requests with the same handlers.
//   - listen: the transport opens the standalone GET stream after initialize unless DisableStandaloneSSE is set,
//     which this program never sets, so the stream is always opened (with or without options.listen).
//   - no resume: StreamableClientTransport has no way to be given an earlier session id or revision.
//   - no keep-session: ClientSession.Close always ends the session (DELETE when one was issued).
//   - no transport-fallback: StreamableClientTransport never falls back to HTTP+SSE (SSEClientTransport is a
//     separate transport the application must choose), so 2024-11-05 is not declared over HTTP; and since the
//     line protocol's stdioRevisions must be a subset of revisions, it is not declared over stdio either, though
//     the SDK's stdio transport accepts it.
//   - no affinity-key: the transport has no option for a client-minted Mcp-Session-Id.
//   - oauth (line protocol 1.7): StreamableClientTransport.OAuthHandler set to the SDK's own
//     auth.AuthorizationCodeHandler (auth/authorization_code.go): registration (a Client ID Metadata Document,
//     pre-registered credentials or dynamic registration, as the case gives), the redirect URL, and an
//     AuthorizationCodeFetcher that hands the URL to the harness's user agent and returns the redirect's code,
//     state and iss. Discovery, PKCE, tokens, refresh and the retry are the SDK's.
var hello = lineproto.Hello{
	Name:        "go-sdk",
	Description: "Go MCP SDK " + sdkVersion() + " (mcp.Client, StreamableClientTransport or CommandTransport)",
	Revisions:   []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"},
	Features: []string{"mode-legacy", "mode-auto", "cancellation", "request-timeout",
		"roots", "sampling", "elicitation", "listen", "oauth"},
	Transports: []string{"http", "stdio"},
}

var clientInfo = &mcp.Implementation{Name: "mcp-client-conformance", Version: "0.1.0"}

func sdkVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == sdkPath {
				return dep.Version
			}
		}
	}
	return "(unknown version)"
}

func main() {
	lineproto.Run(lineproto.Driver{
		Hello: hello,
		Start: func(string) (lineproto.Client, error) {
			return &instance{oauth: map[string]*auth.AuthorizationCodeHandler{}}, nil
		},
		Describe: describe,
	})
}

// describe gives a JSON-RPC error its code.
func describe(err error) (string, any) {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return "jsonrpc.Error", wire.Code
	}
	return "", nil
}

// instance is one case's client. Each connect makes its own mcp.Client (its handlers are per connect); what the
// instance keeps across its connections is the OAuth handler of each server, holding its tokens as an application
// would. Dispose has nothing left to release.
type instance struct {
	mu    sync.Mutex
	oauth map[string]*auth.AuthorizationCodeHandler
}

func (*instance) Dispose() error { return nil }

// oauthHandler is the server's AuthorizationCodeHandler, made on the first connect that asks for it.
func (in *instance) oauthHandler(serverURL string, authorization *lineproto.Authorization) (*auth.AuthorizationCodeHandler, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if handler, ok := in.oauth[serverURL]; ok {
		return handler, nil
	}
	config := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: authorization.RedirectURI,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{authorization.RedirectURI},
			ClientName:   "mcp-client-conformance",
			// A native app is a public client. Left out, this authorization server registers "none" but still
			// issues a secret, which the SDK then sends (auth/authorization_code.go, handleRegistration), and the
			// token request is refused.
			TokenEndpointAuthMethod: "none",
			// As the SDK's documentation asks of a client that uses refresh tokens (RequestRefreshToken).
			GrantTypes: []string{"authorization_code", "refresh_token"},
		}},
		RequestRefreshToken: true,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			redirect, err := authorization.UserAgent(ctx, args.URL)
			if err != nil {
				return nil, err
			}
			return &auth.AuthorizationResult{Code: redirect.Get("code"), State: redirect.Get("state"), Iss: redirect.Get("iss")}, nil
		},
	}
	if authorization.ClientID != "" {
		credentials := &oauthex.ClientCredentials{ClientID: authorization.ClientID}
		if authorization.ClientSecret != "" {
			credentials.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: authorization.ClientSecret}
		}
		config.PreregisteredClient = credentials
	}
	if authorization.ClientMetadataURL != "" {
		config.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: authorization.ClientMetadataURL}
	}
	handler, err := auth.NewAuthorizationCodeHandler(config)
	if err != nil {
		return nil, err
	}
	in.oauth[serverURL] = handler
	return handler, nil
}

var logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

func (in *instance) Connect(ctx context.Context, target lineproto.Target, options lineproto.ConnectOptions) (lineproto.Connection, error) {
	var sessionOptions *mcp.ClientSessionOptions
	switch options.Negotiation.Mode {
	case "legacy":
		sessionOptions = &mcp.ClientSessionOptions{ProtocolVersion: legacyVersion}
	case "", "auto":
		// The SDK's default.
	default:
		return nil, lineproto.Errorf("unsupported", "no negotiation %q in this client", options.Negotiation.Mode)
	}
	if options.Resume != nil || options.KeepSessionOnClose || options.AffinityKey != "" {
		return nil, lineproto.Errorf("unsupported", "this client cannot resume, keep a session or send an affinity key")
	}

	// The SDK's default capabilities: roots ({"listChanged":true}) is declared whatever the application does, and
	// roots/list is answered from Client.AddRoots (an empty list when none were added); sampling and elicitation
	// are declared by setting their handlers (ClientOptions).
	clientOptions := &mcp.ClientOptions{Logger: logger}
	handlers := options.Handlers
	if handlers == nil {
		handlers = &lineproto.Handlers{}
	}
	if sampling := handlers.Sampling; sampling != nil {
		clientOptions.CreateMessageHandler = func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{
				Role:       mcp.Role(sampling.Role),
				Content:    &mcp.TextContent{Text: sampling.Content.Text},
				Model:      sampling.Model,
				StopReason: sampling.StopReason,
			}, nil
		}
	}
	if elicitation := handlers.Elicitation; elicitation != nil {
		clientOptions.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: elicitation.Action, Content: elicitation.Content}, nil
		}
	}
	client := mcp.NewClient(clientInfo, clientOptions)
	if handlers.Roots != nil {
		roots := make([]*mcp.Root, 0, len(handlers.Roots))
		for _, root := range handlers.Roots {
			roots = append(roots, &mcp.Root{URI: root.URI, Name: root.Name})
		}
		client.AddRoots(roots...)
	}

	var transport mcp.Transport
	if stdio := target.Stdio; stdio != nil {
		// As an application configures a local server: the command, its arguments, the environment on top of
		// its own, the working directory. Stderr is left nil, so os/exec sends it to the null device.
		cmd := exec.Command(stdio.Command, stdio.Args...)
		cmd.Env = append(os.Environ(), stdio.EnvList()...)
		cmd.Dir = stdio.Cwd
		// The grace Close waits after closing stdin, and again after SIGTERM (the SDK's own default is 5 s).
		transport = &mcp.CommandTransport{Command: cmd, TerminateDuration: options.ShutdownGrace()}
	} else {
		streamable := &mcp.StreamableClientTransport{Endpoint: target.URL}
		if options.Authorization != nil {
			handler, err := in.oauthHandler(target.URL, options.Authorization)
			if err != nil {
				return nil, err
			}
			streamable.OAuthHandler = handler
		}
		transport = streamable
	}

	connectCtx, cancel := context.WithTimeout(ctx, options.Timeout())
	defer cancel()
	session, err := client.Connect(connectCtx, transport, sessionOptions)
	if err != nil {
		return nil, err
	}
	return &connection{session: session}, nil
}

type connection struct {
	session *mcp.ClientSession
}

func (c *connection) Info() lineproto.Info {
	var info lineproto.Info
	if result := c.session.InitializeResult(); result != nil {
		info.NegotiatedVersion = result.ProtocolVersion
		info.Era = lineproto.EraOf(result.ProtocolVersion)
	}
	info.SessionID = c.session.ID()
	return info
}

func (c *connection) ListTools(ctx context.Context) ([]string, error) {
	result, err := c.session.ListTools(ctx, &mcp.ListToolsParams{})
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(result.Tools))
	for _, tool := range result.Tools {
		names = append(names, tool.Name)
	}
	return names, nil
}

func (c *connection) CallTool(ctx context.Context, name string, arguments map[string]any) (any, error) {
	return c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: arguments})
}

// Close is the documented ClientSession.Close (idempotent): over HTTP it ends the session with DELETE, over
// stdio it closes the server's stdin, waits, then SIGTERM, waits, then SIGKILL.
func (c *connection) Close() error {
	return c.session.Close()
}
