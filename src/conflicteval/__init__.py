"""conflicteval: conflict-aware evaluation of large language models."""

__version__ = "0.1.0"
