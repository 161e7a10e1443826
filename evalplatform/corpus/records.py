"""Reading JSON records strictly: one clear error naming the file, the record and the field."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evalplatform import strict_json


class DatasetImportError(Exception):
    """An import input that cannot be taken; the message is one line for a person to act on."""

    def __init__(self, source: str, message: str, *, record: str | None = None, field: str | None = None):
        self.source = source
        self.record = record
        self.field = field
        self.detail = message
        where = source
        if record is not None:
            where += f": record {record}"
        if field is not None:
            where += f": field '{field}'"
        super().__init__(f"{where}: {message}")


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"key '{key}' appears twice in one object")
        seen[key] = value
    return seen


def parse_json(text: str, source: str, record: str | None = None) -> Any:
    """Standard JSON only (``evalplatform.strict_json``: no NaN or Infinity, no NUL character, not nested
    too deep), and no object repeating a key; any refusal is one DatasetImportError line."""
    try:
        return strict_json.loads(text, object_pairs_hook=_reject_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise DatasetImportError(
            source, f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})", record=record
        ) from None
    except ValueError as exc:
        raise DatasetImportError(source, str(exc), record=record) from None


def check_size(path: Path, limit: int) -> None:
    size = path.stat().st_size
    if size > limit:
        raise DatasetImportError(str(path), f"file is {size} bytes, larger than the limit of {limit} bytes")


def read_text(path: Path, limit: int) -> str:
    if not path.is_file():
        raise DatasetImportError(str(path), "no such file")
    check_size(path, limit)
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetImportError(str(path), f"not UTF-8 text (byte {exc.start})") from None


def read_json_lines(path: Path, limit: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield (record label, object) for each non-blank line; the label is the 1-based line number."""
    text = read_text(path, limit)
    # split on "\n" only: str.splitlines would also split inside strings holding U+2028 and friends.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        label = f"line {number}"
        obj = parse_json(line, str(path), record=label)
        if not isinstance(obj, dict):
            raise DatasetImportError(str(path), "expected a JSON object", record=label)
        yield label, obj


class Record:
    """Typed access to one JSON object; every failure names the source, record and field."""

    def __init__(self, obj: dict[str, Any], source: str, label: str):
        self.obj = obj
        self.source = source
        self.label = label

    def error(self, field: str | None, message: str) -> DatasetImportError:
        return DatasetImportError(self.source, message, record=self.label, field=field)

    def string(self, field: str, *, required: bool = True, allow_empty: bool = False) -> str:
        if field not in self.obj or self.obj[field] is None:
            if required:
                raise self.error(field, "is required")
            return ""
        value = self.obj[field]
        if not isinstance(value, str):
            raise self.error(field, f"must be a string, got {type(value).__name__}")
        if required and not allow_empty and not value.strip():
            raise self.error(field, "must not be empty")
        return value

    def first_string(self, *fields: str) -> str:
        for name in fields:
            if self.obj.get(name) is not None:
                return self.string(name)
        raise self.error(
            fields[0], f"is required (also read as: {', '.join(fields[1:])})" if fields[1:] else "is required"
        )

    def key(self, field: str = "id") -> str:
        value = self.obj.get(field)
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return self.string(field)

    def optional_label(self, field: str = "label") -> int | None:
        value = self.obj.get(field)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value not in (0, 1):
            raise self.error(field, f"must be 0 or 1, got {value!r}")
        return value

    def optional_number(self, field: str) -> float | None:
        value = self.obj.get(field)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(field, f"must be a number, got {type(value).__name__}")
        return float(value)

    def object_list(self, field: str, *, required: bool = False) -> list[dict[str, Any]]:
        if field not in self.obj or self.obj[field] is None:
            if required:
                raise self.error(field, "is required")
            return []
        value = self.obj[field]
        if not isinstance(value, list):
            raise self.error(field, f"must be a list, got {type(value).__name__}")
        for index, item in enumerate(value):
            if not isinstance(item, dict):
                raise self.error(f"{field}[{index}]", "must be an object")
        return value

    def extras(self, known: set[str]) -> dict[str, Any]:
        return {k: v for k, v in self.obj.items() if k not in known}


class KeyRegistry:
    """Refuses a key seen before in the same scope."""

    def __init__(self, what: str, *, hint: str = ""):
        self.what = what
        self.hint = hint
        self.seen: dict[str, str] = {}

    def add(self, key: str, record: Record, field: str = "id") -> None:
        if key in self.seen:
            hint = f"; {self.hint}" if self.hint else ""
            raise record.error(field, f"{self.what} '{key}' repeats the one at {self.seen[key]}{hint}")
        self.seen[key] = record.label
