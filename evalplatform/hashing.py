"""The one content hash of the platform: SHA-256 of a text's UTF-8 bytes, as 64 hex digits. It keys stored
graphs and statement sets by the text they were made from, and records which exact prompt was sent."""

import hashlib


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
