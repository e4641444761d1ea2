"""A long pasted bug report is answered, not refused: searched with its title, traceback frames,
first paragraphs, code blocks and identifiers, and the envelope says what was cut."""

from __future__ import annotations

from pathlib import Path

from controller.report_cut import RETRIEVAL_CHARS, cut_report
from helix.core.config import load_config
from helix.inputs import MAX_QUESTION_CHARS, check_question
from helix.service import ask
from tests.index_fixtures import write

TRACE = """Traceback (most recent call last):
  File "/srv/app/shop/cart.py", line 4, in checkout
    return compute_total(items)
  File "/srv/app/shop/pricing.py", line 2, in compute_total
    return sum(PRICE_TABLE[i] for i in items)
KeyError: 'apple'
"""


def _report(noise_lines: int) -> str:
    noise = "".join(f"2026-11-26 10:{n % 60:02d}:00 DEBUG worker heartbeat ok seq={n}\n"
                    for n in range(noise_lines))
    return ("Checkout crashes with KeyError for unknown items\n\n"
            "When a basket holds an item missing from the price table, checkout fails.\n\n"
            f"Logs:\n{noise}\n```python\ncheckout(['apple'])\n```\n\n{TRACE}")


def test_a_long_report_keeps_what_locates_the_problem() -> None:
    report = _report(3000)
    assert RETRIEVAL_CHARS < len(report) <= MAX_QUESTION_CHARS
    assert check_question(report) == report.strip()  # not refused
    text, cut = cut_report(report, RETRIEVAL_CHARS)
    assert cut is not None and len(text) <= RETRIEVAL_CHARS
    assert cut.chars == len(report) and cut.kept_chars == len(text) and cut.cut_lines > 1000
    assert {"title", "traceback frames", "error lines", "code blocks"} <= set(cut.kept)
    assert text.startswith("Checkout crashes with KeyError")
    assert 'File "/srv/app/shop/pricing.py", line 2, in compute_total' in text
    assert "KeyError: 'apple'" in text and "checkout(['apple'])" in text
    assert cut_report("short question?", RETRIEVAL_CHARS) == ("short question?", None)


def test_a_long_report_is_answered_from_the_frame_where_it_arises(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, "shop/cart.py", "from shop.pricing import compute_total\n\n\n"
                                "def checkout(items):\n    return compute_total(items)\n")
    write(root, "shop/pricing.py", "def compute_total(items):\n"
                                   "    return sum(PRICE_TABLE[i] for i in items)\n")
    write(root, "shop/logging_setup.py", "def heartbeat(seq):\n    return 'ok'\n")
    config = load_config(root, flags={"index.embed_enabled": False})
    result = ask(_report(3000), root=root, config=config, dry_run=True,
                 notify=lambda _: None)
    env = result.envelope
    assert env.question_cut is not None and env.question_cut.chars > RETRIEVAL_CHARS
    assert len(env.question) <= RETRIEVAL_CHARS
    assert env.route == "issue" and env.evidence[0].path == "shop/pricing.py"
    short = ask("where is the total computed?", root=root, config=config, dry_run=True,
                notify=lambda _: None).envelope
    assert short.question_cut is None and "question_cut" not in short.model_dump_json()
