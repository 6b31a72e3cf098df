"""An app whose first ready() fails (bearer_auth with no keys), never readied at import:
the first request boots it (``test_hardening_server.py``)."""
from framework import Framework
from framework.plugins.bearer_auth import bearer_auth

app = Framework()
app.register(bearer_auth, keys=[])
app.get("/private", lambda request, reply: {"secret": "protected data"})
