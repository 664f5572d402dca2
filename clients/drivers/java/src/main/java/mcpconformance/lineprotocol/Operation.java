package mcpconformance.lineprotocol;

import java.util.ArrayList;
import java.util.List;

/**
 * One {@code listTools} or {@code callTool}: its per-request timeout ({@code timeoutMs}, null when absent; feature
 * request-timeout) and its cancellation (a {@code cancel} naming it; feature cancellation). A client that declares
 * neither ignores both.
 */
public final class Operation {

	private final Double timeoutMs;

	private final List<Runnable> onCancel = new ArrayList<>();

	private boolean cancelled;

	Operation(Double timeoutMs) {
		this.timeoutMs = timeoutMs;
	}

	/** The operation's own timeout in milliseconds, or null. */
	public Double timeoutMs() {
		return this.timeoutMs;
	}

	/** Whether a {@code cancel} named this operation. */
	public synchronized boolean cancelled() {
		return this.cancelled;
	}

	/** Runs {@code action} when the operation is cancelled (at once if it already was). */
	public void onCancel(Runnable action) {
		boolean now;
		synchronized (this) {
			now = this.cancelled;
			if (!now) {
				this.onCancel.add(action);
			}
		}
		if (now) {
			action.run();
		}
	}

	void cancel() {
		List<Runnable> actions;
		synchronized (this) {
			if (this.cancelled) {
				return;
			}
			this.cancelled = true;
			actions = new ArrayList<>(this.onCancel);
			this.onCancel.clear();
		}
		for (Runnable action : actions) {
			try {
				action.run();
			}
			catch (RuntimeException error) {
				LineProtocol.log("a cancel action failed: " + error);
			}
		}
	}
}
