"""`python -m wireschema`: the same as the `wireschema` command."""

import sys

from wireschema.cli import main

sys.exit(main())
