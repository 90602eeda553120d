"""Folders of captures for the command-line tests, made from the golden corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parent.parent / "data" / "corpus"


@pytest.fixture(scope="session")
def corpus_files() -> list[Path]:
    return sorted(CORPUS.glob("*.sse"))


@pytest.fixture
def many(tmp_path: Path, corpus_files: list[Path]) -> Path:
    """120 captures in nested folders (enough for the process pool), copied from the corpus."""
    root = tmp_path / "many"
    for i in range(120):
        src = corpus_files[i % len(corpus_files)]
        folder = root / f"g{i % 3}" / (f"s{i % 2}" if i % 5 else "")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{i:03d}-{src.name}").write_bytes(src.read_bytes())
    return root
