package mcpconformance.lineprotocol;

import java.util.List;

/**
 * The hello line (protocol 1): name, description, revisions, features, transports and, when fewer over stdio than
 * {@code revisions}, stdioRevisions (null: absent).
 */
public record Hello(String name, String description, List<String> revisions, List<String> features,
		List<String> transports, List<String> stdioRevisions) {
}
