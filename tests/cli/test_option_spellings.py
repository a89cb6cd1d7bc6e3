"""One spelling per concept on the command line, every shared option defined once, and the old
spellings: accepted for one release, hidden from --help, one deprecation line on stderr."""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import pytest

from conflicteval.cli import build_parser, main
from conflicteval.cli.aliases import LabelerKind
from conflicteval.conflictscore.factory import LABELER_KINDS

CLI_DIR = Path(__file__).resolve().parents[2] / "src" / "conflicteval" / "cli"

SHARED = {
    "--out",
    "--run",
    "--items",
    "--json",
    "--dry-run",
    "--limit",
    "--paper",
    "--seed",
    "--model",
    "--concurrency",
    "--model-concurrency",
    "--quiet",
    "--labeler",
    "--decomposer",
    "--nli-model",
    "--plain-json",
    "--batch-export",
    "--allow-checksum-mismatch",
    "--cache-dir",
}


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """Every (command path, parser) of the command line, the top level included."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, (*path, name))


def _visible(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.option_strings and a.help != argparse.SUPPRESS]


@pytest.fixture(scope="module")
def parser() -> argparse.ArgumentParser:
    return build_parser()


def test_shared_options_are_defined_only_in_the_options_module() -> None:
    found = []
    for path in sorted(CLI_DIR.glob("*.py")):
        if path.name in ("options.py", "aliases.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value in SHARED
            ):
                found.append(f"{path.name}:{node.lineno} {node.args[0].value}")
    assert found == []


@pytest.mark.parametrize(
    "option", ["--dry-run", "--plain-json", "--quiet", "--batch-export", "--nli-model"]
)
def test_a_shared_option_has_one_help_text(parser: argparse.ArgumentParser, option: str) -> None:
    helps = {
        a.help for _, p in _commands(parser) for a in _visible(p) if option in a.option_strings
    }
    assert len(helps) == 1, helps


@pytest.mark.parametrize(
    ("option", "start"),
    [("--json", "print JSON"), ("--limit", "only the first N "), ("--seed", "seed of ")],
)
def test_a_described_shared_option_reads_the_same_way(
    parser: argparse.ArgumentParser, option: str, start: str
) -> None:
    helps = [
        str(a.help) for _, p in _commands(parser) for a in _visible(p) if option in a.option_strings
    ]
    assert len(helps) >= 3
    assert all(h.startswith(start) for h in helps), helps


def test_which_model_is_spelled_model_or_role_model(parser: argparse.ArgumentParser) -> None:
    spec_options = {
        (" ".join(path), a.option_strings[-1])
        for path, p in _commands(parser)
        for a in _visible(p)
        if a.metavar and "SPEC" in str(a.metavar)
    }
    assert ("wikicontradict judge", "--model") in spec_options
    assert ("regenerate", "--judge-model") in spec_options
    bad = {
        (cmd, o)
        for cmd, o in spec_options
        if o != "--model" and not re.fullmatch(r"--[a-z]+-model", o)
    }
    assert bad == set()
    # a role prefix only where the command has another model
    for path, p in _commands(parser):
        specs = {a.option_strings[-1] for a in _visible(p) if "SPEC" in str(a.metavar)}
        if specs - {"--model"}:
            assert "--model" in specs, (path, specs)


def test_labeler_always_names_a_labeler_kind(parser: argparse.ArgumentParser) -> None:
    seen = 0
    for _, p in _commands(parser):
        for a in _visible(p):
            if "--labeler" in a.option_strings:
                kinds = a.kinds if isinstance(a, LabelerKind) else a.choices
                assert kinds and set(kinds) <= set(LABELER_KINDS)
                seen += 1
    assert seen >= 7


def test_out_is_an_output_everywhere(parser: argparse.ArgumentParser) -> None:
    report = dict(_commands(parser))[("conflictbench", "report")]
    assert "--out" not in {a.option_strings[-1] for a in _visible(report)}
    assert "--run" in {a.option_strings[-1] for a in _visible(report)}


# ------------------------------------------------------------------ deprecated spellings

# (command, old argv, new argv, the warning's old and new)
ALIASES = [
    (
        ["wikicontradict", "judge", "--run", "r"],
        ["--judge", "lexical"],
        ["--model", "lexical"],
        ("--judge", "--model"),
    ),
    (
        ["wikicontradict", "calibrate"],
        ["--judge", "openai/j"],
        ["--model", "openai/j"],
        ("--judge", "--model"),
    ),
    (
        ["wikicontradict", "judge", "--run", "r", "--model", "lexical"],
        ["--output", "g.jsonl"],
        ["--out", "g.jsonl"],
        ("--output", "--out"),
    ),
    (
        ["conflictbench", "report"],
        ["--out", "detect-dir"],
        ["--run", "detect-dir"],
        ("--out", "--run"),
    ),
    (["cache", "info"], ["--dir", "c"], ["--cache-dir", "c"], ("--dir", "--cache-dir")),
    (["cache", "clear"], ["--dir", "c"], ["--cache-dir", "c"], ("--dir", "--cache-dir")),
    (
        ["feverous", "verify"],
        ["--labeler", "openai/gpt-4o-mini"],
        ["--labeler", "llm", "--model", "openai/gpt-4o-mini"],
        ("--labeler openai/gpt-4o-mini", "--labeler llm --model openai/gpt-4o-mini"),
    ),
    (
        ["bench", "labeler", "--gold", "ramdocs", "--out", "o"],
        ["--labeler", "openai/gpt-4o-mini"],
        ["--labeler", "llm", "--model", "openai/gpt-4o-mini"],
        ("--labeler openai/gpt-4o-mini", "--labeler llm --model openai/gpt-4o-mini"),
    ),
    (
        ["bench", "labeler", "--gold", "ramdocs", "--out", "o"],
        ["--labeler", "nli:models/nli"],
        ["--labeler", "nli", "--nli-model", "models/nli"],
        ("--labeler nli:models/nli", "--labeler nli --nli-model models/nli"),
    ),
]


def _ids() -> list[str]:
    return [" ".join(c[0][:2] + c[1][:1]) + f" {i}" for i, c in enumerate(ALIASES)]


@pytest.mark.parametrize(("command", "old", "new", "words"), ALIASES, ids=_ids())
def test_an_old_spelling_parses_as_the_new_one_and_warns_once(
    parser: argparse.ArgumentParser,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
    old: list[str],
    new: list[str],
    words: tuple[str, str],
) -> None:
    with_new = parser.parse_args([*command, *new])
    assert capsys.readouterr().err == ""  # the new spelling: no warning
    with_old = parser.parse_args([*command, *old])
    err = capsys.readouterr().err
    assert vars(with_old) == vars(with_new)
    assert err == f"warning: {words[0]} is deprecated; use {words[1]}\n"


@pytest.mark.parametrize(("command", "old", "new", "words"), ALIASES, ids=_ids())
def test_an_old_option_name_is_hidden_from_help(
    parser: argparse.ArgumentParser,
    command: list[str],
    old: list[str],
    new: list[str],
    words: tuple[str, str],
) -> None:
    sub = dict(_commands(parser))[tuple(c for c in command if not c.startswith("-"))[:2]]
    text = sub.format_help()
    names = {o for a in _visible(sub) for o in a.option_strings}
    assert new[0] in names and new[0] in text
    if old[0] != new[0]:  # a renamed option; a kept name with an old value shows its kinds
        assert old[0] not in names
        assert not re.search(rf"{re.escape(old[0])}\b(?!-)", text)


def test_a_required_option_is_still_required_by_either_name(
    parser: argparse.ArgumentParser, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        parser.parse_args(["wikicontradict", "judge", "--run", "r"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "usage: conflicteval wikicontradict judge" in err
    assert "the following arguments are required: --model" in err


def test_a_mistyped_labeler_kind_is_refused_not_taken_for_a_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["feverous", "verify", "--labeler", "lexcal"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'lexcal'" in err and "did you mean 'lexical'?" in err
    assert "deprecated" not in err


def test_the_old_cache_dir_spelling_runs_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cache", "info", "--dir", str(tmp_path / "c"), "--json"]) == 0
    out = capsys.readouterr()
    assert str(tmp_path / "c") in out.out
    assert out.err.splitlines()[0] == "warning: --dir is deprecated; use --cache-dir"


def test_feverous_verify_with_model_uses_the_llm_labeler(
    parser: argparse.ArgumentParser,
) -> None:
    from conflicteval.cli import feverous as feverous_cli

    args = parser.parse_args(["feverous", "verify", "--model", "scripted"])
    assert type(feverous_cli._make_labeler(args)).__name__ == "LLMLabeler"
    args = parser.parse_args(["feverous", "verify"])
    assert type(feverous_cli._make_labeler(args)).__name__ == "LexicalLabeler"
