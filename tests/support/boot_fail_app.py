"""An app whose plugin fails while the file ``$BOOT_MARKER`` is absent (a database not up
yet), never readied at import: the first request of each worker boots it
(``test_boot_recovery.py``). The auth plugin is queued after the failing one."""
import os

from framework import Framework
from framework.plugins.bearer_auth import bearer_auth

MARKER = os.environ["BOOT_MARKER"]


def database(instance, opts):
    if not os.path.exists(MARKER):
        address = "db.internal:5432"
        raise ConnectionRefusedError(f"{address} refused the connection")
    instance.decorate("database", MARKER)


app = Framework(logger=True)
app.register(database)
app.register(bearer_auth, keys=["secret"])
app.get("/private", lambda request, reply: {"secret": "protected data"})
