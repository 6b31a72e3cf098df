"""A rate-limited application for the real-server tests of framework.plugins.rate_limit
(tests/plugins/test_plugin_rate_limit_servers.py): ``GET /limited`` allows ``RATE_LIMIT``
requests (``"5/hour"``) per ``X-Client`` header, counted in the store ``RATE_LIMIT_STORAGE``
names (the test's redis-server); both come from the environment (gunicorn's ``-e``). Every
answer, 429s included, names the worker process that gave it in ``X-Worker``."""
import os

from framework import Framework
from framework.plugins.rate_limit import rate_limit

app = Framework()
app.add_hook("on_request", lambda request, reply: reply.header("x-worker", str(os.getpid())))
app.register(rate_limit, limit=os.environ["RATE_LIMIT"], storage=os.environ["RATE_LIMIT_STORAGE"],
             key=lambda request: request.headers.get("x-client"))
app.get("/limited", lambda request, reply: {"worker": os.getpid()})
app.ready()
