"""SequenceEncoder/Decoder: VASSAL's own test vectors (SequenceEncoderTest.java)
re-expressed, the spec's examples (section 2.1), and round-trip properties."""
from __future__ import annotations

from hypothesis import given, strategies as st

from converter.vassal.sequence import (
    LEGACY, MODERN, Decoder, Fields, escape, join, split, split_raw, unescape,
)


def test_encode_mixed_fields_with_nulls() -> None:
    # se.append(1).append("blah blah blah,,,").append(null).append(42)
    assert join(["1", "blah blah blah,,,", None, "42"], ",") == "1,blah blah blah\\,\\,\\,,,42"


def test_initial_null_bug_3465() -> None:
    text = join([None, "value"], ";")
    assert text == ";value"
    assert split(text, ";") == ["", "value"]


def test_single_quote_bug_2481() -> None:
    assert split("stuff,'", ",") == ["stuff", "'"]


def test_unquote() -> None:
    assert split("'12345'", ",") == ["12345"]


def test_string_with_delimiter_quote_and_newline() -> None:
    value = "How many ,'s in this sentence?\n"
    assert split(join([value], ","), ",") == [value]


def test_string_starting_with_delimiter() -> None:
    assert join([",hahahahah"], ",") == "\\,hahahahah"
    assert split("\\,hahahahah", ",") == [",hahahahah"]


def test_empty_trailing_token() -> None:
    text = join(["a,b", ""], ",")
    assert text == "a\\,b,"
    assert split(text, ",") == ["a,b", ""]


def test_string_length_marker_character_survives() -> None:
    assert split(join(["a\ue000b"], ","), ",") == ["a\ue000b"]


def test_decode_legacy_nested_escaped_strings() -> None:
    outer = split("\\,a,b\\,c\\,d\\\\,e", ",")
    assert outer == [",a", "b,c,d\\,e"]
    middle = split(outer[1], ",")
    assert middle == ["b", "c", "d,e"]
    assert split(middle[2], ",") == ["d", "e"]


def test_string_array_field() -> None:
    values = ["line 1", "line 2,", "line 3'", "line 4\n"]
    inner = join(values, ",")
    outer = join(["x", inner], ",")
    decoder = Decoder(outer, ",")
    assert decoder.next_token() == "x"
    assert decoder.next_string_array() == values


def test_none_and_empty_inputs() -> None:
    assert split(None, ";") == []
    assert split("", ";") == [""]
    assert split("a;", ";") == ["a", ""]
    assert join([], ";") is None
    assert join([""], ";") == ""


def test_quoting_rules_differ_only_on_backslashes() -> None:
    assert escape("\\x", ";", MODERN) == "'\\x'"
    assert escape("\\x", ";", LEGACY) == "\\x"
    assert escape("x\\", ";", LEGACY) == "'x\\'"
    assert escape("x\\", ";", MODERN) == "x\\"
    assert escape("'q'", ";", MODERN) == "''q''"
    assert escape("'", ";", LEGACY) == "'''"


def test_modern_trailing_backslash_defect_is_reproduced() -> None:
    # VASSAL 3.4+ writes "x\" unquoted, and its own decoder then mis-splits it.
    text = join(["x\\", "y"], ";", MODERN)
    assert text == "x\\;y"
    assert split(text, ";") == ["x;y"]
    # The 3.2 rule quoted it, so it survived.
    assert split(join(["x\\", "y"], ";", LEGACY), ";") == ["x\\", "y"]


def test_nesting_adds_one_backslash_per_level() -> None:
    chain = join(["T1", join(["T2", join(["T3", "B"], "\t")], "\t")], "\t")
    assert chain == "T1\tT2\\\tT3\\\\\tB"
    assert split(chain, "\t") == ["T1", "T2\tT3\\\tB"]


def test_typed_readers_default_when_exhausted() -> None:
    d = Decoder("12;true;1.5;abc;notanint", ";")
    assert d.next_int(0) == 12
    assert d.next_bool(False) is True
    assert d.next_double(0.0) == 1.5
    assert d.next_char("z") == "a"
    assert d.next_int(-7) == -7          # parse failure gives the default
    assert d.next_int(99) == 99          # exhausted
    assert d.next_bool(True) is True
    assert d.next_token("dflt") == "dflt"


def test_fields_keep_raw_text_until_set() -> None:
    raw = "a;'\\b';c\\;d;"
    fields = Fields(raw, ";")
    assert fields.encode() == raw
    assert fields.values() == ["a", "\\b", "c;d", ""]
    fields[1] = "\\b"           # unchanged value: raw quoting kept
    assert fields.encode() == raw
    fields[0] = "x;y"
    assert fields.encode() == "x\\;y;'\\b';c\\;d;"
    fields[6] = "z"
    assert fields.encode() == "x\\;y;'\\b';c\\;d;;;;z"


delimiters = st.sampled_from([";", ",", "\t", "\x1b", "/", "|", ":", "~"])
safe_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=40)


@given(st.lists(safe_text, max_size=8), delimiters)
def test_legacy_quoting_round_trips_everything(values: list[str], delim: str) -> None:
    text = join(values, delim, LEGACY)
    assert split(text, delim) == (values if values else [])


@given(st.lists(safe_text.filter(lambda s: not s.endswith("\\")), max_size=8), delimiters)
def test_modern_quoting_round_trips_values_not_ending_in_backslash(values: list[str], delim: str) -> None:
    assert split(join(values, delim, MODERN), delim) == values


@given(st.lists(st.lists(safe_text.filter(lambda s: not s.endswith("\\")), min_size=1, max_size=4),
                min_size=1, max_size=4))
def test_nested_encodings_round_trip(groups: list[list[str]]) -> None:
    inner = [join(g, ",") for g in groups]
    outer = join(inner, ";")
    assert [split(t, ",") for t in split(outer, ";")] == groups


@given(st.text(max_size=60), delimiters)
def test_raw_split_is_lossless_for_any_text(text: str, delim: str) -> None:
    raw = split_raw(text, delim)
    assert delim.join(raw) == text
    assert Fields(text, delim).encode() == text
    assert [unescape(r, delim) for r in raw] == split(text, delim)


def _reference_split(text: str, delim: str) -> list[str]:
    """split_raw by its definition: a delimiter separates unless a backslash is just before it."""
    out, start = [], 0
    for i, char in enumerate(text):
        if char == delim and (i == 0 or text[i - 1] != "\\"):
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


@given(st.lists(st.sampled_from(["a", "\\", ";", "\t", "\x1b", "'", "xyz"]), max_size=40), delimiters,
       st.integers(1, 400))
def test_long_texts_split_as_short_ones(pieces: list[str], delim: str, times: int) -> None:
    # Over 4,096 characters split_raw takes its C paths (a plain split, or the pattern of the
    # unescaped delimiter); they must cut exactly where the definition does.
    text = "".join(pieces) * times + "b" * 4097
    assert split_raw(text, delim) == _reference_split(text, delim)


def test_a_save_sized_text_splits_only_on_unescaped_delimiters() -> None:
    block = "\\\x1b".join(f"+/{n}/piece;;;u.png;U" for n in range(300))
    text = "\x1b".join(["begin_save", "", block, "end_save"])
    assert split_raw(text, "\x1b") == ["begin_save", "", block, "end_save"]
    assert split_raw(block.replace("\\\x1b", "\x1b"), "\x1b")[299] == "+/299/piece;;;u.png;U"
