"""Datasets by name: a pinned registry of where each dataset lives, fetched once and verified.

>>> from conflicteval.data import fetch, list_datasets
>>> source = fetch("wikicontradict")          # doctest: +SKIP
>>> source.path, source.sha256, source.revision  # doctest: +SKIP

Every loader that reads a registry dataset also accepts ``path=None`` and fetches it.
"""

from typing import TYPE_CHECKING

from conflicteval import _lazy

if TYPE_CHECKING:
    from conflicteval.data.fetch import (
        ChecksumMismatch,
        DatasetUnavailable,
        DataSource,
        cached_path,
        data_dir,
        fetch,
        list_datasets,
        resolve,
        sha256_file,
    )
    from conflicteval.data.registry import REGISTRY, DatasetFile, get_entry

# Public names, each stated once by module, imported on first use (see conflicteval._lazy).
__all__ = _lazy.exports(
    __name__,
    {
        ".fetch": (
            "ChecksumMismatch DatasetUnavailable DataSource cached_path data_dir fetch",
            "list_datasets resolve sha256_file",
        ),
        ".registry": "REGISTRY DatasetFile get_entry",
    },
)
