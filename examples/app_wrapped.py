"""``examples.app`` with the grandchild plugin wrapped with ``plugin(...)`` (seed 2.1 rule 6).

The grandchild's decorator then lands in the child context, so ``GET /child`` also
answers ``grandchild_decorator``::

    gunicorn examples.app_wrapped:app --bind 127.0.0.1:3000
"""
from __future__ import annotations

from examples.app import create_app

app = create_app(wrap_grandchild=True)
app.ready()
