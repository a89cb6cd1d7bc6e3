"""Fetching registry datasets once into the user's cache, verified, with a provenance record.

* Hugging Face files go through ``huggingface_hub`` (its cache, ``HF_HOME``, ``HF_ENDPOINT``,
  ``HF_HUB_OFFLINE`` and tokens work as usual).
* Plain HTTPS files are downloaded with the library's HTTP client (httpx) into
  ``$CONFLICTEVAL_DATA_DIR`` (default: ``datasets/`` in the user cache directory), resuming a
  partial download, with a progress bar. ``CONFLICTEVAL_DATA_MIRROR`` replaces the scheme and
  host of every plain address (a local mirror, or a test server).
* Every file's sha256 is checked against the registry's pin; a file without a pin is checked
  against the hash recorded the first time it was used. A mismatch is refused with both hashes
  shown, unless the caller allows it explicitly.
* ``CONFLICTEVAL_OFFLINE=1`` (or ``HF_HUB_OFFLINE=1``) never touches the network: a cached file
  is used, a missing one is a clear error naming the two ways out.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from platformdirs import user_cache_dir

from conflicteval._atomic import atomic_write_text
from conflicteval.data import reach
from conflicteval.data.download import IncompleteDownload, download, unknown_length_marker
from conflicteval.data.registry import REGISTRY, DatasetFile, get_entry
from conflicteval.errors import ConflictEvalError

ENV_DATA_DIR = "CONFLICTEVAL_DATA_DIR"
ENV_MIRROR = "CONFLICTEVAL_DATA_MIRROR"
ENV_OFFLINE = "CONFLICTEVAL_OFFLINE"
RECORDS_FILE = "records.json"
_CHUNK = 1 << 20


PATH_OPTION = "--data PATH (path= in Python)"
"""How an unavailable dataset's error says to pass a file of one's own, unless told otherwise."""


class DatasetUnavailable(ConflictEvalError):
    """A registry dataset is not cached and cannot be fetched (offline, no network, or manual)."""

    def __init__(self, message: str, path_option: str = "") -> None:
        super().__init__(message)
        self.path_option = path_option
        """The words in ``message`` that say how to pass a file ('' when it names none)."""

    def naming(self, path_option: str) -> DatasetUnavailable:
        """The same error, naming the command's own way to pass a file (e.g. ``--claims PATH``)."""
        if not self.path_option:
            return self
        return DatasetUnavailable(str(self).replace(self.path_option, path_option, 1), path_option)


class ChecksumMismatch(ConflictEvalError):
    """A dataset file's sha256 differs from its pin (or from the hash recorded at first use)."""

    def __init__(self, name: str, path: Path, expected: str, actual: str) -> None:
        self.name, self.path, self.expected, self.actual = name, path, expected, actual
        super().__init__(
            f"dataset {name!r}: {path} does not match its pinned checksum\n"
            f"  expected sha256 {expected}\n"
            f"  actual   sha256 {actual}\n"
            "Refusing to use it. If the cached copy is damaged, download it again with "
            f"'conflicteval data fetch {name} --force'; to use it anyway pass "
            "--allow-checksum-mismatch (allow_mismatch=True in Python), and the run's "
            "provenance will record the actual hash."
        )


@dataclass(frozen=True)
class DataSource:
    """Which file a run read: the provenance record every summary carries.

    Attributes:
        path: The local file.
        sha256: sha256 of its bytes.
        name: Registry name, or None for a user's own file.
        revision: Pinned revision of a registry file.
        origin: Where it came from (the registry entry's home, or ``"user file"``).
        verified: ``"pinned"`` (matches the registry's checksum), ``"first use"`` (no pin:
            matches the hash recorded when first used), ``"mismatch allowed"``,
            ``"unverified (download length unknown)"`` (no pin, and the server sent no length,
            so no first-use hash was recorded), or ``"user file"``.
    """

    path: Path
    sha256: str
    name: str | None = None
    revision: str | None = None
    origin: str = "user file"
    verified: str = "user file"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (path as text)."""
        out = asdict(self)
        out["path"] = str(self.path)
        return out

    def describe(self) -> str:
        """One line for a run summary."""
        if self.name is None:
            return f"data: {self.path} (user file, sha256 {self.sha256[:12]}…)"
        rev = f" @ {self.revision[:12]}" if self.revision else ""
        return f"data: {self.name}{rev} (sha256 {self.sha256[:12]}…, {self.verified}) {self.path}"


def data_dir() -> Path:
    """Where plain-HTTPS datasets and the verification records live."""
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        return Path(env).expanduser()
    return Path(user_cache_dir("conflicteval", appauthor=False)) / "datasets"


def offline() -> bool:
    """True when ``CONFLICTEVAL_OFFLINE`` or ``HF_HUB_OFFLINE`` is set to a true value."""
    return any(
        os.environ.get(var, "").strip().lower() in {"1", "true", "yes", "on"}
        for var in (ENV_OFFLINE, "HF_HUB_OFFLINE")
    )


def sha256_file(path: str | os.PathLike[str]) -> str:
    """sha256 of a file's bytes, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


