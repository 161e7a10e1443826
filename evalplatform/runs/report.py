"""Plain-text tables of a run's results, for the commands."""

from evalplatform.runs.results import Correlation, ErrorClassRow, ResultRow

TABLE2_COLUMNS = (("lav", "LAV"), ("acc", "Acc"), ("cm", "Cm"), ("ass", "ASS"), ("ac", "AC"))


def _cell(row: ResultRow, metric: str) -> str:
    summary = row.metrics.get(metric)
    if summary is None or summary.mean is None:
        return "    -     "
    lo, hi = summary.ci or (summary.mean, summary.mean)
    return f"{summary.mean:.3f} ±{(hi - lo) / 2:.2f}"


def table2(rows: list[ResultRow]) -> str:
    """The paper's Table 2 layout: one line per model × evaluator (× temperature × condition)."""
    header = (
        f"{'model':14} {'evaluator':12} {'temp':>4} {'condition':9} {'n':>4} {'unpars':>6} {'failed':>6}  "
        + "  ".join(f"{label:^10}" for _, label in TABLE2_COLUMNS)
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        lines.append(
            f"{r.model:14} {r.evaluator:12} {r.temperature:>4.2f} {r.condition:9} {r.n:>4} {r.n_unparseable:>6} "
            f"{r.n_failed:>6}  " + "  ".join(_cell(r, m) for m, _ in TABLE2_COLUMNS)
        )
    lines.append(
        "LAV = share of answers judged valid; means over scored answers only, ±: half the 95 % bootstrap interval;"
    )
    lines.append(
        "unpars / failed: answers with a judge output unparseable after one repair / a failed call, never counted as 0."
    )
    return "\n".join(lines)


def error_table(rows: list[ErrorClassRow]) -> str:
    lines = [f"{'model':14} {'temp':>4} {'condition':9} {'n':>4}  followed_context  reverted_to_prior  neither"]
    for r in rows:
        lines.append(
            f"{r.model:14} {r.temperature:>4.2f} {r.condition:9} {r.n:>4}  {r.followed_context:>16.1%}  "
            f"{r.reverted_to_prior:>17.1%}  {r.neither:>7.1%}"
        )
    return "\n".join(lines)


def correlation_table(rows: list[Correlation]) -> str:
    lines = ["per-context r of 0.5 LAV + 0.25 Acc + 0.25 Cm with ASS (divergent condition):"]
    for c in rows:
        p = "-" if c.pearson is None else f"{c.pearson:.3f}"
        s = "-" if c.spearman is None else f"{c.spearman:.3f}"
        lines.append(f"  {c.model} judged by {c.evaluator}: Pearson {p}, Spearman {s} over {c.n_contexts} contexts")
    return "\n".join(lines)
