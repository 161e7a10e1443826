"""CDK-E's results of a run (reads only): the paper's Table 2 layout per model × evaluator × temperature ×
condition, with bootstrap intervals and the counts of unparseable and failed scores beside every mean; the
per-context correlation of 0.5 LAV + 0.25 Acc + 0.25 Cm with ASS; the automatic error classes; the JSON the
API and ``--json`` give, and the plain-text tables the commands print."""

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

from evalplatform.corpus.models import Alteration
from evalplatform.runs.models import Generation, Run
from scoring.cdke.conflict_results import conflict_results
from scoring.cdke.metrics import JudgeComposite
from scoring.error_classes import ERROR_CLASSES, classify_answer, fact_markers
from scoring.models import ErrorTypeJudgement, GenerationScore, ScoreStatus
from scoring.snapshots import run_snapshot
from scoring.stats import bootstrap_ci, pearson, spearman

TABLE_METRICS = ("lav", "acc", "cm", "ass", "ac", "fc")
CellKey = tuple[str, str, float, str]  # model, evaluator, temperature, condition


@dataclass
class MetricSummary:
    mean: float | None
    ci: tuple[float, float] | None
    n: int
    n_unparseable: int
    n_failed: int


@dataclass
class ResultRow:
    model: str
    evaluator: str
    temperature: float
    condition: str
    n: int
    n_unparseable: int
    n_failed: int
    metrics: dict[str, MetricSummary] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        row: dict[str, Any] = {
            "model": self.model,
            "evaluator": self.evaluator,
            "temperature": self.temperature,
            "condition": self.condition,
            "n": self.n,
            "n_unparseable": self.n_unparseable,
            "n_failed": self.n_failed,
        }
        for metric in (*TABLE_METRICS, "lav_scored"):
            summary = self.metrics.get(metric)
            row[metric] = None if summary is None else summary.mean
        return row


def _summary(values: list[float], unparseable: int, failed: int, seed: int) -> MetricSummary:
    if not values:
        return MetricSummary(None, None, 0, unparseable, failed)
    mean = sum(values) / len(values)
    return MetricSummary(mean, bootstrap_ci(values, seed=seed), len(values), unparseable, failed)


def _lav_of_all_answers(verdicts: list[float], unparseable: int, failed: int) -> MetricSummary:
    """LAV as paper C reports it: the answers judged valid over all answers, so an answer whose verdict is
    unparseable or whose call (or answer) failed counts as not valid there; those counts stay beside it, and
    ``lav_scored`` is the share valid among the scored answers alone."""
    every = verdicts + [0.0] * (unparseable + failed)
    summary = _summary(every, unparseable, failed, seed=TABLE_METRICS.index("lav"))
    return MetricSummary(summary.mean, summary.ci, len(every), unparseable, failed)


def _score_rows(run: Run) -> list[dict[str, Any]]:
    rows = GenerationScore.objects.filter(generation__run=run).values(
        "generation_id", "scorer", "metric", "value", "status"
    )
    return [dict(r) for r in rows]


def _generations(run: Run) -> list[dict[str, Any]]:
    rows = Generation.objects.filter(run=run).values(
        "pk",
        "model__name",
        "temperature",
        "condition",
        "status",
        "text",
        "question_id",
        "question__context_id",
        "question__ground_truth",
        "question__original_answer",
    )
    return [dict(r) for r in rows]


@run_snapshot
def result_rows(run: Run) -> list[ResultRow]:
    evaluators = list(run.spec.get("evaluators", []))
    generations = _generations(run)
    scores: dict[tuple[int, str], dict[str, dict[str, Any]]] = defaultdict(dict)
    ass_by_gen: dict[int, dict[str, Any]] = {}
    for score_row in _score_rows(run):
        if score_row["metric"] == "ass":
            ass_by_gen[score_row["generation_id"]] = score_row
        else:
            scores[(score_row["generation_id"], score_row["scorer"])][score_row["metric"]] = score_row
    cells: dict[CellKey, list[dict[str, Any]]] = defaultdict(list)
    for g in generations:
        for evaluator in evaluators or ["-"]:
            cells[(g["model__name"], evaluator, g["temperature"], g["condition"])].append(g)
    rows = []
    for (model, evaluator, temperature, condition), gens in sorted(cells.items()):
        values: dict[str, list[float]] = defaultdict(list)
        unparseable: dict[str, int] = defaultdict(int)
        failed: dict[str, int] = defaultdict(int)
        n_any_unparseable = n_any_failed = 0
        for g in gens:
            if g["status"] == Generation.Status.FAILED:
                n_any_failed += 1
                for metric in TABLE_METRICS:
                    failed[metric] += 1
                continue
            per_metric = dict(scores.get((g["pk"], evaluator), {}))
            if g["pk"] in ass_by_gen:
                per_metric["ass"] = ass_by_gen[g["pk"]]
            statuses = set()
            for metric, score in per_metric.items():
                statuses.add(score["status"])
                if score["status"] == ScoreStatus.OK:
                    values[metric].append(float(score["value"]))
                elif score["status"] == ScoreStatus.UNPARSEABLE:
                    unparseable[metric] += 1
                elif score["status"] == ScoreStatus.FAILED:
                    failed[metric] += 1
                # skipped: a metric the run did not choose, neither a value nor a failure
            n_any_unparseable += ScoreStatus.UNPARSEABLE in statuses
            n_any_failed += ScoreStatus.FAILED in statuses
        row = ResultRow(model, evaluator, temperature, condition, len(gens), n_any_unparseable, n_any_failed)
        for index, metric in enumerate(TABLE_METRICS):
            row.metrics[metric] = _summary(values[metric], unparseable[metric], failed[metric], seed=index)
        row.metrics["lav_scored"] = row.metrics["lav"]
        row.metrics["lav"] = _lav_of_all_answers(values["lav"], unparseable["lav"], failed["lav"])
        rows.append(row)
    return rows


