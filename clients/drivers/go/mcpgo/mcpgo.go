// Package mcpgo is the glue for github.com/mark3labs/mcp-go, shared by the programs of its two lines (mcp-go-1 for
// 1.x, mcp-go-0 for 0.x): the public API this glue calls is the same in both, and what differs (the negotiation
// modes, who drains a stdio server's stderr, the revisions and features) comes in a Line from each program. Each
// program's own go.mod pins the mcp-go version this source is compiled against.
//
// The client is used as the README shows: client.NewClient over transport.NewStreamableHTTP (a URL) or
// transport.NewStdioWithOptions (a stdio target), Client.Start, Client.Initialize, Client.ListTools,
// Client.CallTool, Client.Close. Handlers are client.WithRootsHandler, WithSamplingHandler and
// WithElicitationHandler (each declares its capability); a request's context is its cancellation and its
// per-request timeout.
//
// oauth (line protocol 1.7), as mcp-go's examples/oauth_client does it: the transport is given an OAuthConfig
// (transport.WithHTTPOAuth: redirect URI, PKCE, a token store, the pre-registered credentials when the case gives
// them), and when Initialize fails with the SDK's authorization-required error the application runs the flow the
// SDK's OAuthHandler exposes (client.GetOAuthHandler): RegisterClient when it has no client id, a PKCE verifier and a
// state from the SDK's generators, GetAuthorizationURL, the harness's user agent where a browser would open,
// ProcessAuthorizationResponse with the redirect's code and state (the SDK checks the state and requests the token),
// then Initialize again. Nothing else: a refused token later in the session is the SDK's to handle, and what it does
// reaches the caller as it is. The token store and the registered client are kept per server for the case's later
// connections, as an application keeps them.
package mcpgo

import (
	"context"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"sync"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"mcpconformance/lineproto"
)

const modulePath = "github.com/mark3labs/mcp-go"

// Line is what one mcp-go line declares and does differently.
type Line struct {
	Name      string
	Revisions []string
	Features  []string
	// Negotiation gives the client options of a negotiation mode ("" is the client's default), or an error when
	// the line has no such mode.
	Negotiation func(lineproto.Negotiation) ([]client.ClientOption, error)
	// DrainStderr: the stdio transport pipes the server's stderr and leaves reading it to the application
	// (client.GetStderr), so the glue reads it, as the application must, and discards it.
	DrainStderr bool
}

// Version is the mcp-go version the program was built with.
func Version() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == modulePath {
				return dep.Version
			}
		}
	}
	return "(unknown version)"
}

// Run speaks the line protocol for the line.
func Run(line Line) {
	lineproto.Run(lineproto.Driver{
		Hello: lineproto.Hello{
			Name:        line.Name,
			Description: "mark3labs/mcp-go " + Version() + " (client.Client, transport.StreamableHTTP or transport.Stdio)",
			Revisions:   line.Revisions,
			Features:    line.Features,
			Transports:  []string{"http", "stdio"},
		},
		Start: func(string) (lineproto.Client, error) {
			return &instance{line: line, oauth: map[string]*transport.OAuthConfig{}}, nil
		},
	})
}

var clientInfo = mcp.Implementation{Name: "mcp-client-conformance", Version: "0.1.0"}

// instance is one case's client: a Client is bound to one transport, so each connect makes its own; what the case
// keeps across its connections is each server's OAuth configuration (its token store and registered client).
// Dispose has nothing left to release.
type instance struct {
	line  Line
	mu    sync.Mutex
	oauth map[string]*transport.OAuthConfig
}

func (*instance) Dispose() error { return nil }

// oauthConfig is the server's OAuthConfig, made on the first connect that asks for it.
func (i *instance) oauthConfig(serverURL string, authorization *lineproto.Authorization) transport.OAuthConfig {
	i.mu.Lock()
	defer i.mu.Unlock()
	config, ok := i.oauth[serverURL]
	if !ok {
		config = &transport.OAuthConfig{
			ClientID:     authorization.ClientID,
			ClientSecret: authorization.ClientSecret,
			RedirectURI:  authorization.RedirectURI,
			TokenStore:   transport.NewMemoryTokenStore(),
			PKCEEnabled:  true,
		}
		i.oauth[serverURL] = config
	}
	return *config
}

// registered keeps the client the SDK registered, for the server's later connections.
func (i *instance) registered(serverURL string, handler *transport.OAuthHandler) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if config := i.oauth[serverURL]; config != nil && config.ClientID == "" {
		config.ClientID, config.ClientSecret = handler.GetClientID(), handler.GetClientSecret()
	}
}

// authorize is examples/oauth_client's maybeAuthorize with the harness's user agent for the browser.
func (i *instance) authorize(ctx context.Context, serverURL string, authorization *lineproto.Authorization, handler *transport.OAuthHandler) error {
	if handler.GetClientID() == "" {
		if err := handler.RegisterClient(ctx, "mcp-client-conformance"); err != nil {
			return err
		}
		i.registered(serverURL, handler)
	}
	verifier, err := transport.GenerateCodeVerifier()
	if err != nil {
		return err
	}
	state, err := transport.GenerateState()
	if err != nil {
		return err
	}
	authorizationURL, err := handler.GetAuthorizationURL(ctx, state, transport.GenerateCodeChallenge(verifier))
	if err != nil {
		return err
	}
	redirect, err := authorization.UserAgent(ctx, authorizationURL)
	if err != nil {
		return err
	}
	return handler.ProcessAuthorizationResponse(ctx, redirect.Get("code"), redirect.Get("state"), verifier)
}

type roots []mcp.Root

func (r roots) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: r}, nil
}

