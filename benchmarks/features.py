"""Feature-cost runner: what each optional feature adds to a request, on S1.

Each feature is the S1 application (``GET /hello`` -> ``{"hello":"world"}``) with that one
feature turned on, and a request that exercises it (a valid bearer key, an allowed
``Origin``, a forwarded address...). Every variant is checked first (status, body, the
header the feature adds), then timed in-process like the in-process runner: interleaved
rounds in a shuffled order, so machine noise hits every variant alike. The report gives,
per feature, the median over rounds of the extra microseconds per request against the
bare application timed in the same round, and the rate ratio. The compression rows answer
a 2 KB JSON document instead: their cost is against the ``bare 2 KB`` row.

The session rows (``framework.plugins.session``, cookie store, a valid session cookie in
the request) are the plugin with a hook reading ``request.session`` (the signature checked,
the JSON loaded), and the plugin alone on a route that never reads it.

A new feature adds a row to
``FEATURES``: a name, a function that turns the feature on, the request headers that
exercise it, and what to check in the answer.
"""

from __future__ import annotations

import gc
import random
from dataclasses import dataclass, field
from typing import Any, Callable

from benchmarks import scenarios
from benchmarks.contenders.ours_logged import devnull_logger
from benchmarks.inprocess import _timer, call_environ, make_environ

BEARER_KEY = "benchmark-key-0123456789"
ORIGIN = "https://app.example"


def _noop_hook(kind: str) -> Callable[[Any], None]:
    def add(app: Any) -> None:
        if kind in ("pre_serialization", "on_send"):
            app.add_hook(kind, lambda request, reply, payload: payload)
        else:
            app.add_hook(kind, lambda request, reply: None)
    return add


def _bearer_auth(app: Any) -> None:
    from framework.plugins.bearer_auth import bearer_auth

    app.register(bearer_auth, keys={BEARER_KEY})


def _cors(app: Any) -> None:
    from framework.plugins.cors import cors

    app.register(cors, origin=[ORIGIN])


def _security_headers(app: Any) -> None:
    from framework.plugins.security_headers import security_headers

    app.register(security_headers)


# The auth rows' credentials: keys are made when the row's app is set up, which fills these in
# (the runner reads a feature's headers after its setup).
_JWT_HS256: dict[str, str] = {}
_JWT_RS256: dict[str, str] = {}
_JWT_JWKS: dict[str, str] = {}
API_KEY = "benchmark-api-key-0123456789"


def _jwt_claims() -> dict[str, Any]:
    import time

    return {"sub": "bench", "iss": "https://id.example", "aud": "api", "exp": int(time.time()) + 86400,
            "scope": "read write"}


def _auth_jwt_hs256(cache_size: int) -> Callable[[Any], None]:
    """HS256 with a secret; ``cache_size=0``: every request verifies the token again."""
    def setup(app: Any) -> None:
        import jwt

        from framework.plugins.auth import JWT, auth

        secret = "benchmark-secret-0123456789-abcdef"
        _JWT_HS256["authorization"] = "Bearer " + jwt.encode(_jwt_claims(), secret, algorithm="HS256")
        app.register(auth, any_of=[JWT(secret=secret, algorithms=["HS256"], issuer="https://id.example",
                                       audience="api", cache_size=cache_size)])
    return setup


def _rsa_key() -> Any:
    from cryptography.hazmat.primitives.asymmetric import rsa

    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _auth_jwt_rs256(cache_size: int) -> Callable[[Any], None]:
    """RS256 with a public key; ``cache_size=0``: every request verifies the token again."""
    def setup(app: Any) -> None:
        import jwt

        from framework.plugins.auth import JWT, auth

        key = _rsa_key()
        _JWT_RS256["authorization"] = "Bearer " + jwt.encode(_jwt_claims(), key, algorithm="RS256")
        app.register(auth, any_of=[JWT(public_key=key.public_key(), algorithms=["RS256"],
                                       issuer="https://id.example", audience="api", cache_size=cache_size)])
    return setup


