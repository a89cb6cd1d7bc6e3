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
        main_entity_heuristic,
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

__all__ = [
    "LOADERS",
    "PAPER_TABLE1",
    "PAPER_TABLE2",
    "SOURCES",
    "BenchDocument",
    "BenchItem",
    "BuildResult",
    "ClaimRequest",
    "ClaimWriter",
    "DetectionMetrics",
    "DetectionOutcome",
    "DetectionRun",
    "LLMClaimWriter",
    "RegenerationRun",
    "ReportRun",
    "SourceSpec",
    "TemplateClaimWriter",
    "TruthfulQAQuestion",
    "abuild_conflictbench",
    "adetect",
    "arun_regeneration",
    "arun_reports",
    "assemble",
    "build_conflictbench",
    "compute_metrics",
    "convert_conflictingqa_pickle",
    "detect",
    "detection_metrics",
    "draw_other_documents",
    "has_conflict",
    "iter_items",
    "load",
    "load_ambigdocs",
    "load_conflictingqa",
    "load_contraqa",
    "load_macnoise",
    "load_retrieved_documents",
    "load_truthfulqa",
    "main_entity_heuristic",
    "metrics_from_predictions",
    "outcomes_from_checkpoint",
    "predict_conflict",
    "predict_response_conflict",
    "read_items",
    "run_regeneration",
    "run_reports",
    "select_report_items",
    "table1",
    "table2",
    "table3",
    "template_claim",
    "write_items",
]

# Public names are imported on first use (see conflicteval._lazy): a fast start.
_lazy.install(
    __name__,
    {
        "metrics_from_predictions": (
            "conflicteval.conflictbench.metrics",
            "metrics_from_predictions",
        ),
        "predict_response_conflict": (
            "conflicteval.conflictbench.metrics",
            "predict_response_conflict",
        ),
        "PAPER_TABLE1": (".builder", "PAPER_TABLE1"),
        "BuildResult": (".builder", "BuildResult"),
        "SourceSpec": (".builder", "SourceSpec"),
        "abuild_conflictbench": (".builder", "abuild_conflictbench"),
        "assemble": (".builder", "assemble"),
        "build_conflictbench": (".builder", "build_conflictbench"),
        "draw_other_documents": (".builder", "draw_other_documents"),
        "table1": (".builder", "table1"),
        "ClaimRequest": (".claims", "ClaimRequest"),
        "ClaimWriter": (".claims", "ClaimWriter"),
        "LLMClaimWriter": (".claims", "LLMClaimWriter"),
        "TemplateClaimWriter": (".claims", "TemplateClaimWriter"),
        "template_claim": (".claims", "template_claim"),
        "DetectionRun": (".detect", "DetectionRun"),
        "adetect": (".detect", "adetect"),
        "detect": (".detect", "detect"),
        "outcomes_from_checkpoint": (
            "conflicteval.conflictbench.detect",
            "outcomes_from_checkpoint",
        ),
        "SOURCES": (".items", "SOURCES"),
        "BenchDocument": (".items", "BenchDocument"),
        "BenchItem": (".items", "BenchItem"),
        "has_conflict": (".items", "has_conflict"),
        "iter_items": (".items", "iter_items"),
        "read_items": (".items", "read_items"),
        "write_items": (".items", "write_items"),
        "LOADERS": (".loader", "LOADERS"),
        "load": (".loader", "load"),
        "PAPER_TABLE2": (".metrics", "PAPER_TABLE2"),
        "DetectionMetrics": (".metrics", "DetectionMetrics"),
        "DetectionOutcome": (".metrics", "DetectionOutcome"),
        "compute_metrics": (".metrics", "compute_metrics"),
        "detection_metrics": (".metrics", "detection_metrics"),
        "predict_conflict": (".metrics", "predict_conflict"),
        "table2": (".metrics", "table2"),
        "RegenerationRun": (".regenerate", "RegenerationRun"),
        "arun_regeneration": (".regenerate", "arun_regeneration"),
        "run_regeneration": (".regenerate", "run_regeneration"),
        "ReportRun": (".report_benchmark", "ReportRun"),
        "arun_reports": (".report_benchmark", "arun_reports"),
        "main_entity_heuristic": (".report_benchmark", "main_entity_heuristic"),
        "run_reports": (".report_benchmark", "run_reports"),
        "select_report_items": (".report_benchmark", "select_report_items"),
        "table3": (".report_benchmark", "table3"),
        "convert_conflictingqa_pickle": (
            "conflicteval.conflictbench.sources",
            "convert_conflictingqa_pickle",
        ),
        "load_ambigdocs": (".sources", "load_ambigdocs"),
        "load_conflictingqa": (".sources", "load_conflictingqa"),
        "load_contraqa": (".sources", "load_contraqa"),
        "load_macnoise": (".sources", "load_macnoise"),
        "TruthfulQAQuestion": (".truthfulqa", "TruthfulQAQuestion"),
        "load_retrieved_documents": (
            "conflicteval.conflictbench.truthfulqa",
            "load_retrieved_documents",
        ),
        "load_truthfulqa": (".truthfulqa", "load_truthfulqa"),
    },
)
