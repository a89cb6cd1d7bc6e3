"""Trust on first use records only whole downloads of the file as it is upstream.

Against the project's ``FileServer`` (real HTTP on 127.0.0.1): a resumed download across an
upstream change, a 206 that ignores the range, and a body cut short without a length never
become the trusted first-use hash; a damaged records file is an error; a planted ``.part``
symlink is never written through; an edited cached file is hashed again.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from conflicteval.data import ChecksumMismatch, DatasetFile, DatasetUnavailable, data_dir, fetch
from conflicteval.errors import ConflictEvalError
from conflicteval.testing.fileserver import FileServer

BODY = bytes(range(256)) * 200  # 51 kB
NEW = bytes(reversed(range(256))) * 200


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CONFLICTEVAL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("CONFLICTEVAL_OFFLINE", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    return tmp_path


ENTRY = DatasetFile(
    name="blob",
    title="an unpinned blob",
    kind="url",
    url="https://files.example.org/blob.bin",
    filename="blob.bin",
    sha256=None,
    licence="none",
    loader="none",
    note="unpinned: for the test",
)


def _target() -> Path:
    return data_dir() / "blob" / "unversioned" / "blob.bin"


def _records() -> dict[str, object]:
    return json.loads((data_dir() / "records.json").read_text())


def test_a_resume_across_an_upstream_change_starts_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FileServer({"/blob.bin": BODY}, fail_after=20_000, fail_times=1, etags=True) as srv:
        monkeypatch.setenv("CONFLICTEVAL_DATA_MIRROR", srv.base_url)
        with pytest.raises(DatasetUnavailable, match="failed"):
            fetch(ENTRY, progress=False)
        srv.files["/blob.bin"] = NEW  # upstream changed while the part waited
        source = fetch(ENTRY, progress=False)
    assert source.path.read_bytes() == NEW  # never old head + new tail
    assert source.sha256 == sha(NEW) and _records()["first_use"] == {"blob@": sha(NEW)}


def test_a_resume_without_an_etag_checks_the_length(monkeypatch: pytest.MonkeyPatch) -> None:
    with FileServer({"/blob.bin": BODY}, fail_after=20_000, fail_times=1) as srv:
        monkeypatch.setenv("CONFLICTEVAL_DATA_MIRROR", srv.base_url)
        with pytest.raises(DatasetUnavailable):
            fetch(ENTRY, progress=False)
        srv.files["/blob.bin"] = NEW + b"longer"
        source = fetch(ENTRY, progress=False)
    assert source.path.read_bytes() == NEW + b"longer"
    gets = [r["range"] for r in srv.requests if r["method"] == "GET"]
    assert gets == [None, "bytes=20000-", None]  # the resume was refused, then a fresh GET


def test_a_206_that_ignores_the_range_starts_over(monkeypatch: pytest.MonkeyPatch) -> None:
    with FileServer({"/blob.bin": BODY}, fail_after=20_000, fail_times=1) as srv:
        monkeypatch.setenv("CONFLICTEVAL_DATA_MIRROR", srv.base_url)
        with pytest.raises(DatasetUnavailable):
            fetch(ENTRY, progress=False)
        srv.range_from_zero = True  # answers 206 with the file from byte 0
        source = fetch(ENTRY, progress=False)
    assert source.path.read_bytes() == BODY and source.verified == "first use"
    assert _records()["first_use"] == {"blob@": sha(BODY)}


def test_a_body_cut_short_without_a_length_is_never_the_first_use_pin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FileServer({"/blob.bin": BODY}, fail_after=9_000, fail_times=1, no_length=True) as srv:
        monkeypatch.setenv("CONFLICTEVAL_DATA_MIRROR", srv.base_url)
        cut = fetch(ENTRY, progress=False)
        assert cut.path.stat().st_size == 9_000  # nothing could tell it was cut
        assert cut.verified == "unverified (download length unknown)"
        assert _records()["first_use"] == {}  # ... so no hash was trusted
        whole = fetch(ENTRY, force=True, progress=False)
        assert whole.path.read_bytes() == BODY  # the correct file is not refused
        srv.no_length = False
        pinned = fetch(ENTRY, force=True, progress=False)
    assert pinned.verified == "first use" and _records()["first_use"] == {"blob@": sha(BODY)}


def test_a_body_shorter_than_its_length_is_an_error_and_resumes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FileServer({"/blob.bin": BODY}, fail_after=9_000, fail_times=1) as srv:
        monkeypatch.setenv("CONFLICTEVAL_DATA_MIRROR", srv.base_url)
        with pytest.raises(DatasetUnavailable, match="failed"):
            fetch(ENTRY, progress=False)
        assert not _target().exists() and not (data_dir() / "records.json").exists()
        assert fetch(ENTRY, progress=False).path.read_bytes() == BODY


@pytest.mark.parametrize("damage", [b"{not json", b"[1, 2]", b'{"first_use": []}', b"\xff\xfe"])
def test_a_damaged_records_file_is_an_error_naming_it(
    monkeypatch: pytest.MonkeyPatch, damage: bytes
) -> None:
    with FileServer({"/blob.bin": BODY}) as srv:
        monkeypatch.setenv("CONFLICTEVAL_DATA_MIRROR", srv.base_url)
        fetch(ENTRY, progress=False)
        records = data_dir() / "records.json"
        records.write_bytes(damage)
        with pytest.raises(ConflictEvalError, match=r"records\.json: the dataset verification"):
            fetch(ENTRY, progress=False)
        assert records.read_bytes() == damage  # not silently rebuilt


def test_a_planted_part_symlink_is_never_written_through(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious")
    part = _target().with_name("blob.bin.part")
    part.parent.mkdir(parents=True)
    part.symlink_to(victim)
    with FileServer({"/blob.bin": BODY}) as srv:
        monkeypatch.setenv("CONFLICTEVAL_DATA_MIRROR", srv.base_url)
        source = fetch(ENTRY, progress=False)
    assert victim.read_bytes() == b"precious"
    assert source.path.read_bytes() == BODY and not source.path.is_symlink()


def test_an_edited_cached_file_with_its_size_and_mtime_restored_is_hashed_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FileServer({"/blob.bin": BODY}) as srv:
        monkeypatch.setenv("CONFLICTEVAL_DATA_MIRROR", srv.base_url)
        first = fetch(ENTRY, progress=False)
    st = first.path.stat()
    edited = bytearray(BODY)
    edited[100] ^= 0xFF
    first.path.write_bytes(bytes(edited))  # same size
    os.utime(first.path, ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime put back
    with pytest.raises(ChecksumMismatch) as err:
        fetch(ENTRY, progress=False)
    assert err.value.actual == sha(bytes(edited))
    assert "conflicteval data fetch blob --force" in str(err.value)


@pytest.mark.parametrize("where", ["hashed", "first_use"])
def test_a_hand_edited_record_is_one_line_naming_record_and_field(
    monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """A record whose sha256 was removed (or replaced) is refused by name, not a KeyError."""
    import json

    with FileServer({"/blob.bin": BODY}) as srv:
        monkeypatch.setenv("CONFLICTEVAL_DATA_MIRROR", srv.base_url)
        fetch(ENTRY, progress=False)
        records = data_dir() / "records.json"
        data = json.loads(records.read_text(encoding="utf-8"))
        if where == "hashed":
            for seen in data["hashed"].values():
                del seen["sha256"]
        else:
            data["first_use"]["blob@"] = 7
        records.write_text(json.dumps(data), encoding="utf-8")
        with pytest.raises(ConflictEvalError) as caught:
            fetch(ENTRY, progress=False)
    message = str(caught.value)
    assert "records.json" in message and f"record '{where}'" in message
    assert ("'sha256'" if where == "hashed" else "'blob@'") in message
    assert "\n" not in message
