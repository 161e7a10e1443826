"""Concurrency of judge calls: N LAV judge calls at concurrency C against a local OpenAI-compatible
HTTP server (the fake server of tests/llm) that answers every request after a fixed latency L.

With perfect overlap the throughput is C / L calls per second; the script prints the achieved calls/s
as a ratio of that ideal (target >= 0.8). Every call goes through the full stack the pipeline uses:
LLMClient (cache off, endpoint limiter at C, retry policy) -> OpenAIProvider -> openai SDK -> HTTP.

    python benchmarks/bench_llm_concurrency.py [--n 200] [--concurrency 16] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalplatform.llm.client import LLMClient
from evalplatform.llm.providers.openai_provider import OpenAIProvider
from evalplatform.llm.ratelimit import EndpointLimiter
from evalplatform.llm.structured import structured_call
from scoring.cdke.judge_prompts import VALIDATE_ANSWER
from scoring.cdke.verdicts import parse_lav
from tests.llm.fake_openai_server import FakeOpenAIServer, ok

TARGET = 0.8


def run(n: int, concurrency: int, latency_s: float) -> float:
    with FakeOpenAIServer(latency_s=latency_s, default=ok('{"verdict": "valid"}')) as server:
        provider = OpenAIProvider(base_url=server.base_url, timeout=30.0)
        limiter = EndpointLimiter("bench", concurrency=concurrency)
        client = LLMClient(provider, endpoint_name="bench", limiter=limiter)

        def one(i: int) -> bool:
            values = {"question": f"Question {i}?", "ground_truth": "Tuesday", "answer": "Tuesday"}
            outcome = structured_call(client, VALIDATE_ANSWER, parse_lav, model="fake", values=values, use_cache=False)
            return outcome.status == "ok"

        structured_call(
            client,
            VALIDATE_ANSWER,
            parse_lav,
            model="fake",
            use_cache=False,
            values={"question": "warm-up", "ground_truth": "x", "answer": "x"},
        )
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            results = list(pool.map(one, range(n)))
        elapsed = time.perf_counter() - started
        provider.close()
    if not all(results):
        raise SystemExit("some judge calls did not parse")
    achieved = n / elapsed
    ideal = concurrency / latency_s
    ratio = achieved / ideal
    print(
        f"N={n} C={concurrency} L={latency_s:.3f}s: {elapsed:.2f}s, {achieved:.1f} calls/s, "
        f"ideal C/L = {ideal:.1f} calls/s, ratio = {ratio:.2f} (target >= {TARGET})"
    )
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    ratio = run(args.n, args.concurrency, args.latency)
    return 0 if ratio >= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
