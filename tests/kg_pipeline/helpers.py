"""Helpers for the kg pipeline tests: QA records with graphs, and a one-hot encoder with a name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.scoring.s3kg_helpers import OneHotEncoder

SHARED_KGS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "s3kg_paper_kgs"


class NamedOneHot(OneHotEncoder):
    """Cosine 1 for identical strings, 0 otherwise: S3KG values become hand-checkable."""

    name = "onehot-test"


def qa_record(key: str, *, answer: list[list[str]], gold: list[list[str]], context: list[list[str]]) -> dict[str, Any]:
    return {
        "id": key,
        "question": f"Question {key}?",
        "context": f"Context text {key}.",
        "gold_answer": f"Gold answer {key}.",
        "llm_answer": f"Model answer {key}.",
        "model": "toy-7b",
        "kg_gold": gold,
        "kg_llm": answer,
        "kg_context": context,
    }


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path
