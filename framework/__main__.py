"""``python -m framework``: see ``framework.serving.cli``."""
from .serving.cli import main

raise SystemExit(main())
