"""The evals walk the user's path: a question asked by `helix ask --dry-run --json` and by the
eval runners (`evals.runner.PreparedRepo`, the history and qa evals' `HelixSide`) goes through
`helix.service.ask` alike (redacted, a long report cut, respelled, the same controller), so the
item hashes agree."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evals.history.run import HelixSide
from evals.runner import PreparedRepo
from tests.index_fixtures import write

SECRET = "AKIA" + "Q3EGRZ7XK2MPLT5W"  # an AWS access key id (built, never a literal)
TRACE = """Traceback (most recent call last):
  File "/srv/app/shop/cart.py", line 4, in checkout
    return compute_total(items)
  File "/srv/app/shop/pricing.py", line 2, in compute_total
    return sum(PRICE_TABLE[i] for i in items)
KeyError: 'apple'
"""


def _report() -> str:
    noise = "".join(f"2026-11-26 10:{n % 60:02d}:00 DEBUG cart heartbeat total ok seq={n}\n"
                    for n in range(3000))
    return ("Checkout crashes with KeyError for unknown items\n\n"
            f"Logs:\n{noise}\n{TRACE}")


QUESTIONS = {
    "plain": "where is the total computed?",
    "secret": f"why does checkout fail with the key {SECRET} in the cart?",
    "report": _report(),
}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("evalpath") / "repo"
    write(root, "shop/cart.py", "from shop.pricing import compute_total\n\n\n"
                                "def checkout(items):\n    return compute_total(items)\n")
    write(root, "shop/pricing.py", "def compute_total(items):\n"
                                   "    return sum(PRICE_TABLE[i] for i in items)\n")
    write(root, "shop/heartbeat.py", "def heartbeat(seq):\n    \"\"\"Cart heartbeat: ok, "
                                     "total seq.\"\"\"\n    return 'ok'\n")
    write(root, "docs/cart.md", "# Cart\n\nThe cart total is computed at checkout; the "
                                "heartbeat logs DEBUG lines.\n")
    return root


# `helix ask --dry-run --json` for each question file, one after another in one fresh process
# (the entry point's `main`, as `python -m helix.cli.main` runs it): exit code and stdout each
_ASK_EACH = """
import contextlib, io, json, sys
from helix.cli.main import main
done = []
for asked in sys.argv[2:]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            main(["ask", "--question-file", asked, "--repo", sys.argv[1], "--dry-run", "--json"])
            code = 0
        except SystemExit as exc:
            code = exc.code or 0
    done.append({"code": code, "out": out.getvalue()})
print(json.dumps(done))
"""


@pytest.fixture(scope="module")
def cli_answers(root: Path,
                tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    """Every question's `helix ask --dry-run --json` envelope, asked in one fresh process with
    a home of its own and no Helix setting in its environment (one start, not one a question)."""
    where = tmp_path_factory.mktemp("evalpath_cli")
    names = sorted(QUESTIONS)
    for name in names:
        (where / f"{name}.txt").write_text(QUESTIONS[name], encoding="utf-8")
    env = {"HELIX_HOME": str(where / "home"), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1",
           "HELIX_INDEX__EMBED_ENABLED": "false", "HELIX_NO_SERVER": "1"}
    run = subprocess.run([sys.executable, "-c", _ASK_EACH, str(root),
                          *(str(where / f"{name}.txt") for name in names)],
                         capture_output=True, text=True, env=env, check=False)
    assert run.returncode == 0, run.stderr
    done = json.loads(run.stdout)
    assert [d["code"] for d in done] == [0] * len(names), run.stderr
    return {name: dict(json.loads(d["out"])) for name, d in zip(names, done, strict=True)}


@pytest.mark.parametrize("name", sorted(QUESTIONS))
def test_helix_ask_and_the_evals_give_the_same_item_hashes(
        name: str, root: Path, cli_answers: dict[str, dict[str, object]]) -> None:
    question = QUESTIONS[name]
    cli = cli_answers[name]
    prepared = PreparedRepo(root, {}, no_embed=True).ask(question)
    history = HelixSide(root, {}, no_embed=True).ask(question)
    assert prepared.item_hashes == cli["item_hashes"]
    assert history.item_hashes == cli["item_hashes"]
    assert prepared.question == history.question == cli["question"]
    assert SECRET not in prepared.model_dump_json()
