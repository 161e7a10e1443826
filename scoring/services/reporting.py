"""Plain-text tables of knowledge-graph results for the management commands."""

from __future__ import annotations

from typing import Any


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
