"""Testing an application without a server: ``inject`` (one request through the WSGI
callable) and ``fuzz`` (requests drawn from the routes' schemas, checked against their
response schemas)."""
from .client import InjectResponse, fuzz, inject

__all__ = ["InjectResponse", "inject", "fuzz"]
