"""The WikiContradict prompt templates 1–5 and 5.1–5.4, as versioned, overridable data.

The texts live in ``conflicteval/prompts/wikicontradict_templates.json``.
Templates 5.1–5.4 are the supplement's wording; templates 1–5 are
reconstructions of the paper's Figure 3 (see ``docs/wikicontradict.md``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from os import PathLike
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from conflicteval.errors import ConflictEvalError, DataError
from conflicteval.fingerprint import text_version
from conflicteval.jsonio import load_json
from conflicteval.prompt_files import prompt_text
from conflicteval.suggest import did_you_mean
from conflicteval.types import Message
from conflicteval.wikicontradict.instance import WikiContradictInstance, join_passages

TEMPLATE_NAMES: tuple[str, ...] = ("1", "2", "3", "4", "5", "5.1", "5.2", "5.3", "5.4")
"""Every template the paper and its supplement define."""

PAPER_TEMPLATES: tuple[str, ...] = ("1", "2", "3", "4", "5")
"""The five templates of the paper's Figure 3 (Table 2)."""

SINGLE_ANSWER_TEMPLATES: frozenset[str] = frozenset({"2", "3"})
"""Templates whose answer list has one answer (reported as correct/incorrect only)."""

REVISED_TEMPLATES: frozenset[str] = frozenset({"5.3", "5.4"})
"""Templates that need user-supplied revised passages."""

AnswerSpec = Literal["both", "answer_1", "answer_2"]

PLACEHOLDERS: tuple[str, ...] = (
    "question",
    "passage_1",
    "passage_2",
    "context",
    "context_swapped",
    "revised_context",
)
_SLOT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_ ]*)\}")
_DEFAULT_FILE = "wikicontradict_templates.json"


class UnknownTemplate(ConflictEvalError, KeyError):
    """A template name the template set does not have (a ``KeyError`` too)."""

    def __str__(self) -> str:  # a KeyError would show its message in quotes
        return str(self.args[0]) if self.args else ""


class MissingRevisedPassages(ConflictEvalError, ValueError):
    """Template 5.3 or 5.4 was asked for an instance without revised passages."""


class Template(BaseModel):
    """One prompt template.

    Attributes:
        name: "1" … "5", "5.1" … "5.4", or a user name.
        text: The template text with ``{placeholder}`` slots.
        answers: Which gold answers the template expects.
        scenario: What the template tests.
        source: Where the text comes from.
        version: A string that changes whenever the text changes (set name,
            set version and a hash of the text); usable as a cache-key part.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    text: str
    answers: AnswerSpec = "both"
    scenario: str = ""
    source: str = ""
    version: str = ""


class RenderedPrompt(BaseModel):
    """A template filled in for one instance, with the answers it expects."""

    model_config = ConfigDict(frozen=True)

    instance_id: str
    template: str
    prompt: str
    answers: list[str]
    template_version: str

    @property
    def messages(self) -> list[Message]:
        """The paper's chat messages: an empty system turn, then the prompt."""
        return [{"role": "system", "content": ""}, {"role": "user", "content": self.prompt}]


def _check_slots(name: str, text: str, where: str) -> None:
    for slot in _SLOT.findall(text):
        if slot not in PLACEHOLDERS:
            raise ValueError(
                f"{where}: template {name!r} has unknown placeholder {{{slot}}}; "
                f"known: {', '.join('{' + p + '}' for p in PLACEHOLDERS)}"
            )


