"""Pages and API routes of scoring (included by evalplatform/urls.py)."""

from django.urls import URLPattern, URLResolver

urlpatterns: list[URLPattern | URLResolver] = []
