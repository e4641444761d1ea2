"""Docs that cannot drift: the README's CLI reference and the commands' help agree."""

from __future__ import annotations

import re
from pathlib import Path

import click
from click.testing import CliRunner

from helix.cli.main import cli, commands

README = Path(__file__).resolve().parents[1] / "README.md"


def _params(cmd: click.Command) -> list[str]:
    out = []
    for p in cmd.params:
        if isinstance(p, click.Option):
            out.append("/".join(o for o in p.opts if o.startswith("--")) or p.opts[0])
        else:
            out.append(p.human_readable_name)
    return out


def _reference_rows() -> dict[str, tuple[str, list[str]]]:
    rows = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\| `helix (\S+)` \| (.*?) \| (.*) \|$", line)
        if match:
            params = re.findall(r"`([^`]+)`", match.group(3))
            rows[match.group(1)] = (match.group(2), params)
    return rows


def test_readme_reference_lists_every_command_with_its_options() -> None:
    ctx = click.Context(cli)
    rows = _reference_rows()
    table = commands()
    assert sorted(rows) == sorted(table)
    for name, (_, short_help) in table.items():
        cmd = cli.get_command(ctx, name)
        assert cmd is not None
        help_text, params = rows[name]
        assert help_text == (short_help or cmd.get_short_help_str(limit=70)), name
        assert params == _params(cmd), name


def test_every_command_and_option_has_help() -> None:
    ctx = click.Context(cli)
    runner = CliRunner()
    for name in sorted(commands()):
        cmd = cli.get_command(ctx, name)
        assert cmd is not None and (cmd.help or "").strip(), f"{name} has no help text"
        for p in cmd.params:
            if isinstance(p, click.Option):
                assert (p.help or "").strip(), f"helix {name} {p.opts[0]} has no help text"
        result = runner.invoke(cli, [name, "--help"])
        assert result.exit_code == 0, result.output


def test_readme_set_up_commands_are_the_real_ones() -> None:
    """The README installs what scripts/test installs (torch pinned, then the lock; the test
    command adds the engines' clients, which the embedded default needs not), and CI runs
    scripts/test."""
    text = README.read_text(encoding="utf-8")
    script = (README.parent / "scripts" / "test").read_text(encoding="utf-8")
    installs = re.findall(r"python -m (pip install [^\n]*?)\s*$", script, re.MULTILINE)
    assert installs == ["pip install -q torch==2.13.0",
                        "pip install -q -c requirements/lock.txt -e '.[dev,eval]' -e ./evals",
                        "pip install -q -c requirements/lock.txt -e '.[cluster,postgres]'"]
    readme_command = " && ".join(i.replace(" -q", "") for i in installs[:2]) + " && helix ask"
    assert readme_command in text
    assert "scripts/test" in text and "scripts/check-newest" in text and "scripts/lock" in text
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "scripts/test" in ci


def test_unwritable_output_path_is_one_line_not_internal_error(tmp_path: Path) -> None:
    import subprocess
    import sys

    blocker = tmp_path / "file"
    blocker.write_text("x")
    out = subprocess.run(
        [sys.executable, "-m", "helix.cli.main", "export", "--out", str(blocker / "x.jsonl")],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode != 0
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("helix: ")
    assert "internal error" not in lines[0] and "Traceback" not in out.stderr


def test_docs_benchmarks_is_generated_from_the_results() -> None:
    """docs/benchmarks.md is exactly what scripts/benchmarks_doc.py makes of the results."""
    import importlib.util

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("benchmarks_doc",
                                                  root / "scripts" / "benchmarks_doc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (root / "docs" / "benchmarks.md").read_text(encoding="utf-8") == module.render()


def test_the_readme_numbers_are_the_results() -> None:
    """Every number in the README's "How well it works" is read back from qa_dev.json."""
    import json
    import re

    root = Path(__file__).resolve().parents[1]
    pooled = json.loads((root / "benchmarks" / "results" / "qa_dev.json").read_text(
        encoding="utf-8"))["pooled"]
    section = README.read_text(encoding="utf-8").split("## How well it works", 1)[1]
    section = " ".join(section.split("\n## ", 1)[0].split())
    helix, bm25 = pooled["helix"], pooled["bm25_files"]
    expected = [f"{pooled['questions']} questions",
                f"comes first for {helix['file@1']:.2f}", f"same run: {bm25['file@1']:.2f}",
                f"top 5 for {helix['file@5']:.2f} ({bm25['file@5']:.2f})",
                f"top 5 for {helix['span@5']:.2f}", f"model for {helix['recall']:.2f}"]
    for phrase in expected:
        assert phrase in section, phrase
    shown = re.findall(r"\b\d\.\d\d\b", section)
    assert len(shown) == 6  # no number in the section that is not read back


def test_readme_names_every_http_endpoint_with_its_parameters(tmp_path: Path) -> None:
    """The README's endpoint table is the app's OpenAPI: every route, every parameter."""
    from helix.servers.http_api import create_app
    from helix.servers.workspace import Workspace

    (tmp_path / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    workspace = Workspace([tmp_path])
    try:
        spec = create_app(workspace, token=None, max_concurrent=1).openapi()
    finally:
        workspace.close()
    schemas = spec["components"]["schemas"]
    actual: dict[str, list[str]] = {}
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            names = [p["name"] for p in operation.get("parameters", [])]
            body = operation.get("requestBody", {}).get("content", {}).get(
                "application/json", {}).get("schema", {})
            if "$ref" in body:
                names += list(schemas[body["$ref"].rsplit("/", 1)[-1]]["properties"])
            actual[f"{method.upper()} {path}"] = names
    documented = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\| `((?:GET|POST) \S+)` \| (.*) \|$", line)
        if match:
            documented[match.group(1)] = re.findall(r"`([^`]+)`", match.group(2))
    assert documented == actual


def _conversation(marker: str) -> list[tuple[list[str], list[str]]]:
    """The README's conversation after `<!-- readme-conversation: marker -->`: each command's
    arguments and the lines shown for it ("..." elides lines)."""
    import shlex

    text = README.read_text(encoding="utf-8").split(f"<!-- readme-conversation: {marker} -->")[1]
    block = text.split("```", 2)[1]
    turns: list[tuple[list[str], list[str]]] = []
    for line in block.splitlines()[1:]:
        if line.startswith("$ helix "):
            turns.append((shlex.split(line[len("$ helix "):]), []))
        elif line.strip() and line.strip() != "...":
            turns[-1][1].append(line)
    return turns


def test_readme_conversation_with_an_announced_reading_is_real_output(tmp_path, monkeypatch):
    """Every line the README shows for its announced-reading conversation is what the
    commands print, in order (run in a fresh HELIX_HOME over the fixture repository)."""
    monkeypatch.setenv("HELIX_HOME", str(tmp_path))
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    monkeypatch.chdir(README.parent)
    turns = _conversation("announced")
    assert len(turns) >= 3 and any("Read as" in line for _, shown in turns for line in shown)
    runner = CliRunner()
    for args, shown in turns:
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, result.output
        printed = result.output.splitlines()
        at = 0
        for line in shown:
            assert line in printed[at:], f"{args[-1]!r}: {line!r} not printed"
            at = printed.index(line, at) + 1