@dataclass
class Correlation:
    model: str
    evaluator: str
    n_contexts: int
    pearson: float | None
    spearman: float | None
    points: list[tuple[float, float]]  # (ASS, 0.5 LAV + 0.25 Acc + 0.25 Cm) per context
    context_ids: list[int] = field(default_factory=list)  # the context of each point, in the same order


@run_snapshot
def context_correlations(run: Run, condition: str = "divergent") -> list[Correlation]:
    """Paper C's per-context analysis: for each model and evaluator, each context's mean ASS against its
    mean 0.5 LAV + 0.25 Acc + 0.25 Cm, with Pearson and Spearman r."""
    generations = {g["pk"]: g for g in _generations(run) if g["condition"] == condition}
    per_gen: dict[tuple[int, str], dict[str, float]] = defaultdict(dict)
    ass: dict[int, float] = {}
    for row in _score_rows(run):
        if row["generation_id"] not in generations or row["status"] != ScoreStatus.OK:
            continue
        if row["metric"] == "ass":
            ass[row["generation_id"]] = float(row["value"])
        else:
            per_gen[(row["generation_id"], row["scorer"])][row["metric"]] = float(row["value"])
    groups: dict[tuple[str, str], dict[int, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    for (gen_id, evaluator), metrics in per_gen.items():
        if gen_id not in ass or not {"lav", "acc", "cm"} <= set(metrics):
            continue
        g = generations[gen_id]
        composite = JudgeComposite(metrics["lav"], metrics["acc"], metrics["cm"]).value
        groups[(g["model__name"], evaluator)][g["question__context_id"]].append((ass[gen_id], composite))
    return [_per_context(model, evaluator, contexts) for (model, evaluator), contexts in sorted(groups.items())]


@run_snapshot
def context_lav_accuracy(run: Run, condition: str = "divergent") -> list[Correlation]:
    """Paper C's Fig. 5: for each model and evaluator, each context's mean Acc (x) against its share of answers
    judged valid (y), with Pearson and Spearman r over the contexts. Only answers with both an Acc and a LAV."""
    generations = {g["pk"]: g for g in _generations(run) if g["condition"] == condition}
    per_gen: dict[tuple[int, str], dict[str, float]] = defaultdict(dict)
    for row in _score_rows(run):
        if row["generation_id"] in generations and row["status"] == ScoreStatus.OK and row["metric"] in ("acc", "lav"):
            per_gen[(row["generation_id"], row["scorer"])][row["metric"]] = float(row["value"])
    groups: dict[tuple[str, str], dict[int, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    for (gen_id, evaluator), metrics in per_gen.items():
        if {"acc", "lav"} <= set(metrics):
            g = generations[gen_id]
            groups[(g["model__name"], evaluator)][g["question__context_id"]].append((metrics["acc"], metrics["lav"]))
    return [_per_context(model, evaluator, contexts) for (model, evaluator), contexts in sorted(groups.items())]


def _per_context(model: str, evaluator: str, contexts: dict[int, list[tuple[float, float]]]) -> Correlation:
    points = [
        (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)) for _, pts in sorted(contexts.items())
    ]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    ids = [context_id for context_id, _ in sorted(contexts.items())]
    return Correlation(model, evaluator, len(points), pearson(xs, ys), spearman(xs, ys), points, ids)


@dataclass
class ErrorTypeRow:
    """Paper C's error analysis: the answers an evaluator found invalid, by the error type it gave them."""

    model: str
    evaluator: str
    temperature: float
    condition: str
    n_invalid: int
    counts: dict[str, int]
    n_unparseable: int


@run_snapshot
def error_type_rows(run: Run) -> list[ErrorTypeRow]:
    labels = [label for label, _ in ErrorTypeJudgement.Label.choices]
    groups: dict[CellKey, ErrorTypeRow] = {}
    rows = ErrorTypeJudgement.objects.filter(generation__run=run).values_list(
        "generation__model__name", "scorer", "generation__temperature", "generation__condition", "label", "status"
    )
    for model, evaluator, temperature, condition, label, status in rows:
        key = (model, evaluator, temperature, condition)
        row = groups.setdefault(key, ErrorTypeRow(*key, 0, dict.fromkeys(labels, 0), 0))
        row.n_invalid += 1
        if status == ScoreStatus.OK:
            row.counts[label] += 1
        else:
            row.n_unparseable += 1
    return [groups[key] for key in sorted(groups)]


@dataclass
class ErrorClassRow:
    model: str
    temperature: float
    condition: str
    n: int
    followed_context: float
    reverted_to_prior: float
    neither: float


def generation_classes(run: Run) -> dict[int, str]:
    """Each answered generation's error class: followed the context, reverted to the prior, or neither
    (scoring.error_classes states the rule)."""
    alterations: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for context_id, original_fact, divergent_fact in Alteration.objects.filter(
        context__dataset=run.dataset
    ).values_list("context_id", "original", "divergent"):
        alterations[context_id].append((original_fact, divergent_fact))
    classes: dict[int, str] = {}
    for g in _generations(run):
        if g["status"] != Generation.Status.DONE:
            continue
        divergent, original = fact_markers(
            ground_truth=g["question__ground_truth"],
            original_answer=g["question__original_answer"],
            alterations=alterations[g["question__context_id"]],
        )
        classes[g["pk"]] = classify_answer(g["text"], divergent, original)
    return classes


@run_snapshot
def error_class_rows(run: Run) -> list[ErrorClassRow]:
    """Share of answers that follow the context, revert to the original fact, or neither, per model,
    temperature and condition (scoring.error_classes states the rule)."""
    classes = generation_classes(run)
    counts: dict[tuple[str, float, str], dict[str, int]] = defaultdict(lambda: dict.fromkeys(ERROR_CLASSES, 0))
    for g in _generations(run):
        if g["pk"] in classes:
            counts[(g["model__name"], g["temperature"], g["condition"])][classes[g["pk"]]] += 1
    rows = []
    for (model, temperature, condition), c in sorted(counts.items()):
        n = sum(c.values())
        rows.append(ErrorClassRow(model, temperature, condition, n, *(c[k] / n for k in ERROR_CLASSES)))
    return rows


def _correlation_json(c: Correlation) -> dict[str, Any]:
    return {
        "model": c.model,
        "evaluator": c.evaluator,
        "n_contexts": c.n_contexts,
        "pearson": c.pearson,
        "spearman": c.spearman,
    }


def run_results_json(run: Run) -> dict[str, Any]:
    return {
        "run_id": run.pk,
        "rows": [r.as_json() for r in result_rows(run)],
        "error_classes": [{k: v for k, v in asdict(r).items() if k != "n"} | {"n": r.n} for r in error_class_rows(run)],
        "correlations": [_correlation_json(c) for c in context_correlations(run)],
        "lav_accuracy": [_correlation_json(c) for c in context_lav_accuracy(run)],
        "error_types": [asdict(r) for r in error_type_rows(run)],
        "conflict": conflict_results(run).as_json(),  # issue 17: prior classes, M_R, context preference
    }


def results_intervals(run: Run) -> list[dict[str, Any]]:
    """Every Table 2 cell with its mean, 95 % interval, n and the unparseable and failed counts."""
    out = []
    for row in result_rows(run):
        cell: dict[str, Any] = {"model": row.model, "evaluator": row.evaluator, "temperature": row.temperature}
        cell["condition"] = row.condition
        for metric in (*TABLE_METRICS, "lav_scored"):
            summary = row.metrics.get(metric)
            cell[metric] = (
                None
                if summary is None
                else {
                    "mean": summary.mean,
                    "ci": list(summary.ci) if summary.ci else None,
                    "n": summary.n,
                    "n_unparseable": summary.n_unparseable,
                    "n_failed": summary.n_failed,
                }
            )
        out.append(cell)
    return out


# -- plain-text tables for the commands --------------------------------------------------------------

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
        "LAV = answers judged valid / all answers (paper C's denominator: unparseable and failed ones count as not"
    )
    lines.append(
        "valid there, and are counted beside); the other means are over scored answers only; ±: half the 95 % interval;"
    )
    lines.append(
        "unpars / failed: answers with a judge output unparseable after one repair / a failed call (never 0 elsewhere)."
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
