"""How an area adds its commands to the ``conflicteval`` parser, defined once.

A command that only groups actions (``conflicteval feverous score``, ``... verify``) is made
with :func:`add_command_group`; its actions are added to what it returns.
"""

from __future__ import annotations

import argparse

__all__ = ["add_command_group"]


def add_command_group(
    subparsers: argparse._SubParsersAction,
    name: str,
    help: str,
    description: str | None = None,
    *,
    dest: str | None = None,
) -> argparse._SubParsersAction:
    """Add the command ``name``, whose work is done by one of its actions (``name ACTION``).

    Args:
        subparsers: Where the command goes (the top-level parser's sub-commands).
        name: The command's name.
        help: Its line in the list of commands.
        description: The text of its ``--help`` (default: ``help``, made a sentence).
        dest: Where the chosen action is stored (default ``<name>_command``).

    Returns:
        The command's sub-commands, to add each action to.
    """
    parser = subparsers.add_parser(name, help=help, description=description)
    return parser.add_subparsers(dest=dest or f"{name}_command", metavar="ACTION", required=True)