type sampling lineproto.Sampling

func (s sampling) CreateMessage(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.Role(s.Role), Content: mcp.NewTextContent(s.Content.Text)},
		Model:           s.Model,
		StopReason:      s.StopReason,
	}, nil
}

type elicitation lineproto.Elicitation

func (e elicitation) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	result := &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseAction(e.Action)}}
	if e.Content != nil {
		result.Content = e.Content
	}
	return result, nil
}

func (i *instance) Connect(ctx context.Context, target lineproto.Target, options lineproto.ConnectOptions) (lineproto.Connection, error) {
	if options.KeepSessionOnClose || options.AffinityKey != "" {
		return nil, lineproto.Errorf("unsupported", "this client cannot keep a session at close or send an affinity key")
	}
	clientOptions, err := i.line.Negotiation(options.Negotiation)
	if err != nil {
		return nil, err
	}
	if handlers := options.Handlers; handlers != nil {
		if handlers.Roots != nil {
			list := make(roots, 0, len(handlers.Roots))
			for _, root := range handlers.Roots {
				list = append(list, mcp.Root{URI: root.URI, Name: root.Name})
			}
			clientOptions = append(clientOptions, client.WithRootsHandler(list))
		}
		if handlers.Sampling != nil {
			clientOptions = append(clientOptions, client.WithSamplingHandler(sampling(*handlers.Sampling)))
		}
		if handlers.Elicitation != nil {
			clientOptions = append(clientOptions, client.WithElicitationHandler(elicitation(*handlers.Elicitation)))
		}
	}

	var trans transport.Interface
	if stdio := target.Stdio; stdio != nil {
		if options.Resume != nil {
			return nil, lineproto.Errorf("unsupported", "a stdio server has no session to resume")
		}
		var stdioOptions []transport.StdioOption
		if stdio.Cwd != "" {
			// The documented way to set a working directory: a command of one's own (transport.WithCommandFunc),
			// built as the transport builds its default (the environment on top of the program's own).
			stdioOptions = append(stdioOptions, transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
				cmd := exec.CommandContext(ctx, command, args...)
				cmd.Env = append(os.Environ(), env...)
				cmd.Dir = stdio.Cwd
				return cmd, nil
			}))
		}
		trans = transport.NewStdioWithOptions(stdio.Command, stdio.EnvList(), stdio.Args, stdioOptions...)
	} else {
		var httpOptions []transport.StreamableHTTPCOption
		if options.Listen {
			httpOptions = append(httpOptions, transport.WithContinuousListening())
		}
		if options.Resume != nil {
			// The documented resume: a transport given the session id (client.NewStreamableHttpClient then makes
			// the client with client.WithSession(), as here). The client has no way to be given the revision.
			httpOptions = append(httpOptions, transport.WithSession(options.Resume.SessionID))
			clientOptions = append(clientOptions, client.WithSession())
		}
		if options.Authorization != nil {
			httpOptions = append(httpOptions, transport.WithHTTPOAuth(i.oauthConfig(target.URL, options.Authorization)))
		}
		streamable, err := transport.NewStreamableHTTP(target.URL, httpOptions...)
		if err != nil {
			return nil, err
		}
		trans = streamable
	}

	c := client.NewClient(trans, clientOptions...)
	// Started with a context of its own, as client.NewStdioMCPClient does: the transport ties the server process
	// (exec.CommandContext) and the standalone GET stream to it, so a connect timeout must not end them.
	if err := c.Start(context.Background()); err != nil {
		_ = c.Close()
		return nil, err
	}
	if i.line.DrainStderr {
		if stderr, ok := client.GetStderr(c); ok && stderr != nil {
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
		}
	}
	conn := &connection{client: c}
	if options.Resume != nil {
		return conn, nil // initialized already: client.WithSession()
	}
	connectCtx, cancel := context.WithTimeout(ctx, options.Timeout())
	defer cancel()
	initialize := mcp.InitializeRequest{Params: mcp.InitializeParams{ClientInfo: clientInfo}}
	result, err := c.Initialize(connectCtx, initialize)
	if err != nil && options.Authorization != nil && client.IsOAuthAuthorizationRequiredError(err) {
		if err = i.authorize(connectCtx, target.URL, options.Authorization, client.GetOAuthHandler(err)); err == nil {
			result, err = c.Initialize(connectCtx, initialize)
		}
	}
	if err != nil {
		// What an application does with a client that failed to initialize: close it (a stdio server is ended).
		_ = c.Close()
		return nil, err
	}
	conn.version = result.ProtocolVersion
	return conn, nil
}

type connection struct {
	client  *client.Client
	version string // from the InitializeResult Initialize returned
}

func (c *connection) Info() lineproto.Info {
	info := lineproto.Info{NegotiatedVersion: c.version, Era: lineproto.EraOf(c.version), SessionID: c.client.GetSessionId()}
	if c.version != "" {
		info.ResumeState = &lineproto.ResumeState{ProtocolVersion: c.version, SessionID: info.SessionID}
	}
	return info
}

func (c *connection) ListTools(ctx context.Context) ([]string, error) {
	result, err := c.client.ListTools(ctx, mcp.ListToolsRequest{})
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
	request := mcp.CallToolRequest{}
	request.Params.Name = name
	request.Params.Arguments = arguments
	return c.client.CallTool(ctx, request)
}

// Close is Client.Close: the transport's Close, which over HTTP sends DELETE for an issued session and over stdio
// closes the server's stdin, waits, then SIGTERM, waits, then SIGKILL (its own graces: 2 s, then 3 s).
func (c *connection) Close() error {
	return c.client.Close()
}
