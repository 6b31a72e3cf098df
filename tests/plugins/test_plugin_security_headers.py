"""framework.plugins.security_headers: helmet's default headers, each option, scoping and
overriding by context, HSTS over HTTPS only, error and streamed answers; served by gunicorn
and granian, and Swagger UI (framework.plugins.openapi) rendering under it in Chromium."""
from __future__ import annotations

import http.client
import re
import sys

import pytest

from framework import Framework
from framework.plugins.bearer_auth import bearer_auth
from framework.plugins.openapi import openapi
from framework.plugins.security_headers import SecurityHeadersOptionsError, security_headers
from test_plugin_openapi_example import _headless
from servers import free_port, start, stop

DEFAULT_POLICY = ("default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';"
                  "frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self';"
                  "script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests")
DEFAULTS = {
    "content-security-policy": DEFAULT_POLICY,
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "origin-agent-cluster": "?1",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-dns-prefetch-control": "off",
    "x-download-options": "noopen",
    "x-frame-options": "SAMEORIGIN",
    "x-permitted-cross-domain-policies": "none",
    "x-xss-protection": "0",
}
HSTS = "strict-transport-security"
OPTION_HEADERS = {
    "content_security_policy": "content-security-policy",
    "cross_origin_opener_policy": "cross-origin-opener-policy",
    "cross_origin_resource_policy": "cross-origin-resource-policy",
    "origin_agent_cluster": "origin-agent-cluster",
    "referrer_policy": "referrer-policy",
    "x_content_type_options": "x-content-type-options",
    "x_dns_prefetch_control": "x-dns-prefetch-control",
    "x_download_options": "x-download-options",
    "x_frame_options": "x-frame-options",
    "x_permitted_cross_domain_policies": "x-permitted-cross-domain-policies",
    "x_xss_protection": "x-xss-protection",
}


def app_with(**options) -> Framework:
    app = Framework()
    app.register(security_headers, **options)
    app.get("/", lambda request, reply: {"ok": True})
    return app


def headers_of(app: Framework, url: str = "/", **inject) -> dict[str, str]:
    return dict(app.inject(url=url, **inject).headers)


def policy_of(**csp) -> str:
    return headers_of(app_with(content_security_policy=csp))["content-security-policy"]


# Defaults.
@pytest.mark.parametrize("header", sorted(DEFAULTS))
def test_each_default_header(header):
    assert headers_of(app_with())[header] == DEFAULTS[header]


def test_no_other_header_by_default():
    headers = headers_of(app_with())
    assert set(headers) - {"content-type", "content-length"} == set(DEFAULTS)
    assert "cross-origin-embedder-policy" not in headers and HSTS not in headers


def test_without_the_plugin_there_are_none():
    app = Framework()
    app.get("/", lambda request, reply: {"ok": True})
    assert not set(headers_of(app)) & set(DEFAULTS)


# Strict-Transport-Security: HTTPS only, as request.protocol sees it.
def test_hsts_on_an_https_request():
    assert headers_of(app_with(), **{"wsgi.url_scheme": "https"})[HSTS] == "max-age=31536000; includeSubDomains"


def test_hsts_follows_x_forwarded_proto_only_from_a_trusted_proxy():
    forwarded = {"headers": {"x-forwarded-proto": "https"}}
    assert HSTS not in headers_of(app_with(), **forwarded)
    trusting = Framework(trust_proxy=True)
    trusting.register(security_headers)
    trusting.get("/", lambda request, reply: {"ok": True})
    assert headers_of(trusting, **forwarded)[HSTS] == "max-age=31536000; includeSubDomains"
    assert HSTS not in headers_of(trusting)
    assert HSTS not in headers_of(trusting, headers={"x-forwarded-proto": "http"}, **{"wsgi.url_scheme": "https"})


@pytest.mark.parametrize("options, value", [
    ({"max_age": 60}, "max-age=60; includeSubDomains"),
    ({"include_subdomains": False}, "max-age=31536000"),
    ({"preload": True}, "max-age=31536000; includeSubDomains; preload"),
    ({"max_age": 0, "include_subdomains": False, "preload": True}, "max-age=0; preload"),
])
def test_hsts_options(options, value):
    headers = headers_of(app_with(strict_transport_security=options), **{"wsgi.url_scheme": "https"})
    assert headers[HSTS] == value


def test_hsts_off():
    assert HSTS not in headers_of(app_with(strict_transport_security=False), **{"wsgi.url_scheme": "https"})


# Each header off, each value.
@pytest.mark.parametrize("option", sorted(OPTION_HEADERS))
def test_each_header_can_be_turned_off(option):
    headers = headers_of(app_with(**{option: False}))
    assert OPTION_HEADERS[option] not in headers
    assert len(set(headers) & set(DEFAULTS)) == len(DEFAULTS) - 1


