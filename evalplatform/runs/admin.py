from django.contrib import admin

from evalplatform.runs.models import CachedResponse, Generation, ModelEndpoint, Run, StageProgress


@admin.register(ModelEndpoint)
class ModelEndpointAdmin(admin.ModelAdmin):
    list_display = ["name", "provider", "model_id", "mode", "api_key_env", "is_active"]
    list_filter = ["provider", "mode", "is_active"]
    search_fields = ["name", "model_id"]


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["pk", "kind", "dataset", "status", "progress_done", "progress_total", "created_by", "created_at"]
    list_filter = ["kind", "status", "dataset"]
    search_fields = ["pk", "dataset__name", "status_reason"]
    readonly_fields = ["created_at", "started_at", "finished_at"]


@admin.register(Generation)
class GenerationAdmin(admin.ModelAdmin):
    list_display = ["pk", "run", "question", "model", "temperature", "condition", "sample_index", "status", "cached"]
    list_filter = ["status", "condition", "model", "cached"]
    search_fields = ["text", "question__key"]
    raw_id_fields = ["run", "question"]


@admin.register(CachedResponse)
class CachedResponseAdmin(admin.ModelAdmin):
    list_display = ["key", "provider", "model_id", "created_at"]
    list_filter = ["provider", "model_id"]
    search_fields = ["key", "model_id"]


@admin.register(StageProgress)
class StageProgressAdmin(admin.ModelAdmin):
    list_display = ["run", "stage", "done", "failed", "total", "per_cell"]
    list_filter = ["stage"]
    search_fields = ["run__pk", "stage"]
    raw_id_fields = ["run"]
