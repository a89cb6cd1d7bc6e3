"""WikiContradict (Hou et al., NeurIPS 2024 D&B): real-world inter-context conflicts.

Load the benchmark, render its prompt templates, generate responses through the
model layer, grade them with the paper's judge prompt or the offline
``lexical`` baseline, report Table 2/Table 5 style results, calibrate a judge
against human labels, and show the paper's published numbers beside measured
ones. See ``docs/wikicontradict.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from conflicteval import _lazy

if TYPE_CHECKING:
    from conflicteval.wikicontradict.calibrate import (
        CalibrationResult,
        HumanLabel,
        calibrate,
        load_human_labels,
    )
    from conflicteval.wikicontradict.data import (
        add_revisions,
        is_yes_no,
        load_revisions,
        load_wikicontradict,
        summary,
    )
    from conflicteval.wikicontradict.generate import (
        PAPER_SETTINGS,
        GenerationRow,
        generate,
        generate_sync,
        read_generations,
    )
    from conflicteval.wikicontradict.instance import WikiContradictInstance, join_passages
    from conflicteval.wikicontradict.item_table import ItemRow, ItemTable, build_item_table
    from conflicteval.wikicontradict.judge import Judge, Judgement, map_label
    from conflicteval.wikicontradict.lexical import LexicalJudgement, lexical_judge
    from conflicteval.wikicontradict.metrics import AgreementReport, agreement, cohen_kappa
    from conflicteval.wikicontradict.published import (
        ComparisonRow,
        PublishedTable,
        compare_calibration,
        compare_to_published,
        comparison_markdown,
        published_table,
    )
    from conflicteval.wikicontradict.report import (
        LabelledRow,
        WikiContradictReport,
        build_report,
        report_from_rows,
        write_report,
    )
    from conflicteval.wikicontradict.templates import (
        TEMPLATE_NAMES,
        MissingRevisedPassages,
        RenderedPrompt,
        Template,
        TemplateSet,
        default_templates,
        render,
    )
    from conflicteval.wikicontradict.verdict import (
        VERDICTS,
        Verdict,
        WorkedExample,
        judge_prompt,
        parse_comment,
        parse_verdict,
        worked_examples,
    )

__all__ = [
    "PAPER_SETTINGS",
    "TEMPLATE_NAMES",
    "VERDICTS",
    "AgreementReport",
    "CalibrationResult",
    "ComparisonRow",
    "GenerationRow",
    "HumanLabel",
    "ItemRow",
    "ItemTable",
    "Judge",
    "Judgement",
    "LabelledRow",
    "LexicalJudgement",
    "MissingRevisedPassages",
    "PublishedTable",
    "RenderedPrompt",
    "Template",
    "TemplateSet",
    "Verdict",
    "WikiContradictInstance",
    "WikiContradictReport",
    "WorkedExample",
    "add_revisions",
    "agreement",
    "build_item_table",
    "build_report",
    "calibrate",
    "cohen_kappa",
    "compare_calibration",
    "compare_to_published",
    "comparison_markdown",
    "default_templates",
    "generate",
    "generate_sync",
    "is_yes_no",
    "join_passages",
    "judge_prompt",
    "lexical_judge",
    "load_human_labels",
    "load_revisions",
    "load_wikicontradict",
    "map_label",
    "parse_comment",
    "parse_verdict",
    "published_table",
    "read_generations",
    "render",
    "report_from_rows",
    "summary",
    "worked_examples",
    "write_report",
]

# Public names are imported on first use (see conflicteval._lazy): a fast start.
_lazy.install(
    __name__,
    {
        "ItemRow": ("conflicteval.wikicontradict.item_table", "ItemRow"),
        "ItemTable": ("conflicteval.wikicontradict.item_table", "ItemTable"),
        "build_item_table": ("conflicteval.wikicontradict.item_table", "build_item_table"),
        "CalibrationResult": (".calibrate", "CalibrationResult"),
        "HumanLabel": (".calibrate", "HumanLabel"),
        "calibrate": (".calibrate", "calibrate"),
        "load_human_labels": (".calibrate", "load_human_labels"),
        "add_revisions": (".data", "add_revisions"),
        "is_yes_no": (".data", "is_yes_no"),
        "load_revisions": (".data", "load_revisions"),
        "load_wikicontradict": (".data", "load_wikicontradict"),
        "summary": (".data", "summary"),
        "PAPER_SETTINGS": (".generate", "PAPER_SETTINGS"),
        "GenerationRow": (".generate", "GenerationRow"),
        "generate": (".generate", "generate"),
        "generate_sync": (".generate", "generate_sync"),
        "read_generations": (".generate", "read_generations"),
        "WikiContradictInstance": (
            "conflicteval.wikicontradict.instance",
            "WikiContradictInstance",
        ),
        "join_passages": (".instance", "join_passages"),
        "Judge": (".judge", "Judge"),
        "Judgement": (".judge", "Judgement"),
        "map_label": (".judge", "map_label"),
        "LexicalJudgement": (".lexical", "LexicalJudgement"),
        "lexical_judge": (".lexical", "lexical_judge"),
        "AgreementReport": (".metrics", "AgreementReport"),
        "agreement": (".metrics", "agreement"),
        "cohen_kappa": (".metrics", "cohen_kappa"),
        "ComparisonRow": (".published", "ComparisonRow"),
        "PublishedTable": (".published", "PublishedTable"),
        "compare_calibration": (".published", "compare_calibration"),
        "compare_to_published": (".published", "compare_to_published"),
        "comparison_markdown": (".published", "comparison_markdown"),
        "published_table": (".published", "published_table"),
        "LabelledRow": (".report", "LabelledRow"),
        "WikiContradictReport": (".report", "WikiContradictReport"),
        "build_report": (".report", "build_report"),
        "report_from_rows": (".report", "report_from_rows"),
        "write_report": (".report", "write_report"),
        "TEMPLATE_NAMES": (".templates", "TEMPLATE_NAMES"),
        "MissingRevisedPassages": (
            "conflicteval.wikicontradict.templates",
            "MissingRevisedPassages",
        ),
        "RenderedPrompt": (".templates", "RenderedPrompt"),
        "Template": (".templates", "Template"),
        "TemplateSet": (".templates", "TemplateSet"),
        "default_templates": (".templates", "default_templates"),
        "render": (".templates", "render"),
        "VERDICTS": (".verdict", "VERDICTS"),
        "Verdict": (".verdict", "Verdict"),
        "WorkedExample": (".verdict", "WorkedExample"),
        "judge_prompt": (".verdict", "judge_prompt"),
        "parse_comment": (".verdict", "parse_comment"),
        "parse_verdict": (".verdict", "parse_verdict"),
        "worked_examples": (".verdict", "worked_examples"),
    },
)
