"""The names the command line offers before any workflow is imported (a fast start)."""

METHODS: tuple[str, ...] = ("no-rag", "rag", "madam")
"""The RAMDocs paper's Table 1 methods this library runs (Astute RAG is not implemented)."""

DEFAULT_ROUNDS = 3
"""MADAM-RAG's maximum number of debate rounds (3 in the paper)."""