def _auth_jwt_jwks(app: Any) -> None:
    """RS256 against a key set served on loopback, fetched at ready() and cached."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    import jwt

    from framework.plugins.auth import JWT, auth

    key = _rsa_key()
    document = json.dumps({"keys": [{**jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key(), as_dict=True),
                                     "kid": "k1", "alg": "RS256", "use": "sig"}]}).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            self.send_response(200)
            self.send_header("Cache-Control", "max-age=86400")
            self.send_header("Content-Length", str(len(document)))
            self.end_headers()
            self.wfile.write(document)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _JWT_JWKS["authorization"] = "Bearer " + jwt.encode(_jwt_claims(), key, algorithm="RS256",
                                                        headers={"kid": "k1"})
    app.register(auth, any_of=[JWT(jwks_url=f"http://127.0.0.1:{server.server_address[1]}/jwks",
                                   algorithms=["RS256"], issuer="https://id.example", audience="api")])


def _auth_api_key(app: Any) -> None:
    from framework.plugins.auth import ApiKey, auth

    app.register(auth, any_of=[ApiKey(header="X-API-Key", keys={API_KEY})])


SESSION_SECRET = "benchmark-session-secret"
#: Stands for a valid session cookie in a feature's headers (made when the environ is).
SESSION_COOKIE = "<a valid session cookie>"


def _session(read: bool) -> Callable[[Any], None]:
    """The session plugin, cookie store; ``read``: a hook reads ``request.session`` (the
    cookie's signature checked, its JSON loaded), as a route that uses the session does."""
    def add(app: Any) -> None:
        from framework.plugins.session import session

        app.register(session, secret=SESSION_SECRET)
        if read:
            app.add_hook("pre_handler", _read_session)
    return add


def _read_session(request: Any, reply: Any) -> Any:
    if request.session.get("user") != "ann":  # the check fails the variant: the cookie was not read
        return reply.code(500).send({"session": "not loaded"})
    return None


def _session_cookie() -> str:
    """A valid cookie-store session cookie (``{"user": "ann"}``) for the session rows."""
    from framework import Framework
    from framework.plugins.session import session

    app = Framework()
    app.register(session, secret=SESSION_SECRET)

    def login(request: Any, reply: Any) -> dict[str, bool]:
        request.session["user"] = "ann"
        return {"ok": True}

    app.post("/login", login)
    line = app.inject(method="POST", url="/login").headers["set-cookie"]
    return str(line.split(";")[0])


def _otel_api_only(app: Any) -> None:
    from framework.plugins.otel import otel

    app.register(otel)  # the global providers: no SDK is set up in this process


def _otel_sdk(app: Any) -> None:
    """Tracing as deployed: the SDK, a ``BatchSpanProcessor`` (its exporter drops the
    spans), and the SDK's metrics aggregated in memory."""
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    from framework.plugins.otel import otel

    class Dropped(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(Dropped()))
    app.register(otel, tracer_provider=tracer_provider,
                 meter_provider=MeterProvider(metric_readers=[InMemoryMetricReader()]))


def _prometheus(app: Any) -> None:
    from prometheus_client import CollectorRegistry

    from framework.plugins.metrics import metrics

    app.register(metrics, registry=CollectorRegistry())


def _otel_sdk_and_prometheus(app: Any) -> None:
    _otel_sdk(app)
    _prometheus(app)


def _rate_limit(app: Any) -> None:
    from framework.plugins.rate_limit import rate_limit

    # In-process memory store, fixed window; a limit the benchmark never reaches.
    app.register(rate_limit, limit="1000000000/hour")


def _health(app: Any) -> None:
    from framework.plugins.health import health

    app.register(health, checks={"database": lambda: True})


def _under_pressure(**limits: Any) -> Callable[[Any], None]:
    def add(app: Any) -> None:
        from framework.plugins.under_pressure import under_pressure

        app.register(under_pressure, **limits)
    return add


@dataclass(frozen=True)
class Feature:
    """One optional feature: ``options`` for ``Framework``, ``setup(app)`` to turn it on,
    the request ``headers`` that exercise it and a ``header`` the answer must carry."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)
    setup: Callable[[Any], None] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    header: str | None = None
    #: The answer of ``GET /hello`` instead of S1's (``PAYLOAD_2KB``: the compression rows).
    body: Any = None


#: A 2 KB JSON answer, for the compression rows (and their own bare baseline).
PAYLOAD_2KB = {"items": [{"id": i, "name": f"item number {i:04d}", "in_stock": i % 3 == 0} for i in range(40)]}


def _etag(app: Any) -> None:
    from framework.plugins.etag import etag

    app.register(etag)


def _compress(*encodings: str) -> Callable[[Any], None]:
    def setup(app: Any) -> None:
        from framework.plugins.compress import compress

        app.register(compress, encodings=encodings)
    return setup


FEATURES = (
    Feature("bare"),
    Feature("request_logging", options={"request_logging": True, "logger": None}),
    Feature("request_id_header", options={"request_id_header": "x-request-id"},
            headers={"x-request-id": "abc-123"}, header="x-request-id"),
    Feature("trust_proxy", options={"trust_proxy": True}, headers={"x-forwarded-for": "203.0.113.7"}),
    Feature("decorate_request", setup=lambda app: app.decorate_request("user", None)),
    Feature("bearer_auth", setup=_bearer_auth, headers={"authorization": f"Bearer {BEARER_KEY}"}),
    Feature("auth jwt HS256", setup=_auth_jwt_hs256(1024), headers=_JWT_HS256),
    Feature("auth jwt HS256 verify", setup=_auth_jwt_hs256(0), headers=_JWT_HS256),
    Feature("auth jwt RS256", setup=_auth_jwt_rs256(1024), headers=_JWT_RS256),
    Feature("auth jwt RS256 verify", setup=_auth_jwt_rs256(0), headers=_JWT_RS256),
    Feature("auth jwt JWKS RS256", setup=_auth_jwt_jwks, headers=_JWT_JWKS),
    Feature("auth api_key", setup=_auth_api_key, headers={"x-api-key": API_KEY}),
    Feature("cors", setup=_cors, headers={"origin": ORIGIN}, header="access-control-allow-origin"),
    Feature("security_headers", setup=_security_headers, header="content-security-policy"),
    Feature("session read", setup=_session(read=True), headers={"cookie": SESSION_COOKIE}),
    Feature("session unread", setup=_session(read=False), headers={"cookie": SESSION_COOKIE}),
    Feature("otel (API only, no SDK)", setup=_otel_api_only),
    # The caller's trace context passed through: extracted and made current, no SDK.
    Feature("otel (API only) + traceparent", setup=_otel_api_only,
            headers={"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}),
    Feature("otel (SDK, batch, metrics)", setup=_otel_sdk,
            headers={"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}),
    Feature("metrics (prometheus)", setup=_prometheus),
    Feature("otel (SDK) + metrics", setup=_otel_sdk_and_prometheus),
    Feature("rate_limit", setup=_rate_limit, header="ratelimit-remaining"),
    Feature("health", setup=_health),  # its routes only: /hello should pay nothing
    Feature("pressure in_flight", setup=_under_pressure(max_in_flight=10_000)),
    Feature("pressure all limits", setup=_under_pressure(max_in_flight=10_000, max_rss_bytes=1 << 50,
                                                        max_p99_latency=60.0)),
    Feature("etag", setup=_etag, header="etag"),
    Feature("bare 2 KB", body=PAYLOAD_2KB),
    Feature("compress gzip 2 KB", setup=_compress("gzip"), headers={"accept-encoding": "gzip"},
            header="content-encoding", body=PAYLOAD_2KB),
    Feature("compress br 2 KB", setup=_compress("br", "gzip"), headers={"accept-encoding": "br, gzip"},
            header="content-encoding", body=PAYLOAD_2KB),
    *(Feature(f"hook {kind}", setup=_noop_hook(kind))
      for kind in ("on_request", "pre_parsing", "pre_validation", "pre_handler", "pre_serialization",
                   "on_send", "on_response")),
)


def create_app(feature: Feature) -> Any:
    """The S1 application with ``feature`` on, readied."""
    from framework import Framework

    options = dict(feature.options)
    if "logger" in options:
        options["logger"] = devnull_logger("benchmarks.features")
    app = Framework(**options)
    if feature.setup is not None:
        feature.setup(app)
    answer = scenarios.HELLO if feature.body is None else feature.body
    app.get("/hello", lambda request, reply: answer)
    app.ready()
    return app


def _environ(feature: Feature) -> tuple[dict[str, Any], bytes]:
    environ, body = make_environ(scenarios.S1)
    for name, value in feature.headers.items():
        if value == SESSION_COOKIE:
            value = _session_cookie()
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    return environ, body


def check(app: Any, feature: Feature) -> str | None:
    """None when the variant answers S1 with the feature at work, else a reason."""
    status, headers, data = call_environ(app, *_environ(feature))
    if feature.body is not None:
        return _judge_payload(feature, status, headers, data)
    reason = scenarios.S1.judge_body(status, data)
    if reason is None and feature.header and not any(name.lower() == feature.header for name, _ in headers):
        reason = f"no {feature.header} header in the answer"
    return reason


def _judge_payload(feature: Feature, status: int, headers: list[tuple[str, str]], data: bytes) -> str | None:
    """None when the answer is ``feature.body`` (decoded from its Content-Encoding), else a reason."""
    import gzip
    import json

    coding = next((value for name, value in headers if name.lower() == "content-encoding"), None)
    if feature.header == "content-encoding" and coding is None:
        return "the answer was not compressed"
    if coding == "gzip":
        data = gzip.decompress(data)
    elif coding == "br":
        import brotli
        data = brotli.decompress(data)
    if status != 200 or json.loads(data) != feature.body:
        return f"status {status}, not the 2 KB document"
    return None


def run(rounds: int = 11, batch_seconds: float = 0.15, fixed_calls: int | None = None, seed: int = 1,
        log: Callable[[str], None] = print) -> dict[str, Any]:
    """Check and time every feature; ``{"status": {...}, "rates": {name: [per round]}}``."""
    apps: dict[str, Any] = {}
    environs: dict[str, tuple[dict[str, Any], bytes]] = {}
    status: dict[str, str] = {}
    for feature in FEATURES:
        try:
            app = create_app(feature)
            reason = check(app, feature)
        except Exception as exc:  # noqa: BLE001 - report any failure as a failed check
            reason = f"raised {type(exc).__name__}: {exc}"
        status[feature.name] = "ok" if reason is None else "failed: " + reason
        if reason is None:
            apps[feature.name] = app
            environs[feature.name] = _environ(feature)
        log(f"  feature {feature.name:20s} {status[feature.name]}")
    sizes = {}
    for name, app in apps.items():
        environ, body = environs[name]
        _timer(app, environ, body, 50)
        if fixed_calls:
            sizes[name] = fixed_calls
            continue
        n = 100
        while (elapsed := _timer(app, environ, body, n)) < 0.02:
            n *= 4
        sizes[name] = max(20, int(n * batch_seconds / elapsed))
    rates: dict[str, list[float]] = {name: [] for name in apps}
    rng = random.Random(seed)
    for _ in range(rounds):
        order = list(apps)
        rng.shuffle(order)
        for name in order:
            gc.collect()
            environ, body = environs[name]
            rates[name].append(sizes[name] / _timer(apps[name], environ, body, sizes[name]))
    return {"status": status, "rounds": rounds, "rates": rates}


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def report(result: dict[str, Any]) -> str:
    """The feature-cost table: per feature, its rate, the extra microseconds per request and
    the rate ratio against the bare application, medians of per-round figures."""
    rates = result["rates"]
    lines = [f"Feature cost on S1 (GET /hello), in-process, {result['rounds']} interleaved rounds",
             f"{'feature':22s} {'req/s':>10s} {'+us/request':>12s} {'vs bare':>8s}"]
    bare = rates.get("bare")
    for feature in FEATURES:
        name = feature.name
        if name not in rates:
            lines.append(f"{name:22s} {result['status'][name]}")
            continue
        rate = _median(rates[name])
        if bare:
            extra = _median([(1 / r - 1 / b) * 1e6 for r, b in zip(rates[name], bare)])
            ratio = _median([r / b for r, b in zip(rates[name], bare)])
            lines.append(f"{name:22s} {rate:10,.0f} {extra:12.2f} {ratio:8.2f}")
        else:
            lines.append(f"{name:22s} {rate:10,.0f} {'-':>12s} {'-':>8s}")
    return "\n".join(lines)
