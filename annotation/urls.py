"""Pages and API routes of annotation (included by evalplatform/urls.py)."""

from django.urls import URLPattern, URLResolver, path

from annotation import api, campaign_api, campaign_views, judges_api, judges_views, views

app_name = "annotation"

urlpatterns: list[URLPattern | URLResolver] = [
    path("annotation/", views.dashboard, name="dashboard"),
    path("annotation/review/next/", views.review_next, name="review-next"),
    path("annotation/review/<int:pk>/", views.review, name="review"),
    path("annotation/consensus/", views.consensus_list, name="consensus-list"),
    path("annotation/consensus/<int:pk>/", views.consensus_detail, name="consensus"),
    path("annotation/tau/next/", views.tau_next, name="tau-next"),
    path("annotation/tau/<int:pk>/", views.tau, name="tau"),
    path("annotation/tau/agreement/", views.tau_agreement, name="tau-agreement"),
    path("annotation/calibration/next/", views.calibration_next, name="calibration-next"),
    path("annotation/calibration/<int:pk>/", views.calibration, name="calibration"),
    path("annotation/calibration/runs/<int:run_pk>/", views.calibration_run_report, name="calibration-report"),
    path("annotation/audit/", views.audit_log, name="audit"),
    path("annotation/campaigns/", campaign_views.campaigns, name="campaigns"),
    path("datasets/<slug:name>/review/", campaign_views.dataset_review, name="dataset-review"),
    path("runs/<int:pk>/calibration/", campaign_views.run_calibration, name="run-calibration"),
    path("runs/<int:pk>/tau/", campaign_views.run_tau, name="run-tau"),
    path("runs/<int:pk>/judges/", judges_views.run_judges, name="run-judges"),
    path("api/runs/<int:pk>/judges/", judges_api.RunJudgesView.as_view(), name="api-run-judges"),
    path("api/annotation/campaigns/", campaign_api.CampaignView.as_view(), name="api-campaigns"),
    path("api/datasets/<slug:name>/review/", campaign_api.DatasetReviewQueueView.as_view(), name="api-dataset-review"),
    path("api/runs/<int:pk>/calibration/", campaign_api.RunCalibrationView.as_view(), name="api-run-calibration"),
    path("api/runs/<int:pk>/tau/", campaign_api.RunTauQueueView.as_view(), name="api-run-tau"),
    path("api/annotation/queue/", api.QueueView.as_view(), name="api-queue"),
    path("api/annotation/next/<str:kind>/", api.NextView.as_view(), name="api-next"),
    path("api/annotation/assignments/", api.MyAssignmentsView.as_view(), name="api-assignments"),
    path("api/annotation/reviews/<int:pk>/", api.ReviewAssignmentView.as_view(), name="api-review"),
    path("api/annotation/reviews/<int:pk>/submit/", api.ReviewSubmitView.as_view(), name="api-review-submit"),
    path("api/annotation/tau/<int:pk>/", api.TauAssignmentView.as_view(), name="api-tau"),
    path("api/annotation/tau/<int:pk>/submit/", api.TauSubmitView.as_view(), name="api-tau-submit"),
    path("api/annotation/consensus/<int:pk>/", api.ConsensusView.as_view(), name="api-consensus"),
    path(
        "api/annotation/consensus/<int:pk>/decide/",
        api.ConsensusDecideView.as_view(),
        name="api-consensus-decide",
    ),
    path(
        "api/annotation/consensus/<int:pk>/reopen/",
        api.ConsensusReopenView.as_view(),
        name="api-consensus-reopen",
    ),
]
