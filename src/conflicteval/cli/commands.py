"""How an area adds its commands to the ``conflicteval`` parser, defined once.

A command that only groups actions (``conflicteval feverous score``, ``... verify``) is made
with :func:`add_command_group`; its actions are added to what it returns.

:data:`AREAS` lists the area modules in the order of the top-level command list, each with
the command group it fills (:class:`CommandGroup`: name, help line, description). An area with
a group adds the group's actions in its ``add_actions(sub)`` and any top-level commands of its
own in ``add_commands(subparsers)``; an area without one adds its commands in
``register(subparsers)``. Every area module has a ``register(subparsers)`` that adds all of
its commands (for an area with a group, the one :func:`area_register` makes).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["AREAS", "Area", "CommandGroup", "add_area", "add_command_group", "area_register"]


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


@dataclass(frozen=True)
class CommandGroup:
    """A command that groups actions: its name, list line, ``--help`` text and action dest.

    Args:
        name: The command's name.
        help: Its line in the list of commands.
        description: The text of its ``--help``.
        dest: Where the chosen action is stored (None: ``<name>_command``).
    """

    name: str
    help: str
    description: str
    dest: str | None = None

    def add(self, subparsers: argparse._SubParsersAction) -> argparse._SubParsersAction:
        """Add the command to ``subparsers``; its sub-commands, to add the actions to."""
        return add_command_group(subparsers, self.name, self.help, self.description, dest=self.dest)


@dataclass(frozen=True)
class Area:
    """An area module of the command line and the command group its actions fill, if any.

    Args:
        module: The module's import name.
        group: The group its ``add_actions(sub)`` fills (None: its ``register(subparsers)``
            adds top-level commands only).
    """

    module: str
    group: CommandGroup | None = None


AREAS: tuple[Area, ...] = (
    Area("conflicteval.cli.conflictscore"),
    Area(
        "conflicteval.cli.wikicontradict",
        CommandGroup(
            "wikicontradict",
            "WikiContradict: real-world inter-context conflicts (load, generate, judge, report)",
            "WikiContradict benchmark: see 'conflicteval docs wikicontradict'.",
            dest="wc_command",
        ),
    ),
    Area(
        "conflicteval.cli.conflictbench",
        CommandGroup(
            "conflictbench",
            "ConflictBench: convert sources, build the benchmark, run conflict detection",
            "ConflictBench from its five sources, and the conflict-detection task.",
        ),
    ),
    Area(
        "conflicteval.cli.feverous",
        CommandGroup(
            "feverous",
            "FEVEROUS: the official score, and claim verification with a labeler",
            "FEVEROUS claim verification over Wikipedia sentences and table cells.",
        ),
    ),
    Area(
        "conflicteval.cli.ramdocs",
        CommandGroup(
            "ramdocs",
            "RAMDocs / MADAM-RAG: answers over conflicting documents (run, report)",
            "RAMDocs, AmbigDocs and MADAM-RAG (Table 1 setup): see docs/ramdocs.md.",
        ),
    ),
    Area(
        "conflicteval.cli.faitheval",
        CommandGroup(
            "faitheval",
            "FaithEval: unanswerable, inconsistent, counterfactual contexts (run, report)",
            "FaithEval with the README's prompt and scoring: see docs/ramdocs.md.",
        ),
    ),
    Area(
        "conflicteval.cli.conflictqa",
        CommandGroup(
            "conflictqa",
            "ConflictQA: context against the model's own memory (run, report)",
            "ConflictQA's experiments and memorization ratio: see docs/conflictqa.md.",
        ),
    ),
    Area(
        "conflicteval.cli.clasheval",
        CommandGroup(
            "clasheval",
            "ClashEval: a model's prior against the context (reproduce, run, report)",
            "ClashEval's accuracy, context bias and prior bias: see docs/clasheval.md.",
        ),
    ),
    Area(
        "conflicteval.cli.batch",
        CommandGroup(
            "batch",
            "batch execution: import batch results, run rounds against the OpenAI Batch API",
            "Batch execution of any command's model calls; see 'conflicteval docs batch'.",
        ),
    ),
    Area(
        "conflicteval.cli.data",
        CommandGroup(
            "data",
            "datasets by name: list the registry, fetch ahead of time",
            "Every dataset the library reads, where it officially lives, its pinned revision "
            "and checksum. Commands that read a dataset fetch it on first use when --data is "
            "not given; 'fetch' does it ahead of time (e.g. before going offline).",
        ),
    ),
    Area(
        "conflicteval.cli.bench",
        CommandGroup(
            "bench",
            "measure the instruments: a labeler's accuracy on gold claim-document relations",
            "Measure labelers on gold relations (see docs/bench.md).",
        ),
    ),
    Area("conflicteval.cli.profile"),
    Area("conflicteval.cli.view"),
    Area("conflicteval.cli.results"),
    Area("conflicteval.docs_pages"),
)
"""The area modules, in the order of their commands in the top-level command list."""


def add_area(subparsers: argparse._SubParsersAction, area: Area) -> None:
    """Add an area's commands: its group, the group's actions (``add_actions``) and any
    top-level commands of its own (``add_commands``); without a group, ``register``'s."""
    module = importlib.import_module(area.module)
    if area.group is None:
        module.register(subparsers)
        return
    module.add_actions(area.group.add(subparsers))
    add_commands = getattr(module, "add_commands", None)
    if add_commands is not None:
        add_commands(subparsers)


def area_register(module: str) -> Callable[[argparse._SubParsersAction], None]:
    """The ``register(subparsers)`` of the area module ``module``, one with a command group in
    :data:`AREAS`: it adds the group with the group's actions, then the module's own commands.
    """
    area = next((a for a in AREAS if a.module == module), None)
    if area is None or area.group is None:  # an area without a group has its own register
        raise ValueError(f"{module} is not an area with a command group in AREAS")

    def register(subparsers: argparse._SubParsersAction) -> None:
        add_area(subparsers, area)

    register.__doc__ = (
        f"Add the ``{area.group.name}`` command with its actions, and the area's own "
        "top-level commands if it has any."
    )
    return register
