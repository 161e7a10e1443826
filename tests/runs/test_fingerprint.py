"""A run's fingerprint: recorded at launch, stable for the same inputs, changed by a constant, a prompt version or
the code's version, never holding a key; printed with the results; and reproduce_run, which re-runs a finished
run from it and reports every score that moved."""

import dataclasses
import json
from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from evalplatform.corpus.models import Dataset
from evalplatform.runs import fingerprint as fingerprint_module
from evalplatform.runs.fingerprint import COMMIT_ENV, build_fingerprint, fingerprint_lines, run_fingerprint
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import ModelEndpoint, Run
from evalplatform.runs.services import PIPELINE_VERSION, run_manifest
from evalplatform.runs.spec import RunSpec
from scoring.cdke import stages as cdke_stages
from scoring.cdke.reproduce import moved_scores
from scoring.exports import export_run
from tests.runs.judge_server import JudgeServer

pytestmark = pytest.mark.django_db
SPEC: dict[str, Any] = {"models": ["cand"], "evaluators": ["judge-a"], "limit": 2, "conditions": ["divergent"]}
SECRET = "sk-live-0123456789abcdefSECRET"


@pytest.fixture(autouse=True)
def _no_commit_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(COMMIT_ENV, raising=False)


def planned(dataset: Dataset, **spec: Any) -> Run:
    """A run launched without sending it to the workers (its cells planned, its manifest written)."""
    return run_launch(dataset=dataset, spec=SPEC | spec, enqueue=False)


def fingerprint_now(dataset: Dataset, **spec: Any) -> dict[str, Any]:
    parsed = RunSpec.from_dict(SPEC | spec)
    return build_fingerprint(dataset=dataset, spec=parsed, manifest=run_manifest(parsed), pipeline=PIPELINE_VERSION)


def test_the_fingerprint_is_recorded_at_launch_and_stable(
    sample_dataset: Dataset, endpoint_factory: Callable[..., ModelEndpoint]
) -> None:
    endpoint_factory("cand", model_id="cand-model")
    endpoint_factory("judge-a")
    first, second = planned(sample_dataset), planned(sample_dataset, use_cache=False)
    fp = first.manifest["fingerprint"]
    assert run_fingerprint(first) == fp
    # The same inputs give the same hash (whether the cache was used is not an input of the numbers).
    assert second.manifest["fingerprint"]["hash"] == fp["hash"] and len(fp["hash"]) == 64
    assert fingerprint_now(sample_dataset)["hash"] == fp["hash"]
    assert fp["dataset"] == {"name": "sample", "version": 1}
    assert fp["code"] == {"version": PIPELINE_VERSION, "source": "pipeline", "pipeline": PIPELINE_VERSION}
    assert fp["prompts"]["judge_prompts"] == "2" and any("@" in v for v in fp["prompts"]["templates"].values())
    assert fp["constants"]["ac_convention"] == "ragas" and fp["constants"]["fc_weight"] == 0.75
    assert fp["constants"]["metrics"]["judge_sampling"] == {"temperature": 0.0, "seed": 0}
    assert fp["models"]["cand"]["model_id"] == "cand-model" and fp["evaluators"]["judge-a"]["provider"]
    assert fp["sampling"] == {
        "seed": 0,
        "temperatures": [0.2],
        "samples": 1,
        "conditions": ["divergent"],
        "limit": 2,
        "per_context": None,
        "only_validated": False,
        "metrics": ["fc", "ac", "acc", "cm", "lav"],
    }
    lines = fingerprint_lines(fp)
    assert lines[0].startswith(f"fingerprint {fp['hash'][:16]}") and "dataset sample version 1" in lines


