"""One loader per ConflictBench source, each reading the source's real release format."""

from conflicteval.conflictbench.sources.ambigdocs import load_ambigdocs
from conflicteval.conflictbench.sources.conflictingqa import (
    convert_conflictingqa_pickle,
    load_conflictingqa,
)
from conflicteval.conflictbench.sources.contraqa import load_contraqa
from conflicteval.conflictbench.sources.macnoise import load_macnoise

__all__ = [
    "convert_conflictingqa_pickle",
    "load_ambigdocs",
    "load_conflictingqa",
    "load_contraqa",
    "load_macnoise",
]
