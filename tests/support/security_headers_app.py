"""The example application with framework.plugins.security_headers on its root, helmet's
defaults (tests/plugins/test_plugin_security_headers.py serves it with gunicorn and granian
and renders its Swagger UI page in Chromium), plus a page whose inline script the default
policy forbids (the browser is seen to enforce it)."""
from examples.app import create_app
from framework.plugins.security_headers import security_headers

INLINE_PAGE = "<html><body><script>document.body.append('INLINE-' + 'RAN')</script>page</body></html>"

app = create_app(api_keys=["demo-key"])
app.register(security_headers)
app.get("/inline", {"schema": {"hide": True}},
        lambda request, reply: reply.type("text/html; charset=utf-8").send(INLINE_PAGE))
app.ready()
