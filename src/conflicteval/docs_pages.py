"""The documentation pages, reachable after ``pip install``: ``conflicteval docs [TOPIC]``.

The pages are the checkout's ``docs/*.md``. A built package (wheel) carries them in
``conflicteval/docs/`` (copied at build time, see ``setup.py``); an editable install
reads them from the checkout beside the sources.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from importlib import resources
from pathlib import Path
from typing import Any

from conflicteval.errors import UsageError
from conflicteval.suggest import did_you_mean

__all__ = ["page_path", "read_page", "register", "topics"]

_CHECKOUT_DOCS = Path(__file__).resolve().parents[2] / "docs"


def _folders() -> list[Any]:
    """Where pages are: the package's ``docs`` folder, else the checkout's ``docs/``."""
    folders: list[Any] = []
    packaged = resources.files("conflicteval") / "docs"
    if packaged.is_dir():
        folders.append(packaged)
    if _CHECKOUT_DOCS.is_dir():
        folders.append(_CHECKOUT_DOCS)
    return folders


def topics() -> list[str]:
    """The topics there are (page names without ``.md``), sorted."""
    names = {
        entry.name[: -len(".md")]
        for folder in _folders()
        for entry in folder.iterdir()
        if entry.name.endswith(".md")
    }
    return sorted(names)


def _find(topic: str) -> Any:
    name = topic.strip().lower().removesuffix(".md").removeprefix("docs/")
    for folder in _folders():
        page = folder / f"{name}.md"
        if page.is_file():
            return page
    known = topics()
    if not known:
        raise UsageError("no documentation pages are installed with this copy of conflicteval")
    raise UsageError(
        f"no documentation page {topic!r}{did_you_mean(name, known)} (topics: {', '.join(known)})"
    )


def read_page(topic: str) -> str:
    """The Markdown text of one page (``"batch"``, ``"wikicontradict"``, ...).

    Raises:
        UsageError: No such page (the message names the nearest topic).
    """
    return str(_find(topic).read_text(encoding="utf-8"))


def page_path(topic: str) -> str:
    """Where the page of ``topic`` is on disk."""
    return str(_find(topic))


def _title(topic: str) -> str:
    for line in read_page(topic).splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip()
    return ""


def _docs(args: argparse.Namespace) -> int:
    if args.topic is None:
        known = topics()
        if not known:
            raise UsageError("no documentation pages are installed with this copy of conflicteval")
        print("documentation pages (conflicteval docs TOPIC prints one):")
        for name in known:  # a long title wraps under itself, within 100 columns
            title = textwrap.wrap(_title(name), 100 - 24) or [""]
            print(f"  {name:<22}{title[0]}")
            for more in title[1:]:
                print(" " * 24 + more)
        return 0
    if args.path:
        print(page_path(args.topic))
    else:
        sys.stdout.write(read_page(args.topic))
    return 0


def register(subparsers: Any) -> None:
    """Add the ``docs`` command."""
    p = subparsers.add_parser(
        "docs",
        help="print a documentation page (installed with the package); no TOPIC: list them",
    )
    p.add_argument("topic", nargs="?", default=None, metavar="TOPIC", help="e.g. batch, inspect")
    p.add_argument("--path", action="store_true", help="print where the page is instead")
    p.set_defaults(func=_docs)
