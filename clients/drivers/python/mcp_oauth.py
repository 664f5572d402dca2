"""The official Python SDK's own OAuth (`mcp.client.auth.OAuthClientProvider`, an httpx Auth), configured headlessly
from the line protocol's 1.7 ConnectOptions.authorization, for mcp_sdk.py (mcp 1.x, httpx) and mcp_client.py (mcp
2.x, httpx2).

The glue gives the provider only what the SDK asks of an application: client metadata to register (the harness's
redirect URI), a TokenStorage, a redirect handler (where a browser would open, the harness's user agent follows the
URL) and a callback handler (the redirect's `code`, `state` and, on 2.x, `iss`). Discovery, registration, PKCE,
the token and refresh requests, and when to retry are the SDK's.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from runtime import user_agent

from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

try:  # mcp 2.x: the callback answers an AuthorizationCodeResult (with the RFC 9207 `iss`)
    from mcp.shared.auth import AuthorizationCodeResult
except ImportError:  # mcp 1.x: (code, state)
    AuthorizationCodeResult = None  # type: ignore[assignment,misc]

try:
    from mcp.shared._httpx_utils import create_mcp_http_client  # the SDK's own factory for its transports' client
except ImportError:  # pragma: no cover
    create_mcp_http_client = None  # type: ignore[assignment]


class Storage:
    """The SDK's TokenStorage, in memory: what it stores for one server is kept for the instance's later connections
    (a new connection of the same case reuses the tokens, as an application keeping them would)."""

    def __init__(self, pre_registered: OAuthClientInformationFull | None):
        self.tokens: OAuthToken | None = None
        self.client_info = pre_registered

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


# One storage per (user agent, server): the harness's user agent is one per case, so cases never share tokens.
_storages: dict[tuple[str, str], Storage] = {}


def _storage(authorization: dict[str, Any], server_url: str) -> Storage:
    key = (authorization["userAgentUrl"], server_url)
    if key not in _storages:
        pre_registered = None
        if authorization.get("clientId"):
            pre_registered = OAuthClientInformationFull(
                client_id=authorization["clientId"],
                client_secret=authorization.get("clientSecret"),
                redirect_uris=[authorization["redirectUri"]],
                token_endpoint_auth_method="client_secret_basic" if authorization.get("clientSecret") else "none",
            )
        _storages[key] = Storage(pre_registered)
    return _storages[key]


def oauth_provider(server_url: str, authorization: dict[str, Any]) -> OAuthClientProvider:
    redirects: list[str] = []

    async def redirect_handler(authorization_url: str) -> None:
        redirects.append(await user_agent(authorization, authorization_url))

    async def callback_handler() -> Any:
        query = parse_qs(urlsplit(redirects.pop()).query)
        code, state = query["code"][0], query.get("state", [None])[0]
        if AuthorizationCodeResult is None:
            return code, state
        return AuthorizationCodeResult(code=code, state=state, iss=query.get("iss", [None])[0])

    extra: dict[str, Any] = {}
    if authorization.get("clientMetadataUrl"):
        extra["client_metadata_url"] = authorization["clientMetadataUrl"]
    return OAuthClientProvider(
        server_url=server_url,
        client_metadata=OAuthClientMetadata(redirect_uris=[authorization["redirectUri"]], client_name="mcp-client-conformance"),
        storage=_storage(authorization, server_url),
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
        **extra,
    )


def authorized_http_client(server_url: str, authorization: dict[str, Any]) -> Any:
    """The httpx (1.x) or httpx2 (2.x) client the SDK's streamable_http_client takes, with the provider as its auth."""
    return create_mcp_http_client(auth=oauth_provider(server_url, authorization))
