"""Start a contender on a WSGI server that has no app-factory command line.

``python -m benchmarks.serve SERVER MODULE PORT`` calls ``MODULE.create_app()``
and serves it on 127.0.0.1:PORT in this one process, with ``SERVER`` one of
``bjoern``, ``fastwsgi`` or ``waitress``.  uWSGI loads ``application`` from
this module instead (``--module benchmarks.serve:application``), the factory
named by ``$BENCHMARKS_APP``.
"""

from __future__ import annotations

import importlib
import os
import sys

# Waitress serves one process with a pool of threads; four, as gunicorn gthread here.
WAITRESS_THREADS = 4


def create(module: str):
    return importlib.import_module(module).create_app()


def serve(server: str, module: str, port: int) -> None:
    app = create(module)
    if server == "bjoern":
        import bjoern

        bjoern.run(app, "127.0.0.1", port)
    elif server == "fastwsgi":
        import fastwsgi

        fastwsgi.run(wsgi_app=app, host="127.0.0.1", port=port, loglevel=0)
    elif server == "waitress":
        import waitress

        waitress.serve(app, host="127.0.0.1", port=port, threads=WAITRESS_THREADS, _quiet=True)
    else:
        raise SystemExit(f"unknown server {server!r}")


if os.environ.get("BENCHMARKS_APP") and __name__ != "__main__":
    application = create(os.environ["BENCHMARKS_APP"])

if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: python -m benchmarks.serve bjoern|fastwsgi|waitress MODULE PORT")
    serve(sys.argv[1], sys.argv[2], int(sys.argv[3]))
