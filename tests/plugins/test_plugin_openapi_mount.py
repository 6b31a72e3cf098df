"""framework.plugins.openapi's page below a mount point (werkzeug's DispatcherMiddleware
sets SCRIPT_NAME): links and the document's servers name the mount; the page sends
nosniff and a Content-Security-Policy it works under, mounted and not (Chromium)."""
from __future__ import annotations

import re
import sys

import pytest
from werkzeug.middleware.dispatcher import DispatcherMiddleware
from werkzeug.wrappers import Response

from framework import Framework
from framework.plugins.openapi import openapi
from framework.testing import inject
from test_plugin_openapi_example import _headless
from servers import free_port, start, stop


def documented_app(**options) -> Framework:
    app = Framework()
    app.register(openapi, info={"title": "Mounted", "version": "1"}, **options)
    app.get("/things/:id", {"schema": {"params": {"type": "object", "properties": {"id": {"type": "integer"}}}}},
            lambda request, reply: {"id": request.params["id"]})
    return app


def mounted(app: Framework) -> DispatcherMiddleware:
    return DispatcherMiddleware(Response("host", mimetype="text/plain"), {"/api/v1": app})


def test_the_page_links_below_the_mount_point():
    page = inject(mounted(documented_app()), url="/api/v1/documentation")
    assert page.status_code == 200
    links = re.findall(r'(?:src|href|data-url)="([^"]+)"', page.text)
    assert links and all(link.startswith("/api/v1/documentation/") for link in links), links
    host = mounted(documented_app())
    for link in links:
        assert inject(host, url=link).status_code == 200, link


def test_the_page_at_the_root_links_from_the_root():
    page = inject(documented_app(), url="/documentation")
    links = re.findall(r'(?:src|href|data-url)="([^"]+)"', page.text)
    assert sorted(links) == ["/documentation/json", "/documentation/static/favicon-32x32.png",
                             "/documentation/static/init.js", "/documentation/static/swagger-ui-bundle.js",
                             "/documentation/static/swagger-ui.css"]


def test_the_document_names_the_mount_as_its_server():
    document = inject(mounted(documented_app()), url="/api/v1/documentation/json").json()
    assert document["servers"] == [{"url": "/api/v1"}]
    assert list(document["paths"]) == ["/things/{id}"]
    assert "servers" not in inject(documented_app(), url="/documentation/json").json()
    configured = documented_app(servers=[{"url": "https://api.example.com/v1"}])
    assert inject(mounted(configured), url="/api/v1/documentation/json").json()["servers"] == [
        {"url": "https://api.example.com/v1"}]


def test_a_mount_point_that_is_not_a_plain_path_is_not_written_into_the_page():
    app = documented_app()
    for script_name in ['/x"><script>alert(1)</script>', "/a b", "javascript:alert(1)"]:
        page = inject(app, url="/documentation", SCRIPT_NAME=script_name)
        assert page.status_code == 200
        assert "<script>alert" not in page.text and "javascript:" not in page.text
        assert 'data-url="/documentation/json"' in page.text
        assert "servers" not in inject(app, url="/documentation/json", SCRIPT_NAME=script_name).json()


def test_the_page_sends_nosniff_and_a_policy_without_inline_scripts():
    app = documented_app(servers=[{"url": "https://api.example.com/v1"}, {"url": "/relative"}])
    page = inject(app, url="/documentation")
    assert page.headers["x-content-type-options"] == "nosniff"
    policy = dict(part.strip().split(" ", 1) for part in page.headers["content-security-policy"].split(";"))
    assert policy["script-src"] == "'self'" and policy["object-src"] == "'none'"
    assert policy["connect-src"] == "'self' https://api.example.com"
    assert "<script>" not in page.text  # no inline script: every script has a src
    for path in ("/documentation/json", "/documentation/static/init.js"):
        assert inject(app, url=path).headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("where", ["root", "mounted"])
def test_swagger_ui_renders_under_its_policy_in_chromium(where, tmp_path):
    port = free_port()
    target = "openapi_mounted_app:app" if where == "mounted" else "examples.app:app"
    process = start([sys.executable, "-m", "gunicorn", "-b", f"127.0.0.1:{port}", "-w", "1", target], port)
    try:
        prefix = "/api" if where == "mounted" else ""
        result = _headless(f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
                           f"http://127.0.0.1:{port}{prefix}/documentation")
    finally:
        stop(process)
    dom = result.stdout
    blocks = re.findall(r'class="opblock opblock-(?:get|post|put|delete)\b', dom)
    assert len(blocks) == 9, (result.stderr[-3000:], dom[-2000:])
    assert "framework example" in dom
    if where == "mounted":  # the server list shows the mount point, where "Try it out" sends requests
        assert re.search(r'<option value="/api">/api</option>', dom), dom[-3000:]
