import pathlib
import sys

# Tests import the repository's packages (framework, plugins, examples) as installed or from here.
ROOT = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
