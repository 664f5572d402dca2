package myclient;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import mcpconformance.lineprotocol.Client;
import mcpconformance.lineprotocol.Hello;
import mcpconformance.lineprotocol.LineProtocol;
import mcpconformance.lineprotocol.Operation;
import mcpconformance.lineprotocol.ProtocolError;
import mcpconformance.lineprotocol.Target;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A line-protocol program to copy and change: it drives the official Java MCP SDK ({@code McpSyncClient}).
 *
 * <pre>
 * mvn -q package && npx mcp-client-conformance run --adapter-command "java -jar target/my-client-conformance.jar"
 * </pre>
 *
 * The package {@code mcpconformance.lineprotocol} beside it is the line protocol (the hello, one thread per request,
 * the answers, cancel, shutdown): keep it as it is. Replace the three marked places with your client's calls, the way
 * its documentation shows a user. Its logs go to stderr (src/main/resources/simplelogger.properties): stdout is the
 * protocol's. Guide: WRITING-AN-ADAPTER.md (in the package:
 * node_modules/mcp-client-conformance/clients/WRITING-AN-ADAPTER.md), section 4.
 */
public final class MyClient implements Client {

	// Only what your client really does through its public API (docs/line-protocol.md lists every feature): this SDK
	// has no way to cancel a request or to time one out on its own, so neither cancellation nor request-timeout.
	private static final Hello HELLO = new Hello("my-client", "template: the Java MCP SDK's McpSyncClient over Streamable HTTP and stdio",
			List.of("2025-03-26", "2025-06-18", "2025-11-25"), List.of("mode-legacy"), List.of("http", "stdio"), null);

	public static void main(String[] args) {
		LineProtocol.run(new MyClient());
	}

	@Override
	public Hello hello() {
		return HELLO;
	}

	@Override
	public Instance start(String caseId) {
		return new Instance() {
			@Override
			public Connection connect(Target target, ObjectNode options) throws Exception {
				// (1) Create and connect your client the way your documentation shows. A stdio target is a command your
				// client launches: pass it, and its environment, as your users configure a local server.
				McpSyncClient client = McpClient.sync(transport(target))
					// the contract's connect timeout
					.initializationTimeout(Duration.ofMillis(Math.max(1, Math.round(options.path("timeoutMs").asDouble()))))
					.build();
				client.initialize();
				return new MyConnection(client);
			}

			@Override
			public void dispose() {
			}
		};
	}

	private static McpClientTransport transport(Target target) throws ProtocolError {
		if (target instanceof Target.Stdio stdio) {
			if (stdio.cwd() != null) {
				throw new ProtocolError("unsupported", "ServerParameters has no working directory");
			}
			ServerParameters server = ServerParameters.builder(stdio.command()).args(stdio.args()).env(stdio.env()).build();
			return new StdioClientTransport(server, McpJsonDefaults.getMapper());
		}
		URI url = URI.create(((Target.Url) target).url());
		return HttpClientStreamableHttpTransport.builder(url.getScheme() + "://" + url.getRawAuthority()).endpoint(url.getRawPath()).build();
	}

	private record MyConnection(McpSyncClient client) implements Connection {

		/** (2) What your client says it negotiated: leave out what it cannot tell. Never send anything to answer. */
		@Override
		public ObjectNode info() {
			ObjectNode info = LineProtocol.json().createObjectNode().put("era", "legacy");
			McpSchema.InitializeResult initialized = this.client.getCurrentInitializationResult();
			if (initialized != null) {
				info.put("negotiatedVersion", initialized.protocolVersion());
			}
			return info;
		}

		@Override
		public JsonNode listTools(Operation operation) throws Exception {
			return tree(this.client.listTools()).path("tools");
		}

		@Override
		public JsonNode callTool(String name, ObjectNode arguments, Operation operation) throws Exception {
			@SuppressWarnings("unchecked")
			Map<String, Object> args = LineProtocol.json().convertValue(arguments, Map.class);
			return tree(this.client.callTool(new McpSchema.CallToolRequest(name, args)));
		}

		/** (3) Close the way your documentation says: closeGracefully() ends the session (DELETE over HTTP). */
		@Override
		public void close() {
			this.client.closeGracefully();
		}

		private static JsonNode tree(Object value) throws Exception {
			return LineProtocol.json().readTree(McpJsonDefaults.getMapper().writeValueAsString(value));
		}
	}
}
