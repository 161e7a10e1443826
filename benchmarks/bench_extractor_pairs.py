"""S3KG as a paraphrase detector over one pairs file, graphs from the dependency extractor, without the database.

A quick companion to ``manage.py bench_similarity`` for working on the extractor: the same methods (the S3KG
variants at alpha 0.5 and over the alpha sweep 0.0..1.0, ROUGE-1, MiniLM cosine), the same max F1 and AUROC
(``scoring.bench``), no stored run. It also counts the sentences whose graph is only the fallback triplet and
the pairs with an empty graph on either side.

alpha convention: ``s3kg_many(alpha=a)`` as ``scoring/s3kg.py`` defines it: ``a S_WL + (1 - a) S_SBERT`` in
every variant (the authors' code and sweeps; docs/s3kg.md). The printed best alpha is in that convention.

``--sentence-ceiling`` also blends each variant's structural score with the MiniLM cosine of the two sentences in
place of S3KG's semantic score, over the same sweep: how far these graphs' structure could carry S3KG if its
semantic part were as good as the sentence embedding itself (docs/kg_extraction.md, "How far the structure can
carry S3KG").

Usage: python benchmarks/bench_extractor_pairs.py FILE.jsonl [FILE.jsonl ...] [--json OUT.json] [--limit N]
       [--variants s3kg_directed,s3kg_reference] [--sentence-ceiling]
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
from scoring.alpha_sweep import SWEEP_ALPHAS as ALPHAS
from scoring.bench import auroc, blend_sweep, max_f1
from scoring.embeddings import get_encoder
from scoring.kg.dependency import DependencyExtractor
from scoring.s3kg import VARIANTS, s3kg_many


def _figures(scores: list[float], labels: list[int]) -> dict[str, float | None]:
    return {"f1": max_f1(scores, labels).f1, "auroc": auroc(scores, labels)}


def bench_file(
    path: Path, limit: int | None, variants: list[str] | None = None, sentence_ceiling: bool = False
) -> dict[str, Any]:
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
    pairs = [(r["text_a"], r["text_b"]) for r in rows]
    sentence_cosine = baselines.embedding_cosine(pairs, encoder)
    ceilings: dict[str, Any] = {}
    for variant in variants or list(VARIANTS):
        sweep = {}
        for alpha in ALPHAS:
            results = s3kg_many(graphs, encoder=encoder, variant=variant, alpha=alpha)
            sweep[alpha] = _figures([r.score for r in results], labels)
            if sentence_ceiling and alpha == 0.5:  # the structural score does not depend on alpha
                blend = blend_sweep([r.structural for r in results], sentence_cosine, labels, ALPHAS)
                ceilings[f"{variant}+sentence"] = {
                    "alpha_0.5": blend.auroc[0.5],
                    "best_alpha": blend.best_alpha,
                    "best_auroc": blend.best_auroc,
                    "sweep": blend.auroc,
                }
        best = max(ALPHAS, key=lambda a: sweep[a]["auroc"] or 0.0)
        out["methods"][variant] = {"alpha_0.5": sweep[0.5], "best_alpha": best, "best": sweep[best], "sweep": sweep}
    out["methods"]["rouge1"] = _figures(baselines.rouge_scores(pairs)["rouge1"], labels)
    out["methods"]["minilm"] = _figures(sentence_cosine, labels)
    if ceilings:
        out["sentence_ceiling"] = ceilings
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
    parser.add_argument(
        "--sentence-ceiling",
        action="store_true",
        help="Also blend each variant's structural score with the sentence cosine (AUROC over the alpha sweep).",
    )
    args = parser.parse_args()
    variants = args.variants.split(",") if args.variants else None
    results = []
    for path in args.files:
        res = bench_file(path, args.limit, variants, args.sentence_ceiling)
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
        for name, c in res.get("sentence_ceiling", {}).items():
            print(
                f"  {name:<28} AUROC a=0.5 {c['alpha_0.5']:.3f}   best a={c['best_alpha']:.1f} {c['best_auroc']:.3f}"
                "   (structural score + sentence cosine)"
            )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
