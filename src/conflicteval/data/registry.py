"""Where every dataset the library reads officially lives, pinned.

One entry per file. An entry names its home (a Hugging Face dataset repository, a plain
HTTPS address, or a page that needs a browser), the revision it is pinned to, the sha256 of
its bytes where that is known, its licence and size, and which loader reads it.

Pins and checksums are facts copied from the releases; where one could not be established
it is ``None`` (or a branch name) and the entry's ``note`` says why (``conflicteval data
list`` prints it). A file without a pinned checksum is
verified on first use ("trust on first use"): its sha256 is recorded beside the cached copy
and every later use must match it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from conflicteval.errors import ConflictEvalError
from conflicteval.suggest import did_you_mean

Kind = Literal["hf", "url", "manual"]
_COMMIT = re.compile(r"[0-9a-f]{40}")


@dataclass(frozen=True)
class DatasetFile:
    """One file of a dataset, and where it officially lives.

    Attributes:
        name: Registry name, e.g. ``"wikicontradict"``.
        title: What the file is, in a few words.
        kind: ``"hf"`` (Hugging Face dataset repository), ``"url"`` (a plain HTTPS file) or
            ``"manual"`` (only on a host that needs a browser; ``instructions`` say how to get it).
        filename: The file's path in its repository, or its file name.
        licence: The data licence as the release states it.
        loader: The library function (or command) that reads the file.
        repo: Hugging Face dataset repository id (``kind="hf"``).
        revision: Pinned revision: a Hugging Face commit, or the commit in a GitHub address.
        url: Download address (``kind="url"``); ``{revision}`` is filled in.
        sha256: sha256 of the file's bytes at that revision, when known.
        size: Size in bytes, when known.
        homepage: Where a person reads about the dataset.
        instructions: How to get a ``manual`` file, or extra steps after download.
        note: Anything a user should know about the pin (e.g. why there is no checksum).
    """

    name: str
    title: str
    kind: Kind
    filename: str
    licence: str
    loader: str
    repo: str | None = None
    revision: str | None = None
    url: str | None = None
    sha256: str | None = None
    size: int | None = None
    homepage: str = ""
    instructions: str | None = None
    note: str | None = None

    @property
    def where(self) -> str:
        """A one-line description of the file's home."""
        if self.kind == "hf":
            return f"huggingface.co/datasets/{self.repo} · {self.filename}"
        if self.kind == "url":
            return self.download_url or ""
        return self.homepage

    @property
    def pinned(self) -> bool:
        """Pinned to a full commit id and a sha256 (a file that cannot silently change)."""
        return bool(self.revision and _COMMIT.fullmatch(self.revision) and self.sha256)

    @property
    def download_url(self) -> str | None:
        """The address a ``url`` entry is fetched from, with its revision filled in."""
        if self.url is None:
            return None
        return self.url.format(revision=self.revision or "")


_WIKICONTRADICT_REPO = "ibm-research/Wikipedia_contradict_benchmark"
_WIKICONTRADICT_REV = "c20e361f985ed480a659b35d98b49f2311fcd174"
_CONTRAQA_REV = "36f047741e98a97594fe81d3ca0b2bbeb376ba69"
_FEVEROUS_NOTE = (
    "not pinned: fever.ai serves one unversioned file and publishes no checksum; the first "
    "download's sha256 is recorded and later uses must match it"
)
_AMBIGDOCS_NOTE = (
    "not pinned: the Hugging Face repository has commits and Git LFS hashes, but no full "
    "commit id or file sha256 could be read and checked where this registry was made, so "
    "none is written here; it follows 'main' and the first download's sha256 is recorded "
    "(later uses must match it)"
)
_DRIVE_NOTE = (
    "not pinned: the file is only on Google Drive, which offers no revision to pin, and no "
    "checksum is published; a copy placed in the data directory has its sha256 recorded at "
    "first use (later uses must match it)"
)

