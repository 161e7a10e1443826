"""Top-level routes: home, admin, login, the admins' report, the API schema, and each app's pages and API."""

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView

from evalplatform import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    # The admin's own login form has no throttle: send it to the throttled one (which returns to ?next=).
    path("admin/login/", RedirectView.as_view(url=settings.LOGIN_URL, query_string=True), name="admin-login"),
    path("admin/", admin.site.urls),
    path("accounts/login/", views.ThrottledLoginView.as_view(), name="login"),
    path("reports/", views.report, name="report"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Each app owns its pages and its API routes (under api/...) in its own urls.py.
    path("", include("evalplatform.corpus.urls")),
    path("", include("evalplatform.runs.urls")),
    path("", include("annotation.urls")),
    path("", include("scoring.urls")),
]
