"""Serving an application: the embedded gunicorn and granian servers (``listen``) and the
``python -m framework`` command line. Nothing below imports this package."""
