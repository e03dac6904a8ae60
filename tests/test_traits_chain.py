"""Trait chains: the one-scan splitter agrees with VASSAL's level-by-level reading, and
re-encoding reuses the raw text of every unchanged level."""
from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from converter.errors import EncodingError
from converter.vassal.pieces import decode_piece
from converter.vassal.sequence import LEGACY, MODERN, TAB, escape, join, unescape
import itertools

from converter.vassal.traits.chain import TooManyLevels, compose, plain_levels, split_fast, split_levels

TEXT = st.text(alphabet="ab;,\\'\t", max_size=8)


def common_form(text: str) -> tuple[str, ...] | None:
    """The levels of a chain in its common form, read off its definition: the k-th TAB has
    exactly k backslashes before it, and no level starts with a quote."""
    parts = text.split(TAB)
    levels = []
    for k, part in enumerate(parts[:-1]):
        if len(part) - len(part.rstrip("\\")) != k:
            return None
        levels.append(part[:len(part) - k])
    levels.append(parts[-1])
    return None if any(level.startswith("'") for level in levels) else tuple(levels)


def test_plain_levels_answers_exactly_the_common_form() -> None:
    """Every text of up to 7 characters from TAB, backslash, quote and a letter: the one
    regular expression answers just when the definition does, with the same levels, and
    those are the levels VASSAL's level-by-level reading gives."""
    checked = 0
    for size in range(8):
        for chars in itertools.product("a\\\t'", repeat=size):
            text = "".join(chars)
            expected = common_form(text)
            assert plain_levels(text) == expected, repr(text)
            if expected is not None:
                assert list(expected) == split_levels(text)[0], repr(text)
                checked += 1
    assert checked == 5_209


def encode_chain(levels: list[str], quoting: str = MODERN) -> str:
    """What nested ``SequenceEncoder(own, TAB).append(inner)`` calls write."""
    if len(levels) == 1:
        return levels[0]
    return escape(levels[0], TAB, quoting) + TAB + escape(encode_chain(levels[1:], quoting), TAB, quoting)


@pytest.mark.slow
@settings(max_examples=400)
@given(st.lists(TEXT, min_size=1, max_size=6), st.sampled_from([MODERN, LEGACY]))
def test_fast_split_agrees_with_level_by_level(levels: list[str], quoting: str) -> None:
    text = encode_chain(levels, quoting)
    exact = split_levels(text)[0]
    fast = split_fast(text)
    assert fast is None or fast == exact
    try:
        exact_state = split_levels(text, limit=len(exact), state=True)[0]
    except TooManyLevels:
        exact_state = None
    try:
        fast_state = split_fast(text, limit=len(exact), state=True)
    except TooManyLevels:
        assert exact_state is None
    else:
        assert fast_state is None or fast_state == exact_state


@pytest.mark.slow
@settings(max_examples=400)
@given(st.lists(TEXT, min_size=1, max_size=6), st.lists(TEXT, min_size=1, max_size=7),
       st.sampled_from([MODERN, LEGACY]))
def test_a_decoded_piece_holds_the_levels_vassal_reads(types: list[str], states: list[str], quoting: str) -> None:
    """decode_piece's splits (one regular expression for the common form, the general
    paths otherwise) give each trait the type and state level VASSAL's reading gives it."""
    type_text, state_text = encode_chain(types, quoting), encode_chain(states, quoting)
    exact_types = split_levels(type_text)[0]
    try:
        exact_states: list[str | None] | None = split_levels(state_text, limit=len(exact_types), state=True)[0]
    except TooManyLevels:
        exact_states = None
    try:
        piece = decode_piece(type_text, state_text)
    except EncodingError:
        assert exact_states is None
        return
    assert exact_states is not None
    assert [t.type_text() for t in piece.traits] == exact_types
    assert [t.state_text() for t in piece.traits] == exact_states + [None] * (len(exact_types) - len(exact_states))
    assert (piece.type_text(), piece.state_text()) == (type_text, state_text)