# --- verification records ---------------------------------------------------------------


def _records_path() -> Path:
    return data_dir() / RECORDS_FILE


def _load_records() -> dict[str, Any]:
    """The verification records; a damaged file is an error (it holds the first-use pins).

    Raises:
        ConflictEvalError: ``records.json`` cannot be read or is not a records file.
    """
    path = _records_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"first_use": {}, "hashed": {}}
    except (OSError, ValueError, RecursionError) as exc:
        raise _damaged_records(path, str(exc)[:120]) from exc
    if not isinstance(data, dict):
        raise _damaged_records(path, "not a JSON object")
    data.setdefault("first_use", {})
    data.setdefault("hashed", {})
    for key in ("first_use", "hashed"):
        if not isinstance(data[key], dict):
            raise _damaged_records(path, f"{key!r} is not an object")
    return data


def _is_sha256(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 64 and all(c in HEX for c in value)


HEX = frozenset("0123456789abcdef")


def _damaged_records(path: Path, why: str) -> ConflictEvalError:
    # Forgetting the file would forget every first-use pin and trust whatever comes next.
    return ConflictEvalError(
        f"{path}: the dataset verification records are damaged ({why}); they hold the hashes "
        "recorded at first use of unpinned datasets. Restore the file, or delete it to "
        "record them afresh at the next use (trusting the files as they are then)"
    )


def _save_records(records: Mapping[str, Any]) -> None:
    path = _records_path()
    try:
        atomic_write_text(path, json.dumps(records, indent=1, sort_keys=True))
    except OSError:
        pass  # a read-only cache still works; the hash is recomputed next time


def _hash_cached(path: Path, records: dict[str, Any]) -> str:
    """sha256 of ``path``, reusing a recorded hash while the file is unchanged.

    Unchanged means the same size, mtime, inode and ctime: an edit whose size and
    mtime were put back (``touch -d``) still changes the ctime, which cannot be set.
    """
    real = str(path.resolve())
    st = path.stat()
    stamp = {
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "ctime_ns": st.st_ctime_ns,
        "inode": st.st_ino,
    }
    seen = records["hashed"].get(real)
    if isinstance(seen, dict) and all(seen.get(k) == v for k, v in stamp.items()):
        if not _is_sha256(seen.get("sha256")):  # edited by hand: never trust or guess it
            raise _damaged_records(
                _records_path(), f"record 'hashed' {real!r}, field 'sha256': not a sha256"
            )
        return str(seen["sha256"])
    digest = sha256_file(path)
    records["hashed"][real] = {**stamp, "sha256": digest}
    return digest


def _verify(entry: DatasetFile, path: Path, allow_mismatch: bool) -> DataSource:
    records = _load_records()
    digest = _hash_cached(path, records)
    key = f"{entry.name}@{entry.revision or ''}"
    expected = entry.sha256 or records["first_use"].get(key)
    if not entry.sha256 and expected is not None and not _is_sha256(expected):
        raise _damaged_records(_records_path(), f"record 'first_use', field {key!r}: not a sha256")
    if expected is None and unknown_length_marker(path).exists():
        # the server sent no length: whether the download completed is unknown, so its
        # hash is not trusted as this dataset's first-use pin (the file is used, unverified)
        verified = "unverified (download length unknown)"
    elif expected is None:
        records["first_use"][key] = digest
        verified = "first use"
    elif expected == digest:
        verified = "pinned" if entry.sha256 else "first use"
    elif allow_mismatch:
        verified = "mismatch allowed"
    else:
        _save_records(records)
        raise ChecksumMismatch(entry.name, path, expected, digest)
    _save_records(records)
    return DataSource(
        path=path,
        sha256=digest,
        name=entry.name,
        revision=entry.revision,
        origin=entry.where,
        verified=verified,
    )


# --- fetching ---------------------------------------------------------------------------


def _ways_out(entry: DatasetFile, why: str) -> DatasetUnavailable:
    where = "the Hugging Face cache" if entry.kind == "hf" else str(data_dir())
    return DatasetUnavailable(
        f"dataset {entry.name!r} is not available: {why}.\n"
        f"Either run 'conflicteval data fetch {entry.name}' on a machine with network access "
        f"(it is stored in {where}), or pass the file yourself with {PATH_OPTION}.",
        PATH_OPTION,
    )


def _manual_path(entry: DatasetFile) -> Path:
    return data_dir() / entry.name / entry.filename


def _url_target(entry: DatasetFile) -> Path:
    return data_dir() / entry.name / (entry.revision or "unversioned") / entry.filename


def _mirrored(url: str) -> str:
    mirror = os.environ.get(ENV_MIRROR)
    if not mirror:
        return url
    base = urlsplit(mirror)
    parts = urlsplit(url)
    path = base.path.rstrip("/") + parts.path
    return urlunsplit((base.scheme, base.netloc, path, parts.query, ""))


def _progress_bar(total: int | None, initial: int, desc: str, enabled: bool | None) -> Any:
    from tqdm.auto import tqdm

    show = sys.stderr.isatty() if enabled is None else enabled
    return tqdm(
        total=total,
        initial=initial,
        unit="B",
        unit_scale=True,
        desc=desc,
        disable=not show,
        file=sys.stderr,
    )


def _download(url: str, target: Path, desc: str, progress: bool | None) -> None:
    """Download ``url`` to ``target`` (resuming only the same file; see :mod:`.download`)."""
    download(
        url, target, desc, lambda total, initial: _progress_bar(total, initial, desc, progress)
    )


def _fetch_url(entry: DatasetFile, force: bool, progress: bool | None) -> Path:
    import httpx

    target = _url_target(entry)
    if target.exists() and not force:
        return target
    if offline():
        raise _ways_out(entry, "it is not cached and offline mode is on")
    url = _mirrored(entry.download_url or "")
    no_network = reach.unreachable(url)  # decided once and quickly
    if no_network:
        raise _ways_out(entry, f"it is not cached and there is no network ({no_network})")
    if force and target.exists():
        target.unlink()
        unknown_length_marker(target).unlink(missing_ok=True)
    try:
        _download(url, target, entry.name, progress)
    except (httpx.HTTPError, IncompleteDownload) as exc:
        raise _ways_out(entry, f"downloading {url} failed ({exc})") from exc
    except OSError as exc:
        raise ConflictEvalError(
            f"dataset {entry.name!r}: could not write {target}: {exc.strerror or exc}"
        ) from exc
    return target


def _hf_cache_dir() -> str | None:
    """The Hub cache as the environment says *now* (huggingface_hub reads it at import time)."""
    if os.environ.get("HF_HUB_CACHE"):
        return os.environ["HF_HUB_CACHE"]
    if os.environ.get("HF_HOME"):
        return str(Path(os.environ["HF_HOME"]) / "hub")
    return None


def _fetch_hf(entry: DatasetFile, force: bool) -> Path:
    try:
        from huggingface_hub import hf_hub_download
        from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError
    except ImportError as exc:  # pragma: no cover - a core dependency
        raise ConflictEvalError(
            "fetching Hugging Face datasets needs huggingface_hub: pip install huggingface_hub"
        ) from exc
    assert entry.repo is not None
    endpoint = os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    # decided once and quickly (not after the Hub client's retries): no network -> the cache
    no_network = None if offline() else reach.unreachable(endpoint)
    try:
        path = hf_hub_download(
            repo_id=entry.repo,
            filename=entry.filename,
            repo_type="dataset",
            revision=entry.revision,
            force_download=force,
            local_files_only=offline() or no_network is not None,
            cache_dir=_hf_cache_dir(),
            endpoint=os.environ.get("HF_ENDPOINT") or None,
        )
    except LocalEntryNotFoundError as exc:
        why = "it is not in the Hugging Face cache" + (
            " and offline mode is on"
            if offline()
            else f" and there is no network ({no_network})"
            if no_network
            else " and the Hub could not be reached"
        )
        raise _ways_out(entry, why) from exc
    except HfHubHTTPError as exc:
        raise _ways_out(entry, f"the Hub answered {exc}") from exc
    except OSError as exc:
        raise _ways_out(entry, f"the Hub could not be reached ({exc})") from exc
    except ValueError as exc:  # e.g. a revision from the server that is no safe path
        endpoint = os.environ.get("HF_ENDPOINT") or "the Hugging Face Hub"
        raise ConflictEvalError(
            f"dataset {entry.name!r}: {endpoint} (HF_ENDPOINT) gave an answer that cannot be "
            f"stored safely: {str(exc)[:200]}"
        ) from exc
    return Path(path)


def fetch(
    name: str | DatasetFile,
    *,
    force: bool = False,
    allow_mismatch: bool = False,
    progress: bool | None = None,
) -> DataSource:
    """Make the registry file ``name`` available locally, verified.

    Args:
        name: A registry name (``conflicteval data list`` shows them), or an entry of your
            own (a :class:`DatasetFile`) for a dataset the registry does not list.
        force: Download again even when a cached copy exists.
        allow_mismatch: Use a file whose sha256 differs from its pin (recorded as such).
        progress: Show a download progress bar (None: only on a terminal).

    Returns:
        The provenance record of the local file.

    Raises:
        DatasetUnavailable: Not cached and not fetchable (offline, no network, manual source).
        ChecksumMismatch: The bytes differ from the pin and ``allow_mismatch`` is False.
    """
    entry = name if isinstance(name, DatasetFile) else get_entry(name)
    if entry.kind == "manual":
        path = _manual_path(entry)
        if not path.exists():
            raise DatasetUnavailable(
                f"dataset {entry.name!r} cannot be downloaded automatically. "
                f"{entry.instructions}\n(Or place the file at {path}.)"
            )
    elif entry.kind == "hf":
        path = _fetch_hf(entry, force)
    else:
        path = _fetch_url(entry, force, progress)
    return _verify(entry, path, allow_mismatch)


def resolve(
    path: str | os.PathLike[str] | None,
    name: str | DatasetFile,
    *,
    allow_mismatch: bool = False,
    progress: bool | None = None,
) -> DataSource:
    """The file a loader should read: the user's ``path`` as given, else the registry's ``name``.

    A user's own file is used as it is; its sha256 is recorded in the provenance.
    """
    if path is not None:
        p = Path(path)
        if not p.is_file():
            # Let the loader raise its own error naming the path (a directory, a missing file).
            return DataSource(path=p, sha256="")
        return DataSource(path=p, sha256=sha256_file(p))
    return fetch(name, allow_mismatch=allow_mismatch, progress=progress)


def cached_path(entry: DatasetFile) -> Path | None:
    """The local copy of ``entry`` if it is already cached (never touches the network)."""
    if entry.kind == "manual":
        path = _manual_path(entry)
        return path if path.exists() else None
    if entry.kind == "url":
        path = _url_target(entry)
        return path if path.exists() else None
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # pragma: no cover
        return None
    assert entry.repo is not None
    found = try_to_load_from_cache(
        repo_id=entry.repo,
        filename=entry.filename,
        revision=entry.revision,
        repo_type="dataset",
        cache_dir=_hf_cache_dir(),
    )
    return Path(found) if isinstance(found, str) else None


def list_datasets() -> list[dict[str, Any]]:
    """Every registry entry as a dict, with ``cached`` (the local path or None)."""
    rows = []
    for entry in REGISTRY:
        row = asdict(entry)
        row["where"] = entry.where
        row["pinned"] = entry.pinned
        local = cached_path(entry)
        row["cached"] = str(local) if local else None
        rows.append(row)
    return rows
