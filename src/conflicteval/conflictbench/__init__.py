"""ConflictBench: source loaders, builder, conflict detection, report benchmarking
and conflict-feedback regeneration (the ConflictScore paper: Liu, Xia, Halfaker,
Roth, arXiv:2606.26437).

Typical use::

    from conflicteval.conflictbench import load, build_conflictbench, detect, read_items
    items = list(load("macnoise", "NQ_eval_gpt4_dev_256_new_fix.json", level="35"))
    result = build_conflictbench([("ambigdocs", "dev.json")], output="bench.jsonl", seed=0)
    run = detect(read_items("bench.jsonl"), LexicalLabeler())
    print(run.table())
"""

from typing import TYPE_CHECKING

from conflicteval import _lazy

if TYPE_CHECKING:
    from conflicteval.conflictbench.builder import (
        PAPER_TABLE1,
        BuildResult,
        SourceSpec,
        abuild_conflictbench,
        assemble,
        build_conflictbench,
        draw_other_documents,
        table1,
    )
    from conflicteval.conflictbench.claims import (
        ClaimRequest,
        ClaimWriter,
        LLMClaimWriter,
        TemplateClaimWriter,
        template_claim,
    )
    from conflicteval.conflictbench.detect import (
        DetectionRun,
        adetect,
        detect,
        outcomes_from_checkpoint,
    )
    from conflicteval.conflictbench.items import (
        SOURCES,
        BenchDocument,
        BenchItem,
        has_conflict,
        iter_items,
        read_items,
        write_items,
    )
    from conflicteval.conflictbench.loader import LOADERS, load
    from conflicteval.conflictbench.main_entity import main_entity_heuristic
    from conflicteval.conflictbench.metrics import (
        PAPER_TABLE2,
        DetectionMetrics,
        DetectionOutcome,
        compute_metrics,
        detection_metrics,
        metrics_from_predictions,
        predict_conflict,
        predict_response_conflict,
        table2,
    )
    from conflicteval.conflictbench.regenerate import (
        RegenerationRun,
        arun_regeneration,
        run_regeneration,
    )
    from conflicteval.conflictbench.report_benchmark import (
        ReportRun,
        arun_reports,
        run_reports,
        select_report_items,
        table3,
    )
    from conflicteval.conflictbench.sources import (
        convert_conflictingqa_pickle,
        load_ambigdocs,
        load_conflictingqa,
        load_contraqa,
        load_macnoise,
    )
    from conflicteval.conflictbench.truthfulqa import (
        TruthfulQAQuestion,
        load_retrieved_documents,
        load_truthfulqa,
    )

# Public names, each stated once by module, imported on first use (see conflicteval._lazy).
__all__ = _lazy.exports(
    __name__,
    {
        ".builder": (
            "PAPER_TABLE1 BuildResult SourceSpec abuild_conflictbench assemble build_conflictbench",
            "draw_other_documents table1",
        ),
        ".claims": "ClaimRequest ClaimWriter LLMClaimWriter TemplateClaimWriter template_claim",
        ".detect": "DetectionRun adetect detect outcomes_from_checkpoint",
        ".items": "SOURCES BenchDocument BenchItem has_conflict iter_items read_items write_items",
        ".loader": "LOADERS load",
        ".metrics": (
            "PAPER_TABLE2 DetectionMetrics DetectionOutcome compute_metrics detection_metrics",
            "metrics_from_predictions predict_conflict predict_response_conflict table2",
        ),
        ".regenerate": "RegenerationRun arun_regeneration run_regeneration",
        ".main_entity": "main_entity_heuristic",
        ".report_benchmark": "ReportRun arun_reports run_reports select_report_items table3",
        ".sources": (
            "convert_conflictingqa_pickle load_ambigdocs load_conflictingqa load_contraqa",
            "load_macnoise",
        ),
        ".truthfulqa": "TruthfulQAQuestion load_retrieved_documents load_truthfulqa",
    },
)
