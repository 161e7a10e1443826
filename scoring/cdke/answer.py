"""CDK-E step 3: each candidate model answers each question with the context injected (the divergent text, or
the real text for the control) or closed book (paper C, 4: temperature 0.2, top-p 0.9, top-k 50 by default).

One cell is one Generation; only a pending one is answered, and only one writer wins (a conditional update),
so a redelivered task neither duplicates nor overwrites."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import transaction

from evalplatform.corpus.models import Question
from evalplatform.hashing import text_hash
from evalplatform.llm.client import LLMClient
from evalplatform.llm.errors import ProviderError
from evalplatform.llm.types import LLMRequest
from evalplatform.runs.clients import mode_for
from evalplatform.runs.fields import stored_error
from evalplatform.runs.models import Generation, ModelEndpoint
from evalplatform.runs.services import run_count, run_count_failed_cell
from evalplatform.runs.spec import RunSpec
from evalplatform.single_writes import set_as_stored
from scoring.cdke.prompts import answer_template, answer_values

# The answer stage's registered name (scoring.cdke.stages).
ANSWER_STAGE = "answer"


def context_shown(question: Question, condition: str) -> str | None:
    """The text a candidate is shown: the divergent context, the real one for the control, none closed book."""
    if condition == "none":
        return None
    return question.context.source_text if condition == "real" else question.context.text


def answer_request(
    *, question: Question, condition: str, endpoint: ModelEndpoint, temperature: float, seed: int
) -> LLMRequest:
    """The exact request that asks ``endpoint`` the question under a condition, with the endpoint's sampling;
    the estimate and the answering both build it here."""
    return answer_template(condition).request(  # type: ignore[arg-type]
        endpoint.model_id,
        answer_values(condition, question.text, context_shown(question, condition)),  # type: ignore[arg-type]
        mode=mode_for(endpoint),
        constrain="none",
        temperature=temperature,
        top_p=endpoint.default_top_p,
        top_k=endpoint.default_top_k,
        seed=seed,
        max_tokens=endpoint.default_max_tokens,
    )


def generation_answer(*, generation: Generation, client: LLMClient, spec: RunSpec, use_cache: bool = True) -> bool:
    """Ask the cell's model its question under the cell's condition and store the answer. Provider errors other
    than transient ones mark the cell failed; transient ones propagate to the task, which retries. Returns whether
    this call stored the cell's outcome (answer or failure), which it then also sets on ``generation``: the caller
    need not read the row back. False: another worker had stored it first."""
    template = answer_template(generation.condition)  # type: ignore[arg-type]
    request = answer_request(
        question=generation.question,
        condition=generation.condition,
        endpoint=generation.model,
        temperature=generation.temperature,
        seed=spec.sample_seed(generation.sample_index),
    )
    prompt_hash = text_hash(request.text_for_counting())
    pending = Generation.objects.filter(pk=generation.pk, status=Generation.Status.PENDING)
    try:
        response = client.call(request, prompt_version=template.version_tag, use_cache=use_cache)
    except ProviderError as exc:
        outcome: dict[str, Any] = {
            "status": Generation.Status.FAILED,
            "error": stored_error(str(exc)),
            "prompt_hash": prompt_hash,
            "prompt_version": template.version_tag,
        }
        with transaction.atomic():
            failed = pending.update(**outcome)
            if failed:
                run_count_failed_cell(run_id=generation.run_id)
        if failed:
            set_as_stored(generation, outcome)
        return bool(failed)
    answered: dict[str, Any] = {
        "status": Generation.Status.DONE,
        "text": response.text.strip(),
        "tokens_in": response.input_tokens,
        "tokens_out": response.output_tokens,
        "latency_s": 0.0 if response.cached else response.latency_s,
        "cost_usd": Decimal(str(round(response.cost_usd, 6))),
        "cached": response.cached,
        "prompt_hash": prompt_hash,
        "prompt_version": template.version_tag,
    }
    with transaction.atomic():
        updated = pending.update(**answered)
        if updated:
            run_count(run_id=generation.run_id, stage=ANSWER_STAGE, cost_usd=response.cost_usd)
    if updated:
        set_as_stored(generation, answered)
    return bool(updated)
