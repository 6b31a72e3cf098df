"""A Flask application mounted under /legacy behind bearer_auth (tests/test_mount.py serves it on gunicorn)."""
from flask import Flask, abort, jsonify, request as flask_request

from framework import Framework
from framework.plugins.bearer_auth import bearer_auth

legacy = Flask("legacy")
legacy.config["PROPAGATE_EXCEPTIONS"] = True  # an exception reaches the context's error handler


@legacy.route("/", methods=["GET"])
def index():
    return jsonify(script_name=flask_request.environ["SCRIPT_NAME"], path_info=flask_request.environ["PATH_INFO"],
                   url=flask_request.url)


@legacy.route("/things/<name>", methods=["GET", "POST", "PUT"])
def thing(name):
    return jsonify(name=name, method=flask_request.method, args=flask_request.args.to_dict(flat=False),
                   body=flask_request.get_data(as_text=True),
                   script_name=flask_request.environ["SCRIPT_NAME"], path_info=flask_request.environ["PATH_INFO"],
                   user=flask_request.environ.get("HTTP_X_USER"))


@legacy.route("/gone")
def gone():
    abort(410)


@legacy.route("/crash")
def crash():
    raise RuntimeError("the legacy app failed")


def legacy_context(instance, opts):
    instance.register(bearer_auth, keys={"legacy-key"})

    def tag(request, reply):
        reply.header("x-context", "legacy")
    instance.add_hook("on_request", tag)

    def on_response(request, reply):
        print(f"on_response {request.method} {request.url} {reply.status_code}", flush=True)
    instance.add_hook("on_response", on_response)

    def handle(error, request, reply):
        return reply.code(502).send({"handled_by": "legacy context", "error": str(error)})
    instance.set_error_handler(handle)
    instance.mount("/legacy", legacy)


app = Framework(request_id_header="x-request-id")
app.register(legacy_context)
app.get("/", lambda request, reply: {"hello": "framework"})
