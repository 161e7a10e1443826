from django.contrib import admin

from evalplatform.corpus.models import Alteration, Context, Dataset, Project, Question, TextPair


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "created_at"]
    search_fields = ["name", "description"]
    filter_horizontal = ["members"]


@admin.register(Dataset)
class DatasetAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "version", "licence", "import_format", "created_at"]
    list_filter = ["kind", "import_format", "project"]
    search_fields = ["name", "source", "description"]


class AlterationInline(admin.TabularInline):
    model = Alteration
    extra = 0


@admin.register(Context)
class ContextAdmin(admin.ModelAdmin):
    list_display = ["key", "dataset", "topic", "position"]
    list_filter = ["dataset"]
    search_fields = ["key", "topic", "text"]
    inlines = [AlterationInline]


@admin.register(Alteration)
class AlterationAdmin(admin.ModelAdmin):
    list_display = ["context", "field", "original", "divergent"]
    list_filter = ["field", "context__dataset"]
    search_fields = ["original", "divergent"]


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ["key", "dataset", "status", "text"]
    list_filter = ["status", "dataset"]
    search_fields = ["key", "text", "ground_truth"]
    raw_id_fields = ["context"]


@admin.register(TextPair)
class TextPairAdmin(admin.ModelAdmin):
    list_display = ["key", "dataset", "label", "score"]
    list_filter = ["label", "dataset"]
    search_fields = ["key", "text_a", "text_b"]
