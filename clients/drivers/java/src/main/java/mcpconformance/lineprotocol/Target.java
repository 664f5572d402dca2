package mcpconformance.lineprotocol;

import java.util.List;
import java.util.Map;

/** What {@code connect} is given: a URL (transport http) or a stdio target (a command the client launches). */
public sealed interface Target {

	/** Streamable HTTP (or HTTP+SSE) endpoint. */
	record Url(String url) implements Target {
	}

	/** A server to launch: command and args (no shell), env on top of the client's defaults, cwd (null: absent). */
	record Stdio(String command, List<String> args, Map<String, String> env, String cwd) implements Target {
	}
}
