"""Pages and API routes of scoring (included by evalplatform/urls.py)."""

from django.urls import URLPattern, URLResolver, path

from scoring import api, views

app_name = "scoring"

urlpatterns: list[URLPattern | URLResolver] = [
    path("benchmarks/", views.benchmarks, name="benchmarks"),
    path("benchmarks/heatmap-<str:metric>.svg", views.heatmap, name="heatmap"),
    path("benchmarks/alpha-sweep-<str:metric>.svg", views.alpha_sweep, name="alpha-sweep"),
    path("api/benchmarks/", api.BenchmarkResultListView.as_view(), name="api-benchmarks"),
]
