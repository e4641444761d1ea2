"""The whole CLI on a fixture repository: deterministic default, a model, the run log, export.
The model is a registered test model (`fake/say:TEXT`, `fake/error:REASON`:
`helix.synthesis.fake_llm`), served behind the LLM port after the same redaction, so the whole
answer path runs with no network."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from retry_fixture import RETRIES_MD, RETRY_PY

from helix.cli.main import cli, main
from helix.core.envelope import Envelope
from helix.export import CHECKS
from helix.synthesis.answer import DETERMINISTIC_HEADER

QUESTION = "where is the retry policy decided?"
SETTINGS_PY = 'OPENAI_API_KEY = "sk-proj-PlantedSecretKey0123456789abcdefXYZ"\nRETRY = True\n'
CITE_RE = re.compile(r"^\s+\[(E\d+)\] (\S+):(\d+)-(\d+)$")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "src" / "retry.py").write_text(RETRY_PY, encoding="utf-8")
    (root / "docs" / "retries.md").write_text(RETRIES_MD, encoding="utf-8")
    (root / "src" / "settings.py").write_text(SETTINGS_PY, encoding="utf-8")
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    monkeypatch.setenv("HELIX_SYNTHESIS__RETRY_BACKOFF_S", "0")
    return root


def invoke(*args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


def citations_in(output: str) -> list[tuple[str, str, int, int]]:
    block = output.split("\ncitations\n", 1)[1].split("\nevidence\n", 1)[0]
    return [(m[1], m[2], int(m[3]), int(m[4]))
            for m in (CITE_RE.match(line) for line in block.splitlines()) if m]


def assert_resolve(repo: Path, cites: list[tuple[str, str, int, int]]) -> None:
    assert cites
    for _, path, start, end in cites:
        lines = (repo / path).read_text(encoding="utf-8").splitlines()
        assert 1 <= start <= end <= len(lines), (path, start, end)


def test_default_is_the_labelled_deterministic_answer(repo: Path) -> None:
    out = invoke("ask", "--repo", str(repo), QUESTION).stdout
    assert out.startswith(DETERMINISTIC_HEADER)
    cites = citations_in(out)
    assert_resolve(repo, cites)
    assert ("src/retry.py", True) in {(p, s <= 6 <= e) for _, p, s, e in cites}
    assert "mode deterministic" in out and "llm_steps 0" in out


def test_mocked_model_end_to_end_citations_resolve(repo: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    model = ("fake/say:The policy is `decide_retry` [E1]; the limit is checked at "
             "src/retry.py:8-9. A bogus cite lib/nowhere.py:3 [E99].")
    out = invoke("ask", "--repo", str(repo), "--model", model, QUESTION).stdout
    assert "lib/nowhere.py" not in out and "[E99]" not in out
    cites = citations_in(out)
    assert_resolve(repo, cites)
    retry_lines = RETRY_PY.splitlines()
    ranges = {(p, s, e) for _, p, s, e in cites}
    assert ("src/retry.py", 8, 9) in ranges
    assert retry_lines[7].strip() == "if attempt >= MAX_ATTEMPTS:"
    e1 = next(c for c in cites if c[0] == "E1")
    assert any("def decide_retry" in line for line in retry_lines[e1[2] - 1:e1[3]])
    assert "mode llm" in out and "model fake/say" in out and "llm_steps 1" in out

    turn = re.search(r"turn (\w+) \(helix show", out)
    assert turn
    shown = invoke("show", turn[1], "--json", "--prompt").stdout
    record = json.loads(shown)
    assert record["status"] == "done" and record["llm_steps"] == 1
    assert record["model"] == "fake/say" and record["prompt_tokens"] > 0
    prompt_text = json.dumps(record["prompt"])
    assert "TOOL_RESULTS" in prompt_text
    assert "PlantedSecretKey" not in prompt_text  # whether or not settings.py was retrieved
    human = invoke("show", turn[1], "--prompt").stdout
    assert "question  " + QUESTION in human and "--- system" in human
    listed = json.loads(invoke("log", "--json").stdout)
    assert listed[0]["id"] == turn[1] and listed[0]["answer_mode"] == "llm"


def test_json_prints_the_envelope(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_MODEL", "fake/say:It is decided in decide_retry [E1].")
    env = Envelope.model_validate_json(invoke("ask", "--repo", str(repo), "--json",
                                              QUESTION).stdout)
    assert env.answer_mode == "llm" and env.llm_steps == 1 and env.citations
    dry = Envelope.model_validate_json(invoke("ask", "--repo", str(repo), "--json", "--dry-run",
                                              QUESTION).stdout)
    assert dry.answer_mode == "dry_run" and dry.llm_steps == 0
    assert len(json.loads(invoke("log", "--json").stdout)) == 2  # dry runs are logged too


@pytest.mark.parametrize(("model", "reason"), [
    ("fake/error:rate_limited", "rate_limited"),
    ("fake/error:transport_error", "transport_error"),
    ("fake/say:There is no evidence in the provided context.", "contract_no_evidence_claim"),
])
def test_failures_fall_back_with_reason(repo: Path, model: str, reason: str) -> None:
    # exit 3: answered without the model
    out = invoke("ask", "--repo", str(repo), "--model", model, QUESTION, code=3).stdout
    assert out.startswith(f"Deterministic answer (the model's answer was not used: {reason})")
    assert f"mode fallback ({reason})" in out
    assert_resolve(repo, citations_in(out))
    record = json.loads(invoke("show", "last", "--json").stdout)
    assert record["status"] == "fallback" and record["fallback_reason"] == reason


def test_unknown_turn_is_one_line_exit_2(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["show", "doesnotexist"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err == "helix: no such turn: doesnotexist\n"


def test_unknown_model_is_one_line_exit_2(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["ask", "--repo", str(repo), "--model", "no-such-provider-model-xyz", QUESTION])
    assert info.value.code == 2
    err = capsys.readouterr().err
    first_index = f"helix: no index of {repo.resolve()} yet: building it first"
    lines = [line for line in err.splitlines()
             if not line.startswith((first_index, "helix: index built ("))]
    assert len(lines) == 1 and lines[0].startswith(
        "helix: unknown model 'no-such-provider-model-xyz'")
    record = json.loads(CliRunner().invoke(cli, ["show", "last", "--json"]).output)
    assert record["status"] == "error" and "UnknownModelError" in record["error"]


def test_export_after_runs(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    invoke("ask", "--repo", str(repo), "--model", "fake/say:Decided in decide_retry [E1].",
           QUESTION)
    out = tmp_path / "train.jsonl"
    text = invoke("export", "--out", str(out)).stdout
    assert "admitted 0 (full access)" in text and "rejected 1" in text
    assert out.read_text() == ""
    report = json.loads(invoke("export", "--out", str(out), "--include-diagnostic",
                               "--json").stdout)
    assert report["diagnostic"] == 1
    records = [json.loads(line) for line in out.read_text().splitlines()]
    (record,) = records
    assert record["admission"]["failed_checks"] == list(CHECKS)  # a plain code node
    assert record["graph_pack"]["lattice_rev"].startswith("sha256:")
    for ev in record["evidence"]:
        assert (repo / ev["path"]).is_file() and ev["content_hash"].startswith("sha256:")
    chat = tmp_path / "chat.jsonl"
    invoke("export", "--out", str(chat), "--format", "chat", "--include-diagnostic")
    (line,) = chat.read_text().splitlines()
    assert [m["role"] for m in json.loads(line)["messages"]] == ["system", "user", "assistant"]


TREE_JSON = {
    "version": 3, "rootId": "retry-tree",
    "nodes": [
        {"id": "retry-tree", "title": "Retry Tree", "bodyMD": "How retries work.",
         "children": ["retry-budget"], "dependencies": []},
        {"id": "retry-budget", "title": "Retry budget ceiling",
         "bodyMD": "The retry budget ceiling caps attempts at MAX_ATTEMPTS in decide_retry.",
         "inputs": [{"name": "attempt", "type": "int", "unit": "count", "source": "caller"}],
         "outputs": [{"name": "retry", "type": "bool", "unit": "1"}],
         "assumptions": ["errors carry a transient flag"], "validity": {"mode": "all"},
         "deterministic": True, "tolerance": {"abs": 0, "rel": 0},
         "environment": {"runtime": "python3.11", "lockfile_hash": "sha256:abc"},
         "dependencies": [],
         "evidence": []},  # filled with the repository's own files (`_links`)
    ],
}
LINKED = (("code", "src/retry.py"), ("doc", "docs/retries.md"), ("test", "tests/test_retry.py"))


def _links(repo: Path, broken: str | None = None) -> list[dict[str, str]]:
    """Evidence links to the files as they are (`HEAD` outside git); `broken` gets a hash
    that does not match."""
    import hashlib

    links = []
    for kind, path in LINKED:
        digest = hashlib.sha256((repo / path).read_bytes()).hexdigest()
        links.append({"type": kind, "path": path, "repo_rev": "HEAD",
                      "content_hash": f"sha256:{'0' * 64 if path == broken else digest}"})
    return links


def test_full_access_tree_anchor_is_admitted(repo: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "tests").mkdir()
    (repo / "tests" / "test_retry.py").write_text("def test_retry():\n    assert True\n")
    tree = json.loads(json.dumps(TREE_JSON))
    tree["nodes"][1]["evidence"] = _links(repo)
    (repo / "trees").mkdir()
    (repo / "trees" / "retry-tree.json").write_text(json.dumps(tree, indent=1))
    (repo / ".helix.toml").write_text('[helix.index]\ntrees = ["trees/*.json"]\n')
    env = Envelope.model_validate_json(invoke(
        "ask", "--repo", str(repo), "--model", "fake/say:The ceiling is MAX_ATTEMPTS [E1].",
        "--json",
        "what is the retry budget ceiling?").stdout)
    anchor = "tree:trees/retry-tree.json#retry-budget"
    assert env.tree_walk.anchors[0] == anchor and env.answer_mode == "llm"
    out = tmp_path / "train.jsonl"
    report = json.loads(invoke("export", "--out", str(out), "--json").stdout)
    assert (report["admitted"], report["rejected"]) == (1, 0)
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["anchor_node_id"] == anchor and record["admission"]["full_access"]
    assert record["graph_pack"]["conceptMatch"][0] == anchor
    assert record["graph_pack"]["treeVersion"].startswith("sha256:")
    assert record["graph_pack"]["anchorIds"][0] == anchor
    # the concept tree's own id, not the directory it sits in
    assert record["graph_pack"]["treeIds"] == ["retry-tree"]
    assert record["graph_pack"]["primaryTreeId"] == "retry-tree"
    assert record["admission"]["link_failures"] == []

    # a link whose hash does not match the file: the same anchor is diagnostic, named
    tree["nodes"][1]["evidence"] = _links(repo, broken="docs/retries.md")
    (repo / "trees" / "retry-tree.json").write_text(json.dumps(tree, indent=1))
    invoke("ask", "--repo", str(repo), "--model", "fake/say:The ceiling is MAX_ATTEMPTS [E1].",
           "what is the retry budget ceiling?")
    report = json.loads(invoke("export", "--out", str(out), "--json",
                               "--include-diagnostic").stdout)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records[-1]["admission"]["failed_checks"] == ["links"]
    assert records[-1]["admission"]["link_failures"] == ["hash:docs/retries.md"]


def test_dry_run_and_no_model_never_import_litellm(repo: Path) -> None:
    import os
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from helix.cli.main import main\n"
        "for args in (['ask', '--dry-run'], ['ask']):\n"
        "    try:\n"
        f"        main([*args, '--repo', {str(repo)!r}, 'retry policy'])\n"
        "    except SystemExit as exc:\n"
        "        assert not exc.code, exc.code\n"
        "print('LITELLM_IMPORTED', 'litellm' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ}, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "LITELLM_IMPORTED False" in done.stdout
