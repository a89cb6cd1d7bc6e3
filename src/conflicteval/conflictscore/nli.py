"""NLILabeler: a local natural-language-inference classifier as the labeler.

Needs the optional extra ``nli`` (``pip install '.[nli]'``: transformers
and torch), imported only when an NLILabeler is created. Models are loaded from
a local directory only (``local_files_only``): nothing is downloaded.

The document is the premise and the claim the hypothesis. The class names of
the model (``config.id2label``) are mapped to relations; by default any name
starting with "entail" -> SUPPORTS, "contradict" -> CONTRADICTS, "neutral" ->
IRRELEVANT. A model with other class names needs ``label_map``.

Calls: no model-layer calls (``calls`` 0); ``ceil(pairs / batch_size)``
forward passes on the local machine.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from conflicteval.errors import UsageError, require
from conflicteval.types import RELATIONS, Document, PairLabel, Relation, Usage

from .labelers import BaseLabeler, LabelResult, document_text
from .parse import normalize_label

__all__ = ["DEFAULT_NLI_MAP", "NLILabeler"]

DEFAULT_NLI_MAP: Mapping[str, Relation] = {
    "entail": "SUPPORTS",
    "contradict": "CONTRADICTS",
    "neutral": "IRRELEVANT",
}
"""Class-name prefixes (lower-case) and the relation each maps to."""


class NLILabeler(BaseLabeler):
    """Label pairs with a local NLI sequence-classification model.

    Args:
        model: A local directory (``save_pretrained`` layout) or a loaded
            ``transformers`` sequence-classification model.
        tokenizer: The tokenizer (required with a loaded model; loaded from the
            directory otherwise).
        label_map: Class name (or prefix, case-insensitive) or class id ->
            relation. Default: :data:`DEFAULT_NLI_MAP`.
        batch_size: Pairs per forward pass.
        max_length: Token limit of one pair; the document (premise) is truncated.
        device: Torch device, e.g. ``"cpu"`` or ``"cuda"``; ``"auto"``: a GPU
            when torch sees one, else the CPU.

    A labeler loaded from a directory pickles as its options: unpickled in
    another process (a Ray worker, one per GPU with ``num_gpus``) it loads the
    model again from the same directory, on that process's device when
    ``device="auto"``. A labeler built from a loaded model pickles the model.

    Raises:
        MissingDependency: transformers or torch is not installed.
        UsageError: ``model`` is a path but not a directory with a ``config.json``.
        ValueError: A class of the model has no relation in ``label_map``.
    """

    name = "nli"

    def __init__(
        self,
        model: str | os.PathLike[str] | Any,
        tokenizer: Any | None = None,
        *,
        label_map: Mapping[str | int, str] | None = None,
        batch_size: int = 16,
        max_length: int = 512,
        device: str = "cpu",
    ) -> None:
        transformers: Any = require("transformers", "nli")
        self._torch: Any = require("torch", "nli")
        self._options: dict[str, Any] = {
            "label_map": dict(label_map) if label_map is not None else None,
            "batch_size": batch_size,
            "max_length": max_length,
            "device": device,
        }
        self._source: str | None = None
        if device == "auto":
            torch: Any = self._torch
            device = "cuda" if torch.cuda.is_available() else "cpu"
        if isinstance(model, (str, os.PathLike)):
            path = os.fspath(model)
            # Local only: say so here, not with the Hub's repo-id or tokenizer complaints.
            if not os.path.isdir(path):
                raise UsageError(f"NLI model {path!r}: no such directory")
            if not os.path.isfile(os.path.join(path, "config.json")):
                raise UsageError(
                    f"NLI model {path!r}: no config.json; give a directory written by "
                    "save_pretrained (the model and its tokenizer)"
                )
            self._source = path if tokenizer is None else None
            if tokenizer is None:
                tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
            model = transformers.AutoModelForSequenceClassification.from_pretrained(
                path, local_files_only=True
            )
        elif tokenizer is None:
            raise ValueError("a loaded NLI model needs its tokenizer: NLILabeler(model, tokenizer)")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.model = model.to(device).eval()
        self.tokenizer = tokenizer
        self.device = device
        self.batch_size = batch_size
        self.max_length = max_length
        mapping: Mapping[str | int, str] = (
            label_map if label_map is not None else dict(DEFAULT_NLI_MAP.items())
        )
        self.classes: dict[int, Relation] = self._map_classes(mapping)
        self.forward_passes = 0

    def __getstate__(self) -> dict[str, Any]:
        if self._source is not None:  # the weights are reloaded where it is unpickled
            return {"_source": self._source, "_options": self._options}
        state = self.__dict__.copy()
        del state["_torch"]  # a module: imported again on the other side
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        if "model" not in state:
            self.__init__(state["_source"], **state["_options"])  # type: ignore[misc]
            return
        self.__dict__.update(state)
        self._torch = require("torch", "nli")

    def _map_classes(self, label_map: Mapping[str | int, str]) -> dict[int, Relation]:
        id2label = {int(k): str(v) for k, v in self.model.config.id2label.items()}
        out: dict[int, Relation] = {}
        for idx, cls_name in id2label.items():
            target: str | None = label_map.get(idx)
            if target is None:
                lowered = cls_name.lower()
                for key, rel in label_map.items():
                    if isinstance(key, str) and lowered.startswith(key.lower()):
                        target = rel
                        break
            if target is None:
                raise ValueError(
                    f"NLI class {idx} {cls_name!r} has no relation; pass label_map, e.g. "
                    f"{{{cls_name!r}: 'SUPPORTS'}}"
                )
            if target not in RELATIONS:
                raise ValueError(f"label_map value {target!r} is not one of {RELATIONS}")
            out[idx] = normalize_label(target) or "IRRELEVANT"
        return out

    def _predict(self, premises: list[str], hypotheses: list[str]) -> list[tuple[int, float]]:
        torch = self._torch
        results: list[tuple[int, float]] = []
        for start in range(0, len(premises), self.batch_size):
            batch = self.tokenizer(
                premises[start : start + self.batch_size],
                hypotheses[start : start + self.batch_size],
                truncation="only_first",
                max_length=self.max_length,
                padding=True,
                return_tensors="pt",
            )
            batch = {k: v.to(self.device) for k, v in batch.items()}
            with torch.no_grad():
                logits = self.model(**batch).logits
            self.forward_passes += 1
            probs = torch.softmax(logits.float(), dim=-1)
            best = probs.argmax(dim=-1)
            for row, k in zip(probs.tolist(), best.tolist(), strict=True):
                results.append((int(k), float(row[int(k)])))
        return results

    async def label(self, claims: Sequence[str], documents: Sequence[Document]) -> LabelResult:
        """Classify every (document, claim) pair in batches (in a worker thread)."""
        docs = [Document.coerce(d, i) for i, d in enumerate(documents)]
        index = [(i, j) for i in range(len(claims)) for j in range(len(docs))]
        premises = [document_text(docs[j]) for _, j in index]
        hypotheses = [claims[i] for i, _ in index]
        predictions = await asyncio.to_thread(self._predict, premises, hypotheses) if index else []
        id2label = self.model.config.id2label
        pairs: list[list[PairLabel]] = [[] for _ in claims]
        for (i, j), (k, p) in zip(index, predictions, strict=True):
            pairs[i].append(
                PairLabel(
                    claim_index=i,
                    doc_index=j,
                    label=self.classes[k],
                    reasoning=f"NLI class {id2label.get(k, k)!s} (p={p:.3f})",
                )
            )
        return LabelResult(pairs=pairs, calls=0, usage=Usage())

    def identity(self) -> dict[str, Any]:
        """The labeler, its NLI model's name, weights and settings (recorded with a checkpoint).

        ``nli_weights`` is a sha256 of what decides the labels: for a model loaded
        from a directory, the names and bytes of its files (weights, config,
        tokenizer); for a model object, its parameters. A directory whose weights
        were replaced under the same path has another identity.
        """
        config = getattr(self.model, "config", None)
        if getattr(self, "_weights_digest", None) is None:
            self._weights_digest = self._weights_sha256()
        return {
            **super().identity(),
            "nli_model": str(getattr(config, "_name_or_path", "") or type(self.model).__name__),
            "nli_weights": self._weights_digest,
            "classes": {str(k): v for k, v in self.classes.items()},
            "max_length": self.max_length,
        }

    def _weights_sha256(self) -> str:
        digest = hashlib.sha256()
        source = getattr(self, "_source", None)
        if source is not None:
            for path in sorted(Path(source).rglob("*")):
                if path.is_file() and not path.name.startswith("."):
                    digest.update(str(path.relative_to(source)).encode("utf-8") + b"\0")
                    with path.open("rb") as fh:
                        while chunk := fh.read(1 << 20):
                            digest.update(chunk)
            return digest.hexdigest()
        for name, tensor in sorted(self.model.state_dict().items()):
            digest.update(name.encode("utf-8") + b"\0")
            data = tensor.detach().cpu().contiguous()
            try:
                digest.update(data.numpy().tobytes())
            except TypeError:  # bfloat16 and other types numpy has not
                digest.update(data.float().numpy().tobytes())
        return digest.hexdigest()

    def __repr__(self) -> str:
        return f"NLILabeler({type(self.model).__name__}, classes={self.classes})"
