"""Test helpers: a real local OpenAI-compatible server with fault injection."""

from conflicteval.testing.server import Fault, LoggedRequest, OpenAICompatServer, random_faults

__all__ = ["Fault", "LoggedRequest", "OpenAICompatServer", "random_faults"]