def test_the_fingerprint_changes_with_a_constant_a_prompt_a_seed_an_endpoint_or_the_code(
    sample_dataset: Dataset,
    endpoint_factory: Callable[..., ModelEndpoint],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    endpoint_factory("cand")
    endpoint_factory("judge-a")
    base = fingerprint_now(sample_dataset)["hash"]
    assert fingerprint_now(sample_dataset, ac_convention="paper")["hash"] != base  # AC weight 0.25
    assert fingerprint_now(sample_dataset, judge_prompts="authors")["hash"] != base
    assert fingerprint_now(sample_dataset, seed=1)["hash"] != base
    assert fingerprint_now(sample_dataset, temperatures=[0.7])["hash"] != base
    # A prompt template's version changes its tag, and so the fingerprint.
    bumped = dataclasses.replace(cdke_stages.ANSWER_WITH_CONTEXT, version="bumped")
    with monkeypatch.context() as m:
        m.setattr(cdke_stages, "ANSWER_WITH_CONTEXT", bumped)
        assert fingerprint_now(sample_dataset)["hash"] != base
    assert fingerprint_now(sample_dataset)["hash"] == base
    # An endpoint's sampling.
    ModelEndpoint.objects.filter(name="cand").update(default_top_p=0.5)
    assert fingerprint_now(sample_dataset)["hash"] != base
    ModelEndpoint.objects.filter(name="cand").update(default_top_p=0.9)
    assert fingerprint_now(sample_dataset)["hash"] == base
    # The code's version: the environment first, then the file written at build.
    monkeypatch.setenv(COMMIT_ENV, "0123abc")
    with_env = fingerprint_now(sample_dataset)
    assert with_env["code"]["version"] == "0123abc" and with_env["code"]["source"] == f"env:{COMMIT_ENV}"
    assert with_env["hash"] != base
    monkeypatch.delenv(COMMIT_ENV)
    (tmp_path / "BUILD_COMMIT").write_text("fedcba9\n")
    monkeypatch.setattr(fingerprint_module.settings, "BASE_DIR", tmp_path)
    assert fingerprint_now(sample_dataset)["code"] == {
        "version": "fedcba9",
        "source": "file:BUILD_COMMIT",
        "pipeline": PIPELINE_VERSION,
    }


def test_no_key_reaches_the_fingerprint(
    sample_dataset: Dataset,
    endpoint_factory: Callable[..., ModelEndpoint],
    monkeypatch: pytest.MonkeyPatch,
    judge_server: JudgeServer,
) -> None:
    monkeypatch.setenv("JUDGE_API_KEY", SECRET)
    port = judge_server.base_url.split(":")[2].split("/")[0]
    endpoint_factory("cand", api_key_env="JUDGE_API_KEY", base_url=f"http://user:{SECRET}@127.0.0.1:{port}/v1?key=x")
    endpoint_factory("judge-a", api_key_env="JUDGE_API_KEY")
    run = planned(sample_dataset)
    text = json.dumps(run.manifest) + "\n".join(fingerprint_lines(run_fingerprint(run)))
    assert SECRET not in text and "JUDGE_API_KEY" not in text and "key=x" not in text and "user" not in text
    assert run.manifest["fingerprint"]["models"]["cand"]["base_url"] == f"http://127.0.0.1:{port}/v1"


def test_the_fingerprint_is_printed_with_the_results_and_the_exports(
    sample_dataset: Dataset, endpoint_factory: Callable[..., ModelEndpoint], launch: Callable[..., Run]
) -> None:
    endpoint_factory("cand")
    endpoint_factory("judge-a")
    run = launch(sample_dataset, **SPEC)
    fp = run.manifest["fingerprint"]
    for kind in ("fingerprint",):
        for fmt in ("csv", "jsonl"):
            assert fp["hash"] in "".join(export_run(run, kind, fmt))
    for kind in ("generations", "scores"):
        jsonl = "".join(export_run(run, kind, "jsonl")).splitlines()
        assert json.loads(jsonl[0])["fingerprint"] == fp["hash"][:16]
        assert "fingerprint" in next(export_run(run, kind, "csv"))


@pytest.mark.django_db(transaction=True)  # the command's launch commits, and its tasks run then (--sync)
def test_reproduce_run_reports_every_score_that_moved(
    sample_dataset: Dataset, endpoint_factory: Callable[..., ModelEndpoint], judge_server: JudgeServer
) -> None:
    endpoint_factory("cand")
    endpoint_factory("judge-a")
    first = run_launch(dataset=sample_dataset, spec=SPEC)
    first.refresh_from_db()
    assert first.status == Run.Status.DONE
    asked = judge_server.count()
    judge_server.inject("lav", ("reply", json.dumps({"verdict": "invalid"})))  # one verdict differs this time
    out = StringIO()
    call_command("reproduce_run", str(first.pk), "--sync", "--timeout", "120", stdout=out)
    second = Run.objects.exclude(pk=first.pk).get()
    assert second.status == Run.Status.DONE and second.manifest["reproduces"] == first.pk
    assert second.spec["use_cache"] is False and second.dataset_id == first.dataset_id
    assert second.manifest["fingerprint"]["hash"] == first.manifest["fingerprint"]["hash"]
    # The cache is off: every answer was asked again.
    assert judge_server.count()["answer"] - asked["answer"] == 2
    report = moved_scores(first, second)
    assert report.compared == 2 * 6 and report.fingerprint_changes == []
    (moved,) = report.moved
    assert (moved.metric, moved.scorer, moved.old, moved.new, moved.delta) == ("lav", "judge-a", 1.0, 0.0, -1.0)
    text = out.getvalue()
    assert "1 of 12 scores moved (lav 1)" in text and "-1.0000" in text and "# fingerprint " in text
