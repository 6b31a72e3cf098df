"""The health plugin in an application whose database plugin fails while the file
``$BOOT_MARKER`` is absent (``test_plugin_health_server.py``): readiness is the failed
start's 503."""
import os

from framework import Framework
from framework.plugins.health import health

MARKER = os.environ["BOOT_MARKER"]


def database(instance, opts):
    if not os.path.exists(MARKER):
        raise ConnectionRefusedError("db.internal:5432 refused the connection")


app = Framework()
app.register(health)
app.register(database)
