"""The table of area modules and command groups the parser is built from."""

from __future__ import annotations

import argparse
import importlib.util

import pytest

from conflicteval.cli import app, conflictbench
from conflicteval.cli.commands import AREAS, area_register


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(sub.choices)


def test_the_top_level_commands_keep_their_order() -> None:
    assert _commands(app.build_parser()) == [
        "cache",
        "demo",
        "score",
        "wikicontradict",
        "conflictbench",
        "reports",
        "regenerate",
        "feverous",
        "ramdocs",
        "faitheval",
        "conflictqa",
        "clasheval",
        "batch",
        "data",
        "bench",
        "profile",
        "view",
        "compare",
        "export",
        "docs",
    ]


def test_an_area_whose_module_is_missing_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    missing = "conflicteval.cli.conflictbench"
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == missing else real(name, *a)
    )
    commands = _commands(app.build_parser())
    assert "conflictbench" not in commands and "reports" not in commands
    assert "feverous" in commands


def test_an_area_register_adds_its_group_and_its_own_commands() -> None:
    parser = argparse.ArgumentParser(prog="conflicteval")
    conflictbench.register(parser.add_subparsers(dest="command"))
    assert _commands(parser) == ["conflictbench", "reports", "regenerate"]
    args = parser.parse_args(["conflictbench", "report", "--run", "r"])
    assert args.conflictbench_command == "report" and args.run == "r"


def test_every_area_with_a_group_adds_its_actions() -> None:
    grouped = [area for area in AREAS if area.group is not None]
    assert grouped
    for area in grouped:
        assert callable(getattr(importlib.import_module(area.module), "add_actions", None))


def test_an_area_without_a_group_has_no_table_register() -> None:
    with pytest.raises(ValueError, match="command group"):
        area_register("conflicteval.cli.view")
