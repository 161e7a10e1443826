"""Label normalisation and the caching encoder."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.embeddings import Encoder, cosine_matrix, default_model_path
from scoring.kg.types import Triplet, normalise_label, normalise_triplets, triplet_text
from tests.scoring.s3kg_helpers import minilm


def test_normalise_label() -> None:
    assert normalise_label("Conventional_therapy") == "conventional therapy"
    assert normalise_label("  Reported_higher   improvement_rates_for ") == "report high improvement rate for"
    assert normalise_label("Patients_were_treated") == "patient be treat"
    assert normalise_label("1.9_trillion_yen") == "1.9 trillion yen"  # non-alphabetic words kept
    assert normalise_label("Zoë  MÜLLER") == "zoë müller"
    assert normalise_label("Dogs_Ran", lemmatise=str.upper) == "DOGS RAN"


def test_normalise_triplets_drops_repeats_and_empty_labels() -> None:
    raw = [
        ["Naturopathy", "effective_for", "Menopausal_symptoms"],
        ["naturopathy", "effective for", "menopausal symptoms"],
        ["x", "_", "y"],
    ]
    assert normalise_triplets(raw) == [Triplet("naturopathy", "effective for", "menopausal symptom")]
    with pytest.raises(ValueError):
        normalise_triplets([["a", "b"]])
    with pytest.raises(ValueError):
        normalise_triplets([["a", "b", 3]])  # type: ignore[list-item]
    assert triplet_text(Triplet("a", "b", "c")) == "a b c"


def test_encoder_caches_and_normalises() -> None:
    assert default_model_path().endswith("model")
    enc = Encoder()
    assert enc.name == "all-MiniLM-L6-v2"
    vectors = enc.encode(["aspirin lowers fever", "aspirin reduces fever", "aspirin lowers fever"])
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert enc.cache_size() == 2 and enc.model_calls == 1
    enc.encode(["aspirin reduces fever"])
    assert enc.model_calls == 1
    sims = cosine_matrix(vectors, vectors)
    assert sims[0, 2] == pytest.approx(1.0, abs=1e-5)
    assert sims[0, 1] > 0.8
    assert enc.encode([]).shape == (0, 384)


def test_shared_minilm_ranks_a_paraphrase_above_an_unrelated_sentence() -> None:
    v = minilm().encode(["the cat sat on the mat", "a cat was sitting on the mat", "interest rates rose"])
    assert float(v[0] @ v[1]) > float(v[0] @ v[2])
