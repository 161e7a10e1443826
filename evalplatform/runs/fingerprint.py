"""A run's fingerprint (issue 17, item 6: paper-reproduction mode): everything that shapes its numbers, in one JSON
object with a stable hash, recorded in the run's manifest at launch and printed with every table of its results.

It holds:

- ``code``: the code's version. The git commit when the deployment says which: the environment variable
  ``EVALPLATFORM_GIT_COMMIT`` (set it in CI or ``docker build --build-arg``), else the first line of the file
  ``BUILD_COMMIT`` at the repository root (write it at build: ``git rev-parse HEAD > BUILD_COMMIT``); else the
  pipeline's version string (``PIPELINE_VERSION``), with ``source`` saying which. Git is never run here: a request
  or a worker must not depend on a ``.git`` directory or a ``git`` binary being there, and a checkout's HEAD can
  move under a running server, so the commit is fixed when the code is deployed;
- ``prompts``: every prompt template's version tag (name, version and a hash of its text), from the stages'
  manifests, and the judges' prompt set;
- ``constants``: what the stages record beside their prompts (the AC weight and convention, the metrics' versions,
  the judges' sampling, the embedder, the knowledge-graph options);
- ``models`` and ``evaluators``: each endpoint's provider, model id, base URL (without credentials or query),
  region, mode and default sampling; never a key, and not even the name of its variable;
- ``dataset``: its name and version;
- ``sampling``: seed, temperatures, samples, conditions and which questions (limit, per context, validated only).

The hash is the SHA-256 of the canonical JSON of all of it (sorted keys), so the same inputs give the same hash on
any machine; whether the response cache was used, the budget and the Python version are not in it (they do not
change what a model is asked)."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings

from evalplatform.corpus.models import Dataset
from evalplatform.hashing import text_hash
from evalplatform.runs.models import ModelEndpoint, Run
from evalplatform.runs.spec import RunSpec, SpecError
from evalplatform.strict_json import dumps

FINGERPRINT_VERSION = "fingerprint@1"
COMMIT_ENV = "EVALPLATFORM_GIT_COMMIT"
COMMIT_FILE = "BUILD_COMMIT"
# The manifest's keys that are not constants: the prompts have their own section, the rest is not hashed.
NOT_CONSTANTS = ("prompts", "pipeline", "python", "fingerprint", "reproduces")
ENDPOINT_FIELDS = (
    "provider",
    "model_id",
    "base_url",
    "region",
    "mode",
    "default_temperature",
    "default_top_p",
    "default_top_k",
    "default_max_tokens",
)


@lru_cache(maxsize=4)
def _commit_file(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").strip().splitlines()[0].strip()[:80]
    except (OSError, IndexError):
        return ""


def code_version(pipeline: str) -> dict[str, str]:
    """The code's version and where it came from (the environment, the build file, or the pipeline's version)."""
    commit = os.environ.get(COMMIT_ENV, "").strip()[:80]
    if commit:
        return {"version": commit, "source": f"env:{COMMIT_ENV}", "pipeline": pipeline}
    commit = _commit_file(Path(settings.BASE_DIR) / COMMIT_FILE)
    if commit:
        return {"version": commit, "source": f"file:{COMMIT_FILE}", "pipeline": pipeline}
    return {"version": pipeline, "source": "pipeline", "pipeline": pipeline}


def public_url(url: str) -> str:
    """A base URL without user, password, query or fragment (where a key could hide)."""
    if not url:
        return ""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def endpoint_settings(endpoint: ModelEndpoint) -> dict[str, Any]:
    """What of an endpoint shapes its answers: never its key, nor the name of the key's variable."""
    found = {name: getattr(endpoint, name) for name in ENDPOINT_FIELDS}
    found["base_url"] = public_url(endpoint.base_url)
    return found


def _endpoints(names: list[str]) -> dict[str, dict[str, Any]]:
    rows = {e.name: e for e in ModelEndpoint.objects.filter(name__in=names)}
    return {name: endpoint_settings(rows[name]) if name in rows else {"missing": True} for name in names}


def fingerprint_hash(fingerprint: dict[str, Any]) -> str:
    body = {k: v for k, v in fingerprint.items() if k not in ("hash", "recorded_at_launch")}
    return text_hash(dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False))


