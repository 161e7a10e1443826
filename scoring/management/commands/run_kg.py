"""Knowledge-graph runs (S3KG / CUS / TAU).

Launch one: ``python manage.py run_kg --dataset NAME --models local --temperatures 0.0,0.3,0.7,1.0
--extractor dependency [--variants s3kg,...] [--limit N] [--sync] [--json FILE]``.
Second pass over an existing (CDK-E) run's answers: ``python manage.py run_kg --run ID [--extractor ...]``.
Prints GoldSim, CtxSim and CUS per model and temperature with 95 % bootstrap intervals, n scored, skipped
and failed, and the TAU counts over the lowest 5 %."""

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalplatform.runs.cli import dataset_named, finite_number, follow_run, run_inline, whole_number
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import Run
from evalplatform.runs.spec import SpecError
from scoring.kg_results import kg_results, kg_table
from scoring.kg_spec import KGSpec
from scoring.s3kg import DEFAULT_VARIANT
from scoring.services.kg_runs import run_graph_pass


class Command(BaseCommand):
    help = "Launch a knowledge-graph run, or score the graphs of an existing run's answers (--run)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--run", type=int, help="Second pass over this run's answered generations.")
        parser.add_argument("--dataset", help="Dataset of a new kg run.")
        parser.add_argument("--models", default="local", help="Comma-separated endpoint names.")
        parser.add_argument("--temperatures", default="0.0,0.3,0.7,1.0", help="The paper's sweep by default.")
        parser.add_argument("--conditions", default="divergent")
        parser.add_argument("--limit", type=whole_number(), help="Ask only the first N questions.")
        parser.add_argument("--extractor", default="dependency", help="dependency, llm:ENDPOINT or imported.")
        parser.add_argument("--variants", default=DEFAULT_VARIANT, help="Comma-separated S3KG variants.")
        parser.add_argument("--encoder", default=None, help="Sentence-transformers model directory.")
        parser.add_argument("--alpha", type=finite_number(0.0, 1.0), default=0.5)
        parser.add_argument("--no-cache", action="store_true", help="Bypass the response cache.")
        parser.add_argument("--sync", action="store_true", help="Run inline instead of through the workers.")
        parser.add_argument("--json", type=Path, help="Write the result rows as JSON to this file.")
        parser.add_argument(
            "--timeout", type=finite_number(), default=24 * 3600, help="Seconds to wait for the workers."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            kg = KGSpec.from_dict(
                {
                    "extractor": options["extractor"],
                    "variants": options["variants"],
                    "encoder": options["encoder"],
                    "alpha": options["alpha"],
                }
            )
        except SpecError as exc:
            raise CommandError(str(exc)) from None
        if options["run"] is not None:
            run = Run.objects.filter(pk=options["run"]).first()
            if run is None:
                raise CommandError(f"no run {options['run']}")
            counts = run_graph_pass(run=run, kg=kg, use_cache=not options["no_cache"])
            self.stdout.write(
                f"run {run.pk}: {counts['generations']} answered generations, {counts['written']} scored now, "
                f"{counts['tau']} new TAU diagnoses"
            )
        else:
            run = self._launch(kg, options)
        rows = kg_results(run, kg=kg)
        self.stdout.write(kg_table(rows))
        if options["json"] is not None:
            options["json"].write_text(json.dumps({"run": run.pk, "rows": rows}, indent=2))
            self.stdout.write(f"wrote {options['json']}")

    def _launch(self, kg: KGSpec, options: dict[str, Any]) -> Run:
        if not options["dataset"]:
            raise CommandError("give --dataset NAME for a new kg run, or --run ID for a second pass")
        dataset = dataset_named(options["dataset"])
        spec: dict[str, Any] = {
            "models": options["models"],
            "temperatures": options["temperatures"],
            "conditions": options["conditions"],
            "use_cache": not options["no_cache"],
            "kg": kg.to_dict(),
        }
        if options["limit"]:
            spec["limit"] = options["limit"]
        if options["sync"]:
            run_inline()
        try:
            run = run_launch(dataset=dataset, spec=spec, kind=Run.Kind.KG)
        except SpecError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"run {run.pk}: {run.progress_total} units of work")
        return follow_run(run, timeout_s=options["timeout"])
