"""The names the command line offers before the bench itself is imported (a fast start)."""

GOLD_SETS = ("feverous", "feverous-s", "ramdocs", "conflictbench")
"""The gold sets a labeler can be measured on."""
