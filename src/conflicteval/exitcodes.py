"""The command line's exit statuses, below every layer that needs to name one."""

EXIT_OK = 0
"""Every item was scored."""
EXIT_FAILED = 1
"""Some items failed (counted, never dropped)."""
EXIT_USAGE = 2
"""A usage or input error (one line, no traceback), a refused key or a dead endpoint."""
EXIT_PENDING = 3
"""``--batch-export`` left calls waiting for batch results."""

__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_PENDING", "EXIT_USAGE"]
