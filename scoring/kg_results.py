"""S3KG's results of a run (reads only): GoldSim, CtxSim and CUS per model, temperature, condition and variant
with 95 % bootstrap intervals, n scored, skipped and failed, and the TAU counts over the diagnosed items (paper
S, Tables 3, 7 and 8), as rows and as the plain-text table the commands print."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from evalplatform.runs.models import Run
from scoring.cus import aggregate_cus
from scoring.embeddings import get_encoder
from scoring.kg_spec import KGSpec
from scoring.models import GraphScore, ScoreStatus, TauDiagnosis

CATEGORY_NAMES = ("aligned", "relation_wrong", "entity_wrong", "extra", "missing")


def run_kg_spec(run: Run) -> KGSpec:
    """The run's knowledge-graph options: its spec's ``kg``, or those of its last second pass."""
    data = run.spec.get("kg") or (run.manifest or {}).get("kg")
    if data is None:
        raise ValueError(f"run {run.pk} has no knowledge-graph options")
    return KGSpec.from_dict(data)


def kg_results(
    run: Run, *, kg: KGSpec | None = None, encoder_name: str | None = None, seed: int = 0
) -> list[dict[str, Any]]:
    """Per (model, temperature, condition, variant): n scored, n skipped, n failed, GoldSim, CtxSim and CUS
    means with 95 % bootstrap intervals, and the TAU category counts summed over the diagnosed items."""
    kg = kg or run_kg_spec(run)
    encoder_name = encoder_name or get_encoder(kg.encoder).name
    scores = (
        GraphScore.objects.filter(generation__run=run, variant__in=kg.variants, encoder=encoder_name, alpha=kg.alpha)
        .select_related("generation__model")
        .order_by("pk")
    )
    buckets: dict[tuple[str, float, str, str], list[GraphScore]] = defaultdict(list)
    for s in scores:
        g = s.generation
        buckets[(g.model.name, g.temperature, g.condition, s.variant)].append(s)
    tau: dict[int, dict[str, int]] = dict(
        TauDiagnosis.objects.filter(graph_score__generation__run=run).values_list("graph_score_id", "counts")
    )
    rows = []
    for (model, temperature, condition, variant), group in sorted(buckets.items()):
        ok = [s for s in group if s.status == ScoreStatus.OK and s.goldsim is not None and s.ctxsim is not None]
        agg = aggregate_cus([(float(s.goldsim or 0.0), float(s.ctxsim or 0.0)) for s in ok], seed=seed)
        counts = dict.fromkeys(CATEGORY_NAMES, 0)
        n_tau = 0
        for s in ok:
            if s.pk in tau:
                n_tau += 1
                for name in CATEGORY_NAMES:
                    counts[name] += int(tau[s.pk].get(name, 0))
        rows.append(
            {
                "model": model,
                "temperature": temperature,
                "condition": condition,
                "variant": variant,
                "encoder": encoder_name,
                "n": agg["n"],
                "n_skipped": sum(1 for s in group if s.status == ScoreStatus.SKIPPED),
                "n_failed": sum(1 for s in group if s.status == ScoreStatus.FAILED),
                "goldsim": agg["goldsim"],
                "ctxsim": agg["ctxsim"],
                "cus": agg["cus"],
                "tau_items": n_tau,
                "tau": counts,
            }
        )
    return rows


def _ci(summary: dict[str, Any]) -> str:
    if summary.get("mean") is None:
        return "       -        "
    return f"{summary['mean']:.4f} [{summary['lo']:.4f}, {summary['hi']:.4f}]"


def kg_table(rows: list[dict[str, Any]], *, label: str = "model") -> str:
    """GoldSim / CtxSim / CUS with 95 % intervals, n scored and skipped, TAU counts, one line per row."""
    head = (
        f"{label:<34} {'T':>4} {'condition':<9} {'variant':<15} {'n':>4} {'skip':>4} {'fail':>4}  "
        f"{'GoldSim [95% CI]':<24} {'CtxSim [95% CI]':<24} {'CUS [95% CI]':<24} TAU (items: al/rel/ent/extra/miss)"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        t = r["tau"]
        tau = f"{r['tau_items']}: {t['aligned']}/{t['relation_wrong']}/{t['entity_wrong']}/{t['extra']}/{t['missing']}"
        lines.append(
            f"{str(r.get(label, r['model']))[:34]:<34} {r['temperature']:>4.1f} {r.get('condition', '-'):<9} "
            f"{r['variant']:<15} {r['n']:>4} "
            f"{r['n_skipped']:>4} {r['n_failed']:>4}  {_ci(r['goldsim']):<24} {_ci(r['ctxsim']):<24} "
            f"{_ci(r['cus']):<24} {tau}"
        )
    return "\n".join(lines)
