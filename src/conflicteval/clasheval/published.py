"""The figures the stored outputs of ``compute_metrics.ipynb`` hold (ClashEval repository,
commit 56e7e08), as printed there (rounded as printed).

The point estimates are reproducible from the released responses (their only randomness, the
group balancing, is seeded); the intervals come from an unseeded bootstrap and are kept as
printed, for reference only.
"""

from __future__ import annotations

TABLE3: dict[str, dict[str, dict[str, float]]] = {
    "gpt4": {
        "baseline": {"accuracy": 0.615224, "context_bias": 0.303949, "prior_bias": 0.020528},
        "token_prob": {"accuracy": 0.693306, "context_bias": 0.193503, "prior_bias": 0.042522},
        "calibrated": {"accuracy": 0.754179, "context_bias": 0.106838, "prior_bias": 0.085169},
    },
    "gpt35": {
        "baseline": {"accuracy": 0.538859, "context_bias": 0.313205, "prior_bias": 0.028488},
        "token_prob": {"accuracy": 0.595723, "context_bias": 0.252834, "prior_bias": 0.056395},
        "calibrated": {"accuracy": 0.701135, "context_bias": 0.110405, "prior_bias": 0.147024},
    },
    "llama3": {
        "baseline": {"accuracy": 0.500398, "context_bias": 0.264418, "prior_bias": 0.020541},
        "token_prob": {"accuracy": 0.555993, "context_bias": 0.234812, "prior_bias": 0.046092},
        "calibrated": {"accuracy": 0.649113, "context_bias": 0.110840, "prior_bias": 0.188069},
    },
}
"""Table 3: ``TABLE3[model][method][figure]`` (methods: uncorrected baseline, token
probability correction, calibrated token probability correction)."""

TABLE3_CI: dict[str, dict[str, tuple[float, float]]] = {
    "gpt4": {
        "accuracy": (0.5955875276758816, 0.6354190557507562),
        "context_bias": (0.2854246668172577, 0.3207299198749267),
        "prior_bias": (0.013352128070514283, 0.02794509662654687),
    },
    "gpt35": {
        "accuracy": (0.5221631239928963, 0.5559698885260416),
        "context_bias": (0.29905994696221955, 0.32784424327681966),
        "prior_bias": (0.02158232551302885, 0.036503396697699204),
    },
    "llama3": {
        "accuracy": (0.48432671577084796, 0.5170619182221733),
        "context_bias": (0.24973409200426386, 0.2802423355094726),
        "prior_bias": (0.014765408585464091, 0.02714363354037267),
    },
}
"""The baseline rows' printed intervals (unseeded bootstrap)."""

# rows prior / context / neither chosen; columns prior correct, context correct
TABLE2: dict[str, dict[str, tuple[float, float]]] = {
    "claudeopus": {
        "prior_chosen": (0.585, 0.042),
        "context_chosen": (0.313, 0.901),
        "neither_chosen": (0.102, 0.057),
    },
    "claudesonnet": {
        "prior_chosen": (0.436, 0.051),
        "context_chosen": (0.401, 0.881),
        "neither_chosen": (0.163, 0.068),
    },
    "gemini15flash": {
        "prior_chosen": (0.388, 0.074),
        "context_chosen": (0.490, 0.860),
        "neither_chosen": (0.122, 0.066),
    },
    "gpt4": {
        "prior_chosen": (0.327, 0.041),
        "context_chosen": (0.608, 0.903),
        "neither_chosen": (0.065, 0.056),
    },
    "gpt35": {
        "prior_chosen": (0.237, 0.057),
        "context_chosen": (0.626, 0.841),
        "neither_chosen": (0.137, 0.102),
    },
    "llama3": {
        "prior_chosen": (0.208, 0.041),
        "context_chosen": (0.529, 0.793),
        "neither_chosen": (0.263, 0.166),
    },
}
"""Table 2 (column-normalised): ``TABLE2[model][row] = (prior correct, context correct)``."""

ACCURACY_ALL: dict[str, tuple[float, float]] = {
    "claudeopus": (0.463224, 0.938967),
    "claudesonnet": (0.339593, 0.911581),
    "gemini15flash": (0.247261, 0.902191),
    "gpt4": (0.467136, 0.941315),
    "gpt35": (0.343505, 0.878717),
    "llama3": (0.227700, 0.805164),
}
"""The notebook's first check, row ``All``: (accuracy without context, with correct context)."""
