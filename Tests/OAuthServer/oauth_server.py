"""The OAuth 2.0 authorization server of reqbench's tests (started by .ci/lib.sh, rb_start_oauth).

Every grant is authlib's (RFC 6749 client credentials, password, authorization code, refresh
token; RFC 7636 PKCE; RFC 8628 device code): this file only keeps clients, codes and tokens in
memory and adds a protected resource and a few test hooks. Run it in ONE process (its state is
in memory): gunicorn --workers 1 --threads 16 oauth_server:app.

Clients (id / secret):
  svc / svc-secret        client_credentials; client_secret_basic or client_secret_post
  cli / cli-secret        the same, for the command tests (their counts apart from svc's)
  app / app-secret        password + refresh_token (user ada / ada-password)
  short / short-secret    like app, but access tokens live 2 seconds
  web / web-secret        authorization_code + refresh_token, PKCE S256 required; any
                          http://127.0.0.1:PORT/... or http://[::1]:PORT/... redirect (RFC 8252)
  tv                      device_code + refresh_token, public (no secret)
  tvslow                  like tv, but its first poll is answered slow_down (RFC 8628 §3.5)

Endpoints:
  POST /token                      the token endpoint (?delay=SECONDS answers that much later)
  GET  /authorize                  authorization endpoint; answers a consent page (200)
  POST /authorize                  confirm=yes approves (302 to the redirect with code and state)
  POST /device_authorization       RFC 8628 device authorization (interval 1 s)
  POST /device                     user_code=…&approve=yes|no: the user at the verification page
  GET  /api/me                     protected: the token's client, user and scope; 401 otherwise
  POST /test/revoke                client_id=…: its access tokens are revoked (refresh tokens kept)
  POST /test/revoke-refresh        client_id=…: its refresh tokens are revoked too
  GET  /test/stats                 token requests per client and grant type, since start
  ANY  /test/redirect?status=S&to=URL   answers S (a 3xx, default 307) with Location: URL, the
                                   token or device endpoint that sends its client elsewhere
  POST /test/reset                 forgets every token and count
"""

import threading
import time
from urllib.parse import urlsplit

from authlib.integrations.flask_oauth2 import AuthorizationServer, ResourceProtector, current_token
from authlib.oauth2.rfc6749 import ClientMixin, TokenMixin, grants
from authlib.oauth2.rfc6749.errors import OAuth2Error
from authlib.oauth2.rfc6750 import BearerToken, BearerTokenValidator
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oauth2.rfc8628 import DeviceAuthorizationEndpoint, DeviceCodeGrant, DeviceCredentialDict
from authlib.common.security import generate_token
from flask import Flask, jsonify, request

USERS = {"ada": "ada-password"}
LOCK = threading.RLock()


class Client(ClientMixin):
    def __init__(self, client_id, secret, grant_types, expires_in=3600):
        self.client_id = client_id
        self.client_secret = secret
        self.grant_types = grant_types
        self.expires_in = expires_in

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return None

    def get_allowed_scope(self, scope):
        return scope or ""

    def check_redirect_uri(self, redirect_uri):
        # RFC 8252 §7.3: a loopback redirect may use any port.
        parts = urlsplit(redirect_uri)
        return parts.scheme == "http" and parts.hostname in ("127.0.0.1", "::1")

    def check_client_secret(self, client_secret):
        return self.client_secret is not None and client_secret == self.client_secret

    def check_endpoint_auth_method(self, method, endpoint):
        if self.client_secret is None:
            return method == "none"
        return method in ("client_secret_basic", "client_secret_post")

    def check_response_type(self, response_type):
        return response_type == "code" and "authorization_code" in self.grant_types

    def check_grant_type(self, grant_type):
        return grant_type in self.grant_types


CLIENTS = {
    c.client_id: c
    for c in [
        Client("svc", "svc-secret", ["client_credentials"]),
        Client("cli", "cli-secret", ["client_credentials"]),
        Client("app", "app-secret", ["password", "refresh_token"]),
        Client("short", "short-secret", ["password", "refresh_token"], expires_in=2),
        Client("web", "web-secret", ["authorization_code", "refresh_token"]),
        Client("tv", None, [DeviceCodeGrant.GRANT_TYPE, "refresh_token"]),
        Client("tvslow", None, [DeviceCodeGrant.GRANT_TYPE, "refresh_token"]),
    ]
}


