"""Building from several files of one source, CLI wording of loader errors, atomic outputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.conflictbench import build_conflictbench, load, read_items
from conflicteval.conflictbench.sources.macnoise import UnknownVariantError

from .conftest import AMBIG_RECORDS, MACNOISE_RECORDS, write_json


def _two_ambigdocs_files(tmp_path: Path) -> tuple[Path, Path]:
    dev = write_json(tmp_path / "dev.json", AMBIG_RECORDS)
    # A second split whose qids overlap the first (other questions, same ids).
    test = json.loads(json.dumps(AMBIG_RECORDS))
    for rec in test:
        rec["question"] = rec["question"].replace("?", " today?")
        for doc in rec["documents"]:
            doc["pid"] = "9" + doc["pid"]
    return dev, write_json(tmp_path / "test.json", test)


def test_two_files_of_one_source_get_unique_ids(tmp_path: Path) -> None:
    dev, test = _two_ambigdocs_files(tmp_path)
    out = tmp_path / "bench.jsonl"
    result = build_conflictbench([("ambigdocs", dev), ("ambigdocs", test)], output=out)
    ids = [it.id for it in result.items]
    assert len(ids) == len(set(ids)) == 6
    assert {i.rsplit(":", 1)[0] for i in ids} == {
        "ambigdocs:dev:17",
        "ambigdocs:dev:q-18",
        "ambigdocs:dev:q-19",
        "ambigdocs:test:17",
        "ambigdocs:test:q-18",
        "ambigdocs:test:q-19",
    }
    assert {it.meta["source_file"] for it in result.items} == {str(dev), str(test)}
    # The written file reads back (detection refuses duplicate ids).
    assert [it.id for it in read_items(out)] == ids
    # One file alone keeps the plain ids.
    single = build_conflictbench([("ambigdocs", dev)]).items
    assert {it.id.rsplit(":", 1)[0] for it in single} == {it.id for it in load("ambigdocs", dev)}


def test_macnoise_files_of_one_variant_are_told_apart(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    a = write_json(tmp_path / "a" / "NQ_eval.json", MACNOISE_RECORDS)
    b = write_json(tmp_path / "NQ_eval.json", MACNOISE_RECORDS)
    items = build_conflictbench([("macnoise", a), ("macnoise", b)]).items
    ids = [it.id for it in items]
    assert len(ids) == len(set(ids))
    assert {i.split(":")[1] for i in ids} == {"NQ_eval", "NQ_eval-2"}


def test_the_same_file_twice_is_refused(tmp_path: Path, capsys: Any) -> None:
    dev, _ = _two_ambigdocs_files(tmp_path)
    with pytest.raises(ValueError, match="given twice"):
        build_conflictbench([("ambigdocs", dev), ("ambigdocs", tmp_path / "." / "dev.json")])
    out = tmp_path / "bench.jsonl"
    args = ["conflictbench", "build", "--source", f"ambigdocs={dev}"]
    assert main([*args, "--source", f"ambigdocs={dev}", "--out", str(out)]) == 2
    assert "given twice" in capsys.readouterr().err
    assert not out.exists()


def test_cli_build_from_two_files_writes_unique_ids(tmp_path: Path) -> None:
    dev, test = _two_ambigdocs_files(tmp_path)
    out = tmp_path / "bench.jsonl"
    args = ["conflictbench", "build", "--source", f"ambigdocs={dev}"]
    assert main([*args, "--source", f"ambigdocs={test}", "--out", str(out)]) == 0
    ids = [it.id for it in read_items(out)]
    assert len(ids) == len(set(ids)) == 6
    detect = ["conflictbench", "detect", "--items", str(out), "--out", str(tmp_path / "det")]
    assert main(detect) == 0


def test_macnoise_variant_error_speaks_cli_on_the_command_line(tmp_path: Path, capsys: Any) -> None:
    path = write_json(tmp_path / "perturbed.json", MACNOISE_RECORDS)
    with pytest.raises(UnknownVariantError, match="variant='nq'"):
        list(load("macnoise", path))
    out = tmp_path / "items.jsonl"
    assert main(["conflictbench", "convert", "macnoise", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--variant nq" in err and "variant='nq'" not in err
    assert main(["conflictbench", "build", "--source", f"macnoise={path}", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--variant nq" in err and "variant='nq'" not in err
    assert not out.exists()


def test_failed_convert_leaves_no_file(tmp_path: Path, capsys: Any) -> None:
    records = json.loads(json.dumps(AMBIG_RECORDS))
    del records[2]["documents"][0]["pid"]  # the third record is malformed
    bad = write_json(tmp_path / "bad.json", records)
    out = tmp_path / "items.jsonl"
    args = ["conflictbench", "convert", "ambigdocs", str(bad), "--out", str(out)]
    assert main(args) != 0
    assert "pid" in capsys.readouterr().err
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]
    # An earlier good output is kept as it was.
    out.write_text("earlier\n", encoding="utf-8")
    assert main(args) != 0
    assert out.read_text(encoding="utf-8") == "earlier\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "items.jsonl"]


def test_failed_pickle_conversion_leaves_no_file(tmp_path: Path) -> None:
    from conflicteval.conflictbench import convert_conflictingqa_pickle
    from conflicteval.errors import ConflictEvalError

    pkl = tmp_path / "data.pkl"
    pkl.write_bytes(b"not a pickle")
    out = tmp_path / "rows.jsonl"
    with pytest.raises(ConflictEvalError):
        convert_conflictingqa_pickle(pkl, out)  # refused without allow_pickle
    assert not out.exists()
    pytest.importorskip("pandas")
    with pytest.raises(Exception):  # noqa: B017 - whatever pandas raises for garbage
        convert_conflictingqa_pickle(pkl, out, allow_pickle=True)
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.pkl"]


def test_convert_of_a_source_file_without_items_is_refused(tmp_path: Path, capsys: Any) -> None:
    """Zero items would only fail later (detect refuses an empty items file): one line now,
    naming the source file, and an earlier output is kept."""
    empty = write_json(tmp_path / "NQ_eval.json", [])
    out = tmp_path / "items.jsonl"
    out.write_text("earlier\n", encoding="utf-8")
    args = ["conflictbench", "convert", "macnoise", str(empty), "--variant", "nq"]
    args += ["--out", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "NQ_eval.json" in err and "no item read" in err
    assert out.read_text(encoding="utf-8") == "earlier\n"


CLAIM_EDITS = {
    "result-null": lambda rec: rec.update(result=None),
    "result-a-list": lambda rec: rec.update(result=[1]),
    "result-text": lambda rec: rec.update(result="x"),
    "claim-missing": lambda rec: rec["result"].pop("claim"),
    "claim-null": lambda rec: rec["result"].update(claim=None),
    "claim-a-list": lambda rec: rec["result"].update(claim=[1]),
    "claim-a-number": lambda rec: rec["result"].update(claim=5),
    "claim-blank": lambda rec: rec["result"].update(claim="  "),
}


@pytest.mark.parametrize("edit", list(CLAIM_EDITS))
def test_build_with_a_hand_edited_claim_checkpoint_names_file_record_and_field(
    tmp_path: Path, capsys: Any, edit: str
) -> None:
    from conflicteval.testing import OpenAICompatServer

    from .conftest import write_cqa_jsonl

    cqa = write_cqa_jsonl(tmp_path / "cqa.jsonl")
    ckpt = tmp_path / "claims.ckpt.jsonl"
    with OpenAICompatServer(replies=lambda body: "The answer is yes.") as srv:
        args = ["conflictbench", "build", "--source", f"conflictingqa={cqa}", "--checkpoint"]
        args += [str(ckpt), "--model", "openai/t", "--base-url", srv.base_url]
        assert main([*args, "--out", str(tmp_path / "a.jsonl")]) == 0
        lines = ckpt.read_text(encoding="utf-8").splitlines()
        rec = json.loads(lines[0])
        CLAIM_EDITS[edit](rec)
        ckpt.write_text("\n".join([json.dumps(rec), *lines[1:]]) + "\n", encoding="utf-8")
        capsys.readouterr()
        out = tmp_path / "b.jsonl"
        code = main([*args, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and f"{ckpt}, row {rec['id']}" in errors[0], err
    if edit.startswith("claim"):
        assert "field 'result.claim'" in errors[0] or "field 'claim'" in errors[0]
    assert not out.exists()
