"""Executors: how a workflow's model calls get answered (online, batch files, Ray)."""
