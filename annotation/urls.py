"""Pages and API routes of annotation (included by evalplatform/urls.py)."""

from django.urls import URLPattern, URLResolver

urlpatterns: list[URLPattern | URLResolver] = []
