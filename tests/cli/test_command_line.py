"""The command line as a user meets it: paths that name nothing, FILE.har#N, no terminal,
the recorder's side files, words, and the package's own shape (one module per command)."""

from __future__ import annotations

import ast
import importlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from replay_tui.cli import COMMANDS
from replay_tui.core.discovery import discover

from .helpers import run_cli

CLI = Path(__file__).resolve().parents[2] / "replay_tui" / "cli"
CORPUS = Path(__file__).resolve().parent.parent / "data" / "corpus"
STREAM = (CORPUS / "dashscope__qwen3-max__single-call__id-empty-string.sse").read_bytes()
CLEAN = next(p for p in sorted(CORPUS.glob("*text-only*.sse"))).read_bytes()


def _har(tmp_path: Path, bodies: list[bytes | None]) -> Path:
    def entry(body: bytes | None) -> dict[str, object]:
        if body is None:  # not a stream: a JSON response
            content = {"mimeType": "application/json", "text": "{}"}
        else:
            content = {"mimeType": "text/event-stream", "text": body.decode()}
        return {
            "request": {"method": "POST", "url": "https://gw.example/v1/chat/completions"},
            "response": {"status": 200, "content": content},
        }

    path = tmp_path / "x.har"
    path.write_text(json.dumps({"log": {"entries": [entry(b) for b in bodies]}}))
    return path


# ---- a path that names nothing ----------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "{missing}"],
        ["check", "{here}", "{missing}", "--json"],
        ["replay", "{missing}"],
        ["diff", "{here}/a.sse", "{missing}"],
        ["{missing}"],  # the TUI
        ["{here}", "{missing}", "--no-watch"],
    ],
)
def test_a_path_that_names_nothing_is_exit_2_on_one_line(tmp_path: Path, argv: list[str]) -> None:
    (tmp_path / "a.sse").write_bytes(STREAM)
    missing = tmp_path / "traces" / "opena1"
    args = [a.format(missing=missing, here=tmp_path) for a in argv]
    code, out, err = run_cli(args)
    assert (code, out) == (2, "")
    assert err == f"replay-tui: {missing}: no such file or folder\n"


@pytest.mark.parametrize(
    "argv", [["--no-cache", "check", "{here}"], ["--jobs", "1", "check"], ["{here}", "diff"]]
)
def test_a_command_after_an_option_or_a_path_says_it_comes_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    """``replay-tui --help`` lists the TUI's options before the commands: a user who put
    them before one was told "check: no such file or folder", as if check were a path."""
    monkeypatch.chdir(tmp_path)
    args = [a.format(here=tmp_path) for a in argv]
    command = next(a for a in args if a in COMMANDS)
    code, out, err = run_cli(args)
    assert (code, out) == (2, "")
    assert err == (
        f"replay-tui: {command}: no such file or folder; the {command} command comes first,"
        f" then its options and paths (see 'replay-tui {command} --help')\n"
    )
    # A folder of that name is a path, and opened (here: no terminal to open it in).
    (tmp_path / command).mkdir()
    code, _, err = run_cli(args)
    assert code == 2 and "the TUI needs a terminal" in err


def test_the_help_says_which_options_are_the_tuis() -> None:
    code, out, _ = run_cli(["--help"])
    assert code == 0
    tui = out.split("the TUI's options (without a command):\n")[1].split("\n\n")[0]
    assert all(option in tui for option in ("--no-watch", "--no-cache", "--jobs N"))


