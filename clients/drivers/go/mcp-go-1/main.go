// mark3labs/mcp-go 1.x (the version pinned in go.mod) as a line-protocol client program; the glue is the shared
// mcpconformance/mcpgo package (../mcpgo):
//
//	go build -trimpath -o .clients/go/mcp-go-1 . && .clients/go/mcp-go-1
package main

import (
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"mcpconformance/lineproto"
	"mcpconformance/mcpgo"
)

// Declared, and why the rest is not:
//   - mode-legacy: client.WithProtocolVersion with a revision before 2026-07-28 ("keeps the client on the
//     initialize handshake"); mode-auto: the default (Initialize probes with server/discover, then falls back).
//   - no mode-pin: nothing keeps the client on 2026-07-28: Initialize falls back to `initialize` whenever the
//     probe fails (client/client.go, Client.Initialize).
//   - cancellation, request-timeout: the request's context.
//   - roots, sampling, elicitation: client.WithRootsHandler, WithSamplingHandler, WithElicitationHandler; at
//     2026-07-28 the client answers input-required results with the same handlers (client/mrtr.go).
//   - listen: transport.WithContinuousListening opens the standalone GET stream (legacy revisions).
//   - resume: transport.WithSession(id) with client.WithSession(), as client.NewStreamableHttpClient does; the
//     client takes no revision back (it sends what it has: none until a new Initialize).
//   - no keep-session: Client.Close always sends DELETE for an issued session (client/transport/streamable_http.go,
//     StreamableHTTP.Close).
//   - no transport-fallback, no 2024-11-05: the Streamable HTTP transport never falls back to HTTP+SSE (a separate
//     transport.SSE the application must choose); over stdio the line protocol cannot declare a revision that
//     is not declared over HTTP too.
//   - no affinity-key: no option for a client-minted Mcp-Session-Id.
//   - oauth: transport.WithHTTPOAuth and the application's flow of examples/oauth_client (../mcpgo).
func main() {
	mcpgo.Run(mcpgo.Line{
		Name:      "mcp-go@1",
		Revisions: []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"},
		Features: []string{"mode-legacy", "mode-auto", "cancellation", "request-timeout",
			"roots", "sampling", "elicitation", "listen", "resume", "oauth"},
		Negotiation: func(negotiation lineproto.Negotiation) ([]client.ClientOption, error) {
			switch negotiation.Mode {
			case "legacy":
				return []client.ClientOption{client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION)}, nil
			case "", "auto":
				return nil, nil // the client's default
			}
			return nil, lineproto.Errorf("unsupported", "no negotiation %q in this client", negotiation.Mode)
		},
		// The stdio transport drains the server's stderr itself (transport.WithCommandStderrWriter, io.Discard).
		DrainStderr: false,
	})
}
