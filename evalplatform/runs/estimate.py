"""The pre-flight estimate of a run, stage by stage: the calls each stage makes (answer calls apart from judge calls),
their tokens and cost at the endpoints' prices, and how long they should take.

Time per stage: the stage's calls spread over its endpoints; each endpoint takes ``calls × latency ÷ concurrency``
(never faster than its rate limit allows), the endpoints of a stage in parallel. The latency is the mean of the
endpoint's last measured answers (calls served from the cache excluded), or ``ASSUMED_LATENCY_S`` when none was
measured, and the estimate says which. Stages overlap in a real run (a cell is judged as soon as it is answered),
so the run takes between the longest stage (``seconds_low``) and the sum of the stages (``seconds_high``); the
cache and the workers' own slots can make it faster or slower."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Avg, Count

from evalplatform.corpus.models import Dataset
from evalplatform.llm.pricing import CostEstimate
from evalplatform.runs import selectors
from evalplatform.runs.models import Generation, ModelEndpoint
from evalplatform.runs.spec import RunSpec
from evalplatform.runs.stages import stages_for

# Seconds a call is assumed to take on an endpoint with no measured answer yet (our choice: a hosted model's
# short answer or verdict; gemma-3-270m answers in about 0.35 s here, a hosted API in 0.5-2 s).
ASSUMED_LATENCY_S = 1.0
# How many of an endpoint's latest measured answers its latency is averaged over.
LATENCY_WINDOW = 200
STAGE_LABELS = {"answer": "answer calls", "judge": "judge calls", "graphs": "knowledge-graph extraction"}


@dataclass(frozen=True)
class EndpointPace:
    name: str
    latency_s: float
    measured: int
    concurrency: int
    rate_limit_per_s: float

    @property
    def source(self) -> str:
        return f"measured on {self.measured} answers" if self.measured else "assumed"


@dataclass(frozen=True)
class StageEstimate:
    stage: str
    label: str
    n_requests: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    seconds: float | None
    endpoints: list[EndpointPace] = field(default_factory=list)


@dataclass(frozen=True)
class RunEstimate:
    parts: list[StageEstimate]
    total: CostEstimate
    seconds_low: float
    seconds_high: float

    def as_json(self) -> dict[str, object]:
        return {
            "n_requests": self.total.n_requests,
            "input_tokens": self.total.input_tokens,
            "output_tokens": self.total.output_tokens,
            "cost_usd": self.total.cost_usd,
            "seconds_low": self.seconds_low,
            "seconds_high": self.seconds_high,
            "parts": [
                {
                    "stage": p.stage,
                    "label": p.label,
                    "n_requests": p.n_requests,
                    "input_tokens": p.input_tokens,
                    "output_tokens": p.output_tokens,
                    "cost_usd": p.cost_usd,
                    "seconds": p.seconds,
                    "endpoints": [
                        {
                            "name": e.name,
                            "latency_s": e.latency_s,
                            "latency_source": e.source,
                            "concurrency": e.concurrency,
                            "rate_limit_per_s": e.rate_limit_per_s,
                        }
                        for e in p.endpoints
                    ],
                }
                for p in self.parts
            ],
        }


def endpoint_pace(endpoint: ModelEndpoint) -> EndpointPace:
    """The endpoint's measured latency (mean of its latest answers that were really sent) and its limits."""
    latest = (
        Generation.objects.filter(model=endpoint, status=Generation.Status.DONE, cached=False, latency_s__gt=0)
        .order_by("-pk")
        .values_list("pk", flat=True)[:LATENCY_WINDOW]
    )
    found = Generation.objects.filter(pk__in=list(latest)).aggregate(mean=Avg("latency_s"), n=Count("pk"))
    measured = int(found["n"] or 0)
    latency = float(found["mean"]) if measured else ASSUMED_LATENCY_S
    return EndpointPace(
        endpoint.name, latency, measured, max(1, endpoint.max_concurrency), float(endpoint.rate_limit_per_s or 0)
    )


def _seconds(n_requests: int, paces: list[EndpointPace]) -> float | None:
    if not n_requests:
        return 0.0
    if not paces:
        return None
    per_endpoint = n_requests / len(paces)
    times = []
    for pace in paces:
        seconds = per_endpoint * pace.latency_s / pace.concurrency
        if pace.rate_limit_per_s > 0:
            seconds = max(seconds, per_endpoint / pace.rate_limit_per_s)
        times.append(seconds)
    return max(times)


def _stage_endpoints(stage_name: str, spec: RunSpec) -> list[str]:
    if stage_name == "answer":
        return list(spec.models)
    if stage_name == "judge":
        return list(spec.evaluators)
    extractor = str((spec.kg or {}).get("extractor", ""))
    return [extractor.split(":", 1)[1]] if stage_name == "graphs" and extractor.startswith("llm:") else []


def run_estimate_parts(*, dataset: Dataset, spec: RunSpec) -> RunEstimate:
    """Every stage's calls, tokens, cost and time for a run of ``spec`` on ``dataset`` (nothing is written)."""
    questions = list(selectors.run_questions(dataset, spec))
    parts = []
    for stage in stages_for(spec):
        stage.validate(spec)
        cost = stage.estimate(questions=questions, spec=spec)
        names = _stage_endpoints(stage.name, spec)
        paces = [endpoint_pace(e) for e in ModelEndpoint.objects.filter(name__in=names).order_by("name")]
        if not cost.n_requests and stage.name not in STAGE_LABELS:
            continue
        parts.append(
            StageEstimate(
                stage.name,
                STAGE_LABELS.get(stage.name, stage.name),
                cost.n_requests,
                cost.input_tokens,
                cost.output_tokens,
                cost.cost_usd,
                _seconds(cost.n_requests, paces),
                paces,
            )
        )
    total = CostEstimate(
        sum(p.n_requests for p in parts),
        sum(p.input_tokens for p in parts),
        sum(p.output_tokens for p in parts),
        sum(p.cost_usd for p in parts),
    )
    timed = [p.seconds for p in parts if p.seconds is not None]
    return RunEstimate(parts, total, max(timed, default=0.0), sum(timed))
