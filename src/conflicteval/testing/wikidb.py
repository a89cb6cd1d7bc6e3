"""A small FEVEROUS Wikipedia database for tests and examples: :func:`write_wiki_db`.

The official ``feverous_wikiv1.db`` is a SQLite file with one table, ``wiki(id, data)``:
``id`` is the page title in Unicode NFD form, ``data`` the page's JSON (``title``, ``order``
and the elements it names: sentences, tables with their cells, lists, section headers).
:func:`write_wiki_db` writes pages of that shape into a file in that layout, so the FEVEROUS
reader and everything built on it (``feverous verify``, the FEVEROUS gold sets of the
labeler bench) can be run without the full original.
"""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from collections.abc import Iterable, Mapping
from os import PathLike
from pathlib import Path
from typing import Any

__all__ = ["write_wiki_db"]


def write_wiki_db(path: str | PathLike[str], pages: Iterable[Mapping[str, Any]]) -> Path:
    """Write ``pages`` into a new database at ``path`` in the layout of ``feverous_wikiv1.db``.

    Args:
        path: The database file to create (it must not hold a ``wiki`` table yet).
        pages: Page objects as the original stores them, each with a ``title``.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.
    """
    conn = sqlite3.connect(path)
    try:
        conn.execute("CREATE TABLE wiki (id PRIMARY KEY, data json)")
        for page in pages:
            title = unicodedata.normalize("NFD", page["title"])
            conn.execute("INSERT INTO wiki VALUES (?, ?)", (title, json.dumps(page)))
        conn.commit()
    finally:
        conn.close()
    return Path(path)
