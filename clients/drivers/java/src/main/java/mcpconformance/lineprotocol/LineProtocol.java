package mcpconformance.lineprotocol;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The line protocol, version 1.7 (docs/line-protocol.md), for any {@link Client}: the hello first, then one JSON request
 * per line on stdin, each answered by exactly one JSON line on stdout (flushed), in any order. Every request but
 * {@code cancel} and {@code shutdown} runs on a thread of its own, so a slow call never holds up another case; the
 * program exits (code 0) after answering {@code shutdown} and when stdin ends. Nothing but protocol lines reaches stdout:
 * {@link System#out} is pointed at stderr, where logs go.
 *
 * <p>
 * The runtime keeps what the protocol itself names: the live cases (start to dispose), the connection handles it hands
 * out (kept until dispose, so {@code info} and a second {@code close} still reach a closed connection) and the
 * operations in flight (for {@code cancel}). It adds no lifecycle of its own: each op is one call of the client's glue.
 */
public final class LineProtocol {

	/** The protocol's major version, in the hello. */
	public static final int PROTOCOL = 1;

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final PrintStream LOG = System.err;

	private final Client client;

	private final OutputStream out;

	private final Object outLock = new Object();

	private final ExecutorService pool = Executors.newCachedThreadPool(runnable -> {
		Thread thread = new Thread(runnable, "line-protocol-op");
		thread.setDaemon(true);
		return thread;
	});

	private final Object state = new Object();

	/** case id -> its instance and the connection handles it was given. */
	private final Map<String, CaseState> cases = new HashMap<>();

	/** connection handle -> connection (until its case is disposed). */
	private final Map<String, Client.Connection> connections = new HashMap<>();

	/** request id -> operation in flight (listTools, callTool), for cancel. */
	private final Map<Long, Operation> inFlight = new HashMap<>();

	/** The requests not answered yet: each is answered once, by its operation or (1.4) as hung at its deadline. */
	private final Set<Long> unanswered = ConcurrentHashMap.newKeySet();

	/**
	 * When an unsettled operation is answered "hung" (line protocol 1.4): one carrying a client timeout, halfway from that
	 * timeout to the deadline (the client's own timeout fires first); any other at this share of the deadline.
	 */
	private static final double HUNG_AT = 0.9;

	private final ScheduledExecutorService deadlines = Executors.newSingleThreadScheduledExecutor(runnable -> {
		Thread thread = new Thread(runnable, "line-protocol-deadlines");
		thread.setDaemon(true);
		return thread;
	});

	private final AtomicLong connectionIds = new AtomicLong();

	private static final class CaseState {

		final Client.Instance instance;

		final Set<String> connections = new LinkedHashSet<>();

		CaseState(Client.Instance instance) {
			this.instance = instance;
		}
	}

	private LineProtocol(Client client, OutputStream out) {
		this.client = client;
		this.out = out;
	}

	/** Serves the line protocol on this process's stdin and stdout for {@code client}; never returns. */
	public static void run(Client client) {
		OutputStream protocolOut = new FileOutputStream(FileDescriptor.out);
		// A stray print (a library's) goes to stderr with the logs, never between protocol lines.
		System.setOut(System.err);
		new LineProtocol(client, protocolOut).serve();
	}

	/** A line on stderr, where the harness keeps the last lines for its failure messages. */
	public static void log(String message) {
		LOG.println("java driver: " + message);
		LOG.flush();
	}

	/** The JSON mapper of the protocol lines (plain Jackson: the glue converts the client's own objects with it). */
	public static JsonMapper json() {
		return JSON;
	}

	private void serve() {
		send(helloLine(this.client.hello()));
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		try {
			String raw;
			while ((raw = in.readLine()) != null) {
				String line = raw.strip();
				if (!line.isEmpty()) {
					accept(line);
				}
			}
		}
		catch (IOException error) {
			log("reading stdin failed: " + error);
		}
		// stdin ended: the harness is gone, and nobody is left to answer.
		exit();
	}

	private void accept(String line) {
		JsonNode request;
		try {
			request = JSON.readTree(line);
		}
		catch (RuntimeException error) {
			log("ignoring a line that is not JSON: " + abbreviate(line));
			return;
		}
		JsonNode idNode = request == null ? null : request.get("id");
		if (request == null || !request.isObject() || idNode == null || !idNode.isIntegralNumber()) {
			log("ignoring a request without an integer id: " + abbreviate(line));
			return;
		}
		long id = idNode.longValue();
		String op = text(request, "op");
		if ("shutdown".equals(op)) {
			answer(id, JSON.createObjectNode());
			exit();
		}
		if ("cancel".equals(op)) {
			// Answered at once (also when the target has finished: that race is normal); the target answers for itself.
			Operation target;
			synchronized (this.state) {
				JsonNode targetId = request.get("target");
				target = targetId != null && targetId.isIntegralNumber() ? this.inFlight.get(targetId.longValue()) : null;
			}
			answer(id, JSON.createObjectNode());
			if (target != null) {
				this.pool.execute(target::cancel);
			}
			return;
		}
		if ("listTools".equals(op) || "callTool".equals(op)) {
			JsonNode timeout = request.get("timeoutMs");
			Operation operation = new Operation(timeout != null && timeout.isNumber() ? timeout.doubleValue() : null);
			synchronized (this.state) {
				this.inFlight.put(id, operation);
			}
		}
		this.listed.add(id);
		this.unanswered.add(id);
		// 1.4: an operation the client has not settled by (almost) the harness's deadline is answered hung and left
		// running, so this program stays alive for the cases in flight beside it.
		JsonNode deadline = request.get("deadlineMs");
		if (deadline != null && deadline.isNumber() && deadline.doubleValue() > 0) {
			JsonNode options = request.get("options");
			JsonNode own = request.has("timeoutMs") ? request.get("timeoutMs") : options != null ? options.get("timeoutMs") : null;
			double ms = deadline.doubleValue();
			long hungAfter = own != null && own.isNumber() && own.doubleValue() > 0 && own.doubleValue() < ms ? (long) ((own.doubleValue() + ms) / 2) : (long) (ms * HUNG_AT);
			this.deadlines.schedule(() -> answerError(id, new ErrorInfo("the client did not settle " + op + " within " + deadline.asText() + " ms", "ClientHung", "hung")), hungAfter, TimeUnit.MILLISECONDS);
		}
		this.pool.execute(() -> handle(id, op, (ObjectNode) request));
	}

	private void handle(long id, String op, ObjectNode request) {
		try {
			answer(id, perform(id, op, request));
		}
		catch (ProtocolError error) {
			answerError(id, new ErrorInfo(error.getMessage(), "ProtocolError", error.code()));
		}
		catch (Throwable error) {
			// The whole trace on stderr (the harness keeps its last lines); the answer carries the client's error.
			LOG.println("java driver: " + op + " (request " + id + ") failed:");
			error.printStackTrace(LOG);
			LOG.flush();
			ErrorInfo info;
			try {
				info = this.client.describe(error);
			}
			catch (RuntimeException describing) {
				info = ErrorInfo.of(error, null);
			}
			answerError(id, info);
		}
		finally {
			synchronized (this.state) {
				this.inFlight.remove(id);
			}
		}
	}

	private JsonNode perform(long id, String op, ObjectNode request) throws Exception {
		String caseId = text(request, "case");
		switch (op == null ? "" : op) {
			case "start": {
				requireCase(caseId);
				synchronized (this.state) {
					if (this.cases.containsKey(caseId)) {
						throw new ProtocolError("case-live", "case " + caseId + " is already started");
					}
					// Reserved before the instance exists, so a second start of the same case is refused.
					this.cases.put(caseId, null);
				}
				Client.Instance instance;
				try {
					instance = this.client.start(caseId);
				}
				catch (Exception | Error error) {
					synchronized (this.state) {
						this.cases.remove(caseId);
					}
					throw error;
				}
				synchronized (this.state) {
					this.cases.put(caseId, new CaseState(instance));
				}
				return JSON.createObjectNode();
			}
			case "connect": {
				CaseState live = liveCase(caseId);
				JsonNode options = request.get("options");
				if (options == null || !options.isObject()) {
					throw new ProtocolError("invalid-request", "connect needs options (an object with timeoutMs)");
				}
				Target target = target(request);
				Client.Connection connection = live.instance.connect(target, (ObjectNode) options);
				String handle = "c" + this.connectionIds.incrementAndGet();
				boolean disposed;
				synchronized (this.state) {
					disposed = this.cases.get(caseId) != live;
					if (!disposed) {
						this.connections.put(handle, connection);
						live.connections.add(handle);
					}
				}
				if (disposed) {
					throw new ProtocolError("unknown-case", "case " + caseId + " was disposed during connect");
				}
				ObjectNode result = JSON.createObjectNode();
				result.put("connection", handle);
				return result;
			}
			case "info":
				return connection(request).info();
			case "listTools": {
				JsonNode tools = connection(request).listTools(operation(id));
				ArrayNode names = JSON.createArrayNode();
				if (tools != null) {
					for (JsonNode tool : tools) {
						ObjectNode summary = names.addObject();
						JsonNode name = tool.get("name");
						summary.put("name", name != null && name.isString() ? name.stringValue() : String.valueOf(name));
					}
				}
				ObjectNode result = JSON.createObjectNode();
				result.set("tools", names);
				return result;
			}
			case "callTool": {
				JsonNode arguments = request.get("arguments");
				ObjectNode args = arguments != null && arguments.isObject() ? (ObjectNode) arguments : JSON.createObjectNode();
				return connection(request).callTool(text(request, "name"), args, operation(id));
			}
			case "close":
				connection(request).close();
				return JSON.createObjectNode();
			case "dispose": {
				CaseState live = liveCase(caseId);
				synchronized (this.state) {
					this.cases.remove(caseId);
					for (String handle : live.connections) {
						this.connections.remove(handle);
					}
				}
				live.instance.dispose();
				return JSON.createObjectNode();
			}
			default:
				throw new ProtocolError("unknown-op", "unknown op " + op);
		}
	}

	private Operation operation(long id) {
		synchronized (this.state) {
			Operation operation = this.inFlight.get(id);
			return operation != null ? operation : new Operation(null);
		}
	}

	private static void requireCase(String caseId) throws ProtocolError {
		if (caseId == null || caseId.isEmpty()) {
			throw new ProtocolError("invalid-request", "the request names no case");
		}
	}

	private CaseState liveCase(String caseId) throws ProtocolError {
		requireCase(caseId);
		synchronized (this.state) {
			CaseState live = this.cases.get(caseId);
			if (live == null) {
				throw new ProtocolError("unknown-case", "no client instance for case " + caseId);
			}
			return live;
		}
	}

	private Client.Connection connection(ObjectNode request) throws ProtocolError {
		String handle = text(request, "connection");
		synchronized (this.state) {
			Client.Connection connection = handle == null ? null : this.connections.get(handle);
			if (connection == null) {
				throw new ProtocolError("unknown-connection", "no connection " + handle);
			}
			return connection;
		}
	}

	private static Target target(ObjectNode request) throws ProtocolError {
		JsonNode url = request.get("url");
		JsonNode target = request.get("target");
		if (url != null && target == null) {
			if (!url.isString()) {
				throw new ProtocolError("invalid-request", "url is not a string");
			}
			return new Target.Url(url.stringValue());
		}
		if (target != null && url == null && target.isObject()) {
			if (!"stdio".equals(text(target, "transport"))) {
				throw new ProtocolError("unsupported", "unknown target transport " + target.get("transport"));
			}
			String command = text(target, "command");
			if (command == null || command.isEmpty()) {
				throw new ProtocolError("invalid-request", "a stdio target needs a command");
			}
			List<String> args = new ArrayList<>();
			JsonNode argsNode = target.get("args");
			if (argsNode != null && argsNode.isArray()) {
				for (JsonNode arg : argsNode) {
					args.add(arg.asString());
				}
			}
			Map<String, String> env = new LinkedHashMap<>();
			JsonNode envNode = target.get("env");
			if (envNode != null && envNode.isObject()) {
				envNode.forEachEntry((name, value) -> env.put(name, value.asString()));
			}
			return new Target.Stdio(command, List.copyOf(args), env, text(target, "cwd"));
		}
		throw new ProtocolError("invalid-request", "connect needs exactly one of url and target");
	}

	private static String text(JsonNode node, String member) {
		JsonNode value = node.get(member);
		return value != null && value.isString() ? value.stringValue() : null;
	}

	private static ObjectNode helloLine(Hello hello) {
		ObjectNode line = JSON.createObjectNode();
		line.put("protocol", PROTOCOL);
		line.put("name", hello.name());
		line.put("description", hello.description());
		hello.revisions().forEach(line.putArray("revisions")::add);
		hello.features().forEach(line.putArray("features")::add);
		if (hello.transports() != null) {
			hello.transports().forEach(line.putArray("transports")::add);
		}
		if (hello.stdioRevisions() != null) {
			hello.stdioRevisions().forEach(line.putArray("stdioRevisions")::add);
		}
		return line;
	}

	private void answer(long id, JsonNode result) {
		if (!this.unanswered.remove(id) && !unlisted(id)) {
			return;
		}
		ObjectNode line = JSON.createObjectNode();
		line.put("id", id);
		line.set("result", result != null ? result : JSON.createObjectNode());
		send(line);
	}

	private void answerError(long id, ErrorInfo info) {
		if (!this.unanswered.remove(id) && !unlisted(id)) {
			return;
		}
		ObjectNode error = JSON.createObjectNode();
		error.put("message", info.message() != null && !info.message().isEmpty() ? info.message() : String.valueOf(info.name()));
		if (info.name() != null) {
			error.put("name", info.name());
		}
		if (info.code() instanceof Number number) {
			error.put("code", number.longValue());
		}
		else if (info.code() != null) {
			error.put("code", info.code().toString());
		}
		ObjectNode line = JSON.createObjectNode();
		line.put("id", id);
		line.set("error", error);
		send(line);
	}

	/** Answers to shutdown and cancel are written at once and never listed; a listed request is answered once. */
	private final Set<Long> listed = ConcurrentHashMap.newKeySet();

	private boolean unlisted(long id) {
		return !this.listed.contains(id);
	}

	private void send(JsonNode message) {
		// Jackson escapes every control character in a string, so one message is one line.
		byte[] line = (JSON.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8);
		synchronized (this.outLock) {
			try {
				this.out.write(line);
				this.out.flush();
			}
			catch (IOException error) {
				// The harness is gone: nobody is left to answer.
				Runtime.getRuntime().halt(0);
			}
		}
	}

	private void exit() {
		synchronized (this.outLock) {
			try {
				this.out.flush();
			}
			catch (IOException ignored) {
				// exiting anyway
			}
		}
		LOG.flush();
		// halt, not exit: no shutdown hook of a library may hold the exit up.
		Runtime.getRuntime().halt(0);
	}

	private static String abbreviate(String line) {
		return line.length() > 200 ? line.substring(0, 200) + "…" : line;
	}
}
