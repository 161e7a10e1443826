"""The fake OpenAI-compatible servers answer in one piece, as a real provider's HTTP stack does.

A response written as two pieces (the headers, then the body) on a socket with Nagle's algorithm on is held by the
kernel until the client acknowledges the first piece, and a client delays that acknowledgement by up to 40 ms: every
call then took the server's latency plus about 40 ms. That is what ``bench_run_throughput.py`` measured before (a
call at L = 50 ms took 88 ms inside the workers' concurrency slot, so the run could reach at most about 0.55 of
C / L whatever the platform did). The test reads the reply with one ``recv`` and finds it whole only when the server
sent it whole at once."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.llm.fake_openai_server import FakeOpenAIServer
from tests.runs.judge_server import JudgeServer

SERVERS: dict[str, Callable[[], AbstractContextManager[Any]]] = {
    "fake_openai_server": lambda: FakeOpenAIServer(),
    "judge_server": lambda: JudgeServer(),
}


# Requests sent one after another on one connection: the first few are acknowledged at once (a new connection
# starts in quick-acknowledgement mode), the later ones are where the delayed acknowledgement held the body.
REQUESTS = 12


def first_reads(base_url: str) -> list[tuple[bytes, int]]:
    """POST completions one after another over one raw keep-alive socket; for each, what a single recv gives and
    the body's length."""
    url = urlsplit(base_url)
    body = json.dumps({"model": "judge", "prompt": "Question: What is the capital?\nAnswer:"}).encode()
    request = (
        f"POST {url.path}/completions HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    reads = []
    with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
        for _ in range(REQUESTS):
            sock.sendall(request)
            first = sock.recv(65536)
            head = first.split(b"\r\n\r\n", 1)[0].decode()
            length = next(int(h.split(":", 1)[1]) for h in head.split("\r\n") if h.lower().startswith("content-length"))
            reads.append((first, length))
            data = first
            while len(data.partition(b"\r\n\r\n")[2]) < length:  # the rest, so that the next reply starts clean
                data += sock.recv(65536)
    return reads


@pytest.mark.parametrize("make_server", SERVERS.values(), ids=SERVERS.keys())
def test_a_reply_arrives_in_one_piece(make_server: Callable[[], AbstractContextManager[Any]]) -> None:
    with make_server() as server:
        reads = first_reads(server.base_url)
    for i, (data, length) in enumerate(reads):
        head, _, body = data.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200")
        assert len(body) == length, f"reply {i}: its first read held {len(body)} of the body's {length} bytes"
        assert json.loads(body)["choices"][0]["text"]
