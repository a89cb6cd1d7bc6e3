"""Old spellings of options, kept for one release.

An old spelling is accepted, stores into the new option's destination, is hidden from
``--help`` and prints one line ``warning: --old is deprecated; use --new`` on stderr. A
required option given by its old spelling counts as given (:func:`check_required`, which the
command line's parser runs after parsing).
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Sequence
from typing import Any

__all__ = [
    "LabelerKind",
    "add_aliases",
    "add_deprecated",
    "check_required",
    "deprecated_value",
]

Container = argparse.ArgumentParser | argparse._ArgumentGroup


def deprecated_value(old: str, new: str) -> None:
    """Print the one deprecation line for an old spelling (``old`` → ``new``) on stderr."""
    print(f"warning: {old} is deprecated; use {new}", file=sys.stderr)


class _Deprecated(argparse.Action):
    """An old option name: stores into the new option's destination, with a warning."""

    def __init__(
        self, option_strings: list[str], dest: str, *, new: str, kind: str, **kwargs: Any
    ) -> None:
        self.new = new
        self.kind = kind
        if kind == "store_true":
            kwargs["nargs"] = 0
        super().__init__(option_strings, dest, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        deprecated_value(option_string or self.option_strings[0], self.new)
        if self.kind == "store_true":
            values = True
        elif self.kind == "append":
            values = [*(getattr(namespace, self.dest, None) or []), values]
        setattr(namespace, self.dest, values)


def add_deprecated(container: Container, old: str, new: argparse.Action) -> None:
    """Accept ``old`` as a hidden, warning spelling of the option ``new``.

    When ``new`` is required, it stays required in ``--help`` but is satisfied by ``old``
    (the check is :func:`check_required`'s, after parsing).
    """
    kind = "store"
    if isinstance(new, argparse._StoreTrueAction):
        kind = "store_true"
    elif isinstance(new, argparse._AppendAction):
        kind = "append"
    typed: dict[str, Any] = {"type": new.type} if new.type is not None else {}
    container.add_argument(
        old,
        dest=new.dest,
        action=_Deprecated,
        new=new.option_strings[-1],
        kind=kind,
        **typed,
        choices=new.choices,
        metavar=new.metavar,
        default=argparse.SUPPRESS,
        help=argparse.SUPPRESS,
    )
    if new.required:
        new.required = False
        new.required_after_aliases = True  # type: ignore[attr-defined]


def check_required(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """argparse's "required" error for a required option given by neither name."""
    missing = [
        "/".join(a.option_strings)
        for a in parser._actions
        if getattr(a, "required_after_aliases", False) and getattr(args, a.dest, None) is None
    ]
    if missing:
        parser.error(f"the following arguments are required: {', '.join(missing)}")


def add_aliases(
    container: Container, action: argparse.Action, old: Sequence[str]
) -> argparse.Action:
    """:func:`add_deprecated` for each of ``old``; returns ``action``."""
    for name in old:
        add_deprecated(container, name, action)
    return action


class LabelerKind(argparse.Action):
    """``--labeler KIND``, where the old spellings put other things: a model spec
    (``--labeler SPEC``: now ``--labeler llm --model SPEC``) and ``nli:DIR`` (now
    ``--labeler nli --nli-model DIR``); both still work, with the deprecation line."""

    def __init__(
        self,
        option_strings: list[str],
        dest: str,
        *,
        kinds: Sequence[str],
        model_list: bool = False,
        **kwargs: Any,
    ) -> None:
        self.kinds = tuple(kinds)
        self.model_list = model_list
        super().__init__(option_strings, dest, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        value = str(values)
        if value in self.kinds:
            setattr(namespace, self.dest, value)
            return
        if value.startswith("nli:") and "nli" in self.kinds:
            deprecated_value(f"--labeler {value}", f"--labeler nli --nli-model {value[4:]}")
            setattr(namespace, self.dest, "nli")
            namespace.nli_model = value[4:]
            return
        if "/" not in value and difflib.get_close_matches(value, self.kinds, n=1, cutoff=0.75):
            choices = ", ".join(repr(k) for k in self.kinds)
            parser.error(f"argument --labeler: invalid choice: '{value}' (choose from {choices})")
        deprecated_value(f"--labeler {value}", f"--labeler llm --model {value}")
        setattr(namespace, self.dest, "llm")
        if self.model_list:
            namespace.model = [*(getattr(namespace, "model", None) or []), value]
        else:
            namespace.model = value