_FAITHEVAL_LICENCE = (
    "no licence tag on the dataset page; the FaithEval repository is Apache-2.0 and its README "
    "restricts the release to research purposes"
)
_FAITHEVAL_NOTE = (
    "not pinned: no full commit id of the dataset repository and no sha256 of the file could be "
    "found where this registry was made (the Hub pages seen list the file as an LFS entry "
    "without its object id), so neither is invented: 'main' is read and the first download's "
    "sha256 is recorded; the file name is the one the unanswerable repository lists, assumed "
    "for the other two tasks"
)


def _hf(repo: str, filename: str, **fields: Any) -> DatasetFile:
    """A file of the Hugging Face dataset repository ``repo``; its page is the homepage."""
    homepage = f"https://huggingface.co/datasets/{repo}"
    return DatasetFile(kind="hf", repo=repo, filename=filename, homepage=homepage, **fields)


def _github(repo: str, path: str, *, lfs: bool = False, **fields: Any) -> DatasetFile:
    """The file at ``path`` of the GitHub repository ``repo``; its page is the homepage.

    The address keeps ``{revision}`` to be filled in. A file stored with Git LFS (``lfs``) is
    served from GitHub's media host, any other from its raw host.
    """
    host = "media.githubusercontent.com/media" if lfs else "raw.githubusercontent.com"
    return DatasetFile(
        kind="url",
        url=f"https://{host}/{repo}/{{revision}}/{path}",
        filename=path.rsplit("/", 1)[-1],
        homepage=f"https://github.com/{repo}",
        **fields,
    )


def _drive(repo: str, folder: str, subject: str, steps: str, **fields: Any) -> DatasetFile:
    """A file only in the Google Drive ``folder`` linked from the GitHub repository ``repo``.

    Drive needs a browser, so the entry is ``manual``: its instructions say that ``subject``
    (e.g. ``"ConflictingQA is"``) is only there, then the ``steps`` after download.
    """
    homepage = f"https://github.com/{repo}"
    where = f"only on Google Drive (folder {folder}, linked from {homepage})"
    return DatasetFile(
        kind="manual",
        homepage=homepage,
        instructions=f"{subject} {where}, which needs a browser. {steps}",
        note=_DRIVE_NOTE,
        **fields,
    )


def _ambigdocs(name: str, title: str, filename: str) -> DatasetFile:
    """One split of AmbigDocs (both splits share a repository, licence, loader and note)."""
    return _hf(
        "yoonsanglee/AmbigDocs",
        filename,
        name=name,
        title=title,
        revision="main",
        licence="Apache-2.0 (dataset card); text is Wikipedia (CC BY-SA)",
        loader="conflicteval.conflictbench.load_ambigdocs",
        note=_AMBIGDOCS_NOTE,
    )


def _contraqa(filename: str, title: str, **fields: Any) -> DatasetFile:
    """A file of ContraQA's ``wiki_noisy_1M`` corpus at the pinned commit (Git LFS facts)."""
    return _github(
        "teacherpeterpan/ContraQA",
        f"corpus/wiki_noisy_1M/{filename}",
        lfs=True,
        name=f"contraqa-{filename.removesuffix('.json')}",
        title=title,
        revision=_CONTRAQA_REV,
        note="sha256 and size from the repository's Git LFS pointer at the pinned commit",
        **fields,
    )


def _feverous(name: str, title: str, filename: str, **fields: Any) -> DatasetFile:
    """A file fever.ai serves for FEVEROUS (unversioned, no published checksum)."""
    return DatasetFile(
        name=name,
        title=title,
        kind="url",
        url=f"https://fever.ai/download/feverous/{filename}",
        filename=filename,
        revision=None,
        licence="CC BY-SA 3.0 (Wikipedia)",
        homepage="https://fever.ai/dataset/feverous.html",
        note=_FEVEROUS_NOTE,
        **fields,
    )


