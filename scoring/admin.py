"""Admin for the stored scores: judge metrics and error types, the generator's refused artefacts, statements,
knowledge graphs and triplets, graph scores, TAU diagnoses and benchmark results, each with list filters and
search."""

from django.contrib import admin
from django.http import HttpRequest

from scoring.models import (
    BenchmarkResult,
    ErrorTypeJudgement,
    GenerationScore,
    GeneratorRefusal,
    GraphScore,
    KnowledgeGraph,
    PairScore,
    RetestBatch,
    RetestScore,
    RunSnapshot,
    SimilarityTodo,
    StatementSet,
    TauDiagnosis,
    Triplet,
)


@admin.register(GenerationScore)
class GenerationScoreAdmin(admin.ModelAdmin):
    list_display = ["pk", "generation", "scorer", "metric", "value", "status", "metric_version"]
    list_filter = ["metric", "status", "scorer"]
    search_fields = ["scorer", "raw_output", "generation__question__key"]
    raw_id_fields = ["generation", "evaluator"]


@admin.register(RunSnapshot)
class RunSnapshotAdmin(admin.ModelAdmin):
    list_display = ["run", "key", "progress_done", "status", "version", "computed_at"]
    list_filter = ["status", "version"]
    search_fields = ["key", "run__pk"]
    raw_id_fields = ["run"]


@admin.register(SimilarityTodo)
class SimilarityTodoAdmin(admin.ModelAdmin):
    """The similarity stage's queue, to look at only: a row removed by hand would leave its cell without ASS until
    the run's work is sent again."""

    list_display = ["generation", "run"]
    list_filter = ["run__status"]
    search_fields = ["run__pk", "generation__pk"]
    raw_id_fields = ["generation", "run"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(ErrorTypeJudgement)
class ErrorTypeJudgementAdmin(admin.ModelAdmin):
    list_display = ["pk", "generation", "scorer", "label", "status", "prompt_version"]
    list_filter = ["label", "status", "scorer"]
    search_fields = ["scorer", "raw_output", "generation__question__key"]
    raw_id_fields = ["generation", "evaluator"]


@admin.register(GeneratorRefusal)
class GeneratorRefusalAdmin(admin.ModelAdmin):
    list_display = ["pk", "dataset", "step", "context_key", "generator", "created_at"]
    list_filter = ["step", "generator", "dataset"]
    search_fields = ["context_key", "raw_output", "dataset__name"]
    readonly_fields = ["created_at"]


@admin.register(StatementSet)
class StatementSetAdmin(admin.ModelAdmin):
    list_display = ["pk", "evaluator", "question", "prompt_version", "status"]
    list_filter = ["status", "evaluator", "prompt_version"]
    search_fields = ["text_hash", "raw_output", "question__key"]
    raw_id_fields = ["question"]


class TripletInline(admin.TabularInline):
    model = Triplet
    extra = 0


@admin.register(KnowledgeGraph)
class KnowledgeGraphAdmin(admin.ModelAdmin):
    list_display = ["pk", "extractor", "extractor_version", "status", "created_at"]
    list_filter = ["extractor", "extractor_version", "status"]
    search_fields = ["text", "text_hash"]
    inlines = [TripletInline]


@admin.register(Triplet)
class TripletAdmin(admin.ModelAdmin):
    list_display = ["pk", "graph", "position", "head", "relation", "tail"]
    list_filter = ["graph__extractor"]
    search_fields = ["head", "relation", "tail"]
    raw_id_fields = ["graph"]


@admin.register(GraphScore)
class GraphScoreAdmin(admin.ModelAdmin):
    list_display = ["pk", "generation", "variant", "alpha", "encoder", "goldsim", "ctxsim", "cus", "status"]
    list_filter = ["variant", "alpha", "encoder", "status"]
    search_fields = ["generation__question__key", "skipped_reason"]
    raw_id_fields = ["generation", "answer_graph", "gold_graph", "context_graph"]


@admin.register(TauDiagnosis)
class TauDiagnosisAdmin(admin.ModelAdmin):
    list_display = ["pk", "graph_score", "threshold", "counts", "created_at"]
    list_filter = ["threshold", "graph_score__variant"]
    search_fields = ["graph_score__generation__question__key"]
    raw_id_fields = ["graph_score"]


@admin.register(BenchmarkResult)
class BenchmarkResultAdmin(admin.ModelAdmin):
    list_display = ["pk", "run", "method", "n", "f1", "auroc", "threshold", "status"]
    list_filter = ["method", "status", "run__dataset"]
    search_fields = ["method", "run__dataset__name"]
    raw_id_fields = ["run"]


@admin.register(PairScore)
class PairScoreAdmin(admin.ModelAdmin):
    list_display = ["pk", "run", "pair", "method", "value"]
    list_filter = ["method"]
    search_fields = ["method", "pair__key"]
    raw_id_fields = ["run", "pair"]


@admin.register(RetestBatch)
class RetestBatchAdmin(admin.ModelAdmin):
    list_display = ["pk", "run", "sample_size", "seed", "cost_usd", "created_at", "finished_at"]
    list_filter = ["seed", "finished_at"]
    search_fields = ["run__pk", "run__dataset__name"]
    raw_id_fields = ["run", "created_by"]


@admin.register(RetestScore)
class RetestScoreAdmin(admin.ModelAdmin):
    list_display = ["pk", "batch", "generation", "evaluator", "metric", "value", "status"]
    list_filter = ["metric", "status", "evaluator"]
    search_fields = ["raw_output", "generation__question__key", "evaluator__name"]
    raw_id_fields = ["batch", "generation", "evaluator"]
