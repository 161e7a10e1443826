"""Admin pages of the stored scores: read-mostly views for drill-down."""

from django.contrib import admin

from scoring.models import (
    BenchmarkResult,
    GenerationScore,
    GraphScore,
    KnowledgeGraph,
    PairScore,
    StatementSet,
    TauDiagnosis,
    Triplet,
)


class TripletInline(admin.TabularInline):
    model = Triplet
    extra = 0
    fields = ("position", "head", "relation", "tail", "raw_head", "raw_relation", "raw_tail")
    readonly_fields = fields
    can_delete = False


@admin.register(KnowledgeGraph)
class KnowledgeGraphAdmin(admin.ModelAdmin):
    list_display = ("pk", "extractor", "extractor_version", "status", "created_at")
    list_filter = ("extractor", "status")
    search_fields = ("text_hash", "text")
    readonly_fields = ("text_hash", "extractor", "extractor_version", "created_at")
    inlines = [TripletInline]


@admin.register(GraphScore)
class GraphScoreAdmin(admin.ModelAdmin):
    list_display = ("pk", "generation", "variant", "encoder", "alpha", "goldsim", "ctxsim", "cus", "status")
    list_filter = ("variant", "status", "encoder")
    raw_id_fields = ("generation", "answer_graph", "gold_graph", "context_graph")


@admin.register(TauDiagnosis)
class TauDiagnosisAdmin(admin.ModelAdmin):
    list_display = ("pk", "graph_score", "counts", "created_at")
    raw_id_fields = ("graph_score",)


@admin.register(BenchmarkResult)
class BenchmarkResultAdmin(admin.ModelAdmin):
    list_display = ("run", "method", "n", "f1", "auroc", "threshold", "status")
    list_filter = ("method", "status")


@admin.register(PairScore)
class PairScoreAdmin(admin.ModelAdmin):
    list_display = ("run", "pair", "method", "value")
    list_filter = ("method",)
    raw_id_fields = ("run", "pair")


@admin.register(GenerationScore)
class GenerationScoreAdmin(admin.ModelAdmin):
    list_display = ("generation", "scorer", "metric", "value", "status")
    list_filter = ("metric", "status")
    raw_id_fields = ("generation",)


@admin.register(StatementSet)
class StatementSetAdmin(admin.ModelAdmin):
    list_display = ("pk", "evaluator", "prompt_version", "status")
    raw_id_fields = ("question",)
