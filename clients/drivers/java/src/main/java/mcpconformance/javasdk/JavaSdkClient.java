package mcpconformance.javasdk;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import mcpconformance.lineprotocol.Client;
import mcpconformance.lineprotocol.ErrorInfo;
import mcpconformance.lineprotocol.Hello;
import mcpconformance.lineprotocol.LineProtocol;
import mcpconformance.lineprotocol.Operation;
import mcpconformance.lineprotocol.ProtocolError;
import mcpconformance.lineprotocol.Target;
import reactor.core.Exceptions;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The official Java MCP SDK ({@code io.modelcontextprotocol.sdk:mcp} 2.1.0) driven over the line protocol, used as its
 * documentation shows: {@code McpClient.sync(transport)} with {@code HttpClientStreamableHttpTransport} (a URL) or
 * {@code StdioClientTransport} (a stdio target), {@code initialize()}, {@code listTools()}, {@code callTool(...)},
 * {@code closeGracefully()}.
 *
 * <pre>
 * java -jar .clients/java/java-sdk.jar
 * </pre>
 */
public final class JavaSdkClient implements Client {

	static final String SDK = "io.modelcontextprotocol.sdk:mcp 2.1.0";

	/**
	 * The declaration. Kept free of SDK classes so the hello goes out before the SDK (Reactor, Jackson) is loaded.
	 *
	 * <p>
	 * Revisions: the Streamable HTTP transport's supportedProtocolVersions (HttpClientStreamableHttpTransport.Builder:
	 * 2025-03-26, 2025-06-18, 2025-11-25); the client offers the last and accepts any of them in the InitializeResult
	 * (LifecycleInitializer.doInitialize). Its stdio transport also accepts 2024-11-05 (McpTransport.protocolVersions),
	 * but the line protocol's stdioRevisions may only name revisions also in revisions, and 2024-11-05 over HTTP is
	 * HTTP+SSE, another transport class (HttpClientSseClientTransport), not this program's.
	 *
	 * <p>
	 * Features:
	 * <ul>
	 * <li>mode-legacy: the initialize handshake is all it speaks (no server/discover, no 2026-07-28), so no mode-auto,
	 * mode-pin.</li>
	 * <li>roots, sampling, elicitation: McpClient.SyncSpec.roots(...), .sampling(handler), .elicitation(handler) with
	 * the capability declared in ClientCapabilities.</li>
	 * <li>not cancellation: the API has no way to cancel a request; the sync calls block, and disposing the async
	 * Mono neither sends notifications/cancelled nor forgets the pending response (McpClientSession.sendRequest).</li>
	 * <li>not request-timeout: the only request timeout is the client-wide McpClient.SyncSpec.requestTimeout, fixed
	 * at build; no call takes one of its own.</li>
	 * <li>not resume, keep-session: the Streamable HTTP transport's session id is private (no getter, no way to give
	 * one to a new transport), and closeGracefully() always DELETEs the session it holds.</li>
	 * <li>not transport-fallback: the Streamable HTTP transport never falls back to HTTP+SSE.</li>
	 * <li>not affinity-key: there is no 2026-07-28 support at all.</li>
	 * <li>not listen: the transport always opens the standalone GET stream once the initialize response came (it
	 * needs no asking; the scenarios judge that stream from the wire), and has no switch to open it on demand.</li>
	 * <li>not oauth: mcp-core 2.1.0 has no OAuth client, only hooks for one an application writes itself
	 * (io.modelcontextprotocol.client.transport.customizer: McpSyncHttpClientRequestCustomizer to add a header,
	 * McpHttpClientAuthorizationErrorHandler to be told of a 401/403 and ask for a retry); discovery, registration,
	 * PKCE and the token requests would be this glue's own code, which would judge the glue, not the SDK.</li>
	 * </ul>
	 */
	private static final Hello HELLO = new Hello("java-sdk",
			"Official Java MCP SDK " + SDK
					+ " McpSyncClient + HttpClientStreamableHttpTransport or StdioClientTransport, initialize handshake only",
			List.of("2025-03-26", "2025-06-18", "2025-11-25"), List.of("mode-legacy", "roots", "sampling", "elicitation"),
			List.of("http", "stdio"), null);

