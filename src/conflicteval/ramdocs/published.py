"""Table 1 of "Retrieval-Augmented Generation with Conflicting Evidence" (arXiv 2504.13079).

Exact match (%) of each method on FaithEval, AmbigDocs and RAMDocs, as published. The paper's
FaithEval column is one figure per model and method; which FaithEval task (or mix) it was
measured on is not recorded here (it could not be recovered), so it is shown beside every
FaithEval task as the paper's figure, not as a like-for-like target.
"""

from __future__ import annotations

METHODS: tuple[str, ...] = ("no-rag", "rag", "astute-rag", "madam")
"""Table 1's columns: No RAG, Prompt-based (RAG), Astute RAG, MADAM-RAG."""

METHOD_LABELS: dict[str, str] = {
    "no-rag": "No RAG",
    "rag": "Prompt-based",
    "astute-rag": "Astute RAG",
    "madam": "MADAM-RAG",
}

BENCHMARKS: tuple[str, ...] = ("faitheval", "ambigdocs", "ramdocs")

TABLE1: dict[str, dict[str, dict[str, float]]] = {
    "Llama3.3-70B-Inst": {
        "faitheval": {"no-rag": 26.70, "rag": 27.30, "astute-rag": 37.10, "madam": 43.10},
        "ambigdocs": {"no-rag": 4.30, "rag": 54.20, "astute-rag": 46.80, "madam": 58.20},
        "ramdocs": {"no-rag": 5.80, "rag": 32.60, "astute-rag": 31.80, "madam": 34.40},
    },
    "Qwen2.5-72B-Inst": {
        "faitheval": {"no-rag": 26.40, "rag": 38.50, "astute-rag": 44.60, "madam": 57.70},
        "ambigdocs": {"no-rag": 1.80, "rag": 41.20, "astute-rag": 39.80, "madam": 52.70},
        "ramdocs": {"no-rag": 4.20, "rag": 20.60, "astute-rag": 20.80, "madam": 26.40},
    },
    "GPT-4o-mini": {
        "faitheval": {"no-rag": 31.00, "rag": 21.00, "astute-rag": 34.00, "madam": 38.50},
        "ambigdocs": {"no-rag": 1.00, "rag": 51.50, "astute-rag": 15.00, "madam": 63.00},
        "ramdocs": {"no-rag": 2.50, "rag": 25.00, "astute-rag": 13.00, "madam": 28.00},
    },
}
"""``TABLE1[model][benchmark][method]``: exact match in percent, as printed in the paper."""


def published(benchmark: str, method: str) -> dict[str, float]:
    """The paper's figures for one benchmark and method: ``{model: EM %}`` (empty if none)."""
    return {
        model: cols[benchmark][method]
        for model, cols in TABLE1.items()
        if method in cols.get(benchmark, {})
    }
