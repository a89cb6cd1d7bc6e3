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
    from conflicteval.wikicontradict.judge_agreement import AgreementReport, agreement, cohen_kappa
    from conflicteval.wikicontradict.judge_lexical import LexicalJudgement, lexical_judge
    from conflicteval.wikicontradict.judge_template import (
        VERDICTS,
        Verdict,
        WorkedExample,
        judge_prompt,
        parse_comment,
        parse_verdict,
        worked_examples,
    )
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

# Public names, each stated once by module, imported on first use (see conflicteval._lazy).
__all__ = _lazy.exports(
    __name__,
    {
        ".calibrate": "CalibrationResult HumanLabel calibrate load_human_labels",
        ".data": "add_revisions is_yes_no load_revisions load_wikicontradict summary",
        ".generate": (
            "PAPER_SETTINGS GenerationRow generate generate_sync",
            "read_generations",
        ),
        ".instance": "WikiContradictInstance join_passages",
        ".item_table": "ItemRow ItemTable build_item_table",
        ".judge": "Judge Judgement map_label",
        ".judge_lexical": "LexicalJudgement lexical_judge",
        ".judge_agreement": "AgreementReport agreement cohen_kappa",
        ".published": (
            "ComparisonRow PublishedTable compare_calibration compare_to_published",
            "comparison_markdown published_table",
        ),
        ".report": "LabelledRow WikiContradictReport build_report report_from_rows write_report",
        ".templates": (
            "TEMPLATE_NAMES MissingRevisedPassages RenderedPrompt Template TemplateSet",
            "default_templates render",
        ),
        ".judge_template": (
            "VERDICTS Verdict WorkedExample judge_prompt parse_comment parse_verdict",
            "worked_examples",
        ),
    },
)