def _feverous_claims(split: str) -> DatasetFile:
    """The FEVEROUS claims of one split (``dev`` or ``train``), read by the claims loader."""
    return _feverous(
        f"feverous-{split}",
        f"FEVEROUS {split} claims (JSON lines)",
        f"feverous_{split}_challenges.jsonl",
        loader="conflicteval.feverous.load_claims",
    )


def _faitheval(task: str, title: str) -> DatasetFile:
    """The test split of one FaithEval task (one repository per task, same file name)."""
    return _hf(
        f"Salesforce/FaithEval-{task}-v1.0",
        "data/test-00000-of-00001.parquet",
        name=f"faitheval-{task}",
        title=title,
        revision="main",
        licence=_FAITHEVAL_LICENCE,
        loader="conflicteval.faitheval.load_faitheval",
        note=_FAITHEVAL_NOTE,
    )


_CONFLICTQA_REPO = "OSU-NLP-Group/LLM-Knowledge-Conflict"
_CONFLICTQA_REV = "595e02b6fedfdb03316b763e5036da93ffb12fbf"
_CONFLICTQA_STRATEGYQA: dict[str, tuple[str, int]] = {
    # llm: (sha256, size in bytes) of conflictQA/conflictQA-strategyQA-<llm>.json at the pin
    "chatgpt": ("36d20c83466356f06e8646b3a60dba0a303653739f06b79d99fd5a1c7c5841e0", 2_720_303),
    "gpt4": ("676f51d75214e41e1681e680f0fbdf711f3bd742e0c411d4ff2d5e0fd183a969", 2_999_054),
    "palm2": ("9f17515c66b161157ded1a5e34ff3361db461c136a6dfd4ffd739ca05ea17658", 1_472_781),
    "qwen7b": ("dd587813e7c1dca93c20bba201c234ed8dfbce95cbe76036afda57586472af7c", 1_633_126),
    "llama2-7b": ("39ac9d9e6141c1a5db59d4133355443a2b7321b71e9142ee385049a3f0b7533b", 1_729_004),
    "llama2-70b": ("c778de42cf2de1698b73cd03ff083c8114f3211639955c943a2c27b5e1ffd434", 2_088_281),
    "vicuna7b": ("bf0f271cd6896f3bb861bd34ad621fd5b78b34062f2e7ae343dad6fa91669147", 1_321_040),
    "vicuna33b": ("bee63c124404564d5ca1f9a87b87e7754d35e1a9057c0b40ca82ee3c806f0127", 1_753_646),
}
_CONFLICTQA_POPQA_NOTE = (
    "sha256 not pinned: the PopQA files (8.6-25 MB) could not be read where this registry was "
    "made; the commit is pinned and the first verified download's sha256 is recorded (later "
    "uses must match it)"
)


def _conflictqa(dataset: str, llm: str) -> DatasetFile:
    """One LLM's file of ConflictQA (``strategyqa`` files pinned by sha256, ``popqa`` not)."""
    spelled = {"strategyqa": "strategyQA", "popqa": "popQA"}[dataset]
    pin = _CONFLICTQA_STRATEGYQA.get(llm) if dataset == "strategyqa" else None
    return _github(
        _CONFLICTQA_REPO,
        f"conflictQA/conflictQA-{spelled}-{llm}.json",
        name=f"conflictqa-{dataset}-{llm}",
        title=f"ConflictQA {spelled} with {llm}'s memory (JSON lines)",
        revision=_CONFLICTQA_REV,
        sha256=pin[0] if pin else None,
        size=pin[1] if pin else None,
        licence="Apache-2.0 (repository LICENSE)",
        loader="conflicteval.conflictqa.load_conflictqa",
        note=None if pin else _CONFLICTQA_POPQA_NOTE,
    )


_CLASHEVAL_REPO = "kevinwu23/StanfordClashEval"
_CLASHEVAL_NOTE = (
    "sha256 not pinned: the file is over the download limit where this registry was made; the "
    "commit is pinned and the first verified download's sha256 is recorded (later uses must "
    "match it)"
)
_CLASHEVAL_MODELS: dict[str, str] = {
    "claudeopus": "Claude Opus",
    "claudesonnet": "Claude Sonnet",
    "gemini15flash": "Gemini 1.5 Flash",
    "gpt35": "GPT-3.5",
    "gpt4": "GPT-4o",
    "llama3": "Llama-3-8b-instruct",
}


