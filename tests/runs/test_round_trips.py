"""Writes on a cell's hot path that are one statement each make no transaction of their own (issue 15, goal 2).

A cell makes seven provider calls, and each stores its response in the shared cache; two more write a statement
set's claim. Wrapped in ``transaction.atomic`` (as ``bulk_create`` wraps itself), each single INSERT cost two more
round trips, BEGIN and COMMIT, and about twice the CPU (1.0 ms against 0.5 on a two-core machine). Outside a
transaction one statement is atomic by itself; inside a caller's transaction the claim still takes a savepoint, so
that losing the race leaves the caller's transaction usable."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection, transaction
from django.db.models import F

from evalplatform.corpus.models import Dataset
from evalplatform.llm.types import LLMResponse
from evalplatform.runs.clients import DatabaseResponseCache, client_for
from evalplatform.runs.models import CachedResponse, Generation, ModelEndpoint, Run, StageProgress
from evalplatform.runs.spec import RunSpec
from scoring.cdke.answer import ANSWER_STAGE, generation_answer
from scoring.cdke.statements import _claim_new
from scoring.models import StatementSet

EndpointFactory = Callable[..., ModelEndpoint]


@contextmanager
def statements_seen() -> Iterator[list[tuple[str, bool]]]:
    """Each statement this connection runs, with whether it ran inside an atomic block (a transaction Django
    opened with BEGIN, or a savepoint in one)."""
    seen: list[tuple[str, bool]] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        seen.append((sql, connection.in_atomic_block))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        yield seen


def response(text: str) -> LLMResponse:
    return LLMResponse(text=text, finish_reason="stop", input_tokens=3, output_tokens=2, latency_s=0.1)


@pytest.mark.django_db(transaction=True)
def test_a_cache_put_is_one_statement_in_autocommit_and_the_first_response_stays() -> None:
    cache = DatabaseResponseCache(provider="openai", model_id="m")
    with statements_seen() as seen:
        cache.put("k1", response("first"))
    assert [in_block for _, in_block in seen] == [False]  # SQLite shows its BEGIN here; PostgreSQL's is implicit
    assert seen[0][0].startswith("INSERT")
    cache.put("k1", response("second"))  # two workers answering the same request: the first one stays
    assert CachedResponse.objects.filter(key="k1").count() == 1
    stored = cache.get("k1")
    assert stored is not None and stored.text == "first"


@pytest.mark.django_db(transaction=True)
def test_a_claim_outside_a_transaction_is_one_statement_in_autocommit(endpoint_factory: EndpointFactory) -> None:
    key: dict[str, object] = {"evaluator": endpoint_factory("judge"), "text_hash": "h", "prompt_version": "v1"}
    with statements_seen() as seen:
        claimed = _claim_new(key, None)
    assert claimed is not None
    assert [in_block for _, in_block in seen] == [False]
    assert _claim_new(key, None) is None  # claimed already: the loser gets None
    assert StatementSet.objects.filter(text_hash="h").count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_claim_lost_inside_a_transaction_leaves_that_transaction_usable(endpoint_factory: EndpointFactory) -> None:
    key: dict[str, object] = {"evaluator": endpoint_factory("judge"), "text_hash": "h", "prompt_version": "v1"}
    assert _claim_new(key, None) is not None
    with transaction.atomic():
        assert _claim_new(key, None) is None
        assert StatementSet.objects.filter(text_hash="h").count() == 1  # would raise on an aborted transaction


@pytest.mark.django_db
def test_an_answer_stored_is_on_the_cell_without_reading_it_back(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory
) -> None:
    """The answer task handed the cell to the later stages after reading the whole row again; the writer knows
    what it stored."""
    endpoint_factory("cand")
    run = launch(sample_dataset, models=["cand"], limit=1)
    cell = Generation.objects.select_related("run", "question__context", "model").filter(run=run).first()
    assert cell is not None
    Generation.objects.filter(pk=cell.pk).update(status=Generation.Status.PENDING, text="")
    StageProgress.objects.filter(run=run, stage=ANSWER_STAGE).update(done=F("done") - 1)  # the cell is to do again
    Run.objects.filter(pk=run.pk).update(progress_done=F("progress_done") - 1, status=Run.Status.RUNNING)
    cell.status, cell.text = Generation.Status.PENDING, ""
    spec = RunSpec.from_dict(run.spec)
    with statements_seen() as seen:
        assert generation_answer(generation=cell, client=client_for(cell.model, use_cache=False), spec=spec)
    stored = Generation.objects.get(pk=cell.pk)
    assert stored.status == Generation.Status.DONE and stored.text
    assert (cell.status, cell.text) == (stored.status, stored.text)
    assert not any(sql.startswith("SELECT") and "runs_generation" in sql for sql, _ in seen)
