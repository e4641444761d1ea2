"""Review 31's findings on round 30's merged code, each a counter-example that failed before
its fix."""

from __future__ import annotations

from helix.core.secret_tables import segment_findings


def test_an_hl7_message_below_many_msh_on_one_line_is_read_once() -> None:
    # every `MSH|` of one line reads the same segments below: once is enough (a 100 KB line of
    # them made the scan quadratic, 16 s for 20,000 of them over twelve segments)
    text = " MSH|" * 50 + "\n" + "ZAU|1|LABIF|lab_if_user|Ortho9Ward!7|x\n" * 3
    found = list(segment_findings(text))
    assert len(found) == len(set(found)), len(found)
    values = {text[start:end] for start, end, _ in found}
    assert "Ortho9Ward!7" in values
