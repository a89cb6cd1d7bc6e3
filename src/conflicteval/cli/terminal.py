"""What the command line does for a terminal: tables fitted to its width, a warning repeated
per item said once with a count, and the command's elapsed time.

* A command that prints a report prints its tables fitted to :data:`~conflicteval.tables.
  DEFAULT_WIDTH` (100) columns (:func:`~conflicteval.tables.fit_text`); ``--wide`` (also
  spelled ``--markdown``, :func:`add_wide`) prints them as Markdown at their full width, the
  layout of the report files. Files the commands write are Markdown either way.
* :func:`collapse_repeats`: while a command runs, a warning whose message template was already
  shown in this run (``item %s raised %s: %s``, once per failed item) is counted, not shown
  again; at the end one line says how many were left out.
* :func:`elapsed_line`: the command's elapsed time, printed once at its end unless the command
  already printed it with its cost line (:func:`said_elapsed`).
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from conflicteval.tables import DEFAULT_WIDTH, fit_text

__all__ = [
    "RepeatedWarnings",
    "add_wide",
    "collapse_repeats",
    "elapsed_line",
    "for_terminal",
    "said_elapsed",
    "timed",
]

Container = argparse.ArgumentParser | argparse._ArgumentGroup


def add_wide(container: Container) -> None:
    """``--wide`` / ``--markdown``: tables as Markdown at their full width."""
    container.add_argument(
        "--wide",
        "--markdown",
        dest="wide",
        action="store_true",
        help=f"print tables as Markdown at their full width (the layout of the report files); "
        f"by default they are fitted to {DEFAULT_WIDTH} columns",
    )


def for_terminal(text: str, args: argparse.Namespace) -> str:
    """``text`` as the command prints it: as given under ``--wide``, else fitted to
    :data:`~conflicteval.tables.DEFAULT_WIDTH` columns (:func:`~conflicteval.tables.fit_text`)."""
    return text if getattr(args, "wide", False) else fit_text(text)


_PLACEHOLDER = re.compile(r"%[-#0 +]*\d*(?:\.\d+)?[sdrgfix]")


class RepeatedWarnings(logging.Filter):
    """A handler filter that lets through the first warning of each kind and counts the others.

    A kind is the logger's name and the message template (``item %s raised %s: %s``), so the
    same warning about another item is a repeat; a template that is nothing but placeholders
    (``%s``) is told apart by its whole text. Errors and anything below a warning pass.
    """

    def __init__(self) -> None:
        super().__init__()
        self.first: dict[tuple[str, str], str] = {}
        self.repeats: dict[tuple[str, str], int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.WARNING:
            return True
        decided = getattr(record, "_conflicteval_shown", None)
        if decided is not None:  # one decision per record, however many handlers ask
            return bool(decided)
        shown = self._first_of_its_kind(record)
        record._conflicteval_shown = shown
        return shown

    def _first_of_its_kind(self, record: logging.LogRecord) -> bool:
        template = str(record.msg)
        if not _PLACEHOLDER.sub("", template).strip():
            template = record.getMessage()
        key = (record.name, template)
        if key not in self.first:
            self.first[key] = record.getMessage()
            return True
        self.repeats[key] = self.repeats.get(key, 0) + 1
        return False

    def summary(self) -> list[str]:
        """One line per repeated kind: how many were not shown, and the first of them."""
        return [
            f"warning: {n:,} more like this were not shown: {self.first[key]}"
            + (" (once per run and kind; -v shows every one)" if i == 0 else "")
            for i, (key, n) in enumerate(self.repeats.items())
        ]


@contextmanager
def collapse_repeats(stream: TextIO | None = None, *, every: bool = False) -> Iterator[None]:
    """Within the block, repeated warnings of a kind are shown once (:class:`RepeatedWarnings`,
    on every handler of the root logger) and counted; at the end one line per kind goes to
    ``stream`` (standard error). ``every``: show them all (``-v``)."""
    if every:
        yield
        return
    repeated = RepeatedWarnings()
    handlers = list(logging.getLogger().handlers)
    for handler in handlers:
        handler.addFilter(repeated)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(repeated)
        for line in repeated.summary():
            print(line, file=stream if stream is not None else sys.stderr)


_said: list[bool] = [False]


def said_elapsed(value: bool = True) -> None:
    """Note that the command printed its elapsed time (False: forget it, a new command)."""
    _said[0] = value


@contextmanager
def timed(stream: TextIO | None = None) -> Iterator[None]:
    """The block is one command: when it completes, its elapsed time is printed
    (:func:`elapsed_line`) unless it said it already; a command run inside another (a profile's
    cells) has its own, and leaves the outer one's as it was."""
    outer = _said[0]
    _said[0] = False
    start = time.perf_counter()
    try:
        yield
        elapsed_line(time.perf_counter() - start, stream)
    finally:
        _said[0] = outer


def elapsed_line(seconds: float, stream: TextIO | None = None) -> None:
    """``took 12.3 s`` on ``stream`` (standard error), unless the command said it already."""
    if _said[0]:
        return
    sys.stdout.flush()  # after what the command printed, also when both go to one file
    print(f"took {_seconds(seconds)}", file=stream if stream is not None else sys.stderr)


def _seconds(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"
