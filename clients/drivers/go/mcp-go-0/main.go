// mark3labs/mcp-go 0.x (the version pinned in go.mod, the last 0.x) as a line-protocol client program; the glue is
// the shared mcpconformance/mcpgo package (../mcpgo):
//
//	go build -trimpath -o .clients/go/mcp-go-0 . && .clients/go/mcp-go-0
package main

import (
	"github.com/mark3labs/mcp-go/client"

	"mcpconformance/lineproto"
	"mcpconformance/mcpgo"
)

// Declared, and why the rest is not:
//   - mode-legacy only: Initialize sends `initialize` (offering mcp.LATEST_PROTOCOL_VERSION, 2025-11-25); this
//     line knows no 2026-07-28, no server/discover, and has no option to choose a mode.
//   - cancellation, request-timeout: the request's context.
//   - roots, sampling, elicitation: client.WithRootsHandler, WithSamplingHandler, WithElicitationHandler.
//   - listen: transport.WithContinuousListening opens the standalone GET stream.
//   - resume: transport.WithSession(id) with client.WithSession(), as client.NewStreamableHttpClient does; the
//     client takes no revision back.
//   - no keep-session: Client.Close always sends DELETE for an issued session (StreamableHTTP.Close).
//   - no transport-fallback, no 2024-11-05: the Streamable HTTP transport never falls back to HTTP+SSE; over stdio
//     the line protocol cannot declare a revision that is not declared over HTTP too.
//   - no affinity-key: no option for a client-minted Mcp-Session-Id.
//   - oauth: transport.WithHTTPOAuth and the application's flow of examples/oauth_client (../mcpgo).
func main() {
	mcpgo.Run(mcpgo.Line{
		Name:      "mcp-go@0",
		Revisions: []string{"2025-03-26", "2025-06-18", "2025-11-25"},
		Features: []string{"mode-legacy", "cancellation", "request-timeout",
			"roots", "sampling", "elicitation", "listen", "resume", "oauth"},
		Negotiation: func(negotiation lineproto.Negotiation) ([]client.ClientOption, error) {
			if negotiation.Mode == "" || negotiation.Mode == "legacy" {
				return nil, nil
			}
			return nil, lineproto.Errorf("unsupported", "this client speaks only the initialize handshake (negotiation \"legacy\")")
		},
		// The stdio transport pipes the server's stderr and reads none of it: the application must
		// (client.GetStderr), or a chatty server blocks on a full pipe.
		DrainStderr: true,
	})
}
