"""Testing an application without a server: ``inject`` (one request through the WSGI
callable) and ``fuzz`` (requests drawn from the routes' schemas, checked against their
response schemas; ``FuzzFailure`` lists the routes that break their contract)."""
from .client import InjectResponse, fuzz, inject
from .fuzzer import FuzzFailure

__all__ = ["InjectResponse", "inject", "fuzz", "FuzzFailure"]
