"""A repeated warning is said once per run with a count; every command says how long it took."""

from __future__ import annotations

import argparse
import io
import logging
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.cli.terminal import RepeatedWarnings, collapse_repeats

from .test_limit_and_next_step import _bench_items


def _handler() -> tuple[logging.Handler, io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    return handler, stream


def test_a_warning_repeated_per_item_is_shown_once_with_a_count() -> None:
    handler, shown = _handler()
    root = logging.getLogger()
    root.addHandler(handler)
    log = logging.getLogger("conflicteval.runs.itemrun")
    said = io.StringIO()
    try:
        with collapse_repeats(said):
            for i in range(5):
                log.warning("item %s raised %s: %s", f"s:{i}", "ValueError", "boom")
            log.warning("%s: could not read the cache: %s", "m", "locked")
            log.warning("%s", "a first line of its own")  # only placeholders: by its text
            log.warning("%s", "another line of its own")
            log.error("item %s failed", "s:1")
            log.error("item %s failed", "s:2")  # errors are all shown
    finally:
        root.removeHandler(handler)
    lines = shown.getvalue().splitlines()
    assert [ln for ln in lines if "raised" in ln] == [
        "WARNING conflicteval.runs.itemrun: item s:0 raised ValueError: boom"
    ]
    assert "a first line of its own" in shown.getvalue()
    assert "another line of its own" in shown.getvalue()
    assert sum("failed" in ln for ln in lines) == 2
    assert said.getvalue().splitlines() == [
        "warning: 4 more like this were not shown: item s:0 raised ValueError: boom "
        "(once per run and kind; -v shows every one)"
    ]
    # the filter is gone after the block: the next run shows its first warning again
    assert all(not isinstance(f, RepeatedWarnings) for f in handler.filters)


def test_nothing_repeated_says_nothing() -> None:
    said = io.StringIO()
    with collapse_repeats(said):
        logging.getLogger("conflicteval.x").warning("once")
    assert said.getvalue() == ""


def _noisy(args: argparse.Namespace) -> int:
    log = logging.getLogger("conflicteval.runs.itemrun")
    for i in range(3):
        log.warning("item %s raised %s: %s", f"s:{i}", "KeyError", "'x'")
    return 0


@pytest.mark.parametrize("verbose", [False, True])
def test_the_command_line_collapses_repeats_per_run(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
    verbose: bool,
) -> None:
    import conflicteval.cli.conflictbench as area

    monkeypatch.setattr(area, "_detect", _noisy)
    argv = ["conflictbench", "detect", "--items", "x.jsonl", "--out", str(tmp_path / "d")]
    caplog.set_level(logging.WARNING)
    assert main(["-v", *argv] if verbose else argv) == 0
    raised = [r for r in caplog.records if "raised" in r.getMessage()]
    err = capsys.readouterr().err
    if verbose:  # -v shows every one
        assert len(raised) == 3 and "more like this" not in err
    else:
        assert [r.getMessage() for r in raised] == ["item s:0 raised KeyError: 'x'"]
        assert "warning: 2 more like this were not shown: item s:0 raised KeyError: 'x'" in err


def test_every_command_says_its_elapsed_time_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["docs"]) == 0
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith("took ") and err.rstrip().endswith(" s")
    items = _bench_items(tmp_path / "b.jsonl", 2)
    detect = ["conflictbench", "detect", "--items", str(items), "--out", str(tmp_path / "d")]
    assert main([*detect, "--quiet"]) in (0, 1)
    both = "".join(capsys.readouterr())
    # said once: with the run's cost line (from its summary), not again at the end
    assert both.count("took ") == 1 and "; took " in " ".join(both.split())


def test_a_limit_larger_than_the_questions_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shared_data: Path, openai_server: Any
) -> None:
    sample = shared_data / "conflictqa" / "conflictQA-strategyQA-chatgpt_first30.json"
    openai_server.set_replies(["B."])
    argv = ["conflictqa", "run", "--data", str(sample), "--out", str(tmp_path / "r")]
    argv += ["--model", "openai/t", "--base-url", openai_server.base_url, "--quiet"]
    main([*argv, "--limit", "500"])
    err = capsys.readouterr().err
    assert "note: --limit 500 is more than the 30 questions the data holds: all 30 are used" in err


def test_a_limit_larger_than_the_gold_records_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shared_data: Path
) -> None:
    data = shared_data / "ramdocs" / "RAMDocs_test_first30.jsonl"
    argv = ["bench", "labeler", "--gold", "ramdocs", "--data", str(data), "--labeler", "lexical"]
    argv += ["--out", str(tmp_path / "b"), "--quiet"]
    assert main([*argv, "--limit", "500"]) == 0
    err = capsys.readouterr().err
    assert "note: --limit 500 is more than the 30 source records the data holds" in err
    assert main([*argv, "--limit", "30", "--restart"]) == 0
    assert "--limit" not in capsys.readouterr().err


def test_a_command_inside_another_keeps_the_outer_elapsed_time() -> None:
    from conflicteval.cli.terminal import said_elapsed, timed

    said = io.StringIO()
    with timed(said):
        with timed(said):
            said_elapsed()  # the inner command printed its time with its cost line
        assert said.getvalue() == ""
    assert said.getvalue().startswith("took ")  # the outer one still says its own
