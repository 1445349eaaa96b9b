"""MkDocs hook: let mkdocstrings find the `wireschema` package, not the `wireschema` command.

Run as the `mkdocs` script, the scripts folder is first on sys.path, and griffe takes the
`wireschema` console script there for the package. Dropping that folder fixes the lookup.
"""

import sys
from pathlib import Path


def on_startup(command, dirty):
    sys.path[:] = [p for p in sys.path if not (Path(p or ".") / "wireschema").is_file()]
