"""Datasets by name: fetching, checksums, resume, offline use and provenance.

No test reaches the internet: the Hub and plain file hosts are stood in for by the project's
``FileServer`` (real HTTP on 127.0.0.1), and the Hugging Face cache is laid out by the tests.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from conflicteval.data import (
    REGISTRY,
    ChecksumMismatch,
    DatasetFile,
    DatasetUnavailable,
    cached_path,
    fetch,
    get_entry,
    list_datasets,
    resolve,
)
from conflicteval.errors import ConflictEvalError
from conflicteval.testing.fileserver import FileServer

pytest.importorskip("huggingface_hub")

COMMIT = "c20e361f985ed480a659b35d98b49f2311fcd174"
CSV = b"question_ID,question\n1,Who?\n" * 50


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh data dir and Hugging Face cache for every test; online unless a test says."""
    monkeypatch.setenv("CONFLICTEVAL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("CONFLICTEVAL_OFFLINE", raising=False)
    monkeypatch.delenv("CONFLICTEVAL_DATA_MIRROR", raising=False)
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    return tmp_path


def hf_entry(data: bytes, *, pinned: bool = True) -> DatasetFile:
    return DatasetFile(
        name="toy",
        title="a toy dataset",
        kind="hf",
        repo="org/toy",
        filename="toy.csv",
        revision=COMMIT,
        sha256=sha(data) if pinned else None,
        licence="MIT",
        loader="none",
    )


def test_registry_names_are_unique_and_entries_complete() -> None:
    names = [e.name for e in REGISTRY]
    assert len(names) == len(set(names))
    for e in REGISTRY:
        assert e.licence and e.loader and e.title
        if e.kind == "hf":
            assert e.repo and e.revision
        elif e.kind == "url":
            assert e.download_url and e.download_url.startswith("https://")
        else:
            assert e.instructions and "browser" in e.instructions
        if e.sha256 is not None:
            assert len(e.sha256) == 64 and int(e.sha256, 16) >= 0
        elif e.kind != "manual":
            assert e.note, f"{e.name}: an unpinned checksum must say why"
    wc = get_entry("wikicontradict")
    assert wc.revision == COMMIT
    assert wc.sha256 == "cef10054f8aad3e36bca95a0873c2cbb0de8ab4d7b716cadacc5da7aa179ff2b"


def test_unknown_name_lists_the_registry() -> None:
    with pytest.raises(ConflictEvalError, match=r"unknown dataset 'nope'.*wikicontradict"):
        fetch("nope")


def test_hub_download_verified_then_served_offline_from_the_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    entry = hf_entry(CSV)
    with FileServer(hub={("org/toy", "toy.csv"): CSV}, commit=COMMIT) as srv:
        monkeypatch.setenv("HF_ENDPOINT", srv.base_url)
        source = fetch(entry)
        assert source.path.read_bytes() == CSV
        assert (source.sha256, source.verified, source.revision) == (sha(CSV), "pinned", COMMIT)
        assert any(r["method"] == "GET" for r in srv.requests)
        n = len(srv.requests)
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
        again = fetch(entry)
        assert again.path == source.path and again.verified == "pinned"
        assert len(srv.requests) == n, "offline mode must not touch the network"
    assert cached_path(entry) == source.path


def test_hub_file_that_differs_from_its_pin_is_refused_with_both_hashes(
    monkeypatch: pytest.MonkeyPatch, shared_data: Path
) -> None:
    # The project's copy of WikiContradict differs from the official file in 32 invisible
    # characters: the registry's pinned checksum must tell them apart.
    copy = (shared_data / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv").read_bytes()
    repo = "ibm-research/Wikipedia_contradict_benchmark"
    with FileServer(hub={(repo, "WikiContradict_dataset_v1_rag_qa.csv"): copy}) as srv:
        monkeypatch.setenv("HF_ENDPOINT", srv.base_url)
        with pytest.raises(ChecksumMismatch) as err:
            fetch("wikicontradict")
        text = str(err.value)
        assert get_entry("wikicontradict").sha256 in text and sha(copy) in text
        assert "--allow-checksum-mismatch" in text
        source = fetch("wikicontradict", allow_mismatch=True)
    assert source.verified == "mismatch allowed" and source.sha256 == sha(copy)


def test_offline_without_a_cached_file_names_the_two_ways_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(DatasetUnavailable) as err:
        fetch("wikicontradict")
    text = str(err.value)
    assert "'wikicontradict'" in text
    assert "conflicteval data fetch wikicontradict" in text and "--data PATH" in text
    with pytest.raises(DatasetUnavailable, match="truthfulqa"):
        fetch("truthfulqa")  # a plain-HTTPS entry obeys the same switch


def test_a_cache_laid_out_by_hand_is_used_offline(
    monkeypatch: pytest.MonkeyPatch, isolated: Path
) -> None:
    # The Hub cache layout: datasets--<org>--<name>/snapshots/<commit>/<file>.
    snap = isolated / "hf" / "datasets--org--toy" / "snapshots" / COMMIT
    snap.mkdir(parents=True)
    (snap / "toy.csv").write_bytes(CSV)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    source = fetch(hf_entry(CSV))
    assert source.path == snap / "toy.csv" and source.verified == "pinned"
    # Tampered bytes in the cache are caught too.
    (snap / "toy.csv").write_bytes(CSV + b"x")
    with pytest.raises(ChecksumMismatch):
        fetch(hf_entry(CSV))


def test_hub_without_the_file_and_unreachable_host_are_clear_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FileServer(hub={}) as srv:
        monkeypatch.setenv("HF_ENDPOINT", srv.base_url)
        with pytest.raises(DatasetUnavailable, match=r"'toy'.*not available"):
            fetch(hf_entry(CSV))
    monkeypatch.setenv("CONFLICTEVAL_DATA_MIRROR", "http://127.0.0.1:9")  # nothing listens
    # the host is probed once and found unreachable: said at once, no download attempted
    with pytest.raises(DatasetUnavailable, match=r"'truthfulqa'.*no network \(127.0.0.1 could"):
        fetch("truthfulqa", progress=False)


def test_plain_file_without_pin_is_recorded_at_first_use_and_checked_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    body = b"Type,Category,Question\n" + b"x,y,z\n" * 100
    with FileServer({"/sylinrl/TruthfulQA/main/TruthfulQA.csv": body}) as srv:
        monkeypatch.setenv("CONFLICTEVAL_DATA_MIRROR", srv.base_url)
        first = fetch("truthfulqa", progress=False)
        assert first.verified == "first use" and first.sha256 == sha(body)
        again = fetch("truthfulqa")
        assert again.path == first.path and again.verified == "first use"
        assert sum(r["method"] == "GET" for r in srv.requests) == 1, "the cached copy is reused"
        # A re-download that brings other bytes no longer matches what was recorded.
        srv.files["/sylinrl/TruthfulQA/main/TruthfulQA.csv"] = body + b"changed\n"
        with pytest.raises(ChecksumMismatch, match=sha(body)):
            fetch("truthfulqa", force=True, progress=False)


def test_partial_download_is_resumed_with_a_range_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    body = bytes(range(256)) * 400  # 100 kB
    entry = DatasetFile(
        name="blob",
        title="a blob",
        kind="url",
        url="https://files.example.org/{revision}/blob.bin",
        filename="blob.bin",
        revision="v1",
        sha256=sha(body),
        licence="none",
        loader="none",
    )
    with FileServer({"/v1/blob.bin": body}, fail_after=30_000, fail_times=1) as srv:
        monkeypatch.setenv("CONFLICTEVAL_DATA_MIRROR", srv.base_url)
        with pytest.raises(DatasetUnavailable, match=r"downloading .* failed"):
            fetch(entry, progress=False)
        part = next(Path(p) for p in Path(cached_dir(entry)).glob("*.part"))
        assert part.stat().st_size == 30_000
        source = fetch(entry, progress=False)
    assert source.path.read_bytes() == body and source.verified == "pinned"
    gets = [r for r in srv.requests if r["method"] == "GET"]
    assert gets[0]["range"] is None and gets[1]["range"] == "bytes=30000-"
    assert not part.exists()


def test_server_that_ignores_the_range_gets_the_whole_file_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    body = b"0123456789" * 1000
    entry = DatasetFile(
        name="blob2",
        title="a blob",
        kind="url",
        url="https://files.example.org/blob2.bin",
        filename="blob2.bin",
        sha256=sha(body),
        licence="none",
        loader="none",
    )
    with FileServer({"/blob2.bin": body}, fail_after=500, fail_times=1, ignore_range=True) as srv:
        monkeypatch.setenv("CONFLICTEVAL_DATA_MIRROR", srv.base_url)
        with pytest.raises(DatasetUnavailable):
            fetch(entry, progress=False)
        assert fetch(entry, progress=False).path.read_bytes() == body


def cached_dir(entry: DatasetFile) -> Path:
    from conflicteval.data import data_dir

    return data_dir() / entry.name / (entry.revision or "unversioned")


def test_manual_sources_say_how_to_get_them(isolated: Path) -> None:
    with pytest.raises(DatasetUnavailable) as err:
        fetch("conflictingqa")
    text = str(err.value)
    assert "Google Drive" in text and "data.pkl" in text and "--out" in text
    # A copy placed where the message says is then used (and recorded at first use).
    place = isolated / "data" / "conflictingqa" / "data.pkl"
    place.parent.mkdir(parents=True)
    place.write_bytes(b"pickle bytes")
    assert fetch("conflictingqa").path == place


def test_resolve_records_a_users_own_file_as_given(tmp_path: Path) -> None:
    mine = tmp_path / "mine.csv"
    mine.write_bytes(CSV)
    source = resolve(mine, "wikicontradict")
    assert source.path == mine and source.name is None and source.sha256 == sha(CSV)
    assert "user file" in source.describe()


def test_list_reports_cached_state(monkeypatch: pytest.MonkeyPatch, isolated: Path) -> None:
    rows = {r["name"]: r for r in list_datasets()}
    assert rows["wikicontradict"]["cached"] is None
    snap = isolated / "hf" / "datasets--ibm-research--Wikipedia_contradict_benchmark"
    (snap / "snapshots" / COMMIT).mkdir(parents=True)
    (snap / "snapshots" / COMMIT / "WikiContradict_dataset_v1_rag_qa.csv").write_bytes(CSV)
    rows = {r["name"]: r for r in list_datasets()}
    assert rows["wikicontradict"]["cached"].endswith("WikiContradict_dataset_v1_rag_qa.csv")
    assert json.dumps(rows)  # JSON-ready


def test_loader_without_path_fetches_the_registry_file(
    monkeypatch: pytest.MonkeyPatch, shared_data: Path
) -> None:
    from conflicteval.data import registry
    from conflicteval.wikicontradict import load_wikicontradict

    copy = (shared_data / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv").read_bytes()
    repo = "ibm-research/Wikipedia_contradict_benchmark"
    # Pin the project's copy so the loader's default path can succeed against the stand-in Hub.
    pinned = [
        DatasetFile(**{**e.__dict__, "sha256": sha(copy)}) if e.name == "wikicontradict" else e
        for e in registry.REGISTRY
    ]
    monkeypatch.setattr(registry, "REGISTRY", tuple(pinned))
    with FileServer(hub={(repo, "WikiContradict_dataset_v1_rag_qa.csv"): copy}) as srv:
        monkeypatch.setenv("HF_ENDPOINT", srv.base_url)
        instances = load_wikicontradict()
    assert len(instances) == 253
