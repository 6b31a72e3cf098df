"""An app whose hooks write markers (``LIFECYCLE_MARKERS``, a directory): the lifecycle
tests serve it (gunicorn, granian, listen()), stop the server, and look for the markers."""
import os
import sys
from pathlib import Path

from framework import Framework

MARKERS = Path(os.environ["LIFECYCLE_MARKERS"])


def mark(name):
    with open(MARKERS / f"{name}-{os.getpid()}", "w") as marker:
        marker.write(name)


app = Framework(request_id_header="x-request-id")
app.get("/id", lambda request, reply: {"id": request.id, "pid": os.getpid()})
app.add_hook("on_ready", lambda: mark("ready"))
app.add_hook("on_listen", lambda: mark("listen"))
app.add_hook("pre_close", lambda instance: mark("pre_close"))
app.add_hook("on_close", lambda instance: mark("close"))
if os.environ.get("LIFECYCLE_READY_AT_IMPORT") == "1":
    app.ready()

if __name__ == "__main__":  # python lifecycle_app.py PORT SERVER: serve through listen()
    app.listen(port=int(sys.argv[1]), host="127.0.0.1", server=sys.argv[2],
               callback=lambda error: print("listening" if error is None else f"failed: {error}", flush=True))
