"""A real third-party OpenAI-compatible server for the integration tests.

The session fixture :func:`llama_server` writes a tiny random-weight llama
model as a GGUF file (with the ``gguf`` package), starts llama-cpp-python's
OpenAI-compatible server on it (``python -m llama_cpp.server``) on a free port
of 127.0.0.1, waits until it answers, and stops it at the end of the session.
No weights are downloaded: the model is built here, its words are meaningless,
but the HTTP protocol, tokenizer, chat template, sampling and JSON grammar are
the real ones.

Every test in this directory is marked ``integration``; the tests skip (with
the reason) only when ``llama_cpp`` (with its server extra) or ``gguf`` cannot
be imported.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

HERE = Path(__file__).resolve().parent

# The model: a llama architecture small enough to load in well under a second.
N_LAYER = 2
N_EMBD = 64
N_HEAD = 4
N_HEAD_KV = 2
N_FF = 128
N_CTX_TRAIN = 2048
WEIGHT_SEED = 20240607

# Tokens 0..2 follow the SentencePiece ("llama") convention the loader defaults to.
UNK, BOS, EOS = "<unk>", "<s>", "</s>"
SPACE = "\u2581"  # SentencePiece's visible space
# A few multi-character pieces, each reachable by merging two smaller pieces,
# so the SentencePiece merge step has something to do.
MERGED_PIECES = (
    f"{SPACE}t",
    "he",
    f"{SPACE}the",
    f"{SPACE}a",
    "in",
    "er",
    "on",
    f"{SPACE}is",
    "is",
    "es",
)
# The chat template the server renders prompts with (read from the GGUF metadata).
CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "{{ '[' + message['role'] + '] ' + message['content'] + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '[assistant] ' }}{% endif %}"
)

SERVER_START_TIMEOUT = 120.0  # seconds; a cold start takes about 2 s here
SERVER_STOP_TIMEOUT = 15.0
N_CTX = 2048
# One compute thread: the model is tiny, and with one thread per core llama.cpp's
# spinning worker threads stalled for seconds whenever another process (the test
# client, uvicorn) needed a core on a 2-core machine.
N_THREADS = 1


@functools.cache
def missing_requirements() -> tuple[str, ...]:
    """The integration requirements that cannot be imported, each with the reason."""
    missing: list[str] = []
    for module, requirement in (
        ("gguf", "gguf"),
        ("llama_cpp", "llama-cpp-python"),
        ("llama_cpp.server.app", "llama-cpp-python[server]"),
    ):
        try:
            importlib.import_module(module)
        except (ImportError, OSError) as exc:  # OSError: the shared library failed to load
            missing.append(f"{requirement} ({type(exc).__name__}: {exc})")
    return tuple(missing)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test here ``integration``; skip them when the requirements are missing."""
    missing = missing_requirements()
    skip = pytest.mark.skip(
        reason="integration tests need importable "
        + "; ".join(missing)
        + " (see docs/integration-testing.md)"
    )
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.integration)
            if missing:
                item.add_marker(skip)


# -- the model file -------------------------------------------------------------


def vocabulary() -> tuple[list[str], list[float], list[int]]:
    """A small SentencePiece vocabulary: specials, the 256 byte tokens, ASCII, merges.

    Returns:
        (tokens, scores, token types) in id order.
    """
    from gguf import TokenType

    tokens: list[str] = [UNK, BOS, EOS]
    scores: list[float] = [0.0, 0.0, 0.0]
    types: list[int] = [TokenType.UNKNOWN, TokenType.CONTROL, TokenType.CONTROL]
    for byte in range(256):  # byte fallback: any text can be tokenized
        tokens.append(f"<0x{byte:02X}>")
        scores.append(0.0)
        types.append(TokenType.BYTE)
    singles = [SPACE, *(chr(c) for c in range(0x21, 0x7F))]
    for piece in singles:
        tokens.append(piece)
        scores.append(-100.0)
        types.append(TokenType.NORMAL)
    for rank, piece in enumerate(MERGED_PIECES):  # merged pieces score higher
        tokens.append(piece)
        scores.append(-10.0 - rank)
        types.append(TokenType.NORMAL)
    return tokens, scores, [int(t) for t in types]