def build_fingerprint(*, dataset: Dataset, spec: RunSpec, manifest: dict[str, Any], pipeline: str) -> dict[str, Any]:
    """The fingerprint of a run of ``spec`` on ``dataset`` whose stages wrote ``manifest``."""
    fingerprint: dict[str, Any] = {
        "schema": FINGERPRINT_VERSION,
        "code": code_version(pipeline),
        "dataset": {"name": dataset.name, "version": dataset.version},
        "prompts": {"templates": dict(manifest.get("prompts", {})), "judge_prompts": spec.judge_prompts},
        "constants": {k: v for k, v in manifest.items() if k not in NOT_CONSTANTS}
        | {"ac_convention": spec.ac_convention, "fc_weight": spec.fc_weight},
        "models": _endpoints(spec.models),
        "evaluators": _endpoints(spec.evaluators),
        "sampling": {
            "seed": spec.seed,
            "temperatures": list(spec.temperatures),
            "samples": spec.samples,
            "conditions": list(spec.conditions),
            "limit": spec.limit,
            "per_context": spec.per_context,
            "only_validated": spec.only_validated,
            "metrics": list(spec.metrics),
        },
    }
    fingerprint["hash"] = fingerprint_hash(fingerprint)
    return fingerprint


def run_fingerprint(run: Run) -> dict[str, Any]:
    """The fingerprint recorded at the run's launch; for a run launched before fingerprints were recorded, one
    made now from its spec, its dataset and the manifest it recorded (``recorded_at_launch`` false: the code
    version and the endpoints' settings are today's)."""
    recorded = (run.manifest or {}).get("fingerprint")
    if isinstance(recorded, dict) and recorded.get("hash"):
        return recorded
    manifest = run.manifest or {}
    pipeline = str(manifest.get("pipeline", ""))
    try:
        spec = RunSpec.from_dict(run.spec)
    except SpecError:  # a similarity benchmark: its spec and manifest are all there is
        fingerprint: dict[str, Any] = {
            "schema": FINGERPRINT_VERSION,
            "code": code_version(pipeline),
            "dataset": {"name": run.dataset.name, "version": run.dataset.version},
            "spec": run.spec,
            "constants": {k: v for k, v in manifest.items() if k not in NOT_CONSTANTS},
        }
        fingerprint["hash"] = fingerprint_hash(fingerprint)
    else:
        fingerprint = build_fingerprint(dataset=run.dataset, spec=spec, manifest=manifest, pipeline=pipeline)
    return fingerprint | {"recorded_at_launch": False}


def fingerprint_lines(fingerprint: dict[str, Any]) -> list[str]:
    """The fingerprint as short lines, printed above every table of a run's results and in its exports."""
    code = fingerprint.get("code", {})
    dataset = fingerprint.get("dataset", {})
    prompts = fingerprint.get("prompts", {})
    constants = fingerprint.get("constants", {})
    sampling = fingerprint.get("sampling", {})

    def endpoints(section: str) -> str:
        found = fingerprint.get(section, {})
        return ", ".join(f"{name} ({s.get('provider', '?')} {s.get('model_id', '?')})" for name, s in found.items())

    judge = constants.get("metrics", {}).get("judge_sampling", {}) if isinstance(constants.get("metrics"), dict) else {}
    lines = [
        f"fingerprint {str(fingerprint.get('hash', ''))[:16]} ({fingerprint.get('schema', '')})"
        + ("" if fingerprint.get("recorded_at_launch", True) else ", made after the launch"),
        f"code {code.get('version', '')} ({code.get('source', '')}; pipeline {code.get('pipeline', '')})",
        f"dataset {dataset.get('name', '')} version {dataset.get('version', '')}",
        f"prompts: judge set {prompts.get('judge_prompts', '')}; "
        + ", ".join(sorted(str(v) for v in prompts.get("templates", {}).values())),
        f"AC convention {constants.get('ac_convention', '')} (w = {constants.get('fc_weight', '')} on FC)"
        + (f"; judges at temperature {judge.get('temperature')}, seed {judge.get('seed')}" if judge else ""),
        f"models: {endpoints('models') or 'none'}; evaluators: {endpoints('evaluators') or 'none'}",
        f"seed {sampling.get('seed', '')}, temperatures {', '.join(str(t) for t in sampling.get('temperatures', []))}, "
        f"samples {sampling.get('samples', '')}, conditions {', '.join(sampling.get('conditions', []))}",
    ]
    return lines
