"""The one table writer: Markdown, and plain text fitted to a width."""

from __future__ import annotations

import pytest

from conflicteval.tables import (
    fit_text,
    markdown_table,
    parse_markdown_table,
    render_table,
    text_table,
)


def _widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def test_markdown_layout_of_the_report_files() -> None:
    md = markdown_table(["Category", "Prec", "n"], [["Overall", "0.8123", 12], ["paper row"]])
    assert md.splitlines() == [
        "| Category | Prec | n |",
        "|---|---:|---:|",
        "| Overall | 0.8123 | 12 |",
        "| paper row | | |",  # a short row padded, an empty cell written "| |"
    ]
    left = markdown_table(["a", "b"], [["x", "y"]], ["left", "left"])
    assert left.splitlines()[1] == "|---|---|"


def test_a_pipe_inside_a_cell_is_escaped_and_read_back() -> None:
    md = markdown_table(["answers", "n"], [["Paris | Lyon", 2], ["a\\|b", 1]])
    assert "| Paris \\| Lyon | 2 |" in md
    assert "| a\\|b | 1 |" in md  # already escaped: not escaped twice
    parsed = parse_markdown_table(md.splitlines())
    assert parsed is not None
    header, rows, aligns = parsed
    assert header == ["answers", "n"] and rows == [["Paris | Lyon", "2"], ["a|b", "1"]]
    assert aligns == ["left", "right"]


def test_too_many_cells_or_alignments_is_refused() -> None:
    with pytest.raises(ValueError, match="3 cells for 2 columns"):
        markdown_table(["a", "b"], [[1, 2, 3]])
    with pytest.raises(ValueError, match="align has 1 entries for 2 columns"):
        markdown_table(["a", "b"], [[1, 2]], ["left"])


def test_a_table_that_fits_keeps_its_natural_widths() -> None:
    text = text_table(["model", "F1"], [["gpt-4o-mini", "0.8123"], ["x", "0.5"]])
    assert text.splitlines() == [
        "model            F1",
        "-----------  ------",
        "gpt-4o-mini  0.8123",
        "x               0.5",
    ]


def test_a_long_text_cell_wraps_inside_its_column() -> None:
    long = "a response that goes on " * 10
    text = text_table(["response", "score"], [[long.strip(), "0.75"]], width=60)
    lines = text.splitlines()
    assert _widest(text) <= 60
    assert len(lines) > 3  # the cell took several lines
    assert lines[2].endswith("0.75")  # the figure on the row's first line, right-aligned
    assert " ".join(" ".join(ln.split()) for ln in lines[2:]).replace(" 0.75", "") == " ".join(
        long.split()
    )


def test_figures_are_never_cut_and_blocks_repeat_the_first_column() -> None:
    header = ["Category", *(f"Metric {k} 95% CI" for k in range(7))]
    row = ["Overall", *(["[0.4400, 1.0000]"] * 7)]
    text = text_table(header, [row, ["MacNoise-NQ", "EM 50.0 [9.5, 90.5]"]], width=100)
    assert _widest(text) <= 100
    blocks = text.split("\n\n")
    assert len(blocks) >= 2  # seven intervals do not fit 100 columns side by side
    for block in blocks:
        assert block.splitlines()[0].startswith("Category")
        assert "Overall" in block
    assert text.count("[0.4400, 1.0000]") == 7  # every interval whole, on one line
    assert "EM 50.0 [9.5, 90.5]" in text  # short words beside figures: one figure


def test_the_widest_column_gives_way_first() -> None:
    rows = [["m" * 70, "n" * 40, "12345"]]
    text = text_table(["a", "b", "n"], rows, width=80)
    assert _widest(text) <= 80
    assert "12345" in text
    wa, wb, wn = (len(dashes) for dashes in text.splitlines()[1].split("  "))
    # the 70-wide column shrank to the 40-wide one's width before that one shrank, then both
    # in turn; the figures' column kept its width
    assert wa + wb == 80 - 4 - 5 and {wa, wb} == {35, 36} and wn == 5


def test_render_table_picks_the_layout() -> None:
    rows = [["x", 1]]
    assert render_table(["a", "b"], rows) == markdown_table(["a", "b"], rows)
    assert render_table(["a", "b"], rows, markdown=False) == text_table(["a", "b"], rows)


def test_fit_text_turns_tables_to_text_and_wraps_long_lines() -> None:
    prose = "word " * 40
    md = markdown_table(["Category", "Prec"], [["Overall", "0.8123"]])
    text = f"# Report\n\n{prose.strip()}\n\n{md}\nopen it: conflicteval view {'d' * 120}"
    fitted = fit_text(text, 60)
    lines = fitted.splitlines()
    assert lines[0] == "# Report"
    assert "|" not in fitted.replace(f"{'d' * 120}", "")
    assert "Category    Prec" in fitted and "Overall   0.8123" in fitted
    assert all(len(ln) <= 60 for ln in lines if "conflicteval view" not in ln)
    assert f"open it: conflicteval view {'d' * 120}" in lines  # a command stays whole
    assert fit_text("| not | a table |\nplain") == "| not | a table |\nplain"
