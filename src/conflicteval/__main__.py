"""``python -m conflicteval`` runs the command line."""

import sys

from conflicteval.cli import main

sys.exit(main())
