"""What a run is asked to do, validated: a run's ``spec`` JSON is always written through RunSpec."""

import math
from dataclasses import asdict, dataclass, field
from typing import Any

CONDITIONS = ("divergent", "real", "none")
# How AC weighs FC against ASS, AC = (1 - w) ASS + w FC. Paper C (section 3.4) says it uses "w = 0.25, the
# default in RAGAS", but RAGAS's default puts 0.75 on factuality, and only w = 0.75 on FC makes the paper's own
# Table 2 consistent (with 0.25, Llama 3 70B would need a mean FC of -53 %: docs/cdke.md). So "ragas" (0.75 on
# FC) is the default; "paper" is the text read literally (0.25 on FC). A run records which it used.
AC_CONVENTIONS = ("ragas", "paper")
DEFAULT_AC_CONVENTION = "ragas"
# 0.25: weight of FC in AC as the text of "Context Is King" states it (paper C, section 3.4).
PAPER_FC_WEIGHT = 0.25
# 0.75: RAGAS's default answer_correctness weight on factuality (0.25 on similarity).
RAGAS_FC_WEIGHT = 0.75
# The evaluators' prompt sets (scoring.cdke.judge_prompts): "1" (our first), "2" (the paper's evaluators: shown
# the context, one five-level rubric; the default), "authors" (the prompts published with the DKD).
JUDGE_PROMPT_SETS = ("1", "2", "authors")
DEFAULT_JUDGE_PROMPTS = "2"
# The evaluators' metrics a run can ask for (paper C, section 3.4): FC, AC, Acc, Cm, LAV; all five by default. AC is
# computed from FC (AC = (1 - w) ASS + w FC), so asking for AC scores FC too. ASS needs no evaluator: always scored.
JUDGE_METRICS = ("fc", "ac", "acc", "cm", "lav")
# 0.2 / 0.9 / 50: the candidates' sampling in "Context Is King" (section 4).
PAPER_TEMPERATURE = 0.2
# The largest count (limit, per_context) and seed a spec takes: a 32-bit signed integer, which every database and
# provider holds (a limit of 2**63 overflowed the SQL LIMIT and answered 500).
MAX_WHOLE = 2**31 - 1
# A panel of judges (scoring.panel.PanelSpec, which a test keeps equal to these): LAV by majority with a tie rule,
# Acc / Cm by the mean or the median; a graded item splits when its scores lie graded_split apart (0.5: two steps
# of the quarter scale). The runs app may not import scoring, so the choices are repeated here.
PANEL_LAV_RULES = ("majority",)
PANEL_LAV_TIES = ("invalid", "valid", "unresolved")
PANEL_GRADED = ("mean", "median")
PANEL_DEFAULTS: dict[str, Any] = {"lav": "majority", "lav_tie": "invalid", "graded": "mean", "graded_split": 0.5}


class SpecError(ValueError):
    """A run spec that cannot be run; the message names the field."""

    def __init__(self, field_name: str, message: str):
        self.field = field_name
        super().__init__(f"spec field '{field_name}': {message}")


def _names(data: dict[str, Any], key: str, *, required: bool) -> list[str]:
    value = data.get(key, [])
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise SpecError(key, "must be a list of names")
    if required and not value:
        raise SpecError(key, "must name at least one")
    if len(set(value)) != len(value):
        raise SpecError(key, "names one twice")
    return value


def _temperature(value: Any) -> float:
    """One temperature: a finite number (a word, a bool, NaN or an infinity is refused)."""
    if isinstance(value, bool):
        raise SpecError("temperatures", "must be numbers")
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise SpecError("temperatures", "must be numbers") from None
    if not math.isfinite(number):
        raise SpecError("temperatures", f"must be finite numbers, not {value!r}")
    return number


def _panel(value: Any) -> dict[str, Any] | None:
    """The panel's rules, completed with the defaults; None (not given) means the defaults."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise SpecError("panel", f"must be an object with {', '.join(PANEL_DEFAULTS)}")
    unknown = sorted(set(value) - set(PANEL_DEFAULTS))
    if unknown:
        raise SpecError("panel", f"'{unknown[0]}' is not a panel option (known: {', '.join(PANEL_DEFAULTS)})")
    panel = PANEL_DEFAULTS | value
    for key, choices in (("lav", PANEL_LAV_RULES), ("lav_tie", PANEL_LAV_TIES), ("graded", PANEL_GRADED)):
        if panel[key] not in choices:
            raise SpecError("panel", f"{key} must be one of {', '.join(choices)}")
    split = panel["graded_split"]
    if isinstance(split, bool) or not isinstance(split, int | float) or not 0 < split <= 1:
        raise SpecError("panel", "graded_split must be a number above 0 and at most 1")
    return panel | {"graded_split": float(split)}


def _min_agreement(value: Any) -> float | None:
    """The agreement with people (kappa) under which a judge is flagged: a number in [-1, 1], or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not -1 <= value <= 1:
        raise SpecError("judge_min_agreement", "must be a number from -1 to 1, or null")
    return float(value)


