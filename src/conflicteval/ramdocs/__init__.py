"""RAMDocs: questions whose retrieved documents mix ambiguity, misinformation and noise.

From "Retrieval-Augmented Generation with Conflicting Evidence" (Wang, Prasad, Stengel-Eskin,
Bansal; arXiv 2504.13079, COLM 2025). :func:`load_ramdocs` reads the release.
"""

from conflicteval.ramdocs.data import (
    DOC_TYPES,
    RamDocument,
    RamItem,
    document_counts,
    load_ramdocs,
)

__all__ = ["DOC_TYPES", "RamDocument", "RamItem", "document_counts", "load_ramdocs"]
