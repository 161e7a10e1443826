"""Finding 15: answer statements were cached by text alone across questions and projects, although the
extraction prompt holds the question (one extraction served 19 questions), and concurrent misses each paid for
their own judge call. Now a statement set is keyed by question and text, and one caller extracts while the others
wait for it."""

import threading
from collections.abc import Callable

import pytest
from django.db import connection

from evalplatform.corpus.models import Dataset
from evalplatform.runs.clients import client_for
from evalplatform.runs.models import ModelEndpoint, Run
from scoring.cdke.judge import JudgeContext
from scoring.cdke.judge_prompts import JUDGE_PROMPT_SETS
from scoring.cdke.statements import statements_for
from scoring.models import StatementSet
from tests.runs.judge_server import JudgeServer

pytestmark = pytest.mark.django_db
EndpointFactory = Callable[..., ModelEndpoint]


def test_the_same_answer_to_two_questions_is_split_twice(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory, judge_server: JudgeServer
) -> None:
    """The extraction prompt holds the question: keyed by the text alone, one extraction served every question."""
    endpoint_factory("cand")
    endpoint_factory("judge")
    sample_dataset.questions.update(ground_truth="The same ground truth.")
    launch(sample_dataset, models=["cand"], evaluators=["judge"], limit=2)
    truth_sets = StatementSet.objects.filter(question__isnull=False)
    assert truth_sets.count() == 2 and truth_sets.values("text_hash").distinct().count() == 2
    assert judge_server.count()["statements"] == 4  # two ground truths, two answers


@pytest.mark.django_db(transaction=True)
def test_concurrent_misses_ask_the_evaluator_once(endpoint_factory: EndpointFactory, judge_server: JudgeServer) -> None:
    judge = endpoint_factory("judge")
    judge_server.latency_s = 0.5  # long enough for every thread to miss before the first answer is stored
    found: list[int] = []
    errors: list[BaseException] = []

    def extract() -> None:
        try:
            context = JudgeContext(
                evaluator=judge, client=client_for(judge), prompts=JUDGE_PROMPT_SETS["2"], use_cache=False
            )
            found.append(statements_for(context, question_text="Who wrote it?", text="Ray Bradbury wrote it.").pk)
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=extract) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors
    assert len(found) == 4 and len(set(found)) == 1
    assert judge_server.count()["statements"] == 1  # without the claim: one call per thread
    assert StatementSet.objects.get().ready
