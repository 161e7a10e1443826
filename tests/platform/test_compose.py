"""docker-compose.yml cannot be started here (no Docker engine), so what it promises is read from the file: with
queues by kind switched on, every queue a task is routed to has a worker listening to it, the model-calling worker
runs threads, and one beat sends the run watchdog."""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings

REPO = Path(__file__).resolve().parents[2]


def _compose() -> dict[str, Any]:
    compose: dict[str, Any] = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    return compose


def _option(argv: list[str], *names: str) -> str | None:
    for index, word in enumerate(argv):
        if word in names and index + 1 < len(argv):
            return argv[index + 1]
        for name in names:
            if name.startswith("--") and word.startswith(f"{name}="):
                return word.split("=", 1)[1]
    return None


def _celery_services(compose: dict[str, Any], kind: str) -> dict[str, list[str]]:
    found = {}
    for name, service in compose["services"].items():
        argv = shlex.split(str(service.get("command", "")))
        if argv[:4] == ["celery", "-A", "evalplatform", kind]:
            found[name] = argv
    return found


def test_every_routed_queue_has_a_worker_and_the_routing_is_switched_on() -> None:
    compose = _compose()
    workers = _celery_services(compose, "worker")
    listened = set()
    for argv in workers.values():
        queues = _option(argv, "-Q", "--queues")
        assert queues, f"a worker without -Q listens only to the default queue: {argv}"
        listened.update(queues.split(","))
    routed = {settings.QUEUE_LLM, settings.QUEUE_EMBEDDINGS, settings.QUEUE_GRAPHS}
    assert routed | {settings.CELERY_TASK_DEFAULT_QUEUE} <= listened
    for name in workers:
        assert compose["services"][name]["environment"]["EVALPLATFORM_QUEUES_BY_KIND"] == "1", name


def test_model_calls_run_on_threads_and_exactly_one_beat_sends_the_watchdog() -> None:
    compose = _compose()
    workers = _celery_services(compose, "worker")
    llm = [argv for argv in workers.values() if _option(argv, "-Q", "--queues") == settings.QUEUE_LLM]
    assert len(llm) == 1 and _option(llm[0], "--pool", "-P") == "threads"
    assert int(_option(llm[0], "--concurrency", "-c") or 0) >= 8
    assert len(_celery_services(compose, "beat")) == 1
    assert "runs.watchdog" in {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}


ROUTES = (
    "import django, json; django.setup(); from django.conf import settings; "
    "print(json.dumps([settings.CELERY_TASK_DEFAULT_QUEUE, settings.QUEUE_LLM, settings.QUEUE_EMBEDDINGS, "
    "settings.QUEUE_GRAPHS, sorted({r['queue'] for r in settings.CELERY_TASK_ROUTES.values()})]))"
)


def _queues(env: dict[str, str]) -> list[Any]:
    drop = {"CELERY_TASK_DEFAULT_QUEUE", "EVALPLATFORM_QUEUE_PREFIX", "EVALPLATFORM_QUEUES_BY_KIND"}
    base = {k: v for k, v in os.environ.items() if k not in drop} | {"DEBUG": "1", "EVALPLATFORM_QUEUES_BY_KIND": "1"}
    done = subprocess.run([sys.executable, "-c", ROUTES], cwd=REPO, env=base | env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    queues: list[Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return queues


def test_a_queue_prefix_keeps_two_platforms_on_one_broker_apart() -> None:
    """Two deployments (or a benchmark beside a running platform) on one broker: with EVALPLATFORM_QUEUE_PREFIX every
    queue a task can go to carries the prefix, so neither's workers take the other's tasks."""
    assert _queues({}) == ["celery", "llm", "embeddings", "graphs", ["embeddings", "graphs", "llm"]]
    prefixed = ["b7-celery", "b7-llm", "b7-embeddings", "b7-graphs", ["b7-embeddings", "b7-graphs", "b7-llm"]]
    assert _queues({"EVALPLATFORM_QUEUE_PREFIX": "b7-"}) == prefixed
    # The default queue named outright wins over the prefix.
    assert _queues({"EVALPLATFORM_QUEUE_PREFIX": "b7-", "CELERY_TASK_DEFAULT_QUEUE": "own"})[0] == "own"
