"""Folder reports: a Markdown cut keeps the erasing and refused traces and names the ones it
left out; the HTML sections link back to the table."""

from __future__ import annotations

import re
from collections.abc import Callable

from replay_tui.share.markdown import GITHUB_LIMIT

from .samples import TRACES

Cli = Callable[..., tuple[int, str, str]]


def test_a_cut_folder_report_keeps_erasing_and_refused_first_and_names_the_rest(
    cli: Cli,
) -> None:
    code, md, _ = cli("report", str(TRACES), "--md")
    assert code == 0 and len(md) <= GITHUB_LIMIT
    assert "Cut to fit a GitHub issue" in md
    table = re.findall(r"^\| `([^`]+)` \| (\w[\w ]*) \|", md, re.M)
    badges = dict(table)
    erasing = [a for a, b in table if b == "erasing"]
    sections = re.findall(r"^### `([^`]+)` \\\((\w[\w ]*)\\\)", md, re.M)
    shown = [a for a, _ in sections]
    assert set(erasing) <= set(shown)  # every erasing trace kept its section
    ranks = {"erasing": 0, "refused": 1, "broken": 2, "in progress": 3, "clean": 4}
    assert [ranks[b] for _, b in sections] == sorted(ranks[b] for _, b in sections)
    left = re.search(r"^> Left out by the cut: (.*)$", md, re.M)
    assert left is not None
    named = re.findall(r"`([^`]+)`", left.group(1))
    assert named and not set(named) & set(shown)
    assert all(a in badges for a in named)
    assert set(shown) | set(named) <= set(badges)


def test_html_folder_sections_link_back_to_the_table(cli: Cli) -> None:
    code, page, _ = cli("report", str(TRACES / "dashscope"))
    assert code == 0
    assert '<table id="toc">' in page
    assert page.count('<a class="back" href="#toc">') == page.count("<section id=")
