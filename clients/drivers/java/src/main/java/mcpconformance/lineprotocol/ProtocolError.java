package mcpconformance.lineprotocol;

/**
 * A failure of the line protocol's own (an unknown case or connection, an option the client does not support): its
 * code is one of the protocol's ({@code unknown-op}, {@code unknown-case}, {@code unknown-connection}, {@code case-live},
 * {@code unsupported}, {@code invalid-request}, {@code aborted}).
 */
public final class ProtocolError extends Exception {

	private static final long serialVersionUID = 1L;

	private final String code;

	public ProtocolError(String code, String message) {
		super(message);
		this.code = code;
	}

	public String code() {
		return this.code;
	}
}