def write_tiny_llama_gguf(path: Path, *, seed: int = WEIGHT_SEED) -> Path:
    """Write a random-weight llama model with a real tokenizer to ``path``.

    The metadata is what llama.cpp's llama loader requires (context/embedding
    length, block count, feed-forward length, head counts, RMS-norm epsilon,
    tokenizer model/tokens/scores/types) plus the special-token ids and a chat
    template. Weights are float32, drawn from a seeded generator, so the file
    is the same on every run.

    The output rows of the control and byte tokens are zero and every other
    row is random, so greedy decoding picks printable pieces (a byte token
    alone could be half a UTF-8 character) and never ends the reply at once.
    """
    import numpy as np
    from gguf import GGUFWriter

    tokens, scores, types = vocabulary()
    n_vocab = len(tokens)
    head_dim = N_EMBD // N_HEAD
    rng = np.random.default_rng(seed)

    def weight(rows: int, cols: int) -> np.ndarray:
        # numpy shape (rows, cols) is the ggml tensor {cols, rows}
        return (rng.standard_normal((rows, cols)) / np.sqrt(cols)).astype(np.float32)

    def ones(n: int) -> np.ndarray:
        return np.ones(n, dtype=np.float32)

    writer = GGUFWriter(str(path), "llama")
    writer.add_name("conflicteval-tiny-random-llama")
    writer.add_context_length(N_CTX_TRAIN)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD_KV)
    writer.add_rope_dimension_count(head_dim)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(0)  # all float32
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_unk_token_id(tokens.index(UNK))
    writer.add_bos_token_id(tokens.index(BOS))
    writer.add_eos_token_id(tokens.index(EOS))
    writer.add_add_bos_token(True)
    writer.add_chat_template(CHAT_TEMPLATE)

    writer.add_tensor("token_embd.weight", weight(n_vocab, N_EMBD))
    writer.add_tensor("output_norm.weight", ones(N_EMBD))
    output = weight(n_vocab, N_EMBD)
    first_normal = 3 + 256
    output[:first_normal] = 0.0
    writer.add_tensor("output.weight", output)
    for i in range(N_LAYER):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", ones(N_EMBD))
        writer.add_tensor(f"blk.{i}.attn_q.weight", weight(N_HEAD * head_dim, N_EMBD))
        writer.add_tensor(f"blk.{i}.attn_k.weight", weight(N_HEAD_KV * head_dim, N_EMBD))
        writer.add_tensor(f"blk.{i}.attn_v.weight", weight(N_HEAD_KV * head_dim, N_EMBD))
        writer.add_tensor(f"blk.{i}.attn_output.weight", weight(N_EMBD, N_HEAD * head_dim))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", ones(N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_gate.weight", weight(N_FF, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_up.weight", weight(N_FF, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_down.weight", weight(N_EMBD, N_FF))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


# -- the server -----------------------------------------------------------------


