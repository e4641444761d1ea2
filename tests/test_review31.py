"""Review 31's findings on round 30's merged code, each a counter-example that failed before
its fix."""

from __future__ import annotations

import pytest

from helix.core.secret_tables import segment_findings


def test_an_hl7_message_below_many_msh_on_one_line_is_read_once() -> None:
    # every `MSH|` of one line reads the same segments below: once is enough (a 100 KB line of
    # them made the scan quadratic, 16 s for 20,000 of them over twelve segments)
    text = " MSH|" * 50 + "\n" + "ZAU|1|LABIF|lab_if_user|Ortho9Ward!7|x\n" * 3
    found = list(segment_findings(text))
    assert len(found) == len(set(found)), len(found)
    values = {text[start:end] for start, end, _ in found}
    assert "Ortho9Ward!7" in values


def test_a_code_name_called_below_a_password_word_is_no_password() -> None:
    # secret_recalled read the next line's called identifier as a password said later
    from tests.secret_helpers import agreed_texts
    assert agreed_texts("def check(password):\n    return validate_Password2(password)\n") == []
    assert agreed_texts("// the password is in the vault.\n"
                        "@Test void resetPassword_Expired2() {\n") == []
    assert "Saltmarsh_Reed82" in agreed_texts(  # (a chosen one with `_` still found)
        "- the kiosk password was wiped,\n  we put it back to `Saltmarsh_Reed82` (Friday)\n")


def test_a_tag_name_below_a_password_word_is_no_password() -> None:
    from tests.secret_helpers import agreed_texts
    assert agreed_texts("<!-- the admin password -->\n"
                        "<ServiceAccount_Login2>svc</ServiceAccount_Login2>\n") == []
    assert agreed_texts("<Password>x</Password><AuthMode_Version2>basic</AuthMode_Version2>\n"
                        ) == []
    assert "Copper-Kettle-9031" in agreed_texts(  # (a field's value still found)
        "<Item><Name>Password</Name><Data>Copper-Kettle-9031</Data></Item>\n")


def test_a_word_longer_than_a_password_is_not_cut_to_one() -> None:
    # the recalled rule's word pattern stopped at 200 characters: a longer token was masked
    # in part, its tail left in the clear
    from helix.core.secret_recalled import recalled_values
    text = "The password was reset. New one Kx9-" + "q" * 196 + "-Tail9 ok\n"
    assert list(recalled_values(text, text.lower())) == []


def test_russian_unit_words_spelling_another_unit_are_not_read_as_it() -> None:
    # "12 га" is twelve hectares, not gigaamperes; "45 кв. м" square metres, not kilovolts
    from controller.units import states_unit
    assert not states_unit("Площадь участка 12 га.", "GA", ("current",))
    assert not states_unit("Квартира 45 кв. м.", "kV", ("voltage",))
    assert states_unit("Напряжение 10 кВ.", "kV", ("voltage",))  # (the kilovolt is "кВ")


def test_an_hl7_message_in_a_literal_is_read_with_the_prefilter() -> None:
    # the prefilter read the segments below an MSH line only when the line started with it
    from tests.secret_helpers import agreed_texts
    pad = "".join(f"x_{i} = compute({i})\n" for i in range(400))
    text = (pad + 'MSG = """MSH|^~\\&|APP|SITE|RECV|SITE|20250301101500||ORU^R01|M7|P|2.5.1\n'
            "PID|1||MRN5500213^^^SITE^MR||ROE^ANN||19700101|F\n"
            'ZAU|1|LABIF|lab_if_user|Ortho9Ward!7|x\n"""\n' + pad)
    assert "Ortho9Ward!7" in agreed_texts(text)


def test_a_password_on_the_line_below_its_name_is_read_with_the_prefilter() -> None:
    # secret_recalled reads the line after the one naming a password; the prefilter's window
    # stopped at the naming line (found in a short text, missed in a long one)
    from tests.secret_helpers import agreed_texts
    pad = "".join(f"x_{i} = compute({i})\n" for i in range(400))
    text = pad + "Passphrase rotated on the depot router; new one below\nOrchard!Gate2025x\n" + pad
    assert "Orchard!Gate2025x" in agreed_texts(text)


def test_a_path_in_an_answer_is_matched_from_a_word_start_only() -> None:
    # tried at every position of a long word, absence_grounded's path pattern was quadratic
    # (a 20,000-character word: 4.1 s); from a word's start only, the same paths are found
    from helix.synthesis.absence_grounded import _PATH
    assert _PATH.match("ab/c", 1) is None
    assert _PATH.sub(" ", "see docs/x.md and retry.py:4-8 (lib/a.py) now") == "see   and   (  now"


def test_a_run_of_test_words_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # each test word of a run of suite-part words read the run again: quadratic in a long
    # question ('which ' + 'suite ' * 16,000 + 'cat': 11.9 s); now the verb after it is read
    # once a run
    import controller.test_subject as ts
    calls: list[str] = []

    def counted(word: str, shape: str, last: bool, to_end: bool) -> bool:
        calls.append(word)
        return False
    monkeypatch.setattr(ts, "_is_verb", counted)
    assert not ts.subject_is_test("which " + "suite " * 50 + "cat")
    assert len(calls) == 1