def _count(data: dict[str, Any], key: str) -> int | None:
    """An optional positive whole number of at most MAX_WHOLE."""
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_WHOLE:
        raise SpecError(key, f"must be a whole number from 1 to {MAX_WHOLE}")
    return value


@dataclass(frozen=True)
class RunSpec:
    models: list[str]
    evaluators: list[str] = field(default_factory=list)
    temperatures: list[float] = field(default_factory=lambda: [PAPER_TEMPERATURE])
    conditions: list[str] = field(default_factory=lambda: ["divergent"])
    samples: int = 1
    seed: int = 0
    limit: int | None = None
    use_cache: bool = True
    only_validated: bool = False
    ac_convention: str = DEFAULT_AC_CONVENTION
    judge_prompts: str = DEFAULT_JUDGE_PROMPTS
    embedder: str | None = None
    per_context: int | None = None
    metrics: list[str] = field(default_factory=lambda: list(JUDGE_METRICS))
    # Options of the knowledge-graph pass (S3KG / CUS / TAU), validated by scoring.kg_spec; None: no pass.
    kg: dict[str, Any] | None = None
    # How the judges are combined into a panel (PANEL_DEFAULTS when None), and the kappa with people under which
    # a judge is flagged (None: no flag).
    panel: dict[str, Any] | None = None
    judge_min_agreement: float | None = None

    @property
    def fc_weight(self) -> float:
        return PAPER_FC_WEIGHT if self.ac_convention == "paper" else RAGAS_FC_WEIGHT

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RunSpec":
        if not isinstance(data, dict):
            raise SpecError("spec", "must be an object")
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise SpecError(unknown[0], f"is not a spec field (known: {', '.join(sorted(known))})")
        temperatures = data.get("temperatures", [PAPER_TEMPERATURE])
        if isinstance(temperatures, str):
            temperatures = [t for t in temperatures.split(",") if t.strip()]
        if not isinstance(temperatures, list | tuple):
            raise SpecError("temperatures", "must be a list of numbers")
        temps = [_temperature(t) for t in temperatures]
        if not temps or any(t < 0 or t > 2 for t in temps) or len(set(temps)) != len(temps):
            raise SpecError("temperatures", "must be distinct numbers between 0 and 2")
        conditions = _names(data, "conditions", required=False) or ["divergent"]
        bad = [c for c in conditions if c not in CONDITIONS]
        if bad:
            raise SpecError("conditions", f"'{bad[0]}' is not one of {', '.join(CONDITIONS)}")
        samples = data.get("samples", 1)
        if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= 100:
            raise SpecError("samples", "must be a whole number from 1 to 100")
        seed = data.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_WHOLE:
            raise SpecError("seed", f"must be a whole number from 0 to {MAX_WHOLE}")
        limit = _count(data, "limit")
        per_context = _count(data, "per_context")
        kg = data.get("kg")
        if kg is not None and not isinstance(kg, dict):
            raise SpecError("kg", "must be an object of knowledge-graph options")
        convention = data.get("ac_convention", DEFAULT_AC_CONVENTION)
        if convention not in AC_CONVENTIONS:
            raise SpecError("ac_convention", f"must be one of {', '.join(AC_CONVENTIONS)}")
        judge_prompts = data.get("judge_prompts", DEFAULT_JUDGE_PROMPTS)
        if judge_prompts not in JUDGE_PROMPT_SETS:
            raise SpecError("judge_prompts", f"must be one of {', '.join(JUDGE_PROMPT_SETS)}")
        embedder = data.get("embedder")
        if embedder is not None and not isinstance(embedder, str):
            raise SpecError("embedder", "must be a sentence-transformers model path")
        metrics = _names(data, "metrics", required=False) if "metrics" in data else list(JUDGE_METRICS)
        bad_metrics = [m for m in metrics if m not in JUDGE_METRICS]
        if bad_metrics:
            raise SpecError("metrics", f"'{bad_metrics[0]}' is not one of {', '.join(JUDGE_METRICS)}")
        if not metrics:
            raise SpecError("metrics", "must name at least one judge metric")
        if "ac" in metrics and "fc" not in metrics:
            metrics = [*metrics, "fc"]
        metrics = [m for m in JUDGE_METRICS if m in metrics]
        for flag in ("use_cache", "only_validated"):
            if flag in data and not isinstance(data[flag], bool):
                raise SpecError(flag, "must be true or false")
        return cls(
            models=_names(data, "models", required=True),
            evaluators=_names(data, "evaluators", required=False),
            temperatures=temps,
            conditions=conditions,
            samples=samples,
            seed=seed,
            limit=limit,
            use_cache=data.get("use_cache", True),
            only_validated=data.get("only_validated", False),
            ac_convention=convention,
            judge_prompts=judge_prompts,
            embedder=embedder,
            per_context=per_context,
            metrics=metrics,
            kg=kg,
            panel=_panel(data.get("panel")),
            judge_min_agreement=_min_agreement(data.get("judge_min_agreement")),
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def sample_seed(self, sample_index: int) -> int:
        """Each sample of a cell has its own seed, so samples differ while a re-run hits the cache."""
        return self.seed + sample_index
