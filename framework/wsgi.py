"""``framework.wsgi:app``: the application ``FRAMEWORK_APP`` (``module:app``) names,
readied at import, so that a server's worker compiles every route as it boots and runs
the ``on_close`` hooks when it stops. ``python -m framework run`` serves this; so may a
plain server: ``FRAMEWORK_APP=myapp:app gunicorn framework.wsgi:app``."""
from __future__ import annotations

import os

from .serving.cli import load_app

app = load_app(os.environ["FRAMEWORK_APP"]).ready()
