"""CSV cells a spreadsheet will not run: a text cell that starts with =, +, -, @ (or a tab or carriage return,
which some spreadsheets skip before reading the rest as a formula) gets a leading apostrophe, as OWASP's CSV
injection guidance advises, so ``=HYPERLINK(...)`` in a model's answer stays text. Numbers are left alone.

Plain Python: every CSV the platform writes passes its cells through ``csv_cell``."""

from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
