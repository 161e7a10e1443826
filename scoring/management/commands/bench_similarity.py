"""python manage.py bench_similarity --pairs FILE.jsonl --extractor dependency|llm[:ENDPOINT]|given
[--alpha-sweep] [--encoder DIR] [--key-by-line] [--json FILE]

Imports the pairs file as a pairs dataset named after it (or uses it when already imported), scores every
labelled pair with every method and prints, per method, the max F1 over a threshold sweep with its
threshold, precision and recall there, and AUROC. ``--extractor llm`` uses the ``local`` endpoint;
``llm:NAME`` another one; ``given`` the pairs' own ``kg_a`` / ``kg_b``. ``--key-by-line`` imports a file
whose ids repeat across distinct rows (the S3KG authors' MRPC and STS12 graph files)."""

import json
import re
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalplatform.corpus.models import Dataset
from evalplatform.corpus.records import DatasetImportError
from evalplatform.corpus.services import dataset_import_file
from scoring.services.benchmark import similarity_benchmark_run


def _fmt(value: float | None) -> str:
    return "     -" if value is None else f"{value:6.4f}"


def benchmark_table(summary: dict[str, Any]) -> str:
    lines = [f"{'method':<24} {'F1':>6} {'AUROC':>6} {'thresh':>6} {'prec':>6} {'recall':>6}", "-" * 60]
    for name, m in summary["methods"].items():
        lines.append(
            f"{name:<24} {_fmt(m['f1'])} {_fmt(m['auroc'])} {_fmt(m['threshold'])} "
            f"{_fmt(m['precision'])} {_fmt(m['recall'])}"
        )
    for name, reason in summary["unavailable"].items():
        lines.append(f"{name:<24} unavailable: {reason}")
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Benchmark S3KG and the baselines as paraphrase detectors on a labelled pairs file (S3KG Table 1)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--pairs", required=True, type=Path, help="A pairs-jsonl file with labels.")
        parser.add_argument("--extractor", default="dependency", help="dependency, llm, llm:ENDPOINT or given.")
        parser.add_argument("--alpha-sweep", action="store_true", help="Also alpha 0.0..1.0 per variant.")
        parser.add_argument("--encoder", default=None, help="Sentence-transformers directory for S3KG.")
        parser.add_argument("--json", type=Path, help="Write {n, methods} as JSON to this file.")
        parser.add_argument(
            "--key-by-line",
            action="store_true",
            help="Key the pairs by line when importing (for files whose ids repeat across distinct rows).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        extractor = options["extractor"]
        if extractor == "llm":
            extractor = "llm:local"
        if extractor not in ("dependency", "given") and not extractor.startswith("llm:"):
            raise CommandError("--extractor must be dependency, llm, llm:ENDPOINT or given")
        dataset = self._dataset(options["pairs"], key_by_line=options["key_by_line"])
        try:
            run, summary = similarity_benchmark_run(
                dataset=dataset,
                extractor=extractor,
                alpha_sweep=options["alpha_sweep"],
                encoder_path=options["encoder"],
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"{dataset.name}: {summary['n']} pairs, extractor {extractor}, run {run.pk} "
            f"({summary['n_empty']} pairs with an empty graph score 0 under S3KG)"
        )
        if summary.get("n_fallback_texts") is not None:
            self.stdout.write(f"{summary['n_fallback_texts']} texts rest on the extractor's fallback triplet")
        self.stdout.write(benchmark_table(summary))
        if options["json"] is not None:
            payload = {
                "n": summary["n"],
                "n_empty": summary["n_empty"],
                "n_fallback_texts": summary.get("n_fallback_texts"),
                "methods": summary["methods"],
            }
            options["json"].write_text(json.dumps(payload, indent=2))
            self.stdout.write(f"wrote {options['json']}")

    def _dataset(self, path: Path, *, key_by_line: bool) -> Dataset:
        name = re.sub(r"[^A-Za-z0-9_-]+", "-", path.stem)[:120].strip("-") or "pairs"
        existing = Dataset.objects.filter(name=name).first()
        if existing is not None:
            return existing
        try:
            return dataset_import_file(path=path, import_format="pairs-jsonl", name=name, key_by_line=key_by_line)
        except DatasetImportError as exc:
            raise CommandError(str(exc)) from None