@pytest.mark.slow
@settings(max_examples=300)
@given(st.lists(TEXT, min_size=1, max_size=6))
def test_well_formed_chains_decode_to_their_levels(levels: list[str]) -> None:
    """Values that do not end in a backslash (VASSAL's known mis-split) read back exactly."""
    assume(not any(v.endswith("\\") for v in levels[:-1]))
    assume(TAB not in levels[-1])
    text = encode_chain(levels)
    assert split_levels(text)[0] == levels[:-1] + [unescape(levels[-1], TAB)]
    assert split_levels(text, limit=len(levels), state=True)[0] == levels


def test_spec_nesting_example() -> None:
    """The k-th separator carries k-1 backslashes (spec 2.1)."""
    text = encode_chain(["T1", "T2", "T3", "B"])
    assert text == "T1\tT2\\\tT3\\\\\tB"
    assert split_fast(text) == ["T1", "T2", "T3", "B"]


def test_escaped_tab_inside_a_trait_stays_in_it() -> None:
    inner = "piece;;;a.png;A"
    marker = encode_chain(["mark;Side", inner])
    placemark = "placemark;" + join(["Add", "65,130", marker, "null"], ";")
    text = encode_chain([placemark, "piece;;;b.png;B"])
    assert split_fast(text) == [placemark, "piece;;;b.png;B"]
    piece = decode_piece(text, "\tnull;0;0")
    assert piece.traits[0].marker().type_text() == marker
    assert piece.traits[0].marker().inner.name == "A"


def test_quoted_segment_takes_the_exact_path() -> None:
    text = encode_chain(["label;1", "piece;;;;"])
    state = encode_chain(["'quoted'", "null;0;0"])
    assert state == "''quoted''\tnull;0;0"
    assert split_fast(state, limit=2, state=True) is None
    piece = decode_piece(text, state)
    assert piece.traits[0].state_text() == "'quoted'"
    assert piece.state_text() == state
    piece.inner.x = 4
    assert piece.state_text() == "''quoted''\tnull;4;0"


def test_more_state_segments_than_traits_is_an_error() -> None:
    with pytest.raises(EncodingError) as error:
        decode_piece("mark;Side\tpiece;;;;", "German\tnull;0;0\textra", piece_id="42")
    assert "piece 42" in str(error.value)
    assert "more TAB-separated segments" in str(error.value)


def test_tab_inside_the_innermost_state_is_data() -> None:
    """VASSAL hands the innermost trait the whole rest: an escaped TAB there belongs to it."""
    piece = decode_piece("mark;Side\tpiece;;;;", "German\tnull;0;0;;1;Note;a\\\tb")
    assert piece.inner.properties["Note"] == "a\tb"
    alone = decode_piece("piece;;;;", "null;0;0;;1;Note;a\tb")
    assert alone.inner.properties["Note"] == "a\tb"
    assert alone.state_text() == "null;0;0;;1;Note;a\tb"


def test_shorter_state_is_kept() -> None:
    piece = decode_piece("mark;Side\tmark;Unit\\\tpiece;;;;", "German")
    assert piece.traits[0].values == ["German"]
    assert piece.traits[2].state_text() is None
    assert piece.state_text() == "German"
    piece.set_property("Side", "Soviet")
    assert piece.state_text() == "Soviet"


def test_compose_reuses_raw_of_unchanged_levels() -> None:
    values = ["a", "b", "c"]
    text = encode_chain(values)
    own_raw, rest_raw = split_levels(text)[1:]
    assert compose(values, values, text, own_raw, rest_raw, MODERN) == text
    assert compose(["A", "b", "c"], values, text, own_raw, rest_raw, MODERN) == "A\tb\\\tc"
    assert compose(["a", "b", "C"], values, text, own_raw, rest_raw, MODERN) == "a\tb\\\tC"
    assert compose([None, None, None], [None, None, None], None, [], [], MODERN) is None