class TemplateSet:
    """A named, versioned set of templates.

    Args:
        templates: The templates by name.
        name: The set's name.
        version: The set's declared version.
    """

    def __init__(self, templates: Mapping[str, Template], name: str, version: str) -> None:
        self.name = name
        self.version = version
        self.templates: dict[str, Template] = {}
        for key, tpl in templates.items():
            _check_slots(key, tpl.text, f"template set {name}")
            digest = text_version(tpl.text)
            self.templates[key] = tpl.model_copy(
                update={"name": key, "version": f"{name}/{version}/{key}/{digest}"}
            )

    @classmethod
    def default(cls) -> TemplateSet:
        """The shipped templates (``prompts/wikicontradict_templates.json``)."""
        return cls._from_data(json.loads(prompt_text(_DEFAULT_FILE)), _DEFAULT_FILE)

    @classmethod
    def _from_data(cls, data: Any, where: str) -> TemplateSet:
        if not isinstance(data, dict) or not isinstance(data.get("templates"), dict):
            raise ValueError(f"{where}: expected an object with a 'templates' object")
        templates = {
            str(k): Template(name=str(k), **_template_fields(v, where, str(k)))
            for k, v in data["templates"].items()
        }
        return cls(templates, str(data.get("name", "custom")), str(data.get("version", "1")))

    def override(
        self, texts: Mapping[str, str | Mapping[str, Any]], name: str = "custom"
    ) -> TemplateSet:
        """Return a copy where the given templates are replaced or added.

        Args:
            texts: Template name to a text, or to a mapping with ``text`` and
                optionally ``answers``, ``scenario``, ``source``.
            name: The new set's name (enters every template's version string).
        """
        merged: dict[str, Template] = dict(self.templates)
        for key, value in texts.items():
            old = merged.get(key)
            base = old.model_dump() if old is not None else {"name": key}
            base.update(_template_fields(value, "override", key))
            base.update({"name": key, "version": ""})
            if "source" not in (value if isinstance(value, Mapping) else {}):
                base["source"] = "user override"
            merged[key] = Template(**base)
        return TemplateSet(merged, name, self.version)

    @classmethod
    def from_file(cls, path: str | PathLike[str]) -> TemplateSet:
        """Load user templates (a JSON file) over the shipped ones.

        The file is either ``{"templates": {"5": {"text": "..."}}}`` (optionally
        with ``name``/``version``) or a plain ``{"5": "..."}`` mapping.

        Raises:
            DataError: When the file cannot be read or has a bad layout.
        """
        p = Path(path)
        data = load_json(p)
        if not isinstance(data, dict):
            raise DataError(p, None, None, "expected a JSON object")
        texts = data.get("templates", data)
        if not isinstance(texts, dict):
            raise DataError(p, None, "templates", "expected an object")
        try:
            return cls.default().override(texts, name=str(data.get("name", f"custom:{p.name}")))
        except ValueError as exc:
            raise DataError(p, None, "templates", str(exc)) from exc

    def __getitem__(self, name: str) -> Template:
        try:
            return self.templates[name]
        except KeyError:
            raise UnknownTemplate(
                f"unknown template {name!r}{did_you_mean(name, self.templates)}; "
                f"available: {', '.join(self.templates)}"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self.templates

    def names(self) -> list[str]:
        """Template names in definition order."""
        return list(self.templates)


def _template_fields(value: Any, where: str, key: str) -> dict[str, Any]:
    if isinstance(value, str):
        return {"text": value}
    if isinstance(value, Mapping) and isinstance(value.get("text"), str):
        allowed = ("text", "answers", "scenario", "source")
        return {k: value[k] for k in allowed if k in value}
    raise ValueError(f"{where}: template {key!r} must be a string or an object with 'text'")


_DEFAULT: TemplateSet | None = None


def default_templates() -> TemplateSet:
    """The shipped template set (loaded once)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = TemplateSet.default()
    return _DEFAULT


def expected_answers(instance: WikiContradictInstance, spec: AnswerSpec) -> list[str]:
    """The gold answers a template expects: both, or one passage's."""
    if spec == "answer_1":
        return [instance.answer_1]
    if spec == "answer_2":
        return [instance.answer_2]
    return [instance.answer_1, instance.answer_2]


def render(
    instance: WikiContradictInstance,
    template: str,
    templates: TemplateSet | None = None,
) -> RenderedPrompt:
    """Fill a template in for one instance.

    Args:
        instance: The instance.
        template: Template name, e.g. ``"5"`` or ``"5.1"``.
        templates: A template set (default: the shipped one).

    Returns:
        The prompt text, the expected answers and the template version.

    Raises:
        KeyError: For an unknown template name.
        MissingRevisedPassages: When the template uses ``{revised_context}``
            and the instance has no revised passages.
    """
    tset = templates or default_templates()
    tpl = tset[template]
    values: dict[str, str] = {
        "question": instance.question,
        "passage_1": instance.passage_1,
        "passage_2": instance.passage_2,
        "context": instance.context,
        "context_swapped": instance.context_swapped,
    }
    if "{revised_context}" in tpl.text:
        if not instance.has_revised_passages:
            raise MissingRevisedPassages(
                f"template {template} needs revised, conflict-free passages for instance "
                f"{instance.id}, which has none: supply 'revised_passage_1' and "
                "'revised_passage_2' (extra CSV columns or JSON keys, or a revisions file "
                "via load_revisions/add_revisions or --revised)"
            )
        values["revised_context"] = join_passages(
            instance.revised_passage_1 or "",
            instance.revised_passage_2 or "",
            instance.same_passage,
        )
    prompt = _SLOT.sub(lambda m: values.get(m.group(1), m.group(0)), tpl.text)
    return RenderedPrompt(
        instance_id=instance.id,
        template=template,
        prompt=prompt,
        answers=expected_answers(instance, tpl.answers),
        template_version=tpl.version,
    )
