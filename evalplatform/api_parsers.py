"""The API's JSON parser: DRF's, through ``evalplatform.strict_json``, so that a body DRF's own parser would crash
on (nested deep enough for a RecursionError) or take although no database stores it (1e400 read as infinity, a
NUL character) is a 400 with the reason, on every endpoint."""

import codecs
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from evalplatform import strict_json


class StrictJSONParser(JSONParser):
    def parse(
        self, stream: IO[Any], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> Any:
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = codecs.getreader(encoding)(stream).read()
            return strict_json.loads(text)
        except ValueError as exc:  # JSONDecodeError, JSONRefused, UnicodeDecodeError
            raise ParseError(f"JSON parse error - {exc}") from None
