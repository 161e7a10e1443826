"""Judge calibration (seeded sample, labels, per-evaluator report) and the TAU Table 2 report."""

import pytest
from django.urls import reverse

from annotation.models import CalibrationItem
from annotation.reports import KEA_METHOD, TAU_METHOD, calibration_report, tau_report
from annotation.services import (
    AnnotationError,
    calibration_label_submit,
    calibration_queue,
    tau_item_create,
    tau_label_submit,
)
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from scoring.models import GenerationScore
from tests.annotation.conftest import claim_tau


@pytest.fixture
def judged_run(world):
    candidate = ModelEndpoint.objects.create(name="cand", provider="openai", model_id="cand-1")
    judge = ModelEndpoint.objects.create(name="judge", provider="openai", model_id="judge-1")
    run = Run.objects.create(kind=Run.Kind.CDKE, dataset=world.dataset)
    gens = [
        Generation.objects.create(
            run=run,
            question=world.questions[i % 3],
            model=candidate,
            temperature=0.2,
            sample_index=i,
            condition="divergent",
            text=f"answer {i}",
            status="done",
        )
        for i in range(6)
    ]
    return run, judge, gens


def test_calibration_sample_is_seeded_and_labels_once_per_annotator(world, judged_run) -> None:
    run, _, _ = judged_run
    first = [c.generation_id for c in calibration_queue(run=run, sample_size=4, seed=7, actor=world.researcher)]
    CalibrationItem.objects.all().delete()
    again = [c.generation_id for c in calibration_queue(run=run, sample_size=4, seed=7)]
    assert first == again and len(first) == 4
    item = CalibrationItem.objects.get(generation_id=first[0])
    calibration_label_submit(item=item, annotator=world.annotator, lav=1, acc=0.75, cm=0.5)
    with pytest.raises(AnnotationError):
        calibration_label_submit(item=item, annotator=world.annotator, lav=0, acc=0, cm=0)
    with pytest.raises(AnnotationError):
        calibration_label_submit(item=item, annotator=world.other, lav=1, acc=0.3, cm=0)


def test_calibration_report_per_evaluator_and_model(world, judged_run) -> None:
    run, judge, gens = judged_run
    items = [CalibrationItem.objects.create(generation=g, seed=0) for g in gens[:4]]
    human = [(1, 1.0, 1.0), (1, 0.75, 0.5), (0, 0.25, 0.0), (0, 0.0, 0.0)]
    judge_lav = [1, 0, 0, 0]
    for item, (lav, acc, cm), j in zip(items, human, judge_lav, strict=True):
        calibration_label_submit(item=item, annotator=world.annotator, lav=lav, acc=acc, cm=cm)
        GenerationScore.objects.create(
            generation=item.generation, scorer="judge", evaluator=judge, metric="lav", value=j
        )
        GenerationScore.objects.create(
            generation=item.generation, scorer="judge", evaluator=judge, metric="acc", value=acc
        )
    for item, (_, _, cm) in zip(items[:3], human[:3], strict=True):
        GenerationScore.objects.create(
            generation=item.generation, scorer="judge", evaluator=judge, metric="cm", value=cm
        )
    GenerationScore.objects.create(
        generation=items[3].generation,
        scorer="judge",
        evaluator=judge,
        metric="cm",
        value=None,
        status="unparseable",
    )
    [row] = calibration_report(run=run)
    assert (row.evaluator, row.model) == ("judge", "cand")
    # LAV human 1 1 0 0, judge 1 0 0 0: p_o = 3/4; p_e = (2*1 + 2*3)/16 = 1/2; kappa = 1/2, accuracy 3/4.
    assert row.n_lav == 4
    assert row.lav_kappa == pytest.approx(0.5)
    assert row.lav_accuracy == pytest.approx(0.75)
    assert row.acc_weighted_kappa == pytest.approx(1.0)
    # Cm: the unparseable score is counted apart and left out of the comparison (3 pairs, all equal).
    assert (row.n_cm, row.unparseable) == (3, 1)
    assert row.cm_weighted_kappa == pytest.approx(1.0)


def test_tau_report_scores_kea_and_tau_against_the_majority(world) -> None:
    item = tau_item_create(
        gold=[["Tower", "located in", "Lyon"], ["tower", "finished in", "1901"]],
        answer=[["tower", "located_in", "lyon"], ["tower", "completed in", "1901"]],
    )
    labels = [[[0, 0], [1, 1]], [[0, 0], [1, 1]], [[0, 0]]]
    for user, aligned in zip([world.annotator, world.other, world.third], labels, strict=True):
        assignment = claim_tau(user)
        done = {str(g) for _, g in aligned}
        tau_label_submit(
            assignment=assignment,
            actor=user,
            aligned=aligned,
            answer_errors={} if len(aligned) == 2 else {"1": "relation_wrong"},
            gold_errors={str(j): "relation_wrong" for j in range(2) if str(j) not in done},
        )
    item.refresh_from_db()
    report = tau_report([item], tau_alignments={item.pk: {(0, 0), (1, 1)}})
    # Majority {(0,0),(1,1)}; annotator F1s 1, 2/3, 2/3: mean 7/9. KEA finds only (0,0): P 1, R 1/2, F1 2/3.
    assert report.annotator_f1 == pytest.approx(7 / 9)
    rows = dict(report.rows)
    assert rows[KEA_METHOD].micro_f1 == pytest.approx(2 / 3)
    assert rows[TAU_METHOD].macro_f1 == pytest.approx(1.0)


def test_the_tau_agreement_page_sets_the_papers_table_2_beside_ours(world, client) -> None:
    client.force_login(world.researcher)
    empty = client.get(reverse("annotation:tau-agreement")).content.decode()
    assert "No complete TAU item yet." in empty
    assert "paper S, Table 2: TAU" in empty and "0.895" in empty and "0.782" in empty  # micro and macro F1
    assert "paper S, Table 2: KEA" in empty and "0.836" in empty and "0.622" in empty
