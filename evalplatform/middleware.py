"""Request guards that apply to every page and API route."""

from collections.abc import Callable, Iterable

from django.http import HttpRequest, HttpResponse, JsonResponse

# The bodies Django parses into request.POST.
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


class RefuseNulCharacters:
    """A NUL character in a query string or a posted form field is refused with 400 before any view runs.

    PostgreSQL cannot store or compare a string holding NUL, so one reaching a query was a 500 (review and
    consensus forms, the login form, list filters). JSON bodies are checked by their parser
    (``evalplatform.strict_json``); uploaded files are not text fields and are left to their importer."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if _holds_nul(request):
            message = "a NUL character is not allowed in a form field or the query string"
            if request.path.startswith("/api/"):
                return JsonResponse({"detail": message}, status=400)
            return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


def _holds_nul(request: HttpRequest) -> bool:
    if _nul_in(request.GET.lists()):
        return True
    if request.method == "POST" and request.content_type in FORM_TYPES:
        return _nul_in(request.POST.lists())
    return False


def _nul_in(fields: Iterable[tuple[str, list[str]]]) -> bool:
    return any("\x00" in key or any("\x00" in value for value in values) for key, values in fields)
