"""Top-level routes: admin, login, the API schema, and each app's pages and API."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from evalplatform import views
from evalplatform.reporting_views import ThrottledLoginView

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/login/", ThrottledLoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Each app owns its pages and its API routes (under api/...) in its own urls.py.
    path("", include("evalplatform.corpus.urls")),
    path("", include("evalplatform.runs.urls")),
    path("", include("annotation.urls")),
    path("", include("scoring.urls")),
]
