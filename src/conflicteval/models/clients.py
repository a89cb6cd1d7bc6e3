"""A provider's HTTP clients, one per running event loop, and its pickling without them.

A client's connections belong to the loop that opened them, so a provider keeps one client per
loop (a weak dictionary: a collected loop takes its entry along; a closed one is dropped when
the next client is made). A provider pickles as its settings: its clients and lock stay behind,
and a key read from the environment is read again from the environment of the process that
unpickles it (a Ray worker), never written into the pickle.
"""

from __future__ import annotations

import asyncio
import os
import threading
import weakref
from typing import Any

__all__ = ["ClientsPerLoop"]


class ClientsPerLoop:
    """The per-loop clients, ``aclose``, key scrubbing and pickling of a provider.

    A subclass sets ``_api_key`` and ``_key_from_env``, calls :meth:`_init_clients` in its
    ``__init__``, names its key's environment variable in :attr:`KEY_ENV` and makes one
    client in :meth:`_new_client`.
    """

    KEY_ENV = ""
    _api_key: str
    _key_from_env: bool

    def _init_clients(self) -> None:
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
            weakref.WeakKeyDictionary()
        )
        self._clients_lock = threading.Lock()

    def _new_client(self) -> Any:
        raise NotImplementedError

    def _client(self) -> Any:
        """The client of the running event loop (made on first use)."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            with self._clients_lock:  # loops of several threads may get here at once
                # A client's connections refer to their loop, so a dead loop's entry would
                # never leave this weak dictionary: drop them (sockets close when collected).
                for dead in [lp for lp in self._clients if lp.is_closed()]:
                    del self._clients[dead]
                client = self._new_client()
                self._clients[loop] = client
        return client

    async def aclose(self) -> None:
        """Close the HTTP client of the running event loop (others close with their loop)."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is None:
            return
        close = getattr(client, "aclose", None)  # the lean client; AsyncOpenAI has close()
        await (close() if close is not None else client.close())

    def _scrub(self, text: str) -> str:
        # Placeholders such as "none" or "ollama" are no secret; masking every
        # occurrence of such a word would garble the message instead.
        if len(self._api_key) >= 8:
            text = text.replace(self._api_key, "***")
        return text

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_clients"], state["_clients_lock"]
        if state["_key_from_env"]:
            del state["_api_key"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "_api_key" not in state:
            self._api_key = os.environ.get(self.KEY_ENV) or "no-key"
        self._init_clients()
