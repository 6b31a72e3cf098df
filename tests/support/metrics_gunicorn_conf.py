"""The gunicorn configuration docs/guide/deployment.rst shows for Prometheus' multiprocess
mode (``PROMETHEUS_MULTIPROC_DIR`` comes from the environment)."""
from prometheus_client import multiprocess

from framework.gunicorn_conf import post_worker_init  # noqa: F401  (readies each worker's app as it boots)


def child_exit(server, worker):
    """A worker is gone (killed or timed out included): its live gauges leave the sum."""
    multiprocess.mark_process_dead(worker.pid)