@pytest.mark.parametrize("option", sorted(OPTION_HEADERS))
def test_true_is_the_default(option):
    assert headers_of(app_with(**{option: True})) == headers_of(app_with())


@pytest.mark.parametrize("option, value, header_value", [
    ("x_frame_options", "DENY", "DENY"),
    ("x_frame_options", "deny", "DENY"),
    ("x_frame_options", "same-origin", "SAMEORIGIN"),
    ("referrer_policy", "strict-origin-when-cross-origin", "strict-origin-when-cross-origin"),
    ("referrer_policy", ["no-referrer", "strict-origin-when-cross-origin"],
     "no-referrer,strict-origin-when-cross-origin"),
    ("cross_origin_opener_policy", "same-origin-allow-popups", "same-origin-allow-popups"),
    ("cross_origin_resource_policy", "cross-origin", "cross-origin"),
    ("x_dns_prefetch_control", "on", "on"),
    ("x_permitted_cross_domain_policies", "by-content-type", "by-content-type"),
])
def test_header_values(option, value, header_value):
    assert headers_of(app_with(**{option: value}))[OPTION_HEADERS[option]] == header_value


@pytest.mark.parametrize("value, header_value", [(True, "require-corp"), ("credentialless", "credentialless")])
def test_cross_origin_embedder_policy_is_opt_in(value, header_value):
    assert headers_of(app_with(cross_origin_embedder_policy=value))["cross-origin-embedder-policy"] == header_value


# Content-Security-Policy directives, merged with the defaults as helmet merges them.
def test_a_directive_replaces_the_default_one_in_place():
    policy = policy_of(directives={"img-src": ["'self'", "https://cdn.example"]})
    assert policy == DEFAULT_POLICY.replace("img-src 'self' data:", "img-src 'self' https://cdn.example")


def test_a_new_directive_goes_last_and_snake_case_names_are_accepted():
    policy = policy_of(directives={"connect_src": "'self'", "worker-src": ["blob:"]})
    assert policy == DEFAULT_POLICY + ";connect-src 'self';worker-src blob:"


def test_none_removes_a_default_directive():
    policy = policy_of(directives={"upgrade-insecure-requests": None, "script-src-attr": None})
    assert "upgrade-insecure-requests" not in policy and "script-src-attr" not in policy
    assert policy.startswith("default-src 'self';base-uri 'self'")


def test_use_defaults_false_sends_only_the_directives_given():
    assert policy_of(use_defaults=False, directives={"default-src": ["'none'"], "img-src": []}) == \
        "default-src 'none';img-src"


def test_report_only_sends_the_report_only_header():
    headers = headers_of(app_with(content_security_policy={"report_only": True}))
    assert headers["content-security-policy-report-only"] == DEFAULT_POLICY
    assert "content-security-policy" not in headers


# Scoping and overriding.
def scoped_app() -> Framework:
    app = Framework()

    def secured(instance, opts):
        instance.register(security_headers)
        instance.get("/page", lambda request, reply: "secured")

        def framed(child, opts):
            child.register(security_headers, x_frame_options="DENY", content_security_policy=False)
            child.get("/page", lambda request, reply: "framed")
        instance.register(framed, prefix="/framed")

    def sibling(instance, opts):
        instance.get("/page", lambda request, reply: "sibling")

    app.register(secured, prefix="/secured")
    app.register(sibling, prefix="/sibling")
    return app


def test_the_routes_of_the_registering_context_get_the_headers_a_sibling_does_not():
    app = scoped_app()
    assert headers_of(app, "/secured/page")["x-frame-options"] == "SAMEORIGIN"
    assert not set(headers_of(app, "/sibling/page")) & set(DEFAULTS)


def test_a_child_registration_overrides_its_subtree_as_a_whole():
    app = scoped_app()
    headers = headers_of(app, "/secured/framed/page")
    assert headers["x-frame-options"] == "DENY"
    assert "content-security-policy" not in headers  # turned off here, though the parent sets it
    assert headers["referrer-policy"] == "no-referrer"  # the child's own defaults
    assert headers_of(app, "/secured/page")["content-security-policy"] == DEFAULT_POLICY


def test_a_child_turning_hsts_off_removes_the_parents():
    app = Framework()
    app.register(security_headers)

    def plain(instance, opts):
        instance.register(security_headers, strict_transport_security=False)
        instance.get("/page", lambda request, reply: "plain")
    app.register(plain, prefix="/plain")
    app.get("/", lambda request, reply: "root")
    assert HSTS in headers_of(app, "/", **{"wsgi.url_scheme": "https"})
    assert HSTS not in headers_of(app, "/plain/page", **{"wsgi.url_scheme": "https"})