@dataclass
class LlamaServer:
    """A running llama-cpp-python server.

    Attributes:
        base_url: The OpenAI-compatible base URL (``http://127.0.0.1:<port>/v1``).
        model_path: The GGUF file it serves.
        log_path: Its combined stdout/stderr (uvicorn access log included).
        process: The server process.
        model_alias: The model name it answers to.
    """

    base_url: str
    model_path: Path
    log_path: Path
    process: subprocess.Popen[bytes]
    model_alias: str

    def log(self) -> str:
        """The server's output so far."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def completion_requests(self) -> int:
        """How many chat completion requests the server has answered (from its access log)."""
        return len(re.findall(r'"POST /v1/chat/completions HTTP/[0-9.]+" \d{3}', self.log()))

    def wait_for_requests(self, count: int, timeout: float = 60.0) -> int:
        """Wait until the access log shows at least ``count`` requests; return the count.

        The server writes its access line after the reply: on a loaded machine that can
        lag by seconds. The wait ends as soon as the count is reached, so the generous
        bound costs only a run that fails anyway.
        """
        deadline = time.monotonic() + timeout
        seen = self.completion_requests()
        while seen < count and time.monotonic() < deadline:
            time.sleep(0.05)
            seen = self.completion_requests()
        return seen


def server_environment() -> dict[str, str]:
    """This process's environment without what would reconfigure the server.

    The server's settings are pydantic-settings classes: any environment
    variable named like a setting (``API_KEY``, ``MODEL``, ``N_CTX``,
    ``CHAT_FORMAT``, ...; any case) or ``CONFIG_FILE`` would silently change
    it, e.g. an ``API_KEY`` makes it answer 401.
    """
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    names = {n.lower() for n in (*ModelSettings.model_fields, *ServerSettings.model_fields)}
    names.add("config_file")
    env = {key: value for key, value in os.environ.items() if key.lower() not in names}
    env["PYTHONUNBUFFERED"] = "1"  # the access log reaches the log file at once
    return env


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until_ready(server: LlamaServer, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    last_error = "no answer yet"
    while time.monotonic() < deadline:
        code = server.process.poll()
        if code is not None:
            raise RuntimeError(
                f"llama_cpp.server exited with code {code} before it was ready:\n"
                + server.log()[-4000:]
            )
        try:
            resp = httpx.get(f"{server.base_url}/models", timeout=2.0, trust_env=False)
            if resp.status_code == 200:
                return
            last_error = f"HTTP {resp.status_code}"
        except httpx.HTTPError as exc:
            last_error = f"{type(exc).__name__}: {exc}"
        time.sleep(0.2)
    raise RuntimeError(
        f"llama_cpp.server not ready after {timeout:.0f}s ({last_error}):\n" + server.log()[-4000:]
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=SERVER_STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=SERVER_STOP_TIMEOUT)


@pytest.fixture(scope="session")
def tiny_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny random-weight llama model, written once per session."""
    if missing_requirements():
        pytest.skip("integration requirements missing")
    return write_tiny_llama_gguf(tmp_path_factory.mktemp("gguf") / "tiny-llama.gguf")


def start_llama_server(
    model_path: Path, log_dir: Path, *, alias: str = "tiny-llama"
) -> LlamaServer:
    """Start the server on a free port and wait until it answers.

    A port found free can be taken before the server binds it; that start is
    retried on another port (three tries in all).

    Raises:
        RuntimeError: The server exited early, or did not answer within
            ``SERVER_START_TIMEOUT`` (the message holds the end of its log).
    """
    failure: RuntimeError | None = None
    for attempt in range(3):
        port = free_port()
        log_path = log_dir / f"server-{attempt}.log"
        command = [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(model_path),
            "--model_alias",
            alias,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            str(N_CTX),
            "--n_threads",
            str(N_THREADS),
            "--n_threads_batch",
            str(N_THREADS),
            "--seed",
            "5",
            "--verbose",
            "true",
        ]
        with log_path.open("wb") as log_file:
            process = subprocess.Popen(
                command,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=server_environment(),
            )
        server = LlamaServer(
            base_url=f"http://127.0.0.1:{port}/v1",
            model_path=model_path,
            log_path=log_path,
            process=process,
            model_alias=alias,
        )
        try:
            _wait_until_ready(server, SERVER_START_TIMEOUT)
            return server
        except RuntimeError as exc:
            _stop(process)
            if "address already in use" not in server.log().lower():
                raise
            failure = exc
    assert failure is not None
    raise failure


@pytest.fixture(scope="session")
def llama_server(
    tiny_gguf: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LlamaServer]:
    """llama-cpp-python's OpenAI-compatible server on the tiny model, for the session."""
    server = start_llama_server(tiny_gguf, tmp_path_factory.mktemp("llama-server"))
    try:
        yield server
    finally:
        _stop(server.process)
