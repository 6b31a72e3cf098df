"""Testing an application without a server: ``inject`` (one request through the WSGI
callable), ``Client`` (a session over ``inject``: cookies, forms, uploads, redirects) and ``fuzz`` (requests drawn from the routes' schemas, checked against their
response schemas; ``FuzzFailure`` lists the routes that break their contract)."""
from .client import InjectResponse, fuzz, inject
from .fuzzer import FuzzFailure
from .session import Client, ClientResponse

__all__ = ["InjectResponse", "inject", "Client", "ClientResponse", "fuzz", "FuzzFailure"]