def test_a_reader_that_goes_away_early_is_never_exit_0(tmp_path: Path) -> None:
    """``check … --jsonl | head -1`` on flagged traces exited 0 once ``head`` had gone: a
    ``set -o pipefail`` CI step passed. It is 141 (128 + SIGPIPE), as for any command the
    signal stops, and nothing is said about the pipe on stderr."""
    for k in range(400):  # more output than a pipe holds
        (tmp_path / f"t{k:03}.sse").write_bytes(STREAM)
    run = subprocess.Popen(
        [sys.executable, "-m", "replay_tui.cli", "check", "--jsonl", "--jobs", "1", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert run.stdout is not None and run.stderr is not None
    first = run.stdout.readline()
    run.stdout.close()  # what head does after its line
    assert json.loads(first)["verdicts"]["assign-always"] == "unidentified-call"
    assert run.wait(timeout=60) == 141
    assert run.stderr.read() == b""


def test_the_tui_takes_jobs_and_no_cache_and_refuses_zero_jobs(tmp_path: Path) -> None:
    (tmp_path / "a.sse").write_bytes(STREAM)
    code, out, err = run_cli([str(tmp_path), "--jobs", "0", "--no-cache"])
    assert (code, out) == (2, "")
    assert err == "replay-tui: --jobs: expected 1 or more, got 0\n"


# ---- FILE.har#N wherever a trace is -----------------------------------------------------------


def test_discover_names_one_har_entry(tmp_path: Path) -> None:
    har = _har(tmp_path, [STREAM, None, CLEAN])
    found = discover([f"{har}#3"])
    assert [s.address for s in found.sources] == [f"{har}#3"]
    assert found.skipped == []
    found = discover([f"{har}#2"])
    reason = "no SSE stream at entry #2 (streams are at #1 and #3)"
    assert found.sources == [] and found.skipped[0].reason == reason


def test_check_replay_and_diff_take_a_har_entry(tmp_path: Path) -> None:
    har = _har(tmp_path, [STREAM, None, CLEAN])
    code, out, _ = run_cli(["check", f"{har}#3", "--json"])
    assert code == 0 and [t["path"] for t in json.loads(out)["traces"]] == [f"{har}#3"]
    code, out, _ = run_cli(["check", f"{har}#1", "--json"])
    assert code == 1 and [t["path"] for t in json.loads(out)["traces"]] == [f"{har}#1"]
    code, out, _ = run_cli(["replay", f"{har}#3", "--json"])
    assert code == 0 and json.loads(out.splitlines()[-1])["type"] == "finish"
    code, out, _ = run_cli(["diff", f"{har}#1", f"{har}#3"])
    assert code in (0, 1) and f"{har}#1" in out and f"{har}#3" in out
    code, out, err = run_cli(["check", f"{har}#2"])
    assert code == 2 and f"{har}#2: no SSE stream at entry #2" in err


def test_a_file_with_many_streams_asks_for_one_in_one_line(tmp_path: Path) -> None:
    har = _har(tmp_path, [CLEAN] * 3601)
    code, out, err = run_cli(["replay", str(har)])
    assert (code, out) == (2, "")
    assert err == (
        f"replay-tui: {har}: holds 3,601 streams; name one as {har}#1, #2, #3, …"
        f" (replay-tui check {har} lists them all)\n"
    )


def _advised(err: str) -> list[str]:
    """The traces a "holds N streams" line advises naming, each as a user would type it."""
    advice = err.split("; name one", 1)[1].split(" (replay-tui check", 1)[0]
    words = advice.removeprefix(" as ").removeprefix(", such as ").replace(" or ", ", ")
    named = [w for w in words.strip().rstrip("\n").split(", ") if w != "…"]
    base = named[0].rsplit("#", 1)[0]
    return [base + w if w.startswith("#") else w for w in named]


@pytest.mark.parametrize("command", [["replay"], ["diff", "{stream}"]])
def test_a_har_file_of_several_streams_names_the_entries_that_hold_one(
    tmp_path: Path, command: list[str]
) -> None:
    # The export's other entries are not streams: "#N" alone sends the user to #1, which fails.
    har = _har(tmp_path, [None, STREAM, None, CLEAN, STREAM])
    (tmp_path / "s.sse").write_bytes(STREAM)
    args = [a.format(stream=tmp_path / "s.sse") for a in command]
    code, out, err = run_cli([*args[:1], str(har), *args[1:]])
    assert (code, out) == (2, "")
    assert err == f"replay-tui: {har}: holds 3 streams; name one as {har}#2, #4 or #5\n"
    for advised in _advised(err):
        assert run_cli(["replay", advised, "--json"])[0] == 0, advised
    code, _, err = run_cli(["replay", f"{har}#1"])
    assert code == 2 and err.endswith("no SSE stream at entry #1 (streams are at #2, #4 and #5)\n")


@pytest.mark.parametrize("trailing", ["", "/"])
def test_a_folder_of_several_streams_names_files_in_it_that_work(
    tmp_path: Path, trailing: str
) -> None:
    # The walkthrough: "name one as traces/#N" led to "not a regular file".
    folder = tmp_path / "traces"
    (folder / "deep").mkdir(parents=True)
    for name in ("a.sse", "b.sse", "deep/c.sse", "deep/d.sse", "e.sse"):
        (folder / name).write_bytes(STREAM)
    given = f"{folder}{trailing}"
    code, out, err = run_cli(["replay", given])
    assert (code, out) == (2, "")
    assert err == (
        f"replay-tui: {given}: holds 5 streams; name one, such as {folder}/a.sse,"
        f" {folder}/b.sse, {folder}/deep/c.sse (replay-tui check {given} lists them all)\n"
    )
    for advised in _advised(err):
        assert run_cli(["replay", advised, "--json"])[0] == 0, advised
    code, out, err = run_cli(["diff", given, given])
    assert code == 2 and f"{given}: holds 5 streams; name one, such as {folder}/a.sse" in err


def test_a_few_streams_in_a_folder_are_all_named(tmp_path: Path) -> None:
    (tmp_path / "a.sse").write_bytes(STREAM)
    har = _har(tmp_path, [CLEAN, None, STREAM])
    code, _, err = run_cli(["replay", str(tmp_path)])
    assert code == 2
    assert err == (
        f"replay-tui: {tmp_path}: holds 3 streams; name one, such as {tmp_path}/a.sse,"
        f" {har}#1 or {har}#3\n"
    )
    for advised in _advised(err):
        assert run_cli(["replay", advised, "--json"])[0] == 0, advised


def test_a_folder_is_no_har_file_to_take_an_entry_number(tmp_path: Path) -> None:
    (tmp_path / "a.sse").write_bytes(STREAM)
    code, out, err = run_cli(["replay", f"{tmp_path}/#1"])
    assert (code, out) == (2, "")
    assert err == (
        f"replay-tui: {tmp_path}/#1: a folder: #N names a stream of a HAR file, not of a folder\n"
    )


# ---- no terminal -----------------------------------------------------------------------------


def test_the_tui_without_a_terminal_exits_2_with_a_message(tmp_path: Path) -> None:
    (tmp_path / "a.sse").write_bytes(STREAM)
    done = subprocess.run(
        [sys.executable, "-m", "replay_tui.cli", str(tmp_path)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "replay-tui: the TUI needs a terminal (stdin and stdout are not one);"
        " 'replay-tui check PATH' prints a report instead\n"
    )


# ---- the recorder's side files ---------------------------------------------------------------


def test_recorder_side_files_are_never_listed_as_bad_traces(tmp_path: Path) -> None:
    (tmp_path / "qwen-1.sse").write_bytes(STREAM)
    (tmp_path / "qwen-1.sse.meta.json").write_text('{"complete": true}')
    (tmp_path / "models-2.body").write_text('{"data": []}')
    (tmp_path / "models-2.body.meta.json").write_text('{"complete": true}')
    (tmp_path / "empty-3.body").write_bytes(b"")
    code, out, err = run_cli(["check", str(tmp_path), "--json"])
    doc = json.loads(out)
    assert [t["path"] for t in doc["traces"]] == ["qwen-1.sse"]
    assert doc["skipped"] == [] and err == ""
    assert code == 1


# ---- words -----------------------------------------------------------------------------------


def test_counts_are_plural_aware_with_thousands_separators() -> None:
    from replay_tui.core.words import plural

    assert plural(1, "request") == "1 request"
    assert plural(0, "capture") == "0 captures"
    assert plural(1204, "trace") == "1,204 traces"
    assert plural(2, "entry", "entries") == "2 entries"


def test_nothing_a_user_sees_cites_the_spec() -> None:
    for name in (*COMMANDS, "tui"):
        module = importlib.import_module(f"replay_tui.cli.{name}")
        assert "SPEC" not in module.HELP
        code, out, _ = run_cli([name, "--help"] if name != "tui" else ["--help"])
        assert code == 0 and "SPEC" not in out and "§" not in out


def test_python_m_record_still_runs_the_record_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "replay_tui.record", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout.startswith("usage: replay-tui record")


# ---- the package's shape ---------------------------------------------------------------------


@pytest.mark.parametrize("name", [*COMMANDS, "tui"])
def test_each_command_module_keeps_the_contract(name: str) -> None:
    module = importlib.import_module(f"replay_tui.cli.{name}")
    assert isinstance(module.HELP, str) and module.HELP
    assert callable(module.configure) and callable(module.run)


def test_command_modules_import_no_other_command_module() -> None:
    commands = {*COMMANDS, "tui"}
    for path in CLI.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                imported = {node.module or ""} | {a.name for a in node.names if not node.module}
                assert not imported & commands, (path.name, imported)
                assert path.stem == "__init__" or node.module, (path.name, "imports the package")
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith("replay_tui.cli")
            ):
                assert (
                    node.module.split(".")[2:3] == [] or node.module.split(".")[2] not in commands
                )


def test_check_imports_neither_textual_nor_aiohttp(tmp_path: Path) -> None:
    (tmp_path / "a.sse").write_bytes(STREAM)
    code = (
        "import sys; from replay_tui.cli import main; main(['check', sys.argv[1]]);"
        " print(sorted(m for m in ('textual', 'aiohttp', 'replay_tui.tui') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.splitlines()[-1] == "[]"


def test_a_broken_payload_and_a_flag_are_located_by_plain_line_numbers(tmp_path: Path) -> None:
    """``replay`` says a payload is not JSON the way the raw view does, at the file's line and
    column; line numbers are printed as an editor takes them (``vim +20005``), without the
    thousands separator counts get."""
    path = tmp_path / "x.sse"
    body = b": keep-alive\n" * 20_000 + STREAM
    path.write_bytes(body + b'data: {"choices": [oops\n\n')
    code, _, err = run_cli(["replay", str(path)])
    assert code == 0
    line = body.count(b"\n") + 1
    assert err.splitlines() == [
        f"replay-tui: {path}:{line}: not valid JSON: Expecting value at column 20"
    ]
    _, out, _ = run_cli(["check", "--json", str(path)])
    [trace] = json.loads(out)["traces"]
    flag = trace["flags"][0]["line"]
    assert flag > 20_000
    code, out, _ = run_cli(["check", "-v", str(path)])
    assert code == 1
    assert f"line {flag} (erased id" in out and f"flag  line {flag}: erased id" in out


# ---- a mistyped command, an empty path, a report on a terminal --------------------------------


@pytest.mark.parametrize(
    ("word", "hint"),
    [
        ("chek", "did you mean 'replay-tui check'?"),
        ("repaly", "did you mean 'replay-tui replay'?"),
        ("Minimise", "did you mean 'replay-tui minimize'?"),
        ("zzz", "commands: " + ", ".join(COMMANDS)),
    ],
)
def test_a_mistyped_command_is_named_as_one_with_the_nearest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, word: str, hint: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "traces").mkdir()
    code, out, err = run_cli([word, "traces/"])
    assert (code, out) == (2, "")
    assert err == f"replay-tui: {word}: no such command, file or folder; {hint}\n"
    # A folder of that name is a path: the TUI opens it (here, without a terminal, it cannot).
    (tmp_path / word).mkdir()
    code, _, err = run_cli([word])
    assert code == 2 and "the TUI needs a terminal" in err


@pytest.mark.parametrize(
    "argv", [["check", ""], ["check", ".", ""], ["replay", ""], ["report", ""], [""]]
)
def test_an_empty_path_is_a_usage_error_not_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.sse").write_bytes(STREAM)
    code, out, err = run_cli(argv)
    assert (code, out) == (2, "")
    assert err == "replay-tui: '': an empty path names nothing (. is the current folder)\n"


def _report_on_a_terminal(cwd: Path, *args: str) -> str:
    """``replay-tui report ARGS`` with its standard output on a real pseudo-terminal."""
    import os
    import pty

    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "replay_tui.cli", "report", *args],
            cwd=cwd,
            stdout=follower,
            stderr=subprocess.PIPE,
            timeout=120,
            check=False,
        )
        os.set_blocking(leader, False)
        try:
            printed = os.read(leader, 65536)
        except BlockingIOError:
            printed = b""
    finally:
        os.close(leader)
        os.close(follower)
    assert done.returncode == 0, done.stderr
    assert printed == b"", "the page was printed on the terminal"
    return done.stderr.decode()


