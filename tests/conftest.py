"""Fixtures shared by the whole suite."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"
SAMPLE_DKD = REPO / "data" / "samples" / "dkd_sample.json"


@pytest.fixture
def shared_data() -> Path:
    """The public evaluation data beside the repository (../shared/data); tests skip without it."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"public data not found at {SHARED_DATA}")
    return SHARED_DATA
