"""under_pressure (max_in_flight=1, and the memory watched) with framework.plugins.metrics, for
test_plugin_under_pressure_metrics_server.py: ``/slow`` notes its arrival in
``$PRESSURE_ARRIVALS`` (a file named after the worker's pid) then waits for the file
``$PRESSURE_RELEASE``. Readied in each worker by the gunicorn configuration."""
import os
import time
from pathlib import Path

from framework import Framework
from framework.plugins.metrics import metrics
from framework.plugins.under_pressure import under_pressure

ARRIVALS = Path(os.environ["PRESSURE_ARRIVALS"])
RELEASE = Path(os.environ["PRESSURE_RELEASE"])

app = Framework()
app.register(under_pressure, max_in_flight=1, max_rss_bytes=1 << 50)
app.register(metrics)


@app.get("/slow")
def slow(request, reply):
    (ARRIVALS / str(os.getpid())).touch()
    deadline = time.monotonic() + 60
    while not RELEASE.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return {"released": RELEASE.exists()}
