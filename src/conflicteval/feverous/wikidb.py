"""Read-only access to the FEVEROUS Wikipedia database (``feverous_wikiv1.db``).

The database is SQLite with one table, ``wiki(id PRIMARY KEY, data json)``:
``id`` is the page title and ``data`` the page JSON, both NFD-normalised.
Titles are normalised to NFD before lookup, so NFC titles from claims work.
"""

from __future__ import annotations

import sqlite3
import unicodedata
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from os import PathLike
from pathlib import Path
from types import TracebackType

from pydantic import BaseModel, Field

from conflicteval.errors import DataError
from conflicteval.jsonio import parse_json

from .ids import ElementId, as_element
from .wikipage import ElementNotFoundError, WikiPage, strip_wiki_links


class ResolvedElement(BaseModel):
    """One element id resolved against the database.

    Attributes:
        id: The element id as given.
        page: The page title as given in the id.
        type: The element type.
        text: The element text (wiki links removed when asked).
        context: Context element ids (page title, sections, headers).
        context_text: The text of each context element, in the same order.
    """

    id: str
    page: str
    type: str
    text: str
    context: list[str] = Field(default_factory=list)
    context_text: list[str] = Field(default_factory=list)


class WikiDB:
    """The FEVEROUS Wikipedia database, opened read-only.

    Args:
        path: The SQLite file (``feverous_wikiv1.db``).
        cache_size: How many parsed pages to keep (least recently used first out).

    Raises:
        FileNotFoundError: The file does not exist.
        DataError: The file is no SQLite database, or has no ``wiki`` table with
            ``id`` and ``data`` columns.

    Use as a context manager, or call :meth:`close`.
    """

    def __init__(self, path: str | PathLike[str], *, cache_size: int = 256) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise FileNotFoundError(f"FEVEROUS wiki database not found: {self.path}")
        uri = self.path.resolve().as_uri() + "?mode=ro"
        self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
        try:
            found = self._conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name='wiki'"
            ).fetchone()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise DataError(self.path, None, None, f"not an SQLite database ({exc})") from None
        columns = set()
        if found is not None:
            columns = {str(row[1]) for row in self._conn.execute("PRAGMA table_info(wiki)")}
        if not {"id", "data"} <= columns:
            self._conn.close()
            has = f" (it has columns {', '.join(sorted(columns))})" if columns else ""
            raise DataError(self.path, None, "wiki", f"no table 'wiki(id, data)'{has}")
        self._cache: OrderedDict[str, WikiPage | None] = OrderedDict()
        self._cache_size = cache_size

    # -- lifecycle --------------------------------------------------------

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()

    def __enter__(self) -> WikiDB:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- pages ------------------------------------------------------------

    @staticmethod
    def normalize_title(title: str) -> str:
        """The database form of a title: NFD, outer spaces removed."""
        return unicodedata.normalize("NFD", title).strip()

    def page_json(self, title: str) -> dict[str, object] | None:
        """The raw page JSON for ``title`` (any Unicode normal form), or None."""
        key = self.normalize_title(title)
        row = self._conn.execute("SELECT data FROM wiki WHERE id = ?", (key,)).fetchone()
        if row is None:
            return None
        if not isinstance(row[0], (str, bytes)):
            raise DataError(self.path, key, "data", "page JSON is not text")
        text = row[0] if isinstance(row[0], str) else row[0].decode("utf-8", "replace")
        try:
            data = parse_json(text, self.path, key)  # the reader layer's depth and NaN rules
        except DataError as exc:
            raise DataError(
                self.path, key, "data", f"page JSON is invalid ({exc.message})"
            ) from None
        if not isinstance(data, dict):
            raise DataError(self.path, key, "data", "page JSON is not an object")
        return data

    def get_page(self, title: str) -> WikiPage | None:
        """The parsed page for ``title``, or None when it is not in the database."""
        key = self.normalize_title(title)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        data = self.page_json(key)
        page = WikiPage(data, title=key) if data is not None else None
        self._cache[key] = page
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return page

    def page(self, title: str) -> WikiPage:
        """The parsed page for ``title``.

        Raises:
            ElementNotFoundError: No such page.
        """
        page = self.get_page(title)
        if page is None:
            raise ElementNotFoundError(f"page {title!r} not in {self.path.name}")
        return page

    def __contains__(self, title: object) -> bool:
        if not isinstance(title, str):
            return False
        key = self.normalize_title(title)
        return self._conn.execute("SELECT 1 FROM wiki WHERE id = ?", (key,)).fetchone() is not None

    def __len__(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM wiki").fetchone()[0])

    def titles(self) -> Iterator[str]:
        """Every page title in the database (streamed)."""
        for (title,) in self._conn.execute("SELECT id FROM wiki"):
            yield str(title)

    # -- elements ---------------------------------------------------------

    def element_text(self, element_id: str | ElementId, *, strip_links: bool = False) -> str:
        """The text of one element (see :mod:`conflicteval.feverous.wikipage` for the rules).

        Args:
            element_id: ``"Page_cell_0_1_2"`` and the like, or an :class:`ElementId`.
            strip_links: Replace ``[[Target|anchor]]`` by ``anchor``.

        Raises:
            ElementNotFoundError: The page or the element is missing.
            ElementIdError: The id is malformed.
        """
        element = as_element(element_id)
        text = self.page(element.page).text(element.local_id)
        return strip_wiki_links(text) if strip_links else text

    def element_context(self, element_id: str | ElementId) -> list[str]:
        """Context ids of an element, with the page part as given in ``element_id``."""
        element = as_element(element_id)
        local = self.page(element.page).context(element.local_id)
        return [f"{element.page}_{ctx}" for ctx in local]

    def resolve(
        self, element_id: str | ElementId, *, strip_links: bool = False, context: bool = True
    ) -> ResolvedElement:
        """Resolve an element id to its text and (optionally) its context.

        Raises:
            ElementNotFoundError: The page or the element is missing.
        """
        element = as_element(element_id)
        page = self.page(element.page)
        text = page.text(element.local_id)
        ctx_ids: list[str] = []
        ctx_text: list[str] = []
        if context:
            for local in page.context(element.local_id):
                ctx_ids.append(f"{element.page}_{local}")
                ctx_text.append(page.text(local))
        if strip_links:
            text = strip_wiki_links(text)
            ctx_text = [strip_wiki_links(t) for t in ctx_text]
        return ResolvedElement(
            id=str(element),
            page=element.page,
            type=element.type,
            text=text,
            context=ctx_ids,
            context_text=ctx_text,
        )

    def resolve_many(
        self,
        element_ids: Iterable[str | ElementId],
        *,
        strip_links: bool = False,
        context: bool = True,
        skip_missing: bool = False,
    ) -> list[ResolvedElement]:
        """Resolve several ids in order; with ``skip_missing`` unknown ones are left out."""
        out: list[ResolvedElement] = []
        for element_id in element_ids:
            try:
                out.append(self.resolve(element_id, strip_links=strip_links, context=context))
            except ElementNotFoundError:
                if not skip_missing:
                    raise
        return out
