"""Real run directories for the viewer tests, made by the protocol commands themselves.

Each function runs the real ``conflicteval`` command (offline labelers, or the project's
local OpenAI-compatible test server) into a directory and returns it. Replies and
documents carry hostile text (``<script>``, ``</script>``, U+2028) so that every test
also checks the escaping.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conflicteval.cli import main

HOSTILE = "</script><script>document.title='pwned'</script><img src=x onerror=alert(1)>"
"""Text that would run script if the page inserted it as markup."""


def score_input(path: Path, n: int = 4) -> Path:
    """A small ConflictScore input: conflicting documents with titles, one hostile reply."""
    rows = []
    for i in range(n):
        rows.append(
            {
                "id": f"r{i}",
                "question": f"When was the bridge opened? ({i})",
                "response": (
                    "The bridge opened in 1932. It is made of steel."
                    if i % 2 == 0
                    else f"Sources disagree: 1932 or 1934. {HOSTILE}\u2028 done"
                ),
                "documents": [
                    {"id": "a", "title": "Bridge history", "text": "The bridge opened in 1932."},
                    {"id": "b", "title": f"Bridge {HOSTILE}", "text": "The bridge opened in 1934."},
                    {"id": "c", "title": "Steel", "text": "It is made of steel and stone."},
                ],
            }
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def score_run(tmp: Path, name: str = "cs", n: int = 4) -> Path:
    """``conflicteval score --input ... --out DIR`` with the offline decomposer and labeler."""
    out = tmp / name
    items = score_input(tmp / f"{name}_items.jsonl", n)
    assert main(["score", "--input", str(items), "--out", str(out), "--quiet"]) in (0, 1)
    return out


def wikicontradict_run(tmp: Path, wc_csv: Path, server: Any) -> Path:
    """WikiContradict generate (local test server) and judge (lexical) on 3 instances."""
    replies = iter(["Yes.", f"It depends. {HOSTILE}", "No."] * 10)
    server.set_replies(lambda body: next(replies))
    run = tmp / "wc"
    common = ["--data", str(wc_csv), "--model", "openai/t", "--base-url", server.base_url]
    args = ["wikicontradict", "generate", *common, "--templates", "2,5", "--out", str(run)]
    assert main([*args, "--limit", "3", "--quiet"]) == 0
    judge = ["wikicontradict", "judge", "--run", str(run), "--model", "lexical", "--quiet"]
    assert main(judge) == 0
    return run


def bench_items(path: Path) -> Path:
    """A small ConflictBench items file (conflict and no-conflict items, two sources)."""
    rows = []
    for i in range(6):
        conflict = i % 2 == 0
        rows.append(
            {
                "id": f"macnoise-nq:{i}:{'conf' if conflict else 'noconf'}",
                "source": "macnoise-nq" if i < 4 else "ambigdocs",
                "question": "which team has the most titles",
                "claim": "The Steelers have the most titles.",
                "documents": [
                    {
                        "id": "d1",
                        "title": "Super Bowl",
                        "text": "The Steelers have the most titles, with six.",
                        "gold": "SUPPORTS",
                    },
                    {
                        "id": "d2",
                        "title": f"Super Bowl {HOSTILE}",
                        "text": "The Patriots have the most titles, with six."
                        if conflict
                        else "The Super Bowl is played in February.",
                        "gold": "CONTRADICTS" if conflict else "IRRELEVANT",
                    },
                ],
                "conflict": conflict,
                "kind": "conflict" if conflict else "no-conflict",
            }
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def detect_run(tmp: Path) -> Path:
    """``conflicteval conflictbench detect`` with the offline lexical labeler."""
    items = bench_items(tmp / "bench.jsonl")
    out = tmp / "detect"
    assert main(
        ["conflictbench", "detect", "--items", str(items), "--out", str(out), "--quiet"]
    ) in (0, 1)
    return out


def reports_run(tmp: Path, server: Any) -> Path:
    """``conflicteval reports`` (report model on the local server)."""
    items = bench_items(tmp / "bench_r.jsonl")
    server.set_replies(["The Steelers have the most titles. Others say the Patriots do."])
    out = tmp / "reports"
    argv = [
        "reports",
        "--items",
        str(items),
        "--model",
        "big=openai/big",
        "--settings",
        "rag",
        "--n",
        "2",
        "--source",
        "any",
        "--out",
        str(out),
        "--base-url",
        server.base_url,
        "--quiet",
    ]
    assert main(argv) in (0, 1)
    return out


def feverous_run(tmp: Path, claims: Path) -> Path:
    """``conflicteval feverous verify`` with the offline lexical labeler."""
    out = tmp / "fev"
    argv = ["feverous", "verify", "--claims", str(claims), "--labeler", "lexical"]
    assert main([*argv, "--out", str(out), "--quiet"]) in (0, 1)
    return out


def regenerate_run(tmp: Path, server: Any, n: int = 1) -> Path:
    """``conflicteval regenerate`` (binary choice) on ``n`` TruthfulQA-style
    questions (the same question, numbered after the first)."""
    import csv

    questions = tmp / "tqa.csv"
    with questions.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(
            [
                "Type",
                "Category",
                "Question",
                "Best Answer",
                "Best Incorrect Answer",
                "Correct Answers",
                "Incorrect Answers",
                "Source",
            ]
        )
        for k in range(n):
            w.writerow(
                [
                    "Adversarial",
                    "Misconceptions",
                    "Do ostriches hide their heads in the sand?" + (f" ({k})" if k else ""),
                    "No, they do not",
                    "Yes, they bury their heads",
                    "No, they do not",
                    "Yes, they bury their heads",
                    "https://example.org",
                ]
            )
    docs = tmp / "tqa_docs.jsonl"
    docs.write_text(
        "".join(
            json.dumps({"index": k, "documents": ["Ostriches do not bury their heads."]}) + "\n"
            for k in range(n)
        ),
        encoding="utf-8",
    )
    server.set_replies(["(A)"])
    out = tmp / "regen"
    argv = [
        "regenerate",
        "--questions",
        str(questions),
        "--documents",
        str(docs),
        "--model",
        "openai/m",
        "--mode",
        "choice",
        "--out",
        str(out),
        "--base-url",
        server.base_url,
        "--quiet",
    ]
    assert main(argv) in (0, 1)
    return out
