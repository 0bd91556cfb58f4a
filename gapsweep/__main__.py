"""``python -m gapsweep`` = the ``gapsweep`` command."""

import sys

from gapsweep.cli import main

sys.exit(main())