	public static void main(String[] args) {
		LineProtocol.run(new JavaSdkClient());
	}

	@Override
	public Hello hello() {
		return HELLO;
	}

	@Override
	public Instance start(String caseId) {
		return new SdkInstance();
	}

	/**
	 * The SDK's error as it threw it: Reactor's wrapper of a checked exception (a TimeoutException from a Mono's
	 * timeout) unwrapped, a JSON-RPC error's code from McpError.
	 */
	@Override
	public ErrorInfo describe(Throwable error) {
		Throwable thrown = Exceptions.unwrap(error);
		Object code = null;
		for (Throwable cause = thrown; cause != null && code == null; cause = cause.getCause()) {
			if (cause instanceof McpError mcpError && mcpError.getJsonRpcError() != null) {
				code = mcpError.getJsonRpcError().code();
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return ErrorInfo.of(thrown, code);
	}

	/** One case: the clients it built, each closed at dispose unless its connection was closed already. */
	private static final class SdkInstance implements Instance {

		private final List<SdkConnection> built = new ArrayList<>();

		@Override
		public Connection connect(Target target, ObjectNode options) throws Exception {
			for (String option : List.of("resume", "affinityKey", "listen")) {
				if (options.has(option)) {
					throw new ProtocolError("unsupported", "the Java SDK client has no " + option + " option");
				}
			}
			if (options.path("keepSessionOnClose").asBoolean(false)) {
				throw new ProtocolError("unsupported", "the Java SDK client always ends its session on close");
			}
			JsonNode negotiation = options.get("negotiation");
			if (negotiation != null && !"legacy".equals(negotiation.asString(null))) {
				throw new ProtocolError("unsupported", "the Java SDK client speaks only the initialize handshake (negotiation \"legacy\")");
			}
			McpClientTransport transport = transport(target);
			McpClient.SyncSpec spec = McpClient.sync(transport);
			// connect's bound is the client's own initialization timeout (the documented initializationTimeout).
			JsonNode timeout = options.get("timeoutMs");
			if (timeout != null && timeout.isNumber()) {
				spec.initializationTimeout(Duration.ofMillis(Math.max(1, Math.round(timeout.doubleValue()))));
			}
			handlers(spec, options.get("handlers"));
			McpSyncClient client = spec.build();
			SdkConnection connection = new SdkConnection(client);
			synchronized (this.built) {
				this.built.add(connection);
			}
			// initialize() is the handshake; a failure is the client's error as thrown (the instance closes it at dispose).
			client.initialize();
			return connection;
		}

		@Override
		public void dispose() {
			List<SdkConnection> connections;
			synchronized (this.built) {
				connections = new ArrayList<>(this.built);
				this.built.clear();
			}
			// What the harness could not close (a connect that failed, so it got no handle) is closed as a user
			// releases a client: closeGracefully(), once.
			for (SdkConnection connection : connections) {
				connection.closeIfNeverClosed();
			}
		}
	}

	/** The transport a user configures for the target. */
	private static McpClientTransport transport(Target target) throws ProtocolError {
		if (target instanceof Target.Stdio stdio) {
			if (stdio.cwd() != null) {
				// ServerParameters has command, args and env only: no working directory.
				throw new ProtocolError("unsupported", "the Java SDK's ServerParameters has no working directory (cwd)");
			}
			// The SDK starts the server with this JVM's environment, plus its default variables and these on top.
			ServerParameters params = ServerParameters.builder(stdio.command()).args(stdio.args()).env(stdio.env()).build();
			return new StdioClientTransport(params, McpJsonDefaults.getMapper());
		}
		String url = ((Target.Url) target).url();
		URI uri = URI.create(url);
		if (uri.getScheme() == null || uri.getRawAuthority() == null) {
			throw new ProtocolError("invalid-request", "not an absolute URL: " + url);
		}
		// As the documentation shows: the server's base URI, and the MCP endpoint's path (default "/mcp") on it.
		String base = uri.getScheme() + "://" + uri.getRawAuthority();
		String endpoint = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
				+ (uri.getRawQuery() != null ? "?" + uri.getRawQuery() : "");
		return HttpClientStreamableHttpTransport.builder(base).endpoint(endpoint).build();
	}

	/** The answers to the server's requests: each handler registered and its capability declared, as documented. */
	private static void handlers(McpClient.SyncSpec spec, JsonNode handlers) throws Exception {
		if (handlers == null || !handlers.isObject() || handlers.isEmpty()) {
			return;
		}
		McpJsonMapper mapper = McpJsonDefaults.getMapper();
		McpSchema.ClientCapabilities.Builder capabilities = McpSchema.ClientCapabilities.builder();
		JsonNode roots = handlers.get("roots");
		if (roots != null && roots.isArray()) {
			List<McpSchema.Root> list = new ArrayList<>();
			for (JsonNode root : roots) {
				list.add(new McpSchema.Root(root.path("uri").asString(), root.has("name") ? root.get("name").asString() : null));
			}
			// listChanged false: the program never changes its roots.
			capabilities.roots(false);
			spec.roots(list);
		}
		JsonNode sampling = handlers.get("sampling");
		if (sampling != null && sampling.isObject()) {
			McpSchema.CreateMessageResult result = mapper.readValue(LineProtocol.json().writeValueAsString(sampling),
					McpSchema.CreateMessageResult.class);
			capabilities.sampling();
			spec.sampling(request -> result);
		}
		JsonNode elicitation = handlers.get("elicitation");
		if (elicitation != null && elicitation.isObject()) {
			McpSchema.ElicitResult result = mapper.readValue(LineProtocol.json().writeValueAsString(elicitation),
					McpSchema.ElicitResult.class);
			capabilities.elicitation();
			spec.elicitation(request -> result);
		}
		spec.capabilities(capabilities.build());
	}

	/** One McpSyncClient and its transport. */
	private static final class SdkConnection implements Connection {

		private final McpSyncClient client;

		private boolean closeCalled;

		SdkConnection(McpSyncClient client) {
			this.client = client;
		}

		@Override
		public ObjectNode info() {
			ObjectNode info = LineProtocol.json().createObjectNode();
			// The initialize handshake is the client's only era.
			info.put("era", "legacy");
			// What it negotiated, while it holds an initialization (closing drops it: then there is none to report).
			McpSchema.InitializeResult initialized = this.client.getCurrentInitializationResult();
			if (initialized != null && initialized.protocolVersion() != null) {
				info.put("negotiatedVersion", initialized.protocolVersion());
			}
			// No sessionId or resumeState: the transport keeps its session id private.
			return info;
		}

		@Override
		public JsonNode listTools(Operation operation) throws Exception {
			// listTools() follows nextCursor through every page.
			McpSchema.ListToolsResult result = this.client.listTools();
			return tree(result).path("tools");
		}

		@Override
		public JsonNode callTool(String name, ObjectNode arguments, Operation operation) throws Exception {
			@SuppressWarnings("unchecked")
			Map<String, Object> args = LineProtocol.json().convertValue(arguments, Map.class);
			McpSchema.CallToolResult result = this.client.callTool(new McpSchema.CallToolRequest(name, args));
			return tree(result);
		}

		@Override
		public void close() {
			synchronized (this) {
				this.closeCalled = true;
			}
			// The documented close: closeGracefully() (HTTP: DELETE of the session; stdio: the process ended). Called
			// again on a second close: the client's own idempotence is what is judged.
			this.client.closeGracefully();
		}

		void closeIfNeverClosed() {
			synchronized (this) {
				if (this.closeCalled) {
					return;
				}
				this.closeCalled = true;
			}
			this.client.closeGracefully();
		}

		/** The SDK's object as the SDK's JSON mapper writes it. */
		private static JsonNode tree(Object value) throws Exception {
			return LineProtocol.json().readTree(McpJsonDefaults.getMapper().writeValueAsString(value));
		}
	}
}
