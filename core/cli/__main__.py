"""``python -m deltacore.cli``: the same as the ``deltacore`` command."""

import sys

from deltacore.cli.program import main

sys.exit(main())
