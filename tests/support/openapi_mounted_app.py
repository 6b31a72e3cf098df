"""The example application mounted under /api by werkzeug's DispatcherMiddleware, as the
README suggests for an existing WSGI stack (tests/plugins/test_plugin_openapi_mount.py)."""
from werkzeug.middleware.dispatcher import DispatcherMiddleware
from werkzeug.wrappers import Response

from examples.app import create_app

api = create_app(api_keys=["demo-key"])
app = DispatcherMiddleware(Response("the host application", mimetype="text/plain"), {"/api": api})