class Token(TokenMixin):
    def __init__(self, data, client_id, user):
        self.data = data
        self.client_id = client_id
        self.user = user
        self.issued_at = time.time()
        self.revoked = False
        self.refresh_revoked = False

    def check_client(self, client):
        return client.get_client_id() == self.client_id

    def get_scope(self):
        return self.data.get("scope", "")

    def get_expires_in(self):
        return self.data.get("expires_in", 0)

    def is_expired(self):
        return time.time() >= self.issued_at + self.get_expires_in()

    def is_revoked(self):
        return self.revoked

    def get_user(self):
        return self.user

    def get_client(self):
        return CLIENTS[self.client_id]


TOKENS = {}  # access token -> Token
REFRESH = {}  # refresh token -> Token
CODES = {}  # authorization code -> dict
DEVICE = {}  # device code -> DeviceCredentialDict
GRANTS = {}  # user code -> (user, approved)
POLLS = {}  # device code -> time of the last poll
STATS = {}  # "client grant_type" -> count


def save_token(token, req):
    user = getattr(req, "user", None)
    client = req.client
    with LOCK:
        record = Token(dict(token), client.get_client_id(), user)
        TOKENS[token["access_token"]] = record
        if token.get("refresh_token"):
            REFRESH[token["refresh_token"]] = record


def query_client(client_id):
    return CLIENTS.get(client_id)


class PasswordGrant(grants.ResourceOwnerPasswordCredentialsGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]

    def authenticate_user(self, username, password):
        if USERS.get(username) == password:
            return username
        return None


class ClientCredentialsGrant(grants.ClientCredentialsGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]


class RefreshTokenGrant(grants.RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]
    INCLUDE_NEW_REFRESH_TOKEN = True

    def authenticate_refresh_token(self, refresh_token):
        with LOCK:
            record = REFRESH.get(refresh_token)
        if record is not None and not record.refresh_revoked:
            return record
        return None

    def authenticate_user(self, credential):
        return credential.user

    def revoke_old_credential(self, credential):
        with LOCK:
            credential.revoked = True
            credential.refresh_revoked = True


class AuthorizationCodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]

    def save_authorization_code(self, code, req):
        with LOCK:
            CODES[code] = {
                "client_id": req.client.get_client_id(),
                "redirect_uri": req.payload.redirect_uri,
                "scope": req.payload.scope or "",
                "user": req.user,
                "code_challenge": req.payload.data.get("code_challenge"),
                "code_challenge_method": req.payload.data.get("code_challenge_method"),
                "issued_at": time.time(),
            }

    def query_authorization_code(self, code, client):
        with LOCK:
            item = CODES.get(code)
        if item and item["client_id"] == client.get_client_id() and time.time() - item["issued_at"] < 300:
            return AuthCode(code, item)
        return None

    def delete_authorization_code(self, authorization_code):
        with LOCK:
            CODES.pop(authorization_code.code, None)

    def authenticate_user(self, authorization_code):
        return authorization_code.item["user"]


class AuthCode:
    def __init__(self, code, item):
        self.code = code
        self.item = item

    def get_redirect_uri(self):
        return self.item["redirect_uri"]

    def get_scope(self):
        return self.item["scope"]

    def get_nonce(self):
        return None

    def get_auth_time(self):
        return None

    def get_acr(self):
        return None

    def get_amr(self):
        return None

    # authlib's CodeChallenge reads these two.
    @property
    def code_challenge(self):
        return self.item["code_challenge"]

    @property
    def code_challenge_method(self):
        return self.item["code_challenge_method"]


class DeviceEndpoint(DeviceAuthorizationEndpoint):
    INTERVAL = 1
    EXPIRES_IN = 120

    def get_verification_uri(self):
        return request.host_url.rstrip("/") + "/device"

    def save_device_credential(self, client_id, scope, data):
        with LOCK:
            DEVICE[data["device_code"]] = DeviceCredentialDict(
                client_id=client_id, scope=scope, expires_at=time.time() + data["expires_in"], **data
            )


