package mcpconformance.lineprotocol;

/**
 * An error answer's members: {@code message} (required), {@code name} (the error's class name in the client) and
 * {@code code} (an Integer or a String, or null).
 */
public record ErrorInfo(String message, String name, Object code) {

	/** The error's class and message, and the messages of its causes (so a wrapper does not hide what happened). */
	public static ErrorInfo of(Throwable error, Object code) {
		return new ErrorInfo(messageOf(error), error.getClass().getSimpleName(), code);
	}

	/** {@code error}'s message, followed by each distinct cause as "; caused by Class: message". */
	public static String messageOf(Throwable error) {
		StringBuilder message = new StringBuilder(error.getMessage() != null ? error.getMessage() : error.getClass().getName());
		Throwable cause = error.getCause();
		for (int depth = 0; cause != null && cause != error && depth < 8; depth++, cause = cause.getCause()) {
			message.append("; caused by ").append(cause.getClass().getSimpleName());
			if (cause.getMessage() != null) {
				message.append(": ").append(cause.getMessage());
			}
		}
		return message.toString();
	}
}
