"""Each flagged raw line is shown as a window around the field that erased the identity, the
field marked (HTML highlighted, Markdown a caret line under it), with its column — wherever
in the line it stands."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from .samples import CORPUS, TRACES, azure_filtered_sse

Cli = Callable[..., tuple[int, str, str]]

# (capture, flagged line, the field as written on it); the column is found here by hand.
CASES = [
    (TRACES / "writer" / "palmyra-x5-all-null.sse", 5, ['"id":null', '"name":null']),
    (TRACES / "volcengine" / "ark-chunk-log.jsonl", 3, ['"name":""']),
    (TRACES / "litellm" / "proxy-curl-i.txt", 14, ['"id":""']),
    (CORPUS / "dashscope__qwen3-max__single-call__id-empty-string.sse", 3, ['"id":""']),
]


def _columns(path: Path, line: int, fields: list[str]) -> list[int]:
    text = path.read_text().splitlines()[line - 1]
    after = text.index("tool_calls")
    return [text.index(f, after) + 1 for f in fields]


@pytest.fixture
def azure(tmp_path: Path) -> Path:
    path = tmp_path / "azure.sse"
    path.write_bytes(azure_filtered_sse())
    return path


def _cases(azure: Path) -> list[tuple[Path, int, list[str]]]:
    return [*CASES, (azure, 3, ['"id":null'])]


def test_the_azure_sample_puts_the_field_past_column_360(azure: Path) -> None:
    assert _columns(azure, 3, ['"id":null'])[0] > 360


def test_html_highlights_the_field_and_says_its_column(cli: Cli, azure: Path) -> None:
    for path, line, fields in _cases(azure):
        code, page, _ = cli("report", str(path))
        assert code == 0
        columns = _columns(path, line, fields)
        said = ", ".join(map(str, columns))
        assert re.search(rf"<h4>line {line}, columns? {said}: ", page), (path, said)
        spots = re.findall(r'<strong class="spot">(.*?)</strong>', page)
        for f in fields:
            assert html.escape(f, quote=True) in spots, (path, f, spots)
        # The flagged line is in the page, whatever its length: a window around the spot.
        marked = re.search(rf'<mark><span class="ln">\s*{line} │ </span>(.*?)</mark>', page)
        assert marked is not None and "spot" in marked.group(1)


def test_markdown_puts_a_caret_line_under_the_field(cli: Cli, azure: Path) -> None:
    for path, line, fields in _cases(azure):
        code, md, _ = cli("report", str(path), "--md")
        assert code == 0
        columns = _columns(path, line, fields)
        lines = md.splitlines()
        at = next(k for k, t in enumerate(lines) if re.match(rf">\s*{line} │ ", t))
        shown, carets = lines[at], lines[at + 1]
        assert carets.rstrip().endswith(
            f"column{'s' if len(columns) > 1 else ''} {', '.join(map(str, columns))}"
        )
        runs = [(m.start(), m.end()) for m in re.finditer(r"\^+", carets)]
        assert [shown[a:b] for a, b in runs] == fields, (path, shown, carets)
