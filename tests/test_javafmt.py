"""Java number formatting and HashMap order, checked against the spec's Java-verified examples."""
from __future__ import annotations

import math
import struct

from hypothesis import given
from hypothesis import strategies as st

from converter.vassal.javafmt import (java_double, java_float_as_double, java_float_to_string_widened,
                                      java_hashmap_capacity, java_hashmap_order, java_string_hash)

MOVE_KEYS = ["UniqueID", "OldX", "OldY", "OldMap", "OldBoard", "OldZone", "OldLocationName", "OldDeckName",
             "ClickedX", "ClickedY"]


def test_double_plain_range() -> None:
    assert java_double(1.0) == "1.0"
    assert java_double(64.5) == "64.5"
    assert java_double(55.42562584220407) == "55.42562584220407"
    assert java_double(100.0) == "100.0"
    assert java_double(0.001) == "0.001"
    assert java_double(9999999.0) == "9999999.0"
    assert java_double(-2.5) == "-2.5"


def test_double_scientific_range() -> None:
    assert java_double(1e7) == "1.0E7"
    assert java_double(1e-5) == "1.0E-5"
    assert java_double(1.23456789e8) == "1.23456789E8"
    assert java_double(0.0009) == "9.0E-4"
    assert java_double(-1.5e10) == "-1.5E10"
    assert java_double(1e300) == "1.0E300"


def test_double_special_values() -> None:
    assert java_double(0.0) == "0.0"
    assert java_double(-0.0) == "-0.0"
    assert java_double(math.inf) == "Infinity"
    assert java_double(-math.inf) == "-Infinity"
    assert java_double(math.nan) == "NaN"


def test_float_field_is_widened() -> None:
    assert java_float_as_double(0.3) == 0.30000001192092896
    assert java_float_to_string_widened(0.3) == "0.30000001192092896"
    assert java_float_to_string_widened(0.5) == "0.5"


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_double_reads_back_as_the_same_double(value: float) -> None:
    text = java_double(value)
    assert float(text) == value
    assert "e" not in text and "+" not in text
    mantissa = text.split("E")[0]
    assert "." in mantissa and not mantissa.endswith(".")


@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_widened_float_is_exact(value: float) -> None:
    assert java_float_as_double(value) == struct.unpack("<f", struct.pack("<f", value))[0]


def test_string_hash_matches_java() -> None:
    assert java_string_hash("") == 0
    assert java_string_hash("a") == 97
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("polygenelubricants") == -2147483648
    assert java_string_hash("\U0001F600") == 0xD83D * 31 + 0xDE00  # hashed as two UTF-16 code units


def test_hashmap_order_spec_example() -> None:
    assert java_hashmap_order(MOVE_KEYS) == ["OldZone", "ClickedX", "UniqueID", "OldLocationName", "OldDeckName",
                                             "ClickedY", "OldX", "OldY", "OldBoard", "OldMap"]


def test_hashmap_order_spec_buckets() -> None:
    buckets = {k: (java_string_hash(k) ^ ((java_string_hash(k) & 0xFFFFFFFF) >> 16)) & 15 for k in MOVE_KEYS}
    assert buckets == {"UniqueID": 1, "OldX": 4, "OldY": 7, "OldMap": 10, "OldBoard": 7, "OldZone": 0,
                       "OldLocationName": 3, "OldDeckName": 3, "ClickedX": 0, "ClickedY": 3}


def test_hashmap_same_bucket_keeps_insertion_order() -> None:
    assert java_hashmap_order(["OldY", "OldBoard"]) == ["OldY", "OldBoard"]
    assert java_hashmap_order(["OldBoard", "OldY"]) == ["OldBoard", "OldY"]
    assert java_hashmap_order(["OldX", "OldX", "UniqueID"]) == ["UniqueID", "OldX"]


def test_hashmap_grows_past_three_quarters() -> None:
    assert java_hashmap_capacity(12) == 16
    assert java_hashmap_capacity(13) == 32
    assert java_hashmap_capacity(25) == 64
    keys = [f"k{i}" for i in range(13)]
    order = java_hashmap_order(keys)
    assert sorted(order) == sorted(keys)
    spread = [(java_string_hash(k) ^ ((java_string_hash(k) & 0xFFFFFFFF) >> 16)) & 31 for k in order]
    assert spread == sorted(spread)
