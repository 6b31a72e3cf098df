"""``TypedDict`` classes from JSON Schemas. This path keeps working; the module is
``framework.devtools.typegen``."""
from .devtools.typegen import *  # noqa: F401,F403
from .devtools.typegen import __all__  # noqa: F401
