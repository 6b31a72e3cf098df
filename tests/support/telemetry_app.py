"""The app of the deployment recipe's test (``test_plugin_otel_otlp.py``): traced through the
global tracer provider the gunicorn configuration sets, and measured for Prometheus."""
from framework import Framework
from framework.plugins.metrics import metrics
from framework.plugins.otel import otel

app = Framework()
app.register(otel)
app.register(metrics)
app.get("/orders/:id", lambda request, reply: {"id": request.params["id"]})