class DeviceGrant(DeviceCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["none"]

    def query_device_credential(self, device_code):
        with LOCK:
            return DEVICE.get(device_code)

    def query_user_grant(self, user_code):
        with LOCK:
            return GRANTS.get(user_code)

    def should_slow_down(self, credential):
        # RFC 8628 §3.5: a poll sooner than the interval after the last one is too fast.
        now = time.time()
        with LOCK:
            last = POLLS.get(credential["device_code"])
            POLLS[credential["device_code"]] = now
        if last is None:
            return credential["client_id"] == "tvslow"
        return now - last < credential["interval"] - 0.05


def expires_in(client, grant_type):
    return client.expires_in


app = Flask(__name__)
server = AuthorizationServer(app, query_client=query_client, save_token=save_token)
server.register_token_generator(
    "default",
    BearerToken(lambda **kw: generate_token(42), lambda **kw: generate_token(48), expires_generator=expires_in),
)
server.register_grant(ClientCredentialsGrant)
server.register_grant(PasswordGrant)
server.register_grant(RefreshTokenGrant)
server.register_grant(AuthorizationCodeGrant, [CodeChallenge(required=True)])
server.register_grant(DeviceGrant)
server.register_endpoint(DeviceEndpoint)


class Validator(BearerTokenValidator):
    def authenticate_token(self, token_string):
        with LOCK:
            return TOKENS.get(token_string)


require_oauth = ResourceProtector()
require_oauth.register_token_validator(Validator())


def count(grant_type):
    client_id = request.form.get("client_id")
    if request.authorization and request.authorization.username:
        client_id = request.authorization.username
    key = f"{client_id} {grant_type}"
    with LOCK:
        STATS[key] = STATS.get(key, 0) + 1


@app.post("/token")
def token():
    delay = min(float(request.args.get("delay", "0") or 0), 5.0)
    if delay > 0:
        time.sleep(delay)
    count(request.form.get("grant_type"))
    return server.create_token_response()


@app.get("/authorize")
def authorize_page():
    try:
        grant = server.get_consent_grant(end_user="ada")
    except OAuth2Error as error:
        return jsonify(dict(error.get_body())), error.status_code
    return f"<form method=post><p>Allow {grant.client.get_client_id()}?</p><button name=confirm value=yes>Allow</button></form>"


@app.post("/authorize")
def authorize_confirm():
    user = "ada" if request.form.get("confirm") == "yes" else None
    return server.create_authorization_response(grant_user=user)


@app.post("/device_authorization")
def device_authorization():
    return server.create_endpoint_response(DeviceEndpoint.ENDPOINT_NAME)


@app.post("/device")
def device_verify():
    user_code = request.form.get("user_code", "")
    with LOCK:
        known = any(c["user_code"] == user_code for c in DEVICE.values())
        if not known:
            return jsonify(error="unknown user_code"), 404
        GRANTS[user_code] = ("ada", request.form.get("approve") == "yes")
    return jsonify(ok=True)


@app.get("/api/me")
@require_oauth()
def me():
    token = current_token
    return jsonify(client=token.client_id, user=token.user, scope=token.get_scope())


@app.post("/test/revoke")
def revoke():
    client_id = request.form.get("client_id")
    with LOCK:
        hit = 0
        for record in TOKENS.values():
            if record.client_id == client_id and not record.revoked:
                record.revoked = True
                hit += 1
    return jsonify(revoked=hit)


@app.post("/test/revoke-refresh")
def revoke_refresh():
    client_id = request.form.get("client_id")
    with LOCK:
        for record in TOKENS.values():
            if record.client_id == client_id:
                record.revoked = True
                record.refresh_revoked = True
    return jsonify(ok=True)


@app.route("/test/redirect", methods=["GET", "POST"])
def redirect_elsewhere():
    status = int(request.args.get("status", "307") or 307)
    if not 300 <= status <= 399:
        return jsonify(error="status must be a 3xx"), 400
    return "", status, {"Location": request.args.get("to", "/token")}


@app.get("/test/stats")
def stats():
    with LOCK:
        return jsonify(dict(STATS))


@app.post("/test/reset")
def reset():
    with LOCK:
        for table in (TOKENS, REFRESH, CODES, DEVICE, GRANTS, POLLS, STATS):
            table.clear()
    return jsonify(ok=True)
