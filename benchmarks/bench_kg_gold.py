"""Triplet extraction quality against the hand-annotated gold set (data/kg_gold/, GUIDELINE.md).

For each extractor: micro precision, recall and F1 of triplets, strict (identical normalised triplets) and
relaxed (label heads or half the words in common), the sentences that gave no triplet, and the error types
of what is left unpaired (``scoring.kg.quality``). Per source (PAWS-Wiki, STS-B images) and overall.

Extractors: ``dependency`` (the offline rules) and ``llm-local`` (the few-shot LLM extractor on the packaged
gemma-3-270m, in-process through llama-cpp-python with the triplet grammar, temperature 0). The LLM is slow
on two cores: ``--time-budget`` stops it after that many seconds and reports the sentences it reached; the
sentences are taken alternately from the two sources so that a partial run covers both.

Usage: python benchmarks/bench_kg_gold.py [--extractor dependency|llm-local] [--time-budget 1200]
       [--skip N] [--limit N] [--json OUT.json] [--show-errors]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scoring.kg.quality import evaluate, match_sentence
from scoring.kg.types import Triplet

GOLD = ROOT / "data" / "kg_gold" / "kg_gold.jsonl"
# Longest LLM answer for one sentence (a sentence here has at most six gold triplets).
LLM_MAX_TOKENS = 256


def load_gold() -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in GOLD.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_source: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_source.setdefault(row["source"], []).append(row)
    interleaved: list[dict[str, Any]] = []
    for i in range(max(len(v) for v in by_source.values())):
        interleaved += [v[i] for v in by_source.values() if i < len(v)]
    return interleaved


def _local_llm_extract() -> tuple[Callable[[str], list[Triplet]], str]:
    from llama_cpp import Llama, LlamaGrammar

    from evalplatform.llm.local_server import LOCAL_MODEL_NAME, gguf_path
    from scoring.kg.llm_extractor import LLMExtractor

    llm = Llama(model_path=str(gguf_path()), n_ctx=2048, n_threads=2, verbose=False)
    grammars: dict[str, Any] = {}

    def complete(prompt: str, grammar: str | None) -> str:
        kwargs: dict[str, Any] = {}
        if grammar:
            if grammar not in grammars:
                grammars[grammar] = LlamaGrammar.from_string(grammar, verbose=False)
            kwargs["grammar"] = grammars[grammar]
        out: Any = llm(prompt, max_tokens=LLM_MAX_TOKENS, temperature=0.0, stop=["\n"], **kwargs)
        return str(out["choices"][0]["text"])

    extractor = LLMExtractor(complete, model=LOCAL_MODEL_NAME)
    return extractor.extract, extractor.version


def run(name: str, rows: list[dict[str, Any]], budget: float | None) -> dict[str, Any]:
    if name == "dependency":
        from scoring.kg.dependency import DependencyExtractor

        dep = DependencyExtractor()
        started = time.perf_counter()
        predictions = dep.extract_many([r["text"] for r in rows])
        version = dep.version
    elif name == "llm-local":
        extract, version = _local_llm_extract()
        started = time.perf_counter()
        predictions = []
        for row in rows:
            if budget is not None and time.perf_counter() - started > budget:
                break
            try:
                predictions.append(extract(row["text"]))
            except ValueError as exc:  # unparseable after the repair retry: an empty graph
                print(f"  {row['id']}: {exc}", file=sys.stderr)
                predictions.append([])
    else:
        raise SystemExit(f"unknown extractor {name!r}")
    seconds = time.perf_counter() - started
    rows = rows[: len(predictions)]
    out: dict[str, Any] = {"extractor": name, "version": version, "seconds": round(seconds, 1)}
    out["overall"] = evaluate(predictions, [r["triplets"] for r in rows]).figures()
    for source in sorted({r["source"] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r["source"] == source]
        out[source] = evaluate([predictions[i] for i in idx], [rows[i]["triplets"] for i in idx]).figures()
    out["sentences"] = [
        {"id": r["id"], "predicted": [list(t) for t in p], "errors": dict(match_sentence(p, r["triplets"]).errors)}
        for r, p in zip(rows, predictions, strict=True)
    ]
    return out


def merge(paths: list[Path]) -> None:
    """Figures over the union of the sentences of earlier runs of one extractor (a run resumed with --skip)."""
    gold = {r["id"]: r for r in load_gold()}
    runs = [res for path in paths for res in json.loads(path.read_text())]
    sentences = {s["id"]: s for res in runs for s in res["sentences"]}
    ids = list(sentences)
    predictions = [[Triplet(*t) for t in sentences[i]["predicted"]] for i in ids]
    print(
        f"merged {', '.join(sorted({r['version'] for r in runs}))}: {len(ids)} sentences, "
        f"{sum(r['seconds'] for r in runs):.0f} s"
    )
    print(_line("overall", evaluate(predictions, [gold[i]["triplets"] for i in ids]).figures()))
    for source in sorted({gold[i]["source"] for i in ids}):
        idx = [k for k, i in enumerate(ids) if gold[i]["source"] == source]
        figures = evaluate([predictions[k] for k in idx], [gold[ids[k]]["triplets"] for k in idx]).figures()
        print(_line(source, figures))


def _line(label: str, f: dict[str, Any]) -> str:
    return (
        f"  {label:<12} n={f['sentences']:>3} pred={f['predicted']:>3} gold={f['gold']:>3}  "
        f"strict P/R/F1 {f['strict_precision']:.3f}/{f['strict_recall']:.3f}/{f['strict_f1']:.3f}  "
        f"relaxed P/R/F1 {f['relaxed_precision']:.3f}/{f['relaxed_recall']:.3f}/{f['relaxed_f1']:.3f}  "
        f"empty {f['empty_sentences']}  errors {f['errors']}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--extractor", action="append", choices=("dependency", "llm-local"))
    parser.add_argument("--time-budget", type=float, default=None, help="Seconds the LLM may run (then stop).")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--skip", type=int, default=0, help="Start after this many sentences (to resume a run).")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--show-errors", action="store_true", help="Print each sentence's predictions and errors.")
    parser.add_argument("--merge", nargs="+", type=Path, help="Recompute the figures of earlier --json runs together.")
    args = parser.parse_args()
    if args.merge:
        merge(args.merge)
        return
    rows = load_gold()[args.skip : args.limit]
    results = []
    for name in args.extractor or ["dependency"]:
        res = run(name, rows, args.time_budget)
        results.append(res)
        print(f"{name} ({res['version']}): {res['overall']['sentences']} sentences in {res['seconds']} s")
        for key in ("overall", "paws-wiki", "stsb-images"):
            if key in res:
                print(_line(key, res[key]))
        if args.show_errors:
            gold = {r["id"]: r for r in rows}
            for s in res["sentences"]:
                if s["errors"]:
                    print(
                        f"    {s['id']}: {gold[s['id']]['text']}\n      pred {s['predicted']}\n      gold "
                        f"{gold[s['id']]['triplets']}\n      {s['errors']}"
                    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
