"""Top-level routes: home, admin, login, the admins' report, the glossary, the API's index, schema and
documentation, the token page, and each app's pages and API."""

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from evalplatform import views
from evalplatform.accounts import views as account_views
from evalplatform.api_index import ApiIndexView

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    # The admin's own login form has no throttle: send it to the throttled one (which returns to ?next=).
    path("admin/login/", RedirectView.as_view(url=settings.LOGIN_URL, query_string=True), name="admin-login"),
    path("admin/", admin.site.urls),
    path("accounts/login/", views.ThrottledLoginView.as_view(), name="login"),
    path("reports/", views.report, name="report"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("glossary/", views.glossary, name="glossary"),
    path("account/token/", account_views.tokens, name="tokens"),
    path("api/", ApiIndexView.as_view(), name="api-index"),
    path("api/account/token/", account_views.TokenView.as_view(), name="api-token"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
    # Each app owns its pages and its API routes (under api/...) in its own urls.py.
    path("", include("evalplatform.corpus.urls")),
    path("", include("evalplatform.runs.urls")),
    path("", include("annotation.urls")),
    path("", include("scoring.urls")),
]
