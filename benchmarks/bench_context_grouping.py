"""Time per DKD question on the local model with a context's questions scheduled together (the pipeline's
order, so llama.cpp reuses the context's prefix) against the same questions interleaved across contexts.

    .venv/bin/python benchmarks/bench_context_grouping.py [--contexts 3] [--questions 4]

Prints seconds per question for each order and their ratio (target: grouped at least 2x faster)."""

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evalplatform.llm.client import LLMClient
from evalplatform.llm.local_server import ensure_local_server
from evalplatform.llm.providers.openai_provider import OpenAIProvider
from scoring.cdke.prompts import answer_template, answer_values

DKD = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "dkd"


def load(n_contexts: int, n_questions: int) -> list[list[tuple[str, str]]]:
    contexts = [json.loads(line) for line in (DKD / "dkd_contexts.jsonl").read_text().splitlines()][:n_contexts]
    questions = [json.loads(line) for line in (DKD / "dkd_questions.jsonl").read_text().splitlines()]
    return [
        [(c["context"], q["question"]) for q in questions if q["context_id"] == c["id"]][:n_questions] for c in contexts
    ]


def timed(client: LLMClient, order: list[tuple[str, str]]) -> float:
    template = answer_template("divergent")
    start = time.perf_counter()
    for context, question in order:
        request = template.request("gemma", answer_values("divergent", question, context), temperature=0.0)
        client.call(request, prompt_version=template.version_tag, use_cache=False)
    return (time.perf_counter() - start) / len(order)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--contexts", type=int, default=3)
    parser.add_argument("--questions", type=int, default=4)
    args = parser.parse_args()
    groups = load(args.contexts, args.questions)
    grouped = [item for group in groups for item in group]
    interleaved = [group[i] for i in range(args.questions) for group in groups if i < len(group)]
    client = LLMClient(
        OpenAIProvider(base_url=ensure_local_server(), api_key_env="", timeout=300), endpoint_name="local"
    )
    timed(client, grouped[:1])  # warm the server
    per_interleaved = timed(client, interleaved)
    per_grouped = timed(client, grouped)
    print(f"{len(grouped)} DKD questions over {len(groups)} full contexts on the local gemma-3-270m")
    print(f"grouped by context (the pipeline's order): {per_grouped:.3f} s per question")
    print(f"interleaved across contexts:               {per_interleaved:.3f} s per question")
    print(f"ratio interleaved / grouped: {per_interleaved / per_grouped:.2f} (target >= 2)")


if __name__ == "__main__":
    main()
