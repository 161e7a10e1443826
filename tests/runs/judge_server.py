"""A real OpenAI-compatible HTTP server that answers like a diligent candidate and judge, by prompt kind:
candidate answers echo the ground truth's key phrase, statement extraction returns one statement, the
classification calls everything TP, Acc/Cm score 1 and LAV says valid (in each prompt set's format), a
wrong answer's error type is context misalignment. Faults are injected per prompt
kind (timeouts, 429, 500, garbage), and a request can be held until the test releases it (to kill a
worker mid-run). Every request is recorded."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter, deque
from http.server import ThreadingHTTPServer
from typing import Any

from tests.llm.fake_openai_server import OnePieceHandler, _chat, _completion

KINDS = {
    "Split an answer into atomic statements": "statements",
    "Compare the statements of an answer": "classify",
    "Rate how accurate": "accuracy",  # prompt set "1"
    "Accuracy: are the facts the answer states": "accuracy",  # set "2"
    "Rate how complete": "completeness",
    "Completeness: how much of the ground truth": "completeness",
    "Decide whether the answer": "lav",
    "The answer is valid when": "lav",
    "Say which error it makes": "error_type",
    "Evaluation Criteria:\nAccuracy and Completeness.": "authors_acc_cm",  # set "authors"
    "Evaluate for validity based on alignment": "authors_lav",
    "You rewrite factual articles": "fabricate",
    "Below is a text in which some facts": "questions",
}


def prompt_kind(prompt: str) -> str:
    for marker, kind in KINDS.items():
        if marker in prompt:
            return kind
    if "repair" in prompt or "could not be read" in prompt:
        return "repair"
    return "answer"


def last_answer_line(prompt: str, marker: str) -> str:
    return prompt.rsplit(marker, 1)[-1].split("\n", 1)[0].strip()


def good_reply(kind: str, prompt: str, body: dict[str, Any]) -> str:
    if kind == "answer":
        # Each model and temperature answers in its own words, as real candidates do.
        return f" {last_answer_line(prompt, 'Question:')[:40]} ({body.get('model')}, t={body.get('temperature')})"
    if kind == "statements":
        return json.dumps({"statements": [last_answer_line(prompt, "Answer:")[:80] or "nothing"]})
    if kind == "classify":
        answers = json.loads(last_answer_line(prompt, "Answer statements:"))
        return json.dumps({"TP": answers, "FP": [], "FN": []})
    if kind in ("accuracy", "completeness"):
        return json.dumps({"score": 1})
    if kind == "lav":
        return json.dumps({"verdict": "valid"})
    if kind == "error_type":
        return json.dumps({"error": "context_misalignment"})
    if kind == "authors_acc_cm":
        return "Accuracy: 1.0\nCompleteness: 1.0"
    if kind == "authors_lav":
        return "LAV: 1"
    if kind == "fabricate":
        article = prompt.rsplit("Article:\n", 1)[-1].rsplit("\nJSON:", 1)[0]
        first = article.split()[0]
        alteration = {"kind": "name", "original": first, "divergent": first + "son"}
        return json.dumps({"divergent_text": article.replace(first, first + "son"), "alterations": [alteration]})
    if kind == "questions":
        # The ground truths carry the first divergent fact of the prompt's list of changes.
        changed = prompt.split("Changed facts (original -> in the text):\n", 1)[-1].split("\n", 1)[0]
        fact = changed.split(" -> ", 1)[-1].strip() or "nothing"
        items = [{"question": f"What is asked in question {i}?", "ground_truth": f"{fact} {i}."} for i in range(1, 4)]
        return json.dumps({"questions": items})
    return "{}"


class JudgeServer:
    def __init__(self, *, latency_s: float = 0.0) -> None:
        self.latency_s = latency_s
        self.lock = threading.Lock()
        self.faults: dict[str, deque[Any]] = {}
        self.requests: list[tuple[str, str]] = []
        self.hold_kind: str | None = None
        self.in_flight = 0
        self.peak_in_flight = 0  # the most requests it was answering at once
        self.held = threading.Event()
        self.release = threading.Event()
        server = self

        class Handler(OnePieceHandler):
            def do_GET(self) -> None:
                self._send(200, {"object": "list", "data": [{"id": "judge", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
                prompt = body.get("prompt") or "\n".join(m["content"] for m in body.get("messages", []))
                kind = prompt_kind(prompt)
                with server.lock:
                    server.requests.append((kind, prompt))
                    server.in_flight += 1
                    server.peak_in_flight = max(server.peak_in_flight, server.in_flight)
                    queue = server.faults.get(kind)
                    fault = queue.popleft() if queue else None
                    hold = server.hold_kind == kind and not server.held.is_set()
                if hold:
                    server.held.set()
                    server.release.wait(60)
                time.sleep(server.latency_s)
                with server.lock:
                    server.in_flight -= 1
                if fault == "timeout":
                    time.sleep(3)
                if isinstance(fault, int):
                    self._send(fault, {"error": {"message": f"injected {fault}", "type": "server_error"}})
                    return
                if fault == "garbage":
                    text = "this is not what was asked for"
                elif isinstance(fault, tuple) and fault[0] == "reply":
                    text = fault[1]  # a scripted reply: ("reply", text)
                else:
                    text = good_reply(kind, prompt, body)
                is_chat = self.path.endswith("/chat/completions")
                self._send(200, _chat(body, text) if is_chat else _completion(body, text))

            def _send(self, code: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    if code == 429:
                        self.send_header("retry-after", "0")
                    self.end_headers()
                    self.wfile.write(data)
                    self.wfile.flush()  # headers and body, in one write
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def inject(self, kind: str, *faults: Any) -> None:
        with self.lock:
            self.faults.setdefault(kind, deque()).extend(faults)

    def count(self) -> Counter[str]:
        with self.lock:
            return Counter(kind for kind, _ in self.requests)

    def prompts(self) -> list[tuple[str, str]]:
        with self.lock:
            return list(self.requests)

    def __enter__(self) -> JudgeServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()
