"""The launch page's form: every option of ``run_cdke`` and ``run_kg``, grouped as the page shows them."""

from typing import Any

from django import forms

from evalplatform.corpus.selectors import datasets_visible_to, latest_versions
from evalplatform.runs import selectors
from evalplatform.runs.spec import (
    CONDITIONS,
    DEFAULT_AC_CONVENTION,
    DEFAULT_JUDGE_PROMPTS,
    JUDGE_METRICS,
    PANEL_GRADED,
    PANEL_LAV_TIES,
)
from scoring.s3kg import VARIANTS

METRIC_LABELS = {
    "fc": "FC: factual correctness",
    "ac": "AC: answer correctness",
    "acc": "Acc: accuracy",
    "cm": "Cm: completeness",
    "lav": "LAV: valid / not valid",
}
CONDITION_LABELS = {"divergent": "divergent (the method)", "real": "real (the control)", "none": "none (closed book)"}


def _float_list(value: str) -> list[float]:
    try:
        return [float(v) for v in value.replace(" ", "").split(",") if v]
    except ValueError:
        raise forms.ValidationError("give numbers separated by commas, e.g. 0.0, 0.7") from None


class LaunchForm(forms.Form):
    """Every option of ``run_cdke`` and ``run_kg``, grouped as the page shows them (``GROUPS``)."""

    dataset = forms.ChoiceField(help_text="Its latest version, unless a version is given.")
    dataset_version = forms.IntegerField(min_value=1, required=False, help_text="Leave empty for the latest.")
    kind = forms.ChoiceField(
        choices=[("cdke", "CDK-E: answers and judge metrics"), ("kg", "Knowledge graphs only: S3KG / CUS / TAU")],
        initial="cdke",
        widget=forms.RadioSelect,
        required=False,
    )
    models = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple, help_text="The candidates.")
    evaluators = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple, required=False)
    metrics = forms.MultipleChoiceField(
        choices=[(m, METRIC_LABELS[m]) for m in JUDGE_METRICS],
        initial=list(JUDGE_METRICS),
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text="Judge metrics to score (AC needs FC, which is then scored too; none ticked: all five); "
        "ASS is always scored.",
    )
    judge_prompts = forms.ChoiceField(
        choices=[
            ("2", "2: shown the context, five-level rubric"),
            ("authors", "authors: the DKD's prompts"),
            ("1", "1"),
        ],
        initial=DEFAULT_JUDGE_PROMPTS,
        required=False,
    )
    ac_convention = forms.ChoiceField(
        choices=[("ragas", "ragas: 0.75 on FC (reproduces Table 2)"), ("paper", "paper: 0.25 on FC (the text)")],
        initial=DEFAULT_AC_CONVENTION,
        required=False,
    )
    temperatures = forms.CharField(initial="0.2", help_text="Comma-separated, e.g. 0.0, 0.3, 0.7, 1.0")
    conditions = forms.MultipleChoiceField(
        choices=[(c, CONDITION_LABELS[c]) for c in CONDITIONS],
        initial=["divergent"],
        widget=forms.CheckboxSelectMultiple,
    )
    samples = forms.IntegerField(min_value=1, max_value=100, initial=1, help_text="Answers per cell.")
    seed = forms.IntegerField(initial=0, required=False, help_text="Seed of the first sample.")
    limit = forms.IntegerField(min_value=1, required=False, help_text="Ask at most this many questions.")
    per_context = forms.IntegerField(min_value=1, required=False, help_text="At most this many per context.")
    only_validated = forms.BooleanField(required=False, help_text="Only questions validated by consensus.")
    no_cache = forms.BooleanField(
        required=False, label="Bypass the cache", help_text="Ask every call again (--no-cache); off: repeats are free."
    )
    kg_extractor = forms.ChoiceField(
        required=False, label="Graph extractor", help_text="Also score knowledge graphs (required for a kg run)."
    )
    kg_variants = forms.MultipleChoiceField(
        choices=[(v, v) for v in VARIANTS],
        initial=["s3kg"],
        widget=forms.CheckboxSelectMultiple,
        required=False,
        label="S3KG variants",
    )
    kg_alpha = forms.FloatField(min_value=0.0, max_value=1.0, initial=0.5, required=False, label="S3KG alpha")
    panel_graded = forms.ChoiceField(
        choices=[(g, g) for g in PANEL_GRADED], initial="mean", required=False, label="Panel of judges: Acc / Cm by"
    )
    panel_lav_tie = forms.ChoiceField(
        choices=[(t, t) for t in PANEL_LAV_TIES], initial="invalid", required=False, label="Panel: a LAV tie gives"
    )
    judge_min_agreement = forms.FloatField(
        min_value=-1.0, max_value=1.0, required=False, help_text="Flag a judge whose kappa with people is below this."
    )
    budget_usd = forms.DecimalField(
        min_value=0, max_digits=12, decimal_places=4, required=False, help_text="The run stops cleanly there."
    )

    GROUPS = (
        ("What to run", ("dataset", "dataset_version", "kind", "conditions", "temperatures", "samples", "seed")),
        ("Models", ("models", "evaluators")),
        (
            "Judging",
            ("metrics", "judge_prompts", "ac_convention", "panel_graded", "panel_lav_tie", "judge_min_agreement"),
        ),
        ("Knowledge graphs", ("kg_extractor", "kg_variants", "kg_alpha")),
        ("Questions, cache and budget", ("limit", "per_context", "only_validated", "no_cache", "budget_usd")),
    )

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        fields: dict[str, Any] = self.fields
        datasets = latest_versions(datasets_visible_to(user)).exclude(kind="pairs").order_by("name")
        fields["dataset"].choices = [(d.name, f"{d.name} (version {d.version})") for d in datasets]
        endpoints = list(selectors.endpoints_for_launch(user).order_by("name"))
        names = [(e.name, f"{e.name} ({e.model_id})") for e in endpoints]
        fields["models"].choices = names
        fields["evaluators"].choices = names
        fields["kg_extractor"].choices = [("", "none"), ("dependency", "dependency rules (offline)")] + [
            (f"llm:{e.name}", f"LLM extractor on {e.name}") for e in endpoints
        ]

    def groups(self) -> list[tuple[str, list[forms.BoundField]]]:
        return [(title, [self[name] for name in names]) for title, names in self.GROUPS]

    def clean_temperatures(self) -> list[float]:
        return _float_list(self.cleaned_data["temperatures"])

    def spec(self) -> dict[str, Any]:
        data = self.cleaned_data
        spec: dict[str, Any] = {
            key: data[key] for key in ("models", "evaluators", "temperatures", "conditions", "samples")
        }
        spec |= {
            "judge_prompts": data.get("judge_prompts") or DEFAULT_JUDGE_PROMPTS,
            "seed": data.get("seed") or 0,
            "ac_convention": data.get("ac_convention") or DEFAULT_AC_CONVENTION,
            "only_validated": bool(data.get("only_validated")),
            "use_cache": not data.get("no_cache"),
            "metrics": data.get("metrics") or list(JUDGE_METRICS),
        }
        for optional in ("limit", "per_context"):
            if data.get(optional):
                spec[optional] = data[optional]
        if data.get("kg_extractor"):
            spec["kg"] = {
                "extractor": data["kg_extractor"],
                "variants": data.get("kg_variants") or ["s3kg"],
                "alpha": data["kg_alpha"] if data.get("kg_alpha") is not None else 0.5,
            }
        if data.get("panel_graded") or data.get("panel_lav_tie"):
            spec["panel"] = {
                "graded": data.get("panel_graded") or "mean",
                "lav_tie": data.get("panel_lav_tie") or "invalid",
            }
        if data.get("judge_min_agreement") is not None:
            spec["judge_min_agreement"] = data["judge_min_agreement"]
        return spec
