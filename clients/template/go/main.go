// A line-protocol program to copy and change: it drives the official Go MCP SDK (github.com/modelcontextprotocol/go-sdk).
//
//	go build -o my-client . && npx mcp-client-conformance run --adapter-command ./my-client
//
// lineproto (the folder beside this file, replaced in go.mod) is the line protocol: the hello, one goroutine per
// request, the answers, `cancel` and `timeoutMs` as the request's context, shutdown. Keep it as it is. Replace the
// three marked places with your client's calls, the way its documentation shows a user. Guide: WRITING-AN-ADAPTER.md
// (in the package: node_modules/mcp-client-conformance/clients/WRITING-AN-ADAPTER.md), section 4.
package main

import (
	"context"
	"log"
	"os"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpconformance/lineproto"
)

var hello = lineproto.Hello{
	Name:        "my-client", // stable: used in test titles and baselines
	Description: "template: the Go MCP SDK's mcp.Client over Streamable HTTP and stdio",
	Revisions:   []string{"2025-03-26", "2025-06-18", "2025-11-25"},
	// Only what your client really does through its public API (docs/line-protocol.md lists every feature).
	Features:   []string{"mode-legacy", "cancellation", "request-timeout"},
	Transports: []string{"http", "stdio"},
}

func main() {
	log.SetOutput(os.Stderr) // stdout is the protocol's: every log line goes to stderr
	lineproto.Run(lineproto.Driver{
		Hello: hello,
		Start: func(string) (lineproto.Client, error) { return instance{}, nil },
	})
}

// instance is one case's client.
type instance struct{}

func (instance) Dispose() error { return nil }

func (instance) Connect(ctx context.Context, target lineproto.Target, options lineproto.ConnectOptions) (lineproto.Connection, error) {
	// (1) Create and connect your client the way your documentation shows. A stdio target is a command your client
	// launches: pass it, and its environment, as your users configure a local server.
	client := mcp.NewClient(&mcp.Implementation{Name: "my-client", Version: "1.0.0"}, nil)
	var transport mcp.Transport
	if stdio := target.Stdio; stdio != nil {
		cmd := exec.Command(stdio.Command, stdio.Args...)
		cmd.Env = append(os.Environ(), stdio.EnvList()...)
		cmd.Dir = stdio.Cwd
		transport = &mcp.CommandTransport{Command: cmd}
	} else {
		transport = &mcp.StreamableClientTransport{Endpoint: target.URL}
	}
	connectCtx, cancel := context.WithTimeout(ctx, options.Timeout()) // the contract's connect timeout
	defer cancel()
	// mode-legacy: a revision with the initialize handshake (the SDK's default, 2026-07-28, probes server/discover).
	session, err := client.Connect(connectCtx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		return nil, err
	}
	return connection{session}, nil
}

type connection struct{ session *mcp.ClientSession }

// (2) What your client says it negotiated: leave out what it cannot tell. Never send anything to answer.
func (c connection) Info() lineproto.Info {
	info := lineproto.Info{SessionID: c.session.ID()}
	if result := c.session.InitializeResult(); result != nil {
		info.NegotiatedVersion, info.Era = result.ProtocolVersion, lineproto.EraOf(result.ProtocolVersion)
	}
	return info
}

func (c connection) ListTools(ctx context.Context) ([]string, error) {
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

func (c connection) CallTool(ctx context.Context, name string, arguments map[string]any) (any, error) {
	return c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: arguments})
}

// (3) Close the way your documentation says: ClientSession.Close ends the session (DELETE over HTTP; over stdio it
// closes the server's stdin, waits, then SIGTERM, then SIGKILL). A second Close is harmless.
func (c connection) Close() error { return c.session.Close() }
