"""A real HTTP server (stdlib ThreadingHTTPServer) speaking /v1/completions and /v1/chat/completions,
with scripted behaviours for fault tests and a fixed latency for the concurrency benchmark.

Behaviours are consumed one per request, in order; when the script is empty the ``default`` applies:
- ``ok(text)``: a normal 200 completion with ``text``;
- ``delay(seconds, text)``: the same after sleeping (past the client's timeout, for timeout tests);
- ``status(code)``: an OpenAI-style JSON error with that HTTP status (429, 500, 400, ...);
- ``garbage_body()``: a 200 whose body is not JSON at all;
- ``json_body(payload)``: a 200 whose body is this JSON (a completion missing a part, say).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class OnePieceHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 keep-alive that sends each reply in one piece, as a real provider's HTTP stack does. The stdlib
    handler writes the headers and then the body; with Nagle's algorithm on, the kernel holds the body until the
    client acknowledges the headers, which a client delays by up to 40 ms: every call took the server's latency plus
    about 40 ms (tests/llm/test_fake_servers.py). A buffered writer (flushed once the request is handled) and no
    Nagle send headers and body together."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    wbufsize = -1  # buffered: flushed after each request, headers and body in one write

    def log_message(self, format: str, *args: Any) -> None:
        return


@dataclass(frozen=True)
class Behaviour:
    kind: str
    text: str = ""
    seconds: float = 0.0
    code: int = 200
    payload: Any = None


def ok(text: str) -> Behaviour:
    return Behaviour("ok", text=text)


def delay(seconds: float, text: str = "late") -> Behaviour:
    return Behaviour("ok", text=text, seconds=seconds)


def status(code: int) -> Behaviour:
    return Behaviour("status", code=code)


def garbage_body() -> Behaviour:
    return Behaviour("garbage")


def json_body(payload: Any) -> Behaviour:
    return Behaviour("json", payload=payload)


@dataclass
class _State:
    script: deque[Behaviour] = field(default_factory=deque)
    default: Behaviour = field(default_factory=lambda: ok("ok"))
    latency_s: float = 0.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class FakeOpenAIServer:
    """``with FakeOpenAIServer() as server: server.base_url``; ``server.script(...)`` queues behaviours."""

    def __init__(self, *, latency_s: float = 0.0, default: Behaviour | None = None) -> None:
        self.state = _State(latency_s=latency_s)
        if default is not None:
            self.state.default = default
        state = self.state

        class Handler(OnePieceHandler):
            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/v1/models":
                    self._json(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})
                else:
                    self._json(404, {"error": {"message": "not found", "type": "invalid_request_error"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with state.lock:
                    state.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
                    behaviour = state.script.popleft() if state.script else state.default
                time.sleep(state.latency_s + behaviour.seconds)
                if behaviour.kind == "status":
                    error = {"message": f"scripted {behaviour.code}", "type": "server_error", "code": None}
                    headers = {"retry-after": "0"} if behaviour.code == 429 else {}
                    self._json(behaviour.code, {"error": error}, headers)
                elif behaviour.kind == "garbage":
                    self._raw(200, b"<html>this is not json", "application/json")
                elif behaviour.kind == "json":
                    self._raw(200, json.dumps(behaviour.payload).encode(), "application/json")
                elif self.path.endswith("/chat/completions"):
                    self._json(200, _chat(body, behaviour.text))
                elif self.path.endswith("/completions"):
                    self._json(200, _completion(body, behaviour.text))
                else:
                    self._json(404, {"error": {"message": "not found", "type": "invalid_request_error"}})

            def _json(self, code: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                self._raw(code, json.dumps(payload).encode(), "application/json", headers)

            def _raw(self, code: int, data: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in (headers or {}).items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                    self.wfile.flush()  # headers and body, in one write
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def script(self, *behaviours: Behaviour) -> None:
        with self.state.lock:
            self.state.script.extend(behaviours)

    @property
    def requests(self) -> list[dict[str, Any]]:
        with self.state.lock:
            return list(self.state.requests)

    def start(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _usage(body: dict[str, Any], text: str) -> dict[str, int]:
    source = body.get("prompt") or " ".join(str(m.get("content", "")) for m in body.get("messages", []))
    prompt_tokens = max(1, len(str(source).split()))
    completion_tokens = max(1, len(text.split()))
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def _completion(body: dict[str, Any], text: str) -> dict[str, Any]:
    return {
        "id": "cmpl-fake",
        "object": "text_completion",
        "created": int(time.time()),
        "model": body.get("model", "fake"),
        "choices": [{"index": 0, "text": text, "finish_reason": "stop", "logprobs": None}],
        "usage": _usage(body, text),
    }


def _chat(body: dict[str, Any], text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": _usage(body, text),
    }
