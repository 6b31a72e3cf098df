"""Ours with ``request_logging=True``: the same app as ``ours``, and two log lines per
request formatted by a stdlib ``StreamHandler`` at INFO into ``os.devnull`` (the cost of
building, formatting and writing the records; a real handler's I/O comes on top)."""

from __future__ import annotations

import logging
import os

from benchmarks.contenders import ours

NAME = "ours_logged"
LABEL = "framework (ours), request_logging=True"
KIND = "wsgi"
REQUIRES = ("framework",)
DIST = "framework"


def devnull_logger(name):
    """A logger writing formatted records at INFO to ``os.devnull``."""
    logger = logging.getLogger(name)
    if not logger.handlers:
        handler = logging.StreamHandler(open(os.devnull, "w"))  # noqa: SIM115 (lives as long as the process)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s %(req_id)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    return logger


def create_app():
    return ours.create_app(request_logging=True, logger=devnull_logger("benchmarks.ours_logged"))
