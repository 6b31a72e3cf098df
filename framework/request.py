"""The request and its type parameters. This path keeps working; the module is
``framework.lifecycle.request``."""
from .lifecycle.request import BodyT, HeadersT, ParamsT, QueryT, Request

__all__ = ["Request", "BodyT", "QueryT", "ParamsT", "HeadersT"]
