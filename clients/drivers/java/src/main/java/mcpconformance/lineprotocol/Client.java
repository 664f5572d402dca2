package mcpconformance.lineprotocol;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What one MCP client offers the line protocol (docs/line-protocol.md): its hello, and a fresh instance per test case.
 * The glue of a client implements these interfaces by calling the client's public API; everything the protocol itself
 * needs (framing, ids, cases, connection handles, concurrency, error answers, shutdown) is {@link LineProtocol}'s.
 */
public interface Client {

	/** The hello: the client's declaration, printed before anything else (keep it free of slow class loading). */
	Hello hello();

	/** A fresh client instance for one test case ({@code start}); it lives until {@code dispose}. */
	Instance start(String caseId) throws Exception;

	/**
	 * How an exception the client threw is reported: its class name, message and code. The default names the
	 * exception's own class and message; a client overrides it to add its own codes (a JSON-RPC code, an HTTP status).
	 */
	default ErrorInfo describe(Throwable error) {
		return ErrorInfo.of(error, null);
	}

	/** One client instance (one test case). */
	interface Instance {

		/** {@code connect}: a URL or a stdio target, and the ConnectOptions object as the harness sent it. */
		Connection connect(Target target, ObjectNode options) throws Exception;

		/** {@code dispose}: releases what the instance holds (the harness closes its connections first). */
		void dispose() throws Exception;
	}

	/** One connection, as {@code connect} returned it. */
	interface Connection {

		/** {@code info}: ConnectionInfo, what the client says about the connection (omit what it does not expose). */
		ObjectNode info() throws Exception;

		/** {@code listTools}: the tools as the client lists them; the runtime keeps each one's name. */
		JsonNode listTools(Operation operation) throws Exception;

		/** {@code callTool}: the tool result as the client returns it (a CallToolResult object). */
		JsonNode callTool(String name, ObjectNode arguments, Operation operation) throws Exception;

		/** {@code close}: the way the client's documentation closes; a second call must be harmless. */
		void close() throws Exception;
	}
}
