"""The suite as data: its commands are real commands, its selection rule is the one written
down, its stored ids are the rule's, and two cards from different files are not paired."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import pytest

from conflicteval.cli.app import build_parser, main
from conflicteval.errors import ConflictEvalError
from conflicteval.profiles import load_suite, same_items, select_ids
from conflicteval.profiles.subset import read_items, write_subset


def test_every_suite_command_is_a_command_of_the_library() -> None:
    suite = load_suite()
    assert suite.schema == "conflicteval-suite/1"
    assert suite.sizes == {"small": 100, "standard": 500, "full": None}
    parser = build_parser()
    for b in suite.benchmarks:
        argv = [*b.command, b.data_option, "f", "--out", "d", "--model", "openai/m", "--quiet"]
        args, extras = parser.parse_known_args(argv)
        assert not extras and callable(args.func), b.id
        assert (b.why and "arXiv" in b.paper) or b.id.startswith("conflictbench"), b.id
    families = {b.family for b in suite.benchmarks}
    assert {"inter-context", "context-memory", "claim verification"} <= families


def _rank(item_id: str) -> str:
    return hashlib.sha256(f"0\x00toy\x00{item_id}".encode()).hexdigest()


def test_selection_rule_by_hand() -> None:
    items = [(f"a{i}", "A") for i in range(6)] + [(f"b{i}", "B") for i in range(4)]
    got = select_ids(items, 5, seed=0, dataset="toy")
    # quotas: A 5*6/10 = 3, B 5*4/10 = 2; within each, the smallest sha256 ranks
    want_a = sorted((i for i, s in items if s == "A"), key=_rank)[:3]
    want_b = sorted((i for i, s in items if s == "B"), key=_rank)[:2]
    assert got == [i for i, _ in items if i in set(want_a + want_b)]  # in file order
    # largest remainder: 4 A and 3 B, size 3: A 12/7 = 1.71, B 9/7 = 1.29; floors 1 and 1,
    # the one left goes to A (the larger remainder): 2 A, 1 B
    seven = [(f"a{i}", "A") for i in range(4)] + [(f"b{i}", "B") for i in range(3)]
    picked = select_ids(seven, 3, seed=0, dataset="toy")
    assert sum(i.startswith("a") for i in picked) == 2 and len(picked) == 3
    # equal remainders (2 A, 2 B, size 1: 0.5 each): to the stratum named first, A
    four = [("a0", "A"), ("b0", "B"), ("a1", "A"), ("b1", "B")]
    assert select_ids(four, 1, seed=0, dataset="toy")[0].startswith("a")
    assert select_ids(items, None, seed=0, dataset="toy") == [i for i, _ in items]
    assert select_ids(items, 50, seed=0, dataset="toy") == [i for i, _ in items]
    assert select_ids(items, 5, seed=1, dataset="toy") != got  # the seed matters
    with pytest.raises(ConflictEvalError, match=r"a0.*repeats"):
        select_ids([("a0", "A"), ("a0", "A")], 1, seed=0, dataset="toy")


def test_stored_wikicontradict_ids_are_the_rules(shared_data: Path) -> None:
    suite = load_suite()
    bench = suite.benchmark("wikicontradict")
    items = read_items(bench, shared_data / "wikicontradict/WikiContradict_dataset_v1_rag_qa.csv")
    assert len(items.ids) == 253
    stored = list(bench.ids["small"])
    assert stored == select_ids(items.ids, 100, seed=suite.seed, dataset="wikicontradict")
    strata = dict(items.ids)
    explicit = sum(1 for i in stored if strata[i] == "Explicit")
    assert (explicit, len(stored) - explicit) == (64, 36)  # 161 and 92 of 253, largest remainder


def test_subsets_keep_the_source_form(shared_data: Path, tmp_path: Path) -> None:
    from conflicteval.wikicontradict import load_wikicontradict

    suite = load_suite()
    ram = suite.benchmark("ramdocs.rag")
    src = shared_data / "ramdocs/RAMDocs_test_first30.jsonl"
    items = read_items(ram, src)
    chosen = select_ids(items.ids, 10, seed=0, dataset="ramdocs")
    out = write_subset(ram, items, chosen, tmp_path, "ramdocs-small")
    lines = src.read_bytes().splitlines(keepends=True)
    assert out.read_bytes() == b"".join(lines[int(i)] for i in chosen)  # byte for byte
    wc = suite.benchmark("wikicontradict")
    wc_items = read_items(wc, shared_data / "wikicontradict/WikiContradict_dataset_v1_rag_qa.csv")
    wc_out = write_subset(wc, wc_items, list(wc.ids["small"]), tmp_path, "wc-small")
    loaded = load_wikicontradict(wc_out)
    assert [x.id for x in loaded] == list(wc.ids["small"])
    with (shared_data / "wikicontradict/WikiContradict_dataset_v1_rag_qa.csv").open(
        encoding="utf-8-sig", newline=""
    ) as fh:
        rows = {r["question_ID"]: r for r in csv.DictReader(fh)}
    with wc_out.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            assert row == rows[row["question_ID"]]  # every field unchanged
    fev = suite.benchmark("feverous_s")
    fev_items = read_items(fev, shared_data / "feverous/feverous_s_dev_first5.json")
    assert [i for i, _ in fev_items.ids] == ["3385", "7966", "48965", "268", "1183"]
    assert dict(fev_items.ids)["3385"] == "supports"


def test_bad_jsonl_line_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q"}\nnot json\n')
    with pytest.raises(ConflictEvalError, match=r"bad.jsonl.*row 2"):
        read_items(load_suite().benchmark("ramdocs.rag"), bad)


def _record(sha: str, ids: list[str]) -> dict[str, object]:
    sel = {"file": "x", "source_sha256": sha, "ids": ids}
    return {"suite": "conflicteval-suite/1", "size": "small", "selections": {"ramdocs": sel}}


def test_cards_of_different_files_are_not_paired() -> None:
    assert same_items(_record("a" * 64, ["1", "2"]), _record("a" * 64, ["1", "2"])) == []
    assert "different files" in same_items(_record("a" * 64, ["1"]), _record("b" * 64, ["1"]))[0]
    assert "different items" in same_items(_record("a" * 64, ["1"]), _record("a" * 64, ["2"]))[0]


def test_command_line_mistakes_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["profile", "--out", str(tmp_path / "p")]) == 2
    assert "give --model" in capsys.readouterr().err
    assert main(["profile", "--model", "m", "--out", str(tmp_path), "--data", "ramdocs"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "NAME=PATH" in err
    argv = ["profile", "--model", "m", "--out", str(tmp_path), "--data", "ramdoc=x.jsonl"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--data ramdoc=" in err and "ramdocs" in err  # a misspelt name is not ignored
    argv = ["profile", "--model", "m", "--out", str(tmp_path), "--benchmark", "nope"]
    assert main(argv) == 2
    assert "not in the suite" in capsys.readouterr().err
    assert not (tmp_path / "profile.json").exists()


def test_cell_commands_carry_the_shared_options(tmp_path: Path) -> None:
    from conflicteval.profiles.runner import ProfileOptions, commands_of

    opts = ProfileOptions(
        models=["openai/m"], out=tmp_path, executor="ray", concurrency=4, base_url="http://h/v1"
    )
    parser = build_parser()
    for bench in load_suite().benchmarks:
        if bench.scores:
            continue
        for argv in commands_of(bench, "openai/m", tmp_path / bench.id, "data", opts):
            args, extras = parser.parse_known_args(argv)
            assert not extras, argv
            if argv[:2] != ["wikicontradict", "judge"]:  # the offline judge calls no model
                assert (args.executor, args.concurrency) == ("ray", 4), bench.id
                assert args.base_url == "http://h/v1"
    judge = commands_of(load_suite().benchmark("wikicontradict"), "m", tmp_path, "d", opts)[1]
    assert judge[judge.index("--model") + 1] == "lexical"


def test_clasheval_items_are_questions_with_all_their_rows(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [
        {"question": q, "dataset": dom, "mod_type": mod}
        for q, dom in (("Q1", "years"), ("Q2", "names"), ("Q3", "years"), ("Q4", "names"))
        for mod in ("0", "1", "2")
    ]
    src = tmp_path / "dataset.pqt"
    pq.write_table(pa.Table.from_pylist(rows), src)
    bench = load_suite().benchmark("clasheval")
    items = read_items(bench, src)
    assert items.ids == [("0", "years"), ("3", "names"), ("6", "years"), ("9", "names")]
    chosen = select_ids(items.ids, 2, seed=0, dataset="clasheval")
    assert len(chosen) == 2 and {dict(items.ids)[i] for i in chosen} == {"years", "names"}
    out = write_subset(bench, items, chosen, tmp_path, "clasheval-small")
    kept = pq.read_table(out).to_pylist()
    assert len(kept) == 6  # both questions whole, every modification of each
    assert [r["question"] for r in kept] == [
        rows[int(i)]["question"] for i in chosen for _ in "012"
    ]
