"""The markdown of Tables 3, 4 and 5, to the byte: result rows, then the paper's padded rows."""

from __future__ import annotations

from conflicteval.conflictbench.regen_tables import (
    MethodRow,
    RegenerationSummary,
    table4,
    table5,
)
from conflicteval.conflictbench.report_benchmark import ReportRow, table3


def test_table3_rows_then_paper_rows() -> None:
    rows = [
        ReportRow(
            model="m",
            setting="rag",
            cs_c=0.5,
            reports=3,
            scored=2,
            cs_r_undefined=1,
            score_errors=1,
            failed_pairs=4,
        ),
        ReportRow(model="x y", setting="odd", reports=1),
    ]
    rows[0].cs_c_ci = [0.25, 0.75]
    lines = table3(rows, paper=True).split("\n")
    assert lines[:4] == [
        "| Model / Setting | CS-C | CS-C 95% CI | CS-R | CS-R 95% CI | Reports | Scored "
        "| CS-R undefined | Not scored | Failed | Failed pairs |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        "| m / RAG | 0.5000 | [0.2500, 0.7500] | – | – | 3 | 2 | 1 | 1 | 0 | 4 |",
        "| x y / odd | – | – | – | – | 1 | 0 | 0 | 0 | 0 | 0 |",
    ]
    # the paper's rows: its figures, no interval (it prints none), no counts
    assert lines[4] == "| GPT-4.1 / RAG (paper) | 0.5238 | | 0.1517 | | 100 | | | | | |"
    assert len(lines) == 10
    assert table3(rows) == "\n".join(lines[:4])


def test_tables_4_and_5_rows_then_paper_rows() -> None:
    summary = RegenerationSummary(
        free=[
            MethodRow(
                method="RAG", n=3, truthful=66.666, truthful_ci=[0.0, 100.0], unjudged_truthful=1
            )
        ],
        choice=[MethodRow(method="RAG", n=5, accuracy=80.0, accuracy_ci=[33.3, 100.0], unparsed=2)],
    )
    assert table4(summary, paper=True) == "\n".join(
        [
            "| Method | Truthful | Truthful 95% CI | Informative | Informative 95% CI "
            "| Questions | Unjudged (T) | Unjudged (I) |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
            "| RAG | 66.7% | [0.0%, 100.0%] | – | – | 3 | 1 | 0 |",
            "| RAG (paper) | 78.7% | | 91.5% | | 779 | | |",
            "| Control-RAG (paper) | 81.6% | | 93.2% | | 779 | | |",
            "| Regenerated-RAG (paper) | 82.4% | | 93.2% | | 779 | | |",
        ]
    )
    assert table5(summary) == "\n".join(
        [
            "| Method | Accuracy | Accuracy 95% CI | Questions | Unparsed |",
            "|---|---:|---:|---:|---:|",
            "| RAG | 80.00% | [33.30%, 100.00%] | 5 | 2 |",
        ]
    )
    assert table5(summary, paper=True).endswith("\n| Regenerated-RAG (paper) | 85.24% | | 779 | |")