def _clasheval_responses(model: str) -> DatasetFile:
    """One model's released ClashEval responses (``data/model_responses/<model>.pqt``)."""
    return _github(
        _CLASHEVAL_REPO,
        f"data/model_responses/{model}.pqt",
        name=f"clasheval-{model}",
        title=f"ClashEval responses of {_CLASHEVAL_MODELS[model]} (parquet)",
        revision="56e7e0834b8cff17bb53eccd21f04ae916d78254",
        licence="CC BY 4.0 (dataset card)",
        loader="conflicteval.clasheval.load_responses",
        note=_CLASHEVAL_NOTE,
    )


REGISTRY: tuple[DatasetFile, ...] = (
    _hf(
        _WIKICONTRADICT_REPO,
        "WikiContradict_dataset_v1_rag_qa.csv",
        name="wikicontradict",
        title="WikiContradict, 253 instances (CSV release)",
        revision=_WIKICONTRADICT_REV,
        sha256="cef10054f8aad3e36bca95a0873c2cbb0de8ab4d7b716cadacc5da7aa179ff2b",
        licence="MIT (dataset card); passages are Wikipedia text (CC BY-SA)",
        loader="conflicteval.wikicontradict.load_wikicontradict",
        note=(
            "copies circulating elsewhere differ from the official file in 32 invisible "
            "characters: the checksum tells them apart"
        ),
    ),
    _hf(
        _WIKICONTRADICT_REPO,
        "HumanEval/WikiContradict_HumanEval_adjudication.json",
        name="wikicontradict-humaneval",
        title="WikiContradict human evaluation (adjudicated labels, 1,200 responses)",
        revision=_WIKICONTRADICT_REV,
        size=1_340_000,
        licence="MIT (dataset card)",
        loader="conflicteval wikicontradict calibrate --labels",
        note=(
            "sha256 not pinned: the file could not be read where this registry was made; "
            "the first download's sha256 is recorded. Its field layout is also unconfirmed, "
            "see docs/wikicontradict.md"
        ),
    ),
    _github(
        "sylinrl/TruthfulQA",
        "TruthfulQA.csv",
        name="truthfulqa",
        title="TruthfulQA questions (CSV)",
        revision="main",
        licence="Apache-2.0",
        loader="conflicteval.conflictbench.load_truthfulqa",
        note=(
            "not pinned to a commit: the upstream file changed in 2025 (790 questions and a "
            "'Best Incorrect Answer' column; the 2022 file has 817). The first download's "
            "sha256 is recorded; pass --data for the 2022 file"
        ),
    ),
    _ambigdocs("ambigdocs", "AmbigDocs test split (7,220 questions)", "test.json"),
    _ambigdocs("ambigdocs-dev", "AmbigDocs dev split", "dev.json"),
    _contraqa(
        "corpus.json",
        "ContraQA polluted corpus (real and fake paragraphs, JSON lines)",
        sha256="c56604a4a90a2571897747bf036e310820ba69c457c946ca522cdc74e77a1053",
        size=431_250_291,
        licence="MIT (repository); SQuAD CC BY-SA 4.0; Wikipedia CC BY-SA",
        loader="conflicteval.conflictbench.load_contraqa",
    ),
    _contraqa(
        "queries.json",
        "ContraQA questions (SQuAD dev style, JSON array)",
        sha256="c6235abbf0627b879797758254dad9401308f625ac9a7d705771706609204273",
        size=13_103_896,
        licence="MIT (repository); SQuAD CC BY-SA 4.0",
        loader="conflicteval.conflictbench.load_contraqa (queries=)",
    ),
    _drive(
        "AlexWan0/rag-convincingness",
        "1fU52Jg6wVXCr6J03i0bRy7hA02iVbeS_",
        "ConflictingQA is",
        "Download data.pkl, convert it once with 'conflicteval conflictbench convert "
        "conflictingqa data.pkl --rows --allow-pickle --out conflictingqa.jsonl', then pass that "
        "file as the path.",
        name="conflictingqa",
        title="ConflictingQA (pickled pandas DataFrame data.pkl)",
        filename="data.pkl",
        licence="MIT (repository); web text belongs to its sites",
        loader="conflicteval conflictbench convert conflictingqa",
    ),
    _drive(
        "wjdghks950/Discern-and-Answer",
        "1icxbi5_9OvNkr4cG5h7NrY4F01Y7amj0",
        "The MacNoise eval sets are",
        "Download NQ_eval_gpt4_dev_256_new_fix.json or TQA_eval_gpt4_dev_256_new_fix.json and "
        "pass it as the path.",
        name="macnoise",
        title="MacNoise eval sets (NQ/TQA_eval_gpt4_dev_256_new_fix.json)",
        filename="NQ_eval_gpt4_dev_256_new_fix.json",
        licence=(
            "no licence in the repository; NQ CC BY-SA 3.0; the TriviaQA data card states no "
            "licence for the data (Apache-2.0 is its code's)"
        ),
        loader="conflicteval.conflictbench.load_macnoise",
    ),
    _feverous_claims("dev"),
    _feverous_claims("train"),
    _feverous(
        "feverous-wikidb",
        "FEVEROUS Wikipedia database (zip of feverous_wikiv1.db, about 53 GB unpacked)",
        "feverous-wiki-pages-db.zip",
        loader="conflicteval feverous verify --db",
        instructions="unzip it and pass the .db file with --db",
    ),
    _github(
        "HanNight/RAMDocs",
        "RAMDocs_test.jsonl",
        name="ramdocs",
        title="RAMDocs test set, 500 questions (JSON lines)",
        revision="d44454c9ebb0bf513d8236a03decc9fb58704cad",
        sha256="c67f699c97349f00cf1bd08d1dbf8ca1d0cc38c306715c93a10a4f961dcf28b7",
        size=1_931_157,
        licence="MIT (repository LICENSE)",
        loader="conflicteval.ramdocs.load_ramdocs",
        note="also on Hugging Face as HanNight/RAMDocs; this entry reads the GitHub release",
    ),
    _faitheval(
        "inconsistent",
        "FaithEval inconsistent context task, test split (about 1.5k problems, parquet)",
    ),
    _faitheval(
        "counterfactual",
        "FaithEval counterfactual context task, test split (about 1k problems, parquet)",
    ),
    _faitheval(
        "unanswerable",
        "FaithEval unanswerable context task, test split (about 2.5k problems, parquet)",
    ),
    *(_conflictqa(d, m) for d in ("strategyqa", "popqa") for m in _CONFLICTQA_STRATEGYQA),
    _github(
        _CLASHEVAL_REPO,
        "data/dataset/dataset.pqt",
        name="clasheval",
        title="ClashEval questions with graded context modifications (parquet)",
        revision="ba892d17f9b125264494689b7ce5d8ab22ed821d",
        licence="CC BY 4.0 (dataset card)",
        loader="conflicteval.clasheval.load_dataset",
        note=_CLASHEVAL_NOTE + "; the file was deleted from the repository after this commit",
    ),
    *(_clasheval_responses(m) for m in _CLASHEVAL_MODELS),
)


def get_entry(name: str) -> DatasetFile:
    """The registry entry called ``name``.

    Raises:
        ConflictEvalError: No such entry (the message lists the names there are).
    """
    for entry in REGISTRY:
        if entry.name == name:
            return entry
    names = ", ".join(e.name for e in REGISTRY)
    hint = did_you_mean(name, [e.name for e in REGISTRY])
    raise ConflictEvalError(f"unknown dataset {name!r}{hint} (the registry has: {names})")
