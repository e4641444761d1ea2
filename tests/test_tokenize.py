from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from indexers.tokenize import STOPWORDS, tokenize


def test_snake_case_kept_whole_and_split() -> None:
    assert tokenize("get_user_name") == ["get_user_name", "get", "user", "name"]


def test_camel_and_pascal_case_with_acronyms() -> None:
    assert tokenize("getUserName") == ["getusername", "get", "user", "name"]
    assert tokenize("HTTPServerError") == ["httpservererror", "http", "server", "error"]


def test_digits_split_off_and_numbers_kept() -> None:
    assert tokenize("utf8 base64 404") == ["utf8", "utf", "base64", "base", "64", "404"]


def test_dotted_names_give_whole_name_then_pieces() -> None:
    assert tokenize("os.path.join(a, b)") == ["os.path.join", "os", "path", "join"]
    assert tokenize("self._cache_dir") == [
        "self._cache_dir", "self", "_cache_dir", "cache", "dir"]


def test_stopwords_and_single_characters_dropped() -> None:
    assert tokenize("Where is the retry policy decided? x = y") == [
        "retry", "policy", "decided"]
    assert "the" in STOPWORDS and "return" not in STOPWORDS and "self" not in STOPWORDS
    assert tokenize("return yield class def all any") == [
        "return", "yield", "class", "def", "all", "any"]


def test_dunder_and_plain_words() -> None:
    assert tokenize("__init__") == ["__init__", "init"]
    assert tokenize("Parser") == ["parser"]


def test_empty_and_punctuation_only() -> None:
    assert tokenize("") == []
    assert tokenize("  ... ,;: () {} ") == []


def test_non_ascii_identifiers_lowercased_whole() -> None:
    assert tokenize("Café_Bar") == ["café_bar", "café", "bar"]


def test_deterministic_and_memo_consistent() -> None:
    text = "class HTTPServerError(Exception): pass  # getUserName os.path.join"
    assert tokenize(text) == tokenize(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_tokens_are_lowercase_long_enough_and_not_stopwords(text: str) -> None:
    tokens = tokenize(text)
    assert tokens == tokenize(text)
    for token in tokens:
        assert token == token.lower()
        assert len(token) >= 2
        assert token not in STOPWORDS
        assert token.strip() == token and token


@settings(max_examples=100, deadline=None)
@given(st.lists(st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,12}", fullmatch=True), max_size=8))
def test_whole_identifier_always_kept(words: list[str]) -> None:
    tokens = set(tokenize(" ".join(words)))
    for word in words:
        if len(word) >= 2 and word.lower() not in STOPWORDS:
            assert word.lower() in tokens


@given(st.text(alphabet=st.sampled_from("aZz_09. \n\t-()[]:'\"\x7f"), max_size=60))
def test_ascii_texts_take_the_faster_pattern_to_the_same_words(text: str) -> None:
    """An ASCII text is split by an ASCII-only pattern: the words are the general one's."""
    from indexers import tokenize as module

    assert module._ASCII_WORD.findall(text) == module._WORD.findall(text)


_PIECES = ["Spacing", "spacings", "MERGE", "mergeSpacing", "\u212aelvin", "ΣΑΣ", "x2y", "a.Bc",
           "__init__", "values"]


@given(st.lists(st.sampled_from(_PIECES), max_size=6),
       st.frozensets(st.sampled_from(["spacing", "merge", "kelvin", "σας", "bc", "init",
                                      "value", "x"]), max_size=5))
def test_the_untokenized_bound_is_never_below_the_tokens_held(
        pieces: list[str], words: frozenset[str]) -> None:
    """`held_at_most` (read without tokenizing) bounds the question words a text's tokens
    hold: what lets the controller skip tokenizing definitions that cannot win."""
    from controller.text import held_at_most, token_set

    text = " ".join(pieces)
    assert held_at_most(words, text) >= len(words & token_set(text))


@given(st.lists(st.sampled_from([*_PIECES, "tiles", "class", "Σίσυφος", "a1b2", "x.y.z"]),
                max_size=8))
def test_token_sets_are_the_stemmed_tokens(pieces: list[str]) -> None:
    """`token_set` (each distinct word expanded and stemmed once) is the set of the stemmed
    tokens `tokenize` gives."""
    from controller.text import token_set
    from helix.core.english import stems

    text = " ".join(pieces)
    assert token_set(text) == frozenset(stems(t)[0] for t in tokenize(text))
