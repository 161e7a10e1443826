"""The similarity benchmark: every method scores every labelled pair of a pairs dataset as a paraphrase
detector (S3KG Table 1): max F1 over a threshold sweep with its threshold, precision and recall, and AUROC.

Methods: ``s3kg_directed`` (the default), ``s3kg``, ``s3kg_symmetric`` and ``s3kg_reference`` at alpha 0.5, over
graphs from the dependency extractor, the LLM extractor on an endpoint, or the graphs given with the pairs
(``kg_a`` / ``kg_b``); with the sweep, every variant at ``<variant>@alpha_wl=0.0`` .. ``1.0`` in steps of 0.1,
alpha being the weight of the structural score as in the paper's published sweeps (``scoring.alpha_sweep``,
which also holds the paper's Table 4 to lay beside it); the baselines
``rouge1``, ``rouge2``, ``rougeL``, ``bleu``, ``bertscore``, ``minilm`` and, when its parts are installed,
``mpnet``. ``sentence_t5`` is reported as unavailable (no packaged model), never substituted. A pair whose
graph is empty on either side scores 0.0 under every S3KG method (``s3kg.py``), counted in ``n_empty``.
Results are stored as a ``similarity_benchmark`` run with a BenchmarkResult per method and a PairScore per
pair and method, for the method × dataset plots.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from evalplatform.corpus.models import Dataset, TextPair
from evalplatform.runs.models import ModelEndpoint, Run
from scoring import baselines
from scoring.alpha_sweep import SWEEP_ALPHAS, sweep_method_name
from scoring.bench import auroc, max_f1
from scoring.embeddings import Encoder, get_encoder
from scoring.kg.extractors import TripletExtractor
from scoring.kg.types import Triplet
from scoring.models import BenchmarkResult, KnowledgeGraph, PairScore
from scoring.s3kg import ALPHA_WEIGHTS, DEFAULT_VARIANT, s3kg_many
from scoring.services.encoders import mpnet_model_dir
from scoring.services.graphs import (
    graph_get_or_extract,
    graph_import,
    graph_raw_triplets,
    graph_triplets,
    llm_extractor_for,
    shared_extractor,
)

# The variants scored on the normalised graphs, the default first; s3kg_reference takes the raw ones.
BENCH_VARIANTS = (DEFAULT_VARIANT, *sorted({"s3kg", "s3kg_directed", "s3kg_symmetric"} - {DEFAULT_VARIANT}))
# @2: alpha weights the structural score in every variant; sweep methods named <variant>@alpha_wl=<alpha>.
BENCHMARK_VERSION = "similarity-benchmark@2"


@dataclass
class MethodResult:
    name: str
    scores: list[float] = field(default_factory=list)
    status: str = "ok"
    reason: str = ""


def _pair_graphs(
    pairs: Sequence[TextPair], extractor: str, *, use_cache: bool = True
) -> list[tuple[KnowledgeGraph, KnowledgeGraph]]:
    if extractor == "given":
        out = []
        for p in pairs:
            meta = p.metadata or {}
            if not isinstance(meta.get("kg_a"), list) or not isinstance(meta.get("kg_b"), list):
                raise ValueError(f"pair {p.key} has no kg_a / kg_b: --extractor given needs the pairs' own graphs")
            out.append(
                (graph_import(text=p.text_a, triplets=meta["kg_a"]), graph_import(text=p.text_b, triplets=meta["kg_b"]))
            )
        return out
    if extractor.startswith("llm:"):
        endpoint = ModelEndpoint.objects.get(name=extractor.split(":", 1)[1])
        ex: TripletExtractor = llm_extractor_for(endpoint, use_cache=use_cache)
        name = extractor
    else:
        ex = shared_extractor(extractor)
        name = ex.name
    return [
        (
            graph_get_or_extract(text=p.text_a, extractor=ex, name=name),
            graph_get_or_extract(text=p.text_b, extractor=ex, name=name),
        )
        for p in pairs
    ]


def _s3kg_methods(
    graphs: list[tuple[KnowledgeGraph, KnowledgeGraph]], encoder: Encoder, sweep: bool
) -> list[MethodResult]:
    norm: list[tuple[Sequence[Triplet], Sequence[Triplet]]] = [
        (graph_triplets(a), graph_triplets(b)) for a, b in graphs
    ]
    raw: list[tuple[Sequence[Triplet], Sequence[Triplet]]] = [
        (graph_raw_triplets(a), graph_raw_triplets(b)) for a, b in graphs
    ]
    inputs = dict.fromkeys(BENCH_VARIANTS, norm) | {"s3kg_reference": raw}
    out = [
        MethodResult(variant, [r.score for r in s3kg_many(graphs_in, encoder=encoder, variant=variant)])
        for variant, graphs_in in inputs.items()
    ]
    if sweep:
        for variant, graphs_in in inputs.items():
            for alpha in SWEEP_ALPHAS:
                scores = [r.score for r in s3kg_many(graphs_in, encoder=encoder, variant=variant, alpha=alpha)]
                out.append(MethodResult(sweep_method_name(variant, alpha), scores))
    return out


def _baselines(texts: list[tuple[str, str]], mpnet_dir: Path | None) -> list[MethodResult]:
    out: list[MethodResult] = []
    report = baselines.available_baselines()
    if report["rouge1"]["status"] == "available":
        for name, scores in baselines.rouge_scores(texts).items():
            out.append(MethodResult(name, scores))
    else:
        out += [MethodResult(n, status="unavailable", reason=report[n]["reason"]) for n in baselines.ROUGE_TYPES]
    if report["bleu"]["status"] == "available":
        out.append(MethodResult("bleu", baselines.bleu_scores(texts)))
    else:
        out.append(MethodResult("bleu", status="unavailable", reason=report["bleu"]["reason"]))
    if report["bertscore"]["status"] == "available":
        out.append(MethodResult("bertscore", baselines.bertscore_scores(texts)))
    else:
        out.append(MethodResult("bertscore", status="unavailable", reason=report["bertscore"]["reason"]))
    if report["minilm"]["status"] == "available":
        out.append(MethodResult("minilm", baselines.embedding_cosine(texts, get_encoder())))
    else:
        out.append(MethodResult("minilm", status="unavailable", reason=report["minilm"]["reason"]))
    if mpnet_dir is not None:
        out.append(MethodResult("mpnet", baselines.embedding_cosine(texts, get_encoder(str(mpnet_dir)))))
    else:
        reason = report.get("mpnet", {}).get("reason", "all-mpnet-base-v2 parts not installed")
        out.append(MethodResult("mpnet", status="unavailable", reason=reason))
    out.append(MethodResult("sentence_t5", status="unavailable", reason=report["sentence_t5"]["reason"]))
    return out


def _mpnet_dir() -> Path | None:
    try:
        return mpnet_model_dir(Path(settings.BASE_DIR) / "var" / "models")
    except RuntimeError:
        return None


def _fallback_texts(pairs: Sequence[TextPair], extractor: str) -> int | None:
    """How many distinct texts have a graph that rests on the dependency extractor's fallback triplet
    (a sentence that gave no triplet); None for the other extractors. Re-parses the texts (fast)."""
    if extractor != "dependency":
        return None
    ex = shared_extractor(extractor)
    detailed = getattr(ex, "extract_many_detailed", None)
    if detailed is None:
        return None
    texts = list(dict.fromkeys(t for p in pairs for t in (p.text_a, p.text_b)))
    return sum(1 for d in detailed(texts) if d.fallback)


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def similarity_benchmark_run(
    *,
    dataset: Dataset,
    extractor: str = "dependency",
    alpha_sweep: bool = False,
    encoder_path: str | None = None,
    actor: User | None = None,
) -> tuple[Run, dict[str, Any]]:
    """Score the dataset's labelled pairs with every method and store a similarity_benchmark run.

    Returns the run and ``{"n", "n_empty", "n_fallback_texts", "methods": {name: {"f1", "auroc", "threshold",
    "precision", "recall"}}, "unavailable": {name: reason}}``."""
    if dataset.kind != Dataset.Kind.PAIRS:
        raise ValueError(f"dataset '{dataset.name}' holds no text pairs")
    pairs = list(dataset.pairs.filter(label__isnull=False).order_by("position", "pk"))
    if not pairs:
        raise ValueError(f"dataset '{dataset.name}' has no labelled pair")
    labels = [int(p.label or 0) for p in pairs]
    encoder = get_encoder(encoder_path)
    graphs = _pair_graphs(pairs, extractor)
    n_empty = sum(1 for a, b in graphs if not graph_triplets(a) or not graph_triplets(b))
    n_fallback = _fallback_texts(pairs, extractor)
    methods = _s3kg_methods(graphs, encoder, alpha_sweep)
    methods += _baselines([(p.text_a, p.text_b) for p in pairs], _mpnet_dir())
    summary: dict[str, Any] = {
        "n": len(pairs),
        "n_empty": n_empty,
        "n_fallback_texts": n_fallback,
        "methods": {},
        "unavailable": {},
    }
    with transaction.atomic():
        run = Run.objects.create(
            kind=Run.Kind.SIMILARITY_BENCHMARK,
            dataset=dataset,
            created_by=actor,
            spec={
                "extractor": extractor,
                "alpha_sweep": alpha_sweep,
                "alpha_weights": ALPHA_WEIGHTS,
                "encoder": encoder.name,
            },
            status=Run.Status.DONE,
            started_at=timezone.now(),
            finished_at=timezone.now(),
            progress_total=len(methods),
            progress_done=len(methods),
            manifest={
                "benchmark": BENCHMARK_VERSION,
                "alpha_weights": ALPHA_WEIGHTS,
                "encoder": encoder.name,
                "n_empty_graph_pairs": n_empty,
                "n_fallback_texts": n_fallback,
                "unavailable": {m.name: m.reason for m in methods if m.status != "ok"},
            },
        )
        results, scores = [], []
        for m in methods:
            if m.status != "ok":
                summary["unavailable"][m.name] = m.reason
                results.append(BenchmarkResult(run=run, method=m.name, n=0, status="unavailable"))
                continue
            best = max_f1(m.scores, labels)
            figures = {
                "f1": best.f1,
                "auroc": auroc(m.scores, labels),
                "threshold": _finite(best.threshold),
                "precision": best.precision,
                "recall": best.recall,
            }
            summary["methods"][m.name] = figures
            results.append(BenchmarkResult(run=run, method=m.name, n=len(pairs), **figures))
            scores += [PairScore(run=run, pair=p, method=m.name, value=v) for p, v in zip(pairs, m.scores, strict=True)]
        BenchmarkResult.objects.bulk_create(results)
        PairScore.objects.bulk_create(scores, batch_size=2000)
    return run, summary
