"""How batches run: records and results, the checkpoint, progress, the runner, stages.

Below both the workflows that run batches and the item executors
(:mod:`conflicteval.executors`). The public names are re-exported by
:mod:`conflicteval.runner`, the path users import them from.
"""
