"""A gunicorn configuration that readies the application in each worker as it boots:
``gunicorn -c python:framework.gunicorn_conf module:app``. Without it (and without
``app.ready()`` at import) a worker compiles every route on its first request.

It sets nothing else: add your own settings on the command line, or import this module's
hook in your own configuration file (``from framework.gunicorn_conf import post_worker_init``).
"""
from __future__ import annotations

from typing import Any


def post_worker_init(worker: Any) -> None:
    """Ready the worker's application (routes compiled, ``on_ready`` hooks run) before it serves."""
    ready = getattr(worker.wsgi, "ready", None)
    if ready is not None:
        ready()
