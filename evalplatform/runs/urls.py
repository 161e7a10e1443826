"""Pages and API routes of evalplatform.runs (included by evalplatform/urls.py)."""

from django.urls import URLPattern, URLResolver, path

from evalplatform.runs import api, control_views, views

app_name = "runs"

urlpatterns: list[URLPattern | URLResolver] = [
    path("runs/", views.run_list, name="run-list"),
    path("runs/launch/", views.run_launch, name="launch"),
    path("runs/<int:pk>/", views.run_detail, name="run"),
    path("runs/<int:pk>/stop/", control_views.run_stop, name="stop"),
    path("runs/<int:pk>/resume/", control_views.run_resume_page, name="resume"),
    path("runs/<int:pk>/generations/<int:gen>/", views.generation_detail, name="generation"),
    path("runs/<int:pk>/plots/correlation.svg", views.plot_correlation, name="plot-correlation"),
    path("runs/<int:pk>/plots/temperature.svg", views.plot_temperature, name="plot-temperature"),
    path("runs/<int:pk>/plots/lav-accuracy.svg", views.plot_lav_accuracy, name="plot-lav-accuracy"),
    path("api/endpoints/", api.EndpointListView.as_view(), name="api-endpoints"),
    path("api/runs/", api.RunListView.as_view(), name="api-run-list"),
    path("api/runs/estimate/", api.RunEstimateView.as_view(), name="api-run-estimate"),
    path("api/runs/<int:pk>/", api.RunDetailView.as_view(), name="api-run"),
    path("api/runs/<int:pk>/progress/", api.RunProgressView.as_view(), name="api-run-progress"),
    path("api/runs/<int:pk>/results/", api.RunResultsView.as_view(), name="api-run-results"),
    path("api/runs/<int:pk>/stop/", api.RunStopView.as_view(), name="api-run-stop"),
    path("api/runs/<int:pk>/resume/", api.RunResumeView.as_view(), name="api-run-resume"),
    path("api/runs/<int:pk>/generations/", api.GenerationListView.as_view(), name="api-generations"),
    path("api/runs/<int:pk>/generations/<int:gen>/", api.GenerationDetailView.as_view(), name="api-generation"),
    path("api/runs/<int:pk>/export/<str:kind>.<str:fmt>", api.RunExportView.as_view(), name="api-run-export"),
]
