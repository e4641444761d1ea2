"""Units written in other scripts and languages (issue 32, meaning27): a Latin unit name set
with no space inside Chinese, Japanese or Korean text ("単位はMiBです", "MB가 아니라") is a
word of its own (helix/core/negation_tokens.py `CJK`: a change of script ends a word); a
Korean negation after what it denies ("가 아니라", "아닙니다") is a postpositive cue like the
Japanese "ではなく"; the byte's French and Russian names ("Kio", "mébioctets", "байтах",
"МиБ") are the table's (controller/units.toml); "but" in Dutch, German, Spanish and Portuguese
("maar", "sondern", "sino", "mas") ends a negation's scope as "but" and "mais" do. fresh26
(data size in MiB, now a tune set) had 4 of 40 statements missed and 46 of 62 units named
instead; 2 and 50 after these. Every case below is a wording of no data set; each fails on the
code before it but the Chinese statement and the three denials of the first test (there no
mention was found at all, so nothing was stated: they guard the denial now that one is)."""

from __future__ import annotations

import pytest

from controller.unit_names import unit_name
from controller.units import stated_instead, states_unit
from helix.core.negation import read

BUFFER = ("buffer size",)


@pytest.mark.parametrize(("text", "unit", "states"), [
    ("ログのバッファサイズはKiBです。", "KiB", True),
    ("缓存大小的单位是MiB。", "MiB", True),
    ("버퍼 크기는 KiB입니다.", "KiB", True),
    ("バッファサイズはMBではなくGBで設定します。", "MB", False),
    ("버퍼 크기는 MB가 아니라 GB입니다.", "MB", False),
    ("버퍼 크기는 MB가 아닙니다.", "MB", False),
    ("La taille du tampon est donnée en Kio.", "KiB", True),
    ("Размер буфера указан в МиБ.", "MiB", True),
])
def test_a_unit_in_another_script_is_read_in_its_sentence(text: str, unit: str,
                                                           states: bool) -> None:
    assert states_unit(text, unit, BUFFER) is states, text


@pytest.mark.parametrize(("text", "unit", "instead"), [
    ("バッファサイズはMBではなくGBで設定します。", "MB", "GB"),
    ("버퍼 크기는 MB가 아니라 GB입니다.", "MB", "GB"),
    ("Le tampon n'est pas en Mo mais en Mio.", "MB", "MiB"),
    ("Размер буфера задаётся в байтах, а не в КиБ.", "KiB", "B"),
    ("De buffergrootte is niet in GB maar in MB.", "GB", "MB"),
    ("Die Puffergröße ist nicht in MiB sondern in KiB angegeben.", "MiB", "KiB"),
    ("El tamaño del búfer no está en MB sino en GB.", "MB", "GB"),
    ("O tamanho do buffer não é em MB mas em GB.", "MB", "GB"),
])
def test_the_unit_named_instead_in_another_script_or_language(text: str, unit: str,
                                                               instead: str) -> None:
    found = stated_instead(text, unit, BUFFER)
    assert found is not None and unit_name(found) == instead, (text, found)


def test_a_change_of_script_ends_a_word_and_nothing_else_does() -> None:
    words = [t.text for t in read("容量はMiBではなくGiBです").tokens]
    assert words == ["容量は", "MiB", "ではなく", "GiB", "です"]
    assert [t.text for t in read("l'accélération en m/s² ne change pas").tokens][:3] == [
        "l'accélération", "en", "m"]


# (meaning27) the cubic centimetre and millimetre are volumes (controller/units.toml), rivals of
# the litre as m³ is: both fail on the code before it, which read "cm³" as a length cubed
@pytest.mark.parametrize(("text", "unit", "instead"), [
    ("The tank volume is not in litres; it is in cm³.", "L", "cm³"),
    ("The tank volume is not in cm^3 but in litres.", "cm³", "L"),
])
def test_a_cubic_centimetre_is_a_volume(text: str, unit: str, instead: str) -> None:
    found = stated_instead(text, unit, ("tank volume",))
    assert found is not None and unit_name(found) == instead, (text, found)
