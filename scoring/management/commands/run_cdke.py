"""python manage.py run_cdke --dataset NAME --models local --evaluators local --temperatures 0.2
--conditions divergent,real [--limit N] [--no-cache] [--budget USD] [--sync] [--json FILE]"""

import json
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalplatform.runs.cli import dataset_named, finite_number, follow_run, run_inline
from evalplatform.runs.fingerprint import fingerprint_lines, run_fingerprint
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import Run
from evalplatform.runs.services import run_estimate
from evalplatform.runs.spec import (
    AC_CONVENTIONS,
    DEFAULT_AC_CONVENTION,
    DEFAULT_JUDGE_PROMPTS,
    JUDGE_PROMPT_SETS,
    RunSpec,
    SpecError,
)
from scoring.cdke.results import (
    context_correlations,
    correlation_table,
    error_class_rows,
    error_table,
    result_rows,
    run_results_json,
    table2,
)
from scoring.kg_results import kg_results, kg_table
from scoring.s3kg import DEFAULT_VARIANT


class Command(BaseCommand):
    help = "Launch a CDK-E run (answers and judge metrics), show its progress and print the paper's Table 2."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--models", required=True, help="Comma-separated endpoint names, e.g. local.")
        parser.add_argument("--evaluators", default="", help="Comma-separated evaluator endpoint names.")
        parser.add_argument("--temperatures", default="0.2")
        parser.add_argument("--conditions", default="divergent", help="divergent, real, none (comma-separated).")
        parser.add_argument("--samples", type=int, default=1)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--limit", type=int, help="Ask only the first N questions.")
        parser.add_argument("--per-context", type=int, help="Ask only the first N questions of each context.")
        parser.add_argument("--no-cache", action="store_true", help="Bypass the response cache.")
        parser.add_argument("--budget", help="Hard budget in USD; the run stops cleanly there.")
        parser.add_argument(
            "--ac-convention",
            default=DEFAULT_AC_CONVENTION,
            choices=AC_CONVENTIONS,
            help="ragas: 0.75 on FC, reproduces paper C's Table 2 (default); paper: 0.25, its text read literally.",
        )
        parser.add_argument(
            "--judge-prompts",
            default=DEFAULT_JUDGE_PROMPTS,
            choices=JUDGE_PROMPT_SETS,
            help="The evaluators' prompts: 2 (shown the context, the five-level rubric; default), authors (the "
            "prompts published with the DKD), 1 (our first).",
        )
        parser.add_argument(
            "--kg",
            metavar="EXTRACTOR",
            help="Also score knowledge graphs (S3KG / CUS / TAU): dependency or llm:<endpoint>.",
        )
        parser.add_argument("--sync", action="store_true", help="Run inline instead of through the workers.")
        parser.add_argument("--json", type=Path, help="Write the results as JSON to this file.")
        parser.add_argument(
            "--timeout", type=finite_number(), default=24 * 3600, help="Seconds to wait for the workers."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        dataset = dataset_named(options["dataset"])
        spec: dict[str, Any] = {
            "models": options["models"],
            "evaluators": options["evaluators"],
            "temperatures": options["temperatures"],
            "conditions": options["conditions"],
            "samples": options["samples"],
            "seed": options["seed"],
            "use_cache": not options["no_cache"],
            "ac_convention": options["ac_convention"],
            "judge_prompts": options["judge_prompts"],
        }
        if options["limit"]:
            spec["limit"] = options["limit"]
        if options["per_context"]:
            spec["per_context"] = options["per_context"]
        if options["kg"]:
            spec["kg"] = {"extractor": options["kg"], "variants": [DEFAULT_VARIANT, "s3kg_reference"]}
        try:
            budget = Decimal(options["budget"]) if options["budget"] else None
        except InvalidOperation:
            raise CommandError(f"--budget {options['budget']!r} is not an amount in USD") from None
        if budget is not None and (not budget.is_finite() or budget < 0):
            raise CommandError(f"--budget {options['budget']!r} is not an amount in USD (a finite number from 0)")
        try:
            parsed = RunSpec.from_dict(spec)
            estimate = run_estimate(dataset=dataset, spec=parsed)
            self.stdout.write(
                f"pre-flight estimate: {estimate.n_requests} calls, ~{estimate.input_tokens} input and "
                f"<= {estimate.output_tokens} output tokens, <= ${estimate.cost_usd:.4f}"
            )
            if options["sync"]:
                run_inline()
            run = run_launch(dataset=dataset, spec=spec, budget_usd=budget)
        except SpecError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"run {run.pk}: {run.progress_total} units of work")
        follow_run(run, timeout_s=options["timeout"])
        self.report(run, options["json"])

    def report(self, run: Run, json_path: Path | None) -> None:
        self.stdout.write(f"cost ${run.cost_usd:.6f}")
        for line in fingerprint_lines(run_fingerprint(run)):
            self.stdout.write(f"# {line}")
        self.stdout.write(table2(result_rows(run)))
        self.stdout.write("")
        self.stdout.write(error_table(error_class_rows(run)))
        self.stdout.write(correlation_table(context_correlations(run)))
        if run.spec.get("kg"):
            self.stdout.write("")
            self.stdout.write("knowledge graphs (GoldSim = S3KG(answer, gold), CtxSim = S3KG(answer, context)):")
            self.stdout.write(kg_table(kg_results(run)))
        if json_path is not None:
            json_path.write_text(json.dumps(run_results_json(run), indent=2))
            self.stdout.write(f"wrote {json_path}")
