"""The knowledge-graph options of a run (``run.spec["kg"]``), validated.

``{"extractor": "dependency" | "llm:<endpoint>" | "imported", "variants": ["s3kg_directed", ...],
"encoder": "<sentence-transformers directory>" | null, "alpha": 0.5, "tau_fraction": 0.05}``

- ``extractor``: how the answer, gold and context graphs are obtained: the offline dependency rules, the
  few-shot LLM extractor on a named model endpoint, or the graphs imported with the data.
- ``variants``: S3KG variants scored per generation (``scoring.s3kg.VARIANTS``), by default only
  ``scoring.s3kg.DEFAULT_VARIANT`` (``s3kg_directed``, the variant that reproduces the paper's Table 13 verdicts).
- ``encoder``: the sentence encoder's model directory; empty means the shipped all-MiniLM-L6-v2.
- ``alpha``: the weight of the structural (WL) score, ``alpha S_WL + (1 - alpha) S_SBERT``, 0.5 as the paper's
  Table 3; the authors' code's convention (the text's Eq. 2 puts it on the semantic score; the same at 0.5).
- ``tau_fraction``: share of the lowest-GoldSim items TAU diagnoses, 0.05 as the paper.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalplatform.runs.spec import SpecError
from scoring.s3kg import ALPHA, DEFAULT_VARIANT, VARIANTS
from scoring.tau import TAU_FRACTION

EXTRACTOR_KINDS = ("dependency", "llm", "imported")
KNOWN_FIELDS = ("extractor", "variants", "encoder", "alpha", "tau_fraction")


@dataclass(frozen=True)
class KGSpec:
    extractor: str = "dependency"
    variants: list[str] = field(default_factory=lambda: [DEFAULT_VARIANT])
    encoder: str | None = None
    alpha: float = ALPHA
    tau_fraction: float = TAU_FRACTION

    @property
    def extractor_kind(self) -> str:
        """dependency, llm or imported."""
        return self.extractor.split(":", 1)[0]

    @property
    def endpoint_name(self) -> str | None:
        """The model endpoint of an ``llm:<endpoint>`` extractor, else None."""
        return self.extractor.split(":", 1)[1] if self.extractor_kind == "llm" else None

    @classmethod
    def from_dict(cls, data: Any) -> KGSpec:
        """Validate ``run.spec["kg"]``; ``SpecError`` names the first bad field (``kg.<field>``)."""
        if not isinstance(data, dict):
            raise SpecError("kg", "must be an object of knowledge-graph options")
        unknown = sorted(set(data) - set(KNOWN_FIELDS))
        if unknown:
            raise SpecError(f"kg.{unknown[0]}", f"is not a kg option (known: {', '.join(KNOWN_FIELDS)})")
        extractor = data.get("extractor", "dependency")
        if not isinstance(extractor, str) or not extractor:
            raise SpecError("kg.extractor", "must be dependency, llm:<endpoint> or imported")
        kind, _, endpoint = extractor.partition(":")
        if kind not in EXTRACTOR_KINDS:
            raise SpecError("kg.extractor", f"'{kind}' is not one of {', '.join(EXTRACTOR_KINDS)}")
        if kind == "llm" and not endpoint:
            raise SpecError("kg.extractor", "the llm extractor names its endpoint: llm:<endpoint>")
        if kind != "llm" and endpoint:
            raise SpecError("kg.extractor", f"'{kind}' takes no endpoint")
        variants = data.get("variants", [DEFAULT_VARIANT])
        if isinstance(variants, str):
            variants = [v.strip() for v in variants.split(",") if v.strip()]
        if not isinstance(variants, list) or not variants or not all(isinstance(v, str) for v in variants):
            raise SpecError("kg.variants", "must be a non-empty list of variant names")
        bad = [v for v in variants if v not in VARIANTS]
        if bad:
            raise SpecError("kg.variants", f"'{bad[0]}' is not a variant (known: {', '.join(VARIANTS)})")
        if len(set(variants)) != len(variants):
            raise SpecError("kg.variants", "names one twice")
        encoder = data.get("encoder")
        if encoder is not None and (not isinstance(encoder, str) or not encoder.strip()):
            raise SpecError("kg.encoder", "must be a sentence-transformers model directory, or null")
        alpha = _unit_number(data, "alpha", ALPHA, allow_zero=True)
        fraction = _unit_number(data, "tau_fraction", TAU_FRACTION, allow_zero=False)
        return cls(extractor=extractor, variants=variants, encoder=encoder, alpha=alpha, tau_fraction=fraction)

    def to_dict(self) -> dict[str, Any]:
        return {
            "extractor": self.extractor,
            "variants": list(self.variants),
            "encoder": self.encoder,
            "alpha": self.alpha,
            "tau_fraction": self.tau_fraction,
        }


def _unit_number(data: dict[str, Any], key: str, default: float, *, allow_zero: bool) -> float:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SpecError(f"kg.{key}", "must be a number")
    try:
        number = float(value)
    except OverflowError:  # an integer past 1e308
        raise SpecError(f"kg.{key}", "must lie in [0, 1]") from None
    if not (0.0 <= number <= 1.0) or (not allow_zero and number == 0.0):
        raise SpecError(f"kg.{key}", "must lie in [0, 1]" if allow_zero else "must lie in (0, 1]")
    return number
