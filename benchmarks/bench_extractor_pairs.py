"""S3KG as a paraphrase detector over one pairs file, graphs from the dependency extractor, without the database.

A quick companion to ``manage.py bench_similarity`` for working on the extractor: the same methods (the S3KG
variants at alpha 0.5 and over the alpha sweep 0.0..1.0, ROUGE-1, MiniLM cosine), the same max F1 and AUROC
(``scoring.bench``), no stored run. It also counts the sentences whose graph is only the fallback triplet and
the pairs with an empty graph on either side.

alpha convention: ``s3kg_many(alpha=a)`` as ``scoring/s3kg.py`` defines it: ``a S_WL + (1 - a) S_SBERT`` in
every variant (the authors' code and sweeps; docs/s3kg.md). The printed best alpha is in that convention.

Usage: python benchmarks/bench_extractor_pairs.py FILE.jsonl [FILE.jsonl ...] [--json OUT.json] [--limit N]
       [--variants s3kg_directed,s3kg_reference]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scoring import baselines
from scoring.bench import auroc, max_f1
from scoring.embeddings import get_encoder
from scoring.kg.dependency import DependencyExtractor
from scoring.s3kg import VARIANTS, s3kg_many

# 0.0..1.0 in steps of 0.1: the paper's alpha sweep (S3KG §4.1, Table 4).
ALPHAS = tuple(round(0.1 * i, 1) for i in range(11))


def _figures(scores: list[float], labels: list[int]) -> dict[str, float | None]:
    return {"f1": max_f1(scores, labels).f1, "auroc": auroc(scores, labels)}


def bench_file(path: Path, limit: int | None, variants: list[str] | None = None) -> dict[str, Any]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r.get("label") is not None][:limit]
    labels = [int(r["label"]) for r in rows]
    extractor = DependencyExtractor()
    started = time.perf_counter()
    texts = list(dict.fromkeys(t for r in rows for t in (r["text_a"], r["text_b"])))
    details = dict(zip(texts, extractor.extract_many_detailed(texts), strict=True))
    extract_s = time.perf_counter() - started
    graphs = [(details[r["text_a"]].triplets, details[r["text_b"]].triplets) for r in rows]
    encoder = get_encoder()
    out: dict[str, Any] = {
        "file": path.name,
        "n": len(rows),
        "extractor": extractor.version,
        "extract_seconds": round(extract_s, 1),
        "sentences": len(texts),
        "fallback_sentences": sum(1 for d in details.values() if d.fallback),
        "empty_sentences": sum(1 for d in details.values() if not d.triplets),
        "pairs_with_empty_graph": sum(1 for a, b in graphs if not a or not b),
        "methods": {},
    }
    for variant in variants or list(VARIANTS):
        sweep = {}
        for alpha in ALPHAS:
            scores = [r.score for r in s3kg_many(graphs, encoder=encoder, variant=variant, alpha=alpha)]
            sweep[alpha] = _figures(scores, labels)
        best = max(ALPHAS, key=lambda a: sweep[a]["auroc"] or 0.0)
        out["methods"][variant] = {"alpha_0.5": sweep[0.5], "best_alpha": best, "best": sweep[best], "sweep": sweep}
    pairs = [(r["text_a"], r["text_b"]) for r in rows]
    out["methods"]["rouge1"] = _figures(baselines.rouge_scores(pairs)["rouge1"], labels)
    out["methods"]["minilm"] = _figures(baselines.embedding_cosine(pairs, encoder), labels)
    return out


def _fmt(fig: dict[str, float | None]) -> str:
    f1, au = fig["f1"], fig["auroc"]
    return f"{f1:.3f} / {au:.3f}" if f1 is not None and au is not None else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--variants", help="Comma-separated S3KG variants (default: all).")
    args = parser.parse_args()
    variants = args.variants.split(",") if args.variants else None
    results = []
    for path in args.files:
        res = bench_file(path, args.limit, variants)
        results.append(res)
        print(
            f"{res['file']}: {res['n']} pairs, {res['extractor']}, {res['sentences']} sentences "
            f"({res['fallback_sentences']} fallback-only, {res['empty_sentences']} empty), "
            f"{res['pairs_with_empty_graph']} pairs with an empty graph, extraction {res['extract_seconds']} s"
        )
        for name, m in res["methods"].items():
            if "sweep" in m:
                print(f"  {name:<16} a=0.5 {_fmt(m['alpha_0.5'])}   best a={m['best_alpha']:.1f} {_fmt(m['best'])}")
            else:
                print(f"  {name:<16} {_fmt(m)}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
