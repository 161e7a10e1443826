"""Role reversals: S3KG variants against ROUGE-1 and MiniLM on the hand-written role-reversal pairs.

The pairs (data/role_reversal/) differ only in who does what to whom: label 1 states the same facts in
another construction (active / passive, "beat" / "lost to", "sold to" / "bought from", ...), label 0 reverses
the roles. Prints AUROC and max F1 at alpha 0.5 (this checkout's ``scoring/s3kg.py`` convention) for each
variant, ROUGE-1 and MiniLM, then, per construction, the mean score of the paraphrases and of the reversals
under ``--variant``, and every reversal that scores at least as high as the lowest paraphrase of its
construction, with both graphs, so the failures can be read.

Issue 16's goal: the best variant at alpha 0.5 reaches AUROC >= 0.85 and beats ROUGE-1 and MiniLM by >= 0.3.

Usage: python benchmarks/bench_role_reversal.py [--pairs FILE] [--variant s3kg_directed]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scoring import baselines
from scoring.bench import auroc, max_f1
from scoring.embeddings import get_encoder
from scoring.kg.dependency import DependencyExtractor
from scoring.s3kg import VARIANTS, s3kg_many

PAIRS = ROOT / "data" / "role_reversal" / "role_reversal_pairs.jsonl"
# Issue 16: AUROC of the best variant at alpha 0.5, and its margin over ROUGE-1 and MiniLM.
GOAL_AUROC, GOAL_MARGIN = 0.85, 0.3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    parser.add_argument("--variant", default="s3kg_directed", help="Variant for the per-construction table.")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.pairs.read_text().splitlines() if line.strip()]
    labels = [int(r["label"]) for r in rows]
    extractor = DependencyExtractor()
    texts = list(dict.fromkeys(t for r in rows for t in (r["text_a"], r["text_b"])))
    graphs = dict(zip(texts, extractor.extract_many(texts), strict=True))
    pairs = [(graphs[r["text_a"]], graphs[r["text_b"]]) for r in rows]
    encoder = get_encoder()
    scores = {v: [x.score for x in s3kg_many(pairs, encoder=encoder, variant=v)] for v in VARIANTS}
    texts_ab = [(r["text_a"], r["text_b"]) for r in rows]
    scores["rouge1"] = baselines.rouge_scores(texts_ab)["rouge1"]
    scores["minilm"] = baselines.embedding_cosine(texts_ab, encoder)
    figures = {name: (auroc(s, labels) or 0.0, max_f1(s, labels).f1) for name, s in scores.items()}
    print(f"{len(rows)} pairs ({sum(labels)} paraphrases), {extractor.version}, alpha 0.5")
    for name, (au, f1) in figures.items():
        print(f"  {name:<16} AUROC {au:.3f}  max F1 {f1:.3f}")
    best = max(VARIANTS, key=lambda v: figures[v][0])
    margin = min(figures[best][0] - figures["rouge1"][0], figures[best][0] - figures["minilm"][0])
    met = figures[best][0] >= GOAL_AUROC and margin >= GOAL_MARGIN
    print(
        f"best variant {best}: AUROC {figures[best][0]:.3f}, margin over ROUGE-1 / MiniLM {margin:.3f}: "
        f"goal {'met' if met else 'NOT met'}"
    )
    by_construction: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        by_construction[r["construction"]].append(i)
    chosen = scores[args.variant]
    print(f"\nper construction ({args.variant}): mean score of paraphrases / reversals")
    for construction, idx in sorted(by_construction.items()):
        pos = [chosen[i] for i in idx if labels[i] == 1]
        neg = [chosen[i] for i in idx if labels[i] == 0]
        fmt = lambda xs: f"{sum(xs) / len(xs):.3f} ({len(xs)})" if xs else "  -  "  # noqa: E731
        print(f"  {construction:<16} {fmt(pos):>12} / {fmt(neg):>12}")
        lowest = min(pos) if pos else 1.0
        for i in idx:
            if labels[i] == 0 and chosen[i] >= lowest:
                r = rows[i]
                print(f"    reversal scored {chosen[i]:.3f}: {r['text_a']} / {r['text_b']}")
                print(f"      {[tuple(t) for t in pairs[i][0]]}\n      {[tuple(t) for t in pairs[i][1]]}")


if __name__ == "__main__":
    main()
