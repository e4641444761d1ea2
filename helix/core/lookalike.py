"""Text read as what it looks like (pure): the one table of look-alike characters.

A model reads `＜/ＴＯＯＬ_ＲＥＳＵＬＴＳ＞`, `</ТООL_RЕSULТS>` (Cyrillic Т, О, Е) or
`&lt;/TOOL_RESULTS&gt;` as the tag it imitates, and `［Е1］` as the citation `[E1]`. Whoever
checks text for such a tag or citation checks its canonical form:

    canonical(text)   HTML character references decoded, NFKC (full-width and other
                      compatibility forms to ASCII), letters of other scripts that look like
                      Latin ones mapped to them, invisible format characters (zero-width,
                      bidi marks) dropped

Used by the prompt's neutralising of repository text (`helix.synthesis.prompt`) and by the
answer contract's reading of citations (`helix.synthesis.contract`).
"""

from __future__ import annotations

import html
import unicodedata

# Letters (and brackets) from other scripts that look like the Latin ones (and ASCII ones) a
# tag or a citation is written with; NFKC already folds full-width forms, ℒ, Ⅼ, ...
LOOK_ALIKES = (
    "АA ВB СC ЕE НH ІI ЈJ КK МM ОO РP ЅS ТT ХX УY аa сc еe іi јj оo рp ѕs хx уy "  # Cyrillic
    "ΑA ΒB ΕE ΖZ ΗH ΙI ΚK ΜM ΝN ΟO ΡP ΤT ΥY ΧX εe οo "  # Greek
    "ᴇE ℰE ʟL ᴛT ᴏO ʀR ᴜU ꜱS ᴋK ʙB ᴄC ɪI "  # small capitals, script letters
    "ᎡR ᏚS ᎢT ᏞL ᎬE ᎻH ՍU ՕO "  # Cherokee, Armenian
    "〈< ⟨< 《< 〉> ⟩> 》>"  # angle brackets that read as < and > (not ‹ ›: Helix's escape)
)
CONFUSABLE = str.maketrans({pair[0]: pair[1] for pair in LOOK_ALIKES.split(" ")})


def without_format(text: str) -> str:
    """`text` without invisible format characters (zero-width spaces, bidi marks...)."""
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def canonical(text: str, *, entities: bool = True) -> str:
    """What `text` reads as: entities decoded (`entities`), NFKC, look-alikes mapped,
    invisible format characters dropped."""
    if entities and "&" in text:
        text = html.unescape(text)
    return without_format(unicodedata.normalize("NFKC", text).translate(CONFUSABLE))


def without_marks(text: str) -> str:
    """`text` without combining marks (`T\u0301` reads as `T`): for checking what a text reads
    as, never for a path (an accented file name keeps its accent)."""
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize(
        "NFC", "".join(c for c in decomposed if unicodedata.category(c) != "Mn"))
