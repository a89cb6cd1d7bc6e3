"""The ``conflicteval`` command line: a thin layer over the public API.

``app`` builds the parser and runs a command; ``options`` defines every option more than
one command shares (once); each area's sub-commands live in a module of their own
(``conflictscore``, ``wikicontradict``, ``conflictbench``, ...) with a ``register(subparsers)``
function. Nothing below this package imports it.
"""

from conflicteval.cli.app import build_parser, main

__all__ = ["build_parser", "main"]
