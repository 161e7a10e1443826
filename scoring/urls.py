"""Pages and API routes of scoring (included by evalplatform/urls.py)."""

from django.urls import URLPattern, URLResolver, path

from scoring import api, launch_api, launch_views, retest_api, retest_views, views
from scoring.conflict_api import RunConflictView
from scoring.conflict_views import run_conflict

app_name = "scoring"

urlpatterns: list[URLPattern | URLResolver] = [
    path("benchmarks/", views.benchmarks, name="benchmarks"),
    path("benchmarks/runs/<int:pk>/", views.benchmark_run, name="benchmark-run"),
    path("runs/compare/", views.run_compare, name="compare"),
    path("api/runs/compare/", api.RunCompareView.as_view(), name="api-run-compare"),
    path("api/runs/compare/answers/", api.RunCompareAnswersView.as_view(), name="api-run-compare-answers"),
    path("api/runs/<int:pk>/effects/", api.RunEffectsView.as_view(), name="api-run-effects"),
    path("runs/<int:pk>/conflict/", run_conflict, name="run-conflict"),
    path("api/runs/<int:pk>/conflict/", RunConflictView.as_view(), name="api-run-conflict"),
    path("benchmarks/heatmap-<str:metric>.svg", views.heatmap, name="heatmap"),
    path("benchmarks/alpha-sweep-<str:metric>.svg", views.alpha_sweep, name="alpha-sweep"),
    path("api/benchmarks/", api.BenchmarkResultListView.as_view(), name="api-benchmarks"),
    path("api/benchmarks/launch/", launch_api.BenchmarkLaunchView.as_view(), name="api-benchmark-launch"),
    path("api/runs/<int:pk>/graphs/", launch_api.RunGraphPassView.as_view(), name="api-run-graphs"),
    path("api/datasets/<slug:name>/fabricate/", launch_api.FabricateView.as_view(), name="api-fabricate"),
    path(
        "api/datasets/<slug:name>/generate-questions/", launch_api.QuestionsGenerateView.as_view(), name="api-questions"
    ),
    path("benchmarks/launch/", launch_views.benchmark_start, name="benchmark-launch"),
    path("runs/<int:pk>/graphs/", launch_views.graph_pass, name="run-graphs"),
    path("datasets/<slug:name>/fabricate/", launch_views.fabricate, name="fabricate"),
    path("datasets/<slug:name>/generate-questions/", launch_views.generate_questions, name="generate-questions"),
    path("runs/<int:pk>/retest/", retest_views.run_retest, name="run-retest"),
    path("api/runs/<int:pk>/retest/", retest_api.RunRetestView.as_view(), name="api-run-retest"),
    path("api/runs/<int:pk>/fingerprint/", retest_api.RunFingerprintView.as_view(), name="api-run-fingerprint"),
    path("api/runs/<int:pk>/reproduce/", retest_api.RunReproduceView.as_view(), name="api-run-reproduce"),
]
