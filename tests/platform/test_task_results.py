"""The per-cell tasks of a run store no result in Celery's result backend: nothing reads them (progress is in the
database), and thousands per run would each cost the worker a serialisation and a write."""

from scoring.cdke.tasks import feed_answers_task, generation_answer_task, generation_score_task, similarity_batch_task


def test_the_per_cell_tasks_store_no_result() -> None:
    for task in (generation_answer_task, generation_score_task, similarity_batch_task, feed_answers_task):
        assert task.ignore_result is True, task.name
