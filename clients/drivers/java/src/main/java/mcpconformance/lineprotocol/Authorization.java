package mcpconformance.lineprotocol;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * ConnectOptions.authorization (line protocol 1.7, feature {@code oauth}; AuthorizationOptions in clients/adapter.ts),
 * as data: register {@code redirectUri}; where the client would open a browser, hand the URL to {@link #userAgent},
 * the harness's user agent, which answers with the redirect ({@code ?code=…&state=…&iss=…}). {@code clientId} (and
 * {@code clientSecret}) are credentials registered beforehand, {@code clientMetadataUrl} a Client ID Metadata Document
 * the suite serves (null: absent). How the client authorizes, refreshes and retries is the client's.
 */
public record Authorization(String redirectUri, String userAgentUrl, String clientId, String clientSecret,
		String clientMetadataUrl) {

	/** The options' authorization, or null when the harness sent none. */
	public static Authorization of(ObjectNode options) {
		JsonNode node = options.get("authorization");
		if (node == null || !node.isObject()) {
			return null;
		}
		return new Authorization(text(node, "redirectUri"), text(node, "userAgentUrl"), text(node, "clientId"),
				text(node, "clientSecret"), text(node, "clientMetadataUrl"));
	}

	private static String text(JsonNode node, String name) {
		JsonNode member = node.get(name);
		return member != null && member.isString() ? member.stringValue() : null;
	}

	/** What a browser would do with the authorization URL: the redirect to {@code redirectUri} it ends at. */
	public String userAgent(String authorizationUrl) throws IOException, InterruptedException {
		ObjectNode body = LineProtocol.json().createObjectNode().put("authorizationUrl", authorizationUrl).put("redirectUri", redirectUri);
		HttpRequest request = HttpRequest.newBuilder(URI.create(userAgentUrl)).timeout(Duration.ofSeconds(30))
				.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
		HttpResponse<String> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
		JsonNode answer = LineProtocol.json().readTree(response.body());
		if (response.statusCode() != 200) {
			throw new IOException("the user agent could not authorize: " + text(answer, "error"));
		}
		return text(answer, "redirect");
	}
}
