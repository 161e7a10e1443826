"""Pages and API routes of evalplatform.corpus (included by evalplatform/urls.py)."""

from django.urls import URLPattern, URLResolver, path

from evalplatform.corpus import api, views

app_name = "corpus"

urlpatterns: list[URLPattern | URLResolver] = [
    path("datasets/", views.dataset_list, name="dataset-list"),
    path("datasets/<slug:name>/", views.dataset_detail, name="dataset"),
    path("api/datasets/", api.DatasetListView.as_view(), name="api-dataset-list"),
    path("api/datasets/<slug:name>/", api.DatasetDetailView.as_view(), name="api-dataset"),
    path("api/datasets/<slug:name>/contexts/", api.ContextListView.as_view(), name="api-contexts"),
    path("api/datasets/<slug:name>/questions/", api.QuestionListView.as_view(), name="api-questions"),
    path("api/datasets/<slug:name>/export/<str:fmt>/", api.DatasetExportView.as_view(), name="api-dataset-export"),
]
