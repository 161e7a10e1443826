"""CPU of one provider call on the caller's side: ``OpenAIProvider.complete`` against the tests' fake
OpenAI-compatible server (in this process, on its own threads; latency 0), one call after another on one
keep-alive connection. Only the calling thread's CPU is counted (``time.thread_time``), so the server's work is
not in the figure. Run it on two revisions in turns to see what a change to the provider saves (issue 15: the
platform's CPU per LLM call).

    python benchmarks/bench_provider_cpu.py [--calls 2000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalplatform.llm.providers.openai_provider import OpenAIProvider
from evalplatform.llm.types import ChatMessage, LLMRequest
from tests.llm.fake_openai_server import FakeOpenAIServer, ok

REPLY = '{"verdict": "valid", "reason": "the answer names the same day as the ground truth"}'
PROMPT = "Question: On which day was the treaty signed?\nGround truth: Tuesday\nAnswer: Tuesday\nVerdict:"


def requests() -> dict[str, LLMRequest]:
    return {
        "completion": LLMRequest(model="fake", prompt=PROMPT, temperature=0.0, max_tokens=64, seed=0),
        "chat": LLMRequest(
            model="fake",
            messages=(ChatMessage("user", PROMPT),),
            temperature=0.0,
            max_tokens=64,
            seed=0,
        ),
    }


def cpu_us_per_call(provider: OpenAIProvider, request: LLMRequest, calls: int) -> float:
    provider.complete(request)  # the connection opened, the SDK's lazy imports done
    started = time.thread_time()
    for _ in range(calls):
        provider.complete(request)
    return (time.thread_time() - started) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with FakeOpenAIServer(default=ok(REPLY)) as server:
        provider = OpenAIProvider(base_url=server.base_url, timeout=30.0)
        for mode, request in requests().items():
            figures = [cpu_us_per_call(provider, request, args.calls) for _ in range(args.rounds)]
            rounds = ", ".join(f"{f:.0f}" for f in figures)
            print(f"{mode}: {statistics.median(figures):.0f} us of the caller's CPU per call (median; rounds {rounds})")
        provider.close()


if __name__ == "__main__":
    main()