def test_a_header_the_route_sets_itself_wins():
    app = Framework()
    app.register(security_headers)
    app.get("/", lambda request, reply: reply.header("x-frame-options", "DENY").send("mine"))
    assert headers_of(app)["x-frame-options"] == "DENY"


def test_the_openapi_page_keeps_its_own_policy_and_its_json_gets_the_defaults():
    app = Framework()
    app.register(security_headers)
    app.register(openapi, info={"title": "t", "version": "1"})
    page = headers_of(app, "/documentation")
    assert page["content-security-policy"] != DEFAULT_POLICY and "script-src 'self'" in page["content-security-policy"]
    assert page["x-frame-options"] == "SAMEORIGIN"
    assert headers_of(app, "/documentation/json")["content-security-policy"] == DEFAULT_POLICY


# Error, refused and streamed answers carry the headers.
def test_errors_and_not_found_answers_carry_the_headers():
    app = app_with()

    def fail(request, reply):
        raise RuntimeError("boom")
    app.get("/fail", fail)
    failed = app.inject(url="/fail")
    assert failed.status_code == 500 and failed.headers["x-frame-options"] == "SAMEORIGIN"
    missing = app.inject(url="/nope")
    assert missing.status_code == 404 and missing.headers["content-security-policy"] == DEFAULT_POLICY


def test_the_not_found_answer_of_a_prefixed_context_with_its_own_handler():
    app = Framework()

    def api(instance, opts):
        instance.register(security_headers, x_frame_options="DENY")
        instance.set_not_found_handler(lambda request, reply: reply.code(404).send({"missing": request.url}))
        instance.get("/thing", lambda request, reply: "thing")
    app.register(api, prefix="/api")
    answer = app.inject(url="/api/other")
    assert answer.status_code == 404 and answer.headers["x-frame-options"] == "DENY"


def test_a_refusal_by_an_earlier_hook_of_the_context_carries_the_headers():
    app = Framework()

    def private(instance, opts):
        instance.register(bearer_auth, keys={"k"})
        instance.register(security_headers)
        instance.get("/secret", lambda request, reply: "secret")
    app.register(private)
    refused = app.inject(url="/secret")
    assert refused.status_code == 401 and refused.headers["x-frame-options"] == "SAMEORIGIN"


def test_a_validation_error_carries_the_headers():
    app = app_with()
    app.post("/items", {"schema": {"body": {"type": "object", "required": ["name"]}}}, lambda request, reply: "ok")
    answer = app.inject(method="POST", url="/items", json={})
    assert answer.status_code == 400 and answer.headers["referrer-policy"] == "no-referrer"


def test_a_streamed_reply_carries_the_headers():
    app = app_with()
    app.get("/stream", lambda request, reply: reply.send(iter([b"a", b"b"])))
    answer = app.inject(url="/stream")
    assert answer.body == b"ab" and answer.headers["x-content-type-options"] == "nosniff"


def test_a_file_reply_carries_the_headers(tmp_path):
    (tmp_path / "page.html").write_text("<p>file</p>")
    app = app_with()
    app.get("/file", lambda request, reply: reply.send_file(tmp_path / "page.html"))
    answer = app.inject(url="/file")
    assert answer.status_code == 200 and answer.headers["content-security-policy"] == DEFAULT_POLICY
    cached = app.inject(url="/file", headers={"if-none-match": answer.headers["etag"]})
    assert cached.status_code == 304 and cached.headers["x-frame-options"] == "SAMEORIGIN"


