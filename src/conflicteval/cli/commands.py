"""How an area adds its commands to the ``conflicteval`` parser, defined once.

A command that only groups actions (``conflicteval feverous score``, ``... verify``) is made
with :func:`add_command_group`; each of its actions, and a command that does its work itself
(``conflicteval view``), with :func:`add_command`, which names the function that runs it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["add_command", "add_command_group"]

Command = Callable[[argparse.Namespace], int]


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
        The command's sub-commands, to add each action to (:func:`add_command`).
    """
    parser = subparsers.add_parser(name, help=help, description=description)
    return parser.add_subparsers(dest=dest or f"{name}_command", metavar="ACTION", required=True)


def add_command(
    subparsers: argparse._SubParsersAction,
    name: str,
    func: Command | None,
    help: str,
    description: str | None = None,
) -> argparse.ArgumentParser:
    """Add the command (or action) ``name``, run by ``func``; returns its parser for its options.

    ``func`` is None where the caller sets it later (``set_defaults(func=...)``).
    """
    parser = subparsers.add_parser(name, help=help, description=description)
    if func is not None:
        parser.set_defaults(func=func)
    return parser
