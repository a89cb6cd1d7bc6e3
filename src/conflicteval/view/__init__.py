"""One self-contained HTML report per run (or several runs side by side).

``conflicteval view RUN [RUN ...] [-o report.html]`` on the command line, or from Python::

    from conflicteval.view import view, write_report
    write_report("runs/cs")                   # runs/cs/report.html
    view("runs/cs", "runs/cs-gpt")            # in a notebook: shown inline

The page needs no server and no network: CSS, script, charts (inline SVG) and the items (an
inline JSON blob) are all in the one file, written streaming (one item at a time). Run
directories are read by kind (:mod:`conflicteval.view.registry`; one module per kind in
:mod:`conflicteval.view.kinds`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from html import escape
from itertools import islice
from pathlib import Path
from typing import Any

from conflicteval._atomic import atomic_open, atomic_write_text

from .model import Chart, Headline, ItemStream, RunView
from .page import render_page, write_page
from .registry import RunKind, detect_kind, known_kinds, load_run

__all__ = [
    "LARGE_PAGE",
    "Chart",
    "Headline",
    "ItemStream",
    "Report",
    "RunKind",
    "RunView",
    "detect_kind",
    "known_kinds",
    "load_run",
    "render_report",
    "select_items",
    "view",
    "write_report",
]

RunLike = RunView | str | Path
REPORT_FILE = "report.html"
LARGE_PAGE = 256 * 1024 * 1024
"""A page larger than this (bytes) is written with a warning: browsers slow down or give up
on single pages of several hundred MB (``--max-items`` / ``--failed-only`` make it smaller)."""


def select_items(run: RunView, *, max_items: int | None = None, failed_only: bool = False) -> None:
    """Keep only some of ``run``'s items in its page, and say so on the page.

    The summary (counts, headline numbers, failure reasons, money) still covers every item;
    only the item list (and the item comparison) is cut. ``failed_only`` keeps the items whose
    status is not ``ok``; ``max_items`` then keeps the first N in the run's order. Items a
    kind makes lazily (an :class:`ItemStream`) stay lazy: the kept ones are counted by one
    pass and made again when the page is written.
    """
    if max_items is not None and max_items < 1:
        raise ValueError("max_items must be at least 1")
    source = run.items
    total = len(source)

    def failed() -> Iterator[dict[str, Any]]:
        return (it for it in source if it.get("status") != "ok")

    n_failed = sum(1 for _ in failed()) if failed_only else total
    kept = min(n_failed, max_items) if max_items is not None else n_failed
    what = []
    if failed_only:
        what.append(f"only the {n_failed:,} failed items (--failed-only)")
    if max_items is not None and n_failed > max_items:
        what.append(f"the first {max_items:,} of them (--max-items {max_items})")
    if kept == total:
        return
    run.notes.append(
        f"The item list shows {kept:,} of the run's {total:,} items: "
        + ", then ".join(what)
        + ". The summary above counts every item."
    )

    def chosen() -> Iterator[dict[str, Any]]:
        return islice(failed() if failed_only else iter(source), kept)

    run.items = list(chosen()) if isinstance(source, list) else ItemStream(chosen, kept)


def _views(runs: RunLike | Sequence[RunLike]) -> list[RunView]:
    items = [runs] if isinstance(runs, (RunView, str, Path)) else list(runs)
    if not items:
        raise ValueError("no run to show")
    return [r if isinstance(r, RunView) else load_run(r) for r in items]


def render_report(runs: RunLike | Sequence[RunLike], *, title: str | None = None) -> str:
    """The HTML report of one run directory (or several, with a Compare view) as text.

    Args:
        runs: Run directories (or :class:`RunView` objects already read).
        title: The page title (default: names the runs).

    Raises:
        ConflictEvalError: A directory that is not a run of a known kind.
    """
    return render_page(_views(runs), title)


def write_report(
    runs: RunLike | Sequence[RunLike],
    out: str | Path | None = None,
    *,
    title: str | None = None,
) -> Path:
    """Write the report to ``out`` (default: ``report.html`` in the first run directory),
    streaming (:func:`~conflicteval.view.page.write_page`: the items are written one at a
    time, the page is never held whole), atomically (the file appears when it is complete).

    Returns:
        The path written.
    """
    views = _views(runs)
    path = Path(out) if out is not None else Path(views[0].path) / REPORT_FILE
    with atomic_open(path, encoding="utf-8") as fh:
        write_page(views, fh, title)
    return path


class Report:
    """A rendered report: ``.html`` text, ``.save(path)``, and shown inline in a notebook."""

    def __init__(self, runs: Sequence[RunView], title: str | None = None) -> None:
        self.runs = list(runs)
        self.html = render_page(self.runs, title)

    def save(self, path: str | Path) -> Path:
        """Write the page to ``path``; returns it."""
        p = Path(path)
        atomic_write_text(p, self.html, encoding="utf-8")
        return p

    def _repr_html_(self) -> str:
        # An iframe keeps the page's script, styles and security policy apart from the
        # notebook's own page.
        return (
            f'<iframe srcdoc="{escape(self.html, quote=True)}" sandbox="allow-scripts" '
            'style="width:100%;height:760px;border:1px solid #dde1e7;border-radius:6px">'
            "</iframe>"
        )

    def __repr__(self) -> str:
        return f"Report({', '.join(r.path for r in self.runs)})"


def view(*runs: RunLike, title: str | None = None) -> Report:
    """A :class:`Report` of one or more runs (shown inline when it is a cell's value)."""
    return Report(_views(list(runs)), title)