# Options checked when the plugin loads.
@pytest.mark.parametrize("options, message", [
    ({"frame_options": "DENY"}, "unknown option 'frame_options' (did you mean 'x_frame_options'?)"),
    ({"hsts": True}, "unknown option 'hsts'"),
    ({"x_frame_options": "ALLOW-FROM https://a.example"}, "x_frame_options has to be True, False or one of"),
    ({"referrer_policy": "no-referer"}, "unknown policy 'no-referer'"),
    ({"referrer_policy": []}, "non-empty list"),
    ({"referrer_policy": ["origin", "origin"]}, "'origin' is listed twice"),
    ({"x_xss_protection": "1; mode=block"}, "x_xss_protection has to be True or False"),
    ({"cross_origin_resource_policy": "same-origin\r\nx-evil: 1"}, "cross_origin_resource_policy has to be"),
    ({"strict_transport_security": {"maxAge": 5}}, "unknown strict_transport_security key 'maxAge' "
                                                   "(did you mean 'max_age'?)"),
    ({"strict_transport_security": {"max_age": -1}}, "max_age has to be a number of seconds"),
    ({"strict_transport_security": {"max_age": 1.5}}, "max_age has to be a number of seconds"),
    ({"strict_transport_security": {"max_age": True}}, "max_age has to be a number of seconds"),
    ({"strict_transport_security": {"preload": "yes"}}, "preload has to be True or False"),
    ({"strict_transport_security": 3600}, "strict_transport_security has to be True, False or a dict"),
    ({"content_security_policy": {"directive": {}}}, "(did you mean 'directives'?)"),
    ({"content_security_policy": {"directives": {"script-scr": ["'self'"]}}},
     "unknown directive 'script-scr' (did you mean 'script-src'?)"),
    ({"content_security_policy": {"directives": {"img-src": ["'self'; script-src *"]}}}, "is not a source"),
    ({"content_security_policy": {"directives": {"img-src": ["'self'\nx-evil: 1"]}}}, "is not a source"),
    ({"content_security_policy": {"directives": {"img-src": ["a.example, b.example"]}}}, "is not a source"),
    ({"content_security_policy": {"directives": {"img-src": [3]}}}, "is not a source"),
    ({"content_security_policy": {"directives": {"img-src": True}}}, "takes a list of sources"),
    ({"content_security_policy": {"directives": {"script-src": ["self"]}}}, "'self' has to be quoted"),
    ({"content_security_policy": {"directives": {"script-src": ["nonce-abc"]}}}, "has to be quoted"),
    ({"content_security_policy": {"directives": {"default-src": None}}}, "needs default-src"),
    ({"content_security_policy": {"use_defaults": False, "directives": {"img-src": []}}}, "needs a default-src"),
    ({"content_security_policy": {"directives": {"img-src": [], "img_src": []}}}, "'img-src' is given twice"),
    ({"content_security_policy": {"report_only": "yes"}}, "report_only has to be True or False"),
])
def test_bad_options_are_refused_at_ready(options, message):
    app = app_with(**options)
    with pytest.raises(SecurityHeadersOptionsError) as refused:
        app.ready()
    assert message in str(refused.value)
    assert str(refused.value).startswith("security_headers: ")


# Real servers.
def _get(port: int, path: str) -> tuple[int, dict[str, str]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        return response.status, {name.lower(): value for name, value in response.getheaders()}
    finally:
        connection.close()


def _command(server: str, port: int) -> list[str]:
    if server == "gunicorn":
        return [sys.executable, "-m", "gunicorn", "-b", f"127.0.0.1:{port}", "-w", "1", "security_headers_app:app"]
    return [sys.executable, "-m", "granian", "--interface", "wsgi", "--host", "127.0.0.1", "--port", str(port),
            "--workers", "1", "security_headers_app:app"]


@pytest.mark.parametrize("server", ["gunicorn", "granian"])
def test_served_answers_carry_the_headers(server):
    if server == "granian":
        pytest.importorskip("granian", reason="granian is an optional extra")
    port = free_port()
    process = start(_command(server, port), port)
    try:
        found, found_headers = _get(port, "/child")
        missing, missing_headers = _get(port, "/no/such/page")
    finally:
        stop(process)
    assert (found, missing) == (200, 404)
    for headers in (found_headers, missing_headers):
        assert {name: headers.get(name) for name in DEFAULTS} == DEFAULTS
        assert HSTS not in headers


def test_swagger_ui_renders_under_the_default_headers_in_chromium(tmp_path):
    port = free_port()
    process = start([sys.executable, "-m", "gunicorn", "-b", f"127.0.0.1:{port}", "-w", "1",
                     "security_headers_app:app"], port)
    logging = ("--enable-logging=stderr", "--v=0")  # the page's console: policy violations show there
    try:
        status, headers = _get(port, "/documentation/static/swagger-ui-bundle.js")
        page = _headless(f"--user-data-dir={tmp_path / 'page'}", *logging, "--dump-dom",
                         f"http://127.0.0.1:{port}/documentation")
        inline = _headless(f"--user-data-dir={tmp_path / 'inline'}", *logging, "--dump-dom",
                           f"http://127.0.0.1:{port}/inline")
    finally:
        stop(process)
    assert status == 200 and headers["cross-origin-resource-policy"] == "same-origin"
    dom = page.stdout
    blocks = re.findall(r'class="opblock opblock-(?:get|post|put|delete)\b', dom)
    assert len(blocks) == 9, (page.stderr[-3000:], dom[-2000:])
    assert "framework example" in dom and "Authorize" in dom
    assert "Content Security Policy" not in page.stderr, page.stderr[-3000:]
    # The browser does enforce the default policy: another page's inline script is blocked.
    assert "page" in inline.stdout and "INLINE-RAN" not in inline.stdout
    assert "violates the following Content Security Policy directive" in inline.stderr
