"""Docs, docstrings and package data cite papers by title and arXiv id, not by local file names."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# A paper's text file name as it circulates in the project's working material
# ("001_357e913c259e2020.txt"), or a reference to one by number ("seed 001").
FILE_NAME = re.compile(r"\b\d{3}_[0-9a-f]{16}(?:\.txt)?\b|\bseeds?\s+`?\d{3}\b|\bthe seed['’`s ]")


def _texts() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for ext in ("*.py", "*.json", "*.txt"):
        files += sorted((ROOT / "src" / "conflicteval").rglob(ext))
    return [f for f in files if f.is_file()]


def test_no_doc_docstring_or_package_file_names_a_paper_file() -> None:
    found = []
    for path in _texts():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if FILE_NAME.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not found, "\n".join(found)


def test_the_three_papers_are_cited_by_arxiv_id() -> None:
    docs = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md")}
    assert "arXiv:2406.13805" in docs["wikicontradict.md"]
    assert "arXiv:2106.05707" in docs["feverous.md"]
    for name in ("conflictscore.md", "conflictbench.md"):
        assert "arXiv:2606.26437" in docs[name]
