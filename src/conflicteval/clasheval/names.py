"""The names the command line offers before any workflow is imported (a fast start)."""

RELEASED_MODELS: tuple[str, ...] = (
    "claudeopus",
    "claudesonnet",
    "gemini15flash",
    "gpt4",
    "gpt35",
    "llama3",
)
"""The released response files (``data/model_responses/<name>.pqt``)."""
