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

__all__ = [
    "REGISTRY",
    "ChecksumMismatch",
    "DataSource",
    "DatasetFile",
    "DatasetUnavailable",
    "cached_path",
    "data_dir",
    "fetch",
    "get_entry",
    "list_datasets",
    "resolve",
    "sha256_file",
]

# Public names are imported on first use (see conflicteval._lazy): a fast start.
_lazy.install(
    __name__,
    {
        "ChecksumMismatch": (".fetch", "ChecksumMismatch"),
        "DatasetUnavailable": (".fetch", "DatasetUnavailable"),
        "DataSource": (".fetch", "DataSource"),
        "cached_path": (".fetch", "cached_path"),
        "data_dir": (".fetch", "data_dir"),
        "fetch": (".fetch", "fetch"),
        "list_datasets": (".fetch", "list_datasets"),
        "resolve": (".fetch", "resolve"),
        "sha256_file": (".fetch", "sha256_file"),
        "REGISTRY": (".registry", "REGISTRY"),
        "DatasetFile": (".registry", "DatasetFile"),
        "get_entry": (".registry", "get_entry"),
    },
)
