"""The app the real-server metrics tests serve (``test_plugin_metrics_server.py``), with
``framework.plugins.metrics`` on the default registry: ``/work`` says which worker answered."""
import os

from framework import Framework
from framework.plugins.metrics import metrics

app = Framework()
app.register(metrics, path="/metrics")
app.get("/work", lambda request, reply: {"pid": os.getpid()})
app.get("/items/:id", lambda request, reply: {"id": request.params["id"]})
