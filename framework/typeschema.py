"""Python types as JSON Schemas. This path keeps working; the module is
``framework.schemas.typeschema``."""
from .schemas.typeschema import *  # noqa: F401,F403
from .schemas.typeschema import __all__  # noqa: F401
