"""python manage.py score_kg_qa FILE.jsonl [FILE.jsonl ...] [--encoder PATH] [--variant s3kg ...] [--json OUT]

Scores knowledge graphs imported with QA data (``kg_gold``, ``kg_context``, ``kg_llm`` with ``llm_answer`` and
``model``): imports each file as a qa-jsonl dataset named after it (or uses it when already imported), makes
one kg run per file and model with the imported answers, and prints GoldSim, CtxSim and CUS with 95 %
bootstrap intervals, n scored, n skipped (an empty graph: counted, never dropped) and the TAU counts over
the lowest 5 %."""

import json
import re
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalplatform.corpus.models import Dataset
from evalplatform.corpus.records import DatasetImportError
from evalplatform.corpus.services import dataset_import_file
from evalplatform.runs.cli import finite_number
from evalplatform.runs.models import Generation
from evalplatform.runs.services import run_reconcile_progress
from evalplatform.runs.spec import SpecError
from scoring.kg_results import kg_results, kg_table
from scoring.kg_spec import KGSpec
from scoring.s3kg import DEFAULT_VARIANT, VARIANTS
from scoring.services.graph_scores import graph_scores_compute
from scoring.services.kg_runs import kg_run_of_imported_answers, run_tau


def dataset_name_for(path: Path) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", path.stem)[:120].strip("-") or "qa"


class Command(BaseCommand):
    help = "Score the knowledge graphs imported with QA files: GoldSim, CtxSim, CUS and TAU per file and model."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", type=Path)
        parser.add_argument("--encoder", default=None, help="Sentence-transformers model directory.")
        parser.add_argument(
            "--variant",
            action="append",
            choices=sorted(VARIANTS),
            help=f"S3KG variant (repeatable); {DEFAULT_VARIANT} by default.",
        )
        parser.add_argument("--alpha", type=finite_number(0.0, 1.0), default=0.5)
        parser.add_argument("--json", type=Path, help="Write the rows as JSON to this file.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            kg = KGSpec.from_dict(
                {
                    "extractor": "imported",
                    "variants": options["variant"] or [DEFAULT_VARIANT],
                    "encoder": options["encoder"],
                    "alpha": options["alpha"],
                }
            )
        except SpecError as exc:
            raise CommandError(str(exc)) from None
        out_rows: list[dict[str, Any]] = []
        for path in options["files"]:
            dataset = self._dataset(path)
            models = sorted(
                {
                    str(m["model"])
                    for m in dataset.questions.values_list("metadata", flat=True)
                    if isinstance(m, dict) and isinstance(m.get("model"), str) and isinstance(m.get("kg_llm"), list)
                }
            )
            if not models:
                raise CommandError(f"{path}: no record carries kg_llm with llm_answer and model")
            for model in models:
                run = kg_run_of_imported_answers(dataset=dataset, model=model, kg=kg)
                generations = list(
                    Generation.objects.filter(run=run).select_related("question__context", "model").order_by("pk")
                )
                graph_scores_compute(generations=generations, kg=kg)
                run_tau(run=run, kg=kg)
                run_reconcile_progress(run_id=run.pk)
                rows = kg_results(run, kg=kg)
                self.stdout.write(f"{path.name} ({dataset.name}), model {model}: run {run.pk}")
                self.stdout.write(kg_table(rows))
                self.stdout.write("")
                for r in rows:
                    out_rows.append(
                        {
                            "file": str(path),
                            "dataset": dataset.name,
                            "model": model,
                            "variant": r["variant"],
                            "encoder": r["encoder"],
                            "run": run.pk,
                            "n": r["n"],
                            "n_skipped": r["n_skipped"],
                            "n_failed": r["n_failed"],
                            "goldsim": r["goldsim"]["mean"],
                            "ctxsim": r["ctxsim"]["mean"],
                            "cus": r["cus"]["mean"],
                            "ci95": {k: [r[k]["lo"], r[k]["hi"]] for k in ("goldsim", "ctxsim", "cus")},
                            "tau_items": r["tau_items"],
                            "tau": r["tau"],
                        }
                    )
        if options["json"] is not None:
            options["json"].write_text(json.dumps({"rows": out_rows}, indent=2))
            self.stdout.write(f"wrote {options['json']}")

    def _dataset(self, path: Path) -> Dataset:
        name = dataset_name_for(path)
        existing = Dataset.objects.filter(name=name).first()
        if existing is not None:
            return existing
        try:
            dataset = dataset_import_file(path=path, import_format="qa-jsonl", name=name)
        except DatasetImportError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"imported {path} as dataset {name}")
        return dataset
