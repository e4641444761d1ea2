"""`helix eval history|qa|matrix --cluster local` on a real local Ray cluster (no mock): the
work fans out per repository (history) or per chunk of cases (qa, suites), and the report is
the serial run's, measured times aside, with the wall time, the tasks' own time and the
speed-up under `cluster`. `helix eval corpus build --cluster local` mines each repository in
a task and writes the serial build's bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.cluster import without_times
from evals.corpus.repos import assign_splits
from tests.cli_helpers import run
from tests.corpus_helpers import build_corpus_repo, mirror_of, repo_list
from tests.history_helpers import build_history_repo

ROOT = Path(__file__).resolve().parents[1]
QA_SAMPLE = ROOT / "data" / "evals" / "qa" / "answer_repo_sample.jsonl"
QA_REPO = ROOT / "data" / "fixtures" / "answer_repo"


def _both(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[dict, dict, str]:
    code, serial, err = run([*argv, "--json"], capsys)
    assert code == 0, err
    code, clustered, err = run([*argv, "--json", "--cluster", "local"], capsys)
    assert code == 0, err
    return json.loads(serial), json.loads(clustered), err


@pytest.mark.slow
def test_evals_on_a_ray_cluster_report_what_the_serial_run_reports(
        ray_session: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HELIX_CLUSTER__CASES_PER_TASK", "3")
    serial, clustered, err = _both(["eval", "matrix", "--no-embed", "--no-bm25-files"],
                                   capsys)
    cases = len(serial["run"]["suites"][0]["cases"])
    assert clustered["cluster"]["executor"] == "ray"
    assert clustered["cluster"]["tasks"] == -(-cases // 3) and "tasks on local" in err
    assert without_times(clustered) == without_times(serial)
    assert without_times(serial) != without_times({**serial, "run": {}})  # it compares

    serial, clustered, err = _both(["eval", "qa", str(QA_SAMPLE), "--repo", str(QA_REPO),
                                    "--no-embed"], capsys)
    assert serial["summary"]["questions"] == 3 and clustered["cluster"]["tasks"] == 2
    assert without_times(clustered) == without_times(serial)

    repo, _ = build_history_repo(tmp_path)
    serial, clustered, err = _both(["eval", "history", "--repo", str(repo), "--no-embed",
                                    "--seed", "4"], capsys)
    assert serial["overall"]["all"]["helix"]["cases"] == 4
    assert clustered["cluster"]["tasks"] == 1 and clustered["cluster"]["wall_s"] > 0
    assert without_times(clustered) == without_times(serial)


@pytest.mark.slow
def test_the_training_corpus_built_on_a_ray_cluster_is_the_serial_build(
        ray_session: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mirrors = tmp_path / "mirrors"
    sources = {"toy": "github:toy/proj", "twin": "github:toy/twin"}
    for name, source in sources.items():
        (tmp_path / name).mkdir()
        repo, shas = build_corpus_repo(tmp_path / name)
        mirror_of(repo, mirrors, source.split(":", 1)[1])
    listing = repo_list(tmp_path / "repos.json", shas)
    raw = json.loads(listing.read_text(encoding="utf-8"))
    splits = assign_splits(((s, "python") for s in sources.values()), raw["split_seed"])
    raw["repos"] = [{**raw["repos"][0], "name": name, "source": source, "split": splits[source]}
                    for name, source in sources.items()]
    listing.write_text(json.dumps(raw), encoding="utf-8")
    outputs = {}
    for label, extra in (("serial", []), ("ray", ["--cluster", "local"])):
        out = tmp_path / f"out-{label}"
        code, _, err = run(["eval", "corpus", "build", "--repos", str(listing), "--mirrors",
                            str(mirrors), "--work", str(tmp_path / f"work-{label}"), "--out",
                            str(out), *extra], capsys)
        assert code == 0, err
        outputs[label] = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    assert "2 tasks on local" in err
    assert outputs["ray"] == outputs["serial"]
    manifest = json.loads(outputs["ray"]["manifest.json"])
    assert [r["name"] for r in manifest["repos"]] == ["toy", "twin"]
    assert manifest["counts"]["cases"] == 8  # 4 a repository: both were mined
