"""The kg options of a run: defaults, and every bad field refused by name."""

import pytest

from evalplatform.runs.spec import SpecError
from scoring.kg_spec import KGSpec


def test_defaults_are_the_papers() -> None:
    spec = KGSpec.from_dict({})
    assert (spec.extractor, spec.variants, spec.encoder, spec.alpha, spec.tau_fraction) == (
        "dependency",
        ["s3kg_directed"],  # scoring.s3kg.DEFAULT_VARIANT: the Table 13 verdicts
        None,
        0.5,
        0.05,
    )
    assert KGSpec.from_dict(spec.to_dict()) == spec


def test_llm_extractor_names_its_endpoint() -> None:
    spec = KGSpec.from_dict({"extractor": "llm:local", "variants": "s3kg,s3kg_reference"})
    assert (spec.extractor_kind, spec.endpoint_name, spec.variants) == ("llm", "local", ["s3kg", "s3kg_reference"])
    assert KGSpec.from_dict({"extractor": "imported"}).endpoint_name is None


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"extractor": "llm"}, "kg.extractor"),
        ({"extractor": "openie"}, "kg.extractor"),
        ({"extractor": "dependency:x"}, "kg.extractor"),
        ({"variants": ["s3kg", "s3kg"]}, "kg.variants"),
        ({"variants": ["kea"]}, "kg.variants"),
        ({"variants": []}, "kg.variants"),
        ({"alpha": 1.5}, "kg.alpha"),
        ({"alpha": True}, "kg.alpha"),
        ({"tau_fraction": 0}, "kg.tau_fraction"),
        ({"encoder": ""}, "kg.encoder"),
        ({"threshold": 0.7}, "kg.threshold"),
    ],
)
def test_bad_options_name_the_field(data: dict[str, object], field: str) -> None:
    with pytest.raises(SpecError) as info:
        KGSpec.from_dict(data)
    assert info.value.field == field
