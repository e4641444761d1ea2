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


def _toy_rows_inputs(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Two toy trees (a module a file, a helper named by each message and the function the
    change touched), their cases and a list naming both: what ranker-rows reads."""
    from evals.corpus.mine import CorpusCase, Target

    trees, cases = tmp_path / "trees", []
    words = ("amber", "basil", "cedar", "delta", "ember", "fable", "garnet", "harbor",
             "indigo", "jasper", "kettle", "lumen")
    splits = assign_splits(((f"github:toy/{n}", "python") for n in ("toy", "twin")), 5)
    named = [(name, splits[f"github:toy/{name}"]) for name in ("toy", "twin")]
    for r, (name, split) in enumerate(named):
        for n in range(3):
            a, b = words[4 * n + 2 * r], words[4 * n + 2 * r + 1]
            module = trees / name / "pkg" / f"mod_{n}.py"
            module.parent.mkdir(parents=True, exist_ok=True)
            module.write_text(f'"""Module {n}."""\n\n\ndef {a}_{b}_helper(value):\n    return '
                              f"str(value)\n\n\ndef process_{n}(value):\n    # keeps {a} and "
                              f"{b} apart\n    return value\n", encoding="utf-8")
            cases.append(CorpusCase(
                id=f"{name}@{n}", repo=name, language="python", split=split, revision="r",
                commit=str(n), parent="p", committed=n, message=f"Fix {a} {b} handling",
                truncated=False, targets=(Target(path=f"pkg/mod_{n}.py",
                                                 qualname=f"process_{n}", kind="function",
                                                 start=8, end=10),),
                files=(f"pkg/mod_{n}.py",), names_target=False, exact=True))
    cases_file = tmp_path / "cases.jsonl"
    cases_file.write_text("".join(c.model_dump_json() + "\n" for c in cases), encoding="utf-8")
    listing = tmp_path / "repos.json"
    listing.write_text(json.dumps({"split_seed": 5, "repos": [
        {"name": name, "source": f"github:toy/{name}", "language": "python",
         "revision": "a" * 40, "until": "b" * 40, "split": split}
        for name, split in named]}), encoding="utf-8")
    return trees, cases_file, listing


@pytest.mark.slow
def test_ranker_rows_collected_on_a_ray_cluster_are_the_serial_rows(
        ray_session: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trees, cases_file, listing = _toy_rows_inputs(tmp_path)
    outputs, said = {}, {}
    for label, extra in (("serial", []), ("ray", ["--cluster", "local"])):
        out = tmp_path / f"rows-{label}"
        code, printed, err = run(["eval", "corpus", "ranker-rows", "--repos", str(listing),
                                  "--cases", str(cases_file), "--trees", str(trees), "--out",
                                  str(out), "--split", "train", "--split", "validation",
                                  "--split", "test", *extra], capsys)
        assert code == 0, err
        outputs[label] = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
        said[label] = json.loads(printed)
    assert "2 tasks on local" in err and said["ray"]["cluster"]["tasks"] == 2
    assert sorted(outputs["serial"]) == ["toy.json", "toy.npz", "twin.json", "twin.npz"]
    assert outputs["ray"] == outputs["serial"]
    assert without_times(said["ray"]) == without_times(said["serial"])
    assert said["serial"]["toy"]["cases"] == 3 and said["serial"]["twin"]["cases"] == 3
    side = json.loads(outputs["ray"]["twin.json"])
    assert [c["id"] for c in side["cases"]] == ["twin@0", "twin@1", "twin@2"]
    assert all(c["in_pool"] == 1 for c in side["cases"])  # each target was a candidate


@pytest.mark.slow
def test_the_ranker_trained_on_a_ray_cluster_is_the_model_trained_here(
        ray_session: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`train-ranker --cluster local`: each grid point a Ray task (the rows put in the object
    store once); the model and its manifest are the bytes one machine writes."""
    pytest.importorskip("lightgbm")
    from evals.corpus.features import collect_repo, save
    from evals.corpus.ranker_train import GRID
    from tests.test_ranker_export import _listing, _toy
    from tests.test_ranker_toy import _cases

    root = _toy(tmp_path)
    repos, names = _listing()
    (tmp_path / "repos.json").write_text(json.dumps({"split_seed": 31, "repos": repos}),
                                         encoding="utf-8")
    cases = []
    for name, split in names.items():
        mine = [c.model_copy(update={"repo": name, "split": split,
                                     "id": c.id.replace("toy", name)})
                for c in _cases(root) if (c.split == "train") == (split == "train")]
        save(collect_repo(root, mine, {})[0], tmp_path / "rows" / name,
             {"repo": name, "split": split})
        cases += mine
    (tmp_path / "cases.jsonl").write_text(
        "".join(c.model_dump_json() + "\n" for c in cases), encoding="utf-8")
    args = ["eval", "corpus", "train-ranker", "--repos", str(tmp_path / "repos.json"),
            "--cases", str(tmp_path / "cases.jsonl"), "--rows", str(tmp_path / "rows")]
    written = {}
    for label, extra in (("here", []), ("ray", ["--cluster", "local"])):
        code, _out, err = run([*args, "--out", str(tmp_path / label), *extra], capsys)
        assert code == 0, err
        written[label] = {p.name: p.read_bytes() for p in sorted((tmp_path / label).iterdir())}
    assert f"{len(GRID)} tasks on local" in err
    assert sorted(written["ray"]) == ["manifest.json", "model.txt"]
    assert written["ray"] == written["here"]
    code, _, err = run([*args, "--out", str(tmp_path / "x"), "--cluster", "local", "--jobs",
                        "2"], capsys)
    assert code == 2 and err.count("\n") == 1 and "give one" in err
