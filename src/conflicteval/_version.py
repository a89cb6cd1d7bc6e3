"""The library's version, below every other module (none imports upward to learn it)."""

__version__ = "0.1.0"
