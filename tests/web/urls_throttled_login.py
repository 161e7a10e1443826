"""The project's routes with the throttled login page in front, as evalplatform/urls.py is to have it."""

from django.urls import path

from evalplatform.urls import urlpatterns as project_urlpatterns
from evalplatform.views import ThrottledLoginView

urlpatterns = [path("accounts/login/", ThrottledLoginView.as_view(), name="login"), *project_urlpatterns]
