"""under_pressure with max_in_flight=2, a slow route the test releases (``/slow`` notes its
arrival in ``$PRESSURE_ARRIVALS`` then waits for the file ``$PRESSURE_RELEASE``), the
health routes (exempt) and ``/pressure`` (exempt: ``app.pressure()``)
(``test_plugin_under_pressure_server.py``). Readied at import, in each worker."""
import os
import time
import uuid
from pathlib import Path

from framework import Framework
from framework.plugins.health import health
from framework.plugins.under_pressure import under_pressure

ARRIVALS = Path(os.environ["PRESSURE_ARRIVALS"])
RELEASE = Path(os.environ["PRESSURE_RELEASE"])

app = Framework()
app.register(health)
app.register(under_pressure, max_in_flight=2, retry_after=3)


@app.get("/slow")
def slow(request, reply):
    (ARRIVALS / uuid.uuid4().hex).touch()
    deadline = time.monotonic() + 60
    while not RELEASE.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return {"released": RELEASE.exists()}


app.get("/pressure", {"config": {"under_pressure": False}}, lambda request, reply: app.pressure())
app.ready()
