"""The health plugin with a drain, and a slow route the test releases: ``/slow`` notes its
arrival (a file in ``$HEALTH_ARRIVALS``) then waits until the file ``$HEALTH_RELEASE``
exists (``test_plugin_health_server.py``). Readied at import, in each worker, unless
``$HEALTH_LAZY`` is set (``framework.gunicorn_conf`` readies it then)."""
import os
import time
import uuid
from pathlib import Path

from framework import Framework
from framework.plugins.health import health

ARRIVALS = Path(os.environ["HEALTH_ARRIVALS"])
RELEASE = Path(os.environ["HEALTH_RELEASE"])

app = Framework()
app.register(health, drain_delay=float(os.environ.get("HEALTH_DRAIN_DELAY", "0")))


@app.get("/slow")
def slow(request, reply):
    (ARRIVALS / uuid.uuid4().hex).touch()
    deadline = time.monotonic() + 60
    while not RELEASE.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return {"released": RELEASE.exists()}


if not os.environ.get("HEALTH_LAZY"):
    app.ready()
