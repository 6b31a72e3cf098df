"""``python -m framework``: see ``framework.cli``."""
from .cli import main

raise SystemExit(main())