def test_a_report_asked_for_on_a_terminal_is_written_to_a_file_it_names(tmp_path: Path) -> None:
    trace = tmp_path / "in" / "qwen.sse"
    trace.parent.mkdir()
    trace.write_bytes(STREAM)
    err = _report_on_a_terminal(tmp_path, str(trace))
    assert err.startswith(
        "replay-tui: standard output is a terminal ('-o -' prints there): wrote qwen.report.html"
    )
    assert (tmp_path / "qwen.report.html").read_text().startswith("<!DOCTYPE html>")
    # Never over a file already there; Markdown by its own suffix.
    assert "wrote qwen-2.report.html" in _report_on_a_terminal(tmp_path, str(trace))
    assert "wrote qwen.report.md" in _report_on_a_terminal(tmp_path, str(trace), "--md")
    assert (tmp_path / "qwen.report.md").read_text().lstrip().startswith("#")
    # A pipe still gets the page itself.
    piped = subprocess.run(
        [sys.executable, "-m", "replay_tui.cli", "report", str(trace)],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert piped.stdout.startswith(b"<!DOCTYPE html>") and piped.stderr == b""


def test_compare_takes_two_traces_and_nothing_else(tmp_path: Path) -> None:
    a, b = tmp_path / "a.sse", tmp_path / "b.sse"
    a.write_bytes(STREAM)
    b.write_bytes(CLEAN)
    code, _, err = run_cli(["--compare", str(a), str(a)])
    assert (code, err) == (2, "replay-tui: --compare: A and B are the same trace\n")
    code, _, err = run_cli([str(tmp_path), "--compare", str(a), str(b)])
    assert code == 2 and "name no other PATH" in err
    code, _, err = run_cli(["--compare", str(a), str(tmp_path / "nope.sse")])
    assert code == 2 and err.endswith("nope.sse: no such file or folder\n")
    code, _, err = run_cli(["--compare", str(a), str(b)])  # (here: no terminal to open it in)
    assert code == 2 and "the TUI needs a terminal" in err
    # Each must be one trace: the app showed the list instead, saying nothing (a new user's
    # walk: a folder, a file that holds no trace, a HAR file of several streams)
    notes = tmp_path / "notes.md"
    notes.write_text("# not a trace\n")
    har = tmp_path / "two.har"
    har.write_text(json.dumps({"log": {"entries": [_har_entry(STREAM), _har_entry(CLEAN)]}}))
    for given, said in [
        (str(tmp_path), "a folder: name a file, or FILE.har#N"),
        (str(notes), "not a trace (.md; content is not SSE or an HTTP response)"),
        (str(har), f"holds 2 streams; name one as {har}#1 or #2"),
    ]:
        code, _, err = run_cli(["--compare", given, str(b)])
        assert (code, err) == (2, f"replay-tui: --compare: {given}: {said}\n"), given
        code, _, err = run_cli(["--compare", str(a), given])
        assert (code, err) == (2, f"replay-tui: --compare: {given}: {said}\n"), given
    code, _, err = run_cli(["--compare", f"{har}#2", str(b)])  # (one of its streams: fine)
    assert code == 2 and "the TUI needs a terminal" in err


def _har_entry(body: bytes) -> dict[str, object]:
    return {
        "request": {"method": "POST", "url": "https://gw.example/v1/chat/completions"},
        "response": {
            "status": 200,
            "content": {"mimeType": "text/event-stream", "text": body.decode()},
        },
    }


def test_checks_table_lines_up_past_wide_characters_in_trace_names(tmp_path: Path) -> None:
    """An emoji (or a CJK name) takes two cells: padded by characters, its row's verdicts
    stood one cell right of the others'. Columns are padded by cells."""
    import unicodedata

    from .helpers import run_cli

    source = Path(__file__).resolve().parents[2] / "traces" / "dashscope" / "qwen3-max-id-empty.sse"
    for name in ("🔥-hot.sse", "plain-a.sse", "日本-b.sse"):
        (tmp_path / name).write_bytes(source.read_bytes())
    _, out, _ = run_cli(["check", str(tmp_path)])
    rows = [line for line in out.splitlines() if "(erased id" in line]
    assert len(rows) == 3, out

    def cells(text: str) -> int:  # the oracle: East Asian Wide/Fullwidth take two cells
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)

    header = next(line for line in out.splitlines() if line.startswith("TRACE"))
    column = cells(header[: header.index("ASSIGN-ALWAYS")])
    for row in rows:
        verdict = row.index("unidentified-call")
        assert cells(row[:verdict]) == column, (row, header)


def test_checks_table_is_written_as_traces_are_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table's rows come as traces are judged, not all at the end of a scan of fewer
    than a thousand (its first column was sized on the first thousand rows: 40 captures of
    25 MB said nothing for 4.5 s; a new user's walk). Here each trace is judged after the
    seconds allowed for the sizing have passed: each row is out before the next is judged."""
    import replay_tui.cli.check as check_module
    from replay_tui.core import result

    for name in ("a.sse", "b.sse", "c.sse"):
        (tmp_path / name).write_bytes(STREAM)
    seen: list[str] = []
    out = io.StringIO()
    real = result.judge_candidate

    def judge(item: object, **kw: object) -> object:
        seen.append(out.getvalue())
        return real(item, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(check_module, "judge_candidate", judge)
    monkeypatch.setattr(check_module, "WIDTH_WAIT", 0.0, raising=False)
    monkeypatch.setattr(sys, "stdout", out)
    from replay_tui.cli import main

    assert main(["check", str(tmp_path), "--jobs", "1"]) == 1  # (they erase)
    assert [s.count(".sse") for s in seen] == [0, 1, 2]
    assert out.getvalue().count(".sse") == 3
