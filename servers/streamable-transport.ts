// The official SDK's Streamable HTTP server transport served to Node as @modelcontextprotocol/node serves it (the
// web-standard transport behind @hono/node-server's request listener), with one difference that never shows on the
// wire: a streamed answer names its `Transfer-Encoding: chunked`, which Node sends for it anyway. Unnamed,
// @hono/node-server reads two chunks of the body ahead before it writes the head and, when the second is not there yet,
// waits a setTimeout: every SSE answer whose handler had not finished at once (any tools/call after the priming event)
// left the server over a millisecond late, the largest single cost of an in-process case after the clients' own work.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';

/** The answer as it is, its streamed body marked chunked (a body of known length, or none, is left alone). */
function namedChunked(response: Response): Response {
  if (response.body === null || response.headers.has('content-length')) return response;
  const headers = new Headers(response.headers);
  headers.set('transfer-encoding', 'chunked');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

export class StreamableTransport extends WebStandardStreamableHTTPServerTransport {
  /** Serves one Node request whose body was already read, as the SDK's NodeStreamableHTTPServerTransport.handleRequest does. */
  async handleNodeRequest(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    const listener = getRequestListener(async (request) => namedChunked(await this.handleRequest(request, { parsedBody })), { overrideGlobalObjects: false });
    await listener(req, res);
  }
}
