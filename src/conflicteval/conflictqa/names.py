"""The names the command line offers before any workflow is imported (a fast start)."""

DATASETS: tuple[str, ...] = ("strategyqa", "popqa")
"""The two source datasets of the release (file names spell them ``strategyQA``, ``popQA``)."""

LLMS: tuple[str, ...] = (
    "chatgpt",
    "gpt4",
    "palm2",
    "qwen7b",
    "llama2-7b",
    "llama2-70b",
    "vicuna7b",
    "vicuna33b",
)
"""The eight LLMs whose memory the release holds, as its file names spell them."""

SINGLE: tuple[str, ...] = ("counter", "memory-counter", "counter-memory")
"""The single-source experiments (the default)."""

MULTI: tuple[str, ...] = ("2m1c", "1m2c", "2m2c")
"""The multi-source settings (by option)."""
