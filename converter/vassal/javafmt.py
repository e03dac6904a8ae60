"""Java's number formatting and ``java.util.HashMap`` iteration order.

VASSAL writes doubles with ``Double.toString`` (not Python's ``repr``), widens
``float`` fields to ``double`` before writing them, and writes a BasicPiece's
persistent properties in the iteration order of a ``HashMap<String, Object>``.
A byte-exact writer has to reproduce all three (spec sections 0 and 2.4).
"""
from __future__ import annotations

import math
import struct
from typing import Iterable

INT_MASK = 0xFFFFFFFF
DEFAULT_CAPACITY = 16
LOAD_FACTOR = 0.75


def java_double(value: float) -> str:
    """``Double.toString(value)``.

    Magnitudes in [1e-3, 1e7) are plain decimals with at least one fractional
    digit; others are ``d.dddE<exp>`` with no ``+`` sign. The digits are the
    shortest that read back as the same double, as in JDK 19 and later. JDK 17
    agrees except for whole numbers from 1e16 to 1e19 and the smallest subnormal,
    where it prints one or two more (exact) digits; piece data (scales, angles,
    opacities) never holds such values.
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    sign = "-" if value < 0 else ""
    digits_tuple, exponent = _shortest_digits(abs(value))
    digits = "".join(str(d) for d in digits_tuple)
    # value = 0.d1d2d3... * 10**point
    point = len(digits) + exponent
    magnitude = abs(value)
    if 1e-3 <= magnitude < 1e7:
        if point <= 0:
            return f"{sign}0.{'0' * -point}{digits}"
        if point >= len(digits):
            return f"{sign}{digits}{'0' * (point - len(digits))}.0"
        return f"{sign}{digits[:point]}.{digits[point:]}"
    mantissa = digits[0] + "." + (digits[1:] or "0")
    return f"{sign}{mantissa}E{point - 1}"


def _shortest_digits(magnitude: float) -> tuple[tuple[int, ...], int]:
    """Shortest round-tripping decimal digits of a positive finite double, no trailing zeros.

    ``repr`` writes those digits (``1.5``, ``1e-05``, ``1.2345e+20``); read as digits
    times a power of ten, with no leading or trailing zero digit.
    """
    mantissa, _, exponent_text = repr(magnitude).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    exponent = int(exponent_text or "0") - len(fraction)
    kept = digits.rstrip("0")
    return tuple(int(d) for d in kept), exponent + len(digits) - len(kept)


def java_float_as_double(value: float) -> float:
    """The ``double`` that Java gets by widening ``(float) value``: what a float field writes."""
    return struct.unpack("<f", struct.pack("<f", value))[0]


def java_float_to_string_widened(value: float) -> str:
    """A ``float`` field as a SequenceEncoder writes it: ``0.3f`` gives ``0.30000001192092896``."""
    return java_double(java_float_as_double(value))


def java_string_hash(text: str) -> int:
    """``String.hashCode()``: ``31*h + c`` over UTF-16 code units, as a signed 32-bit int."""
    h = 0
    data = text.encode("utf-16-le")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] | data[i + 1] << 8)) & INT_MASK
    return h - (1 << 32) if h & 0x80000000 else h


def _spread(h: int) -> int:
    """``HashMap.hash``: the high 16 bits folded into the low ones."""
    u = h & INT_MASK
    return u ^ (u >> 16)


def java_hashmap_capacity(count: int, initial_capacity: int = DEFAULT_CAPACITY) -> int:
    """The table size of a HashMap after ``count`` insertions (it doubles past 0.75 load)."""
    capacity = initial_capacity
    while count > capacity * LOAD_FACTOR:
        capacity *= 2
    return capacity


def java_hashmap_order(keys: Iterable[str], initial_capacity: int = DEFAULT_CAPACITY) -> list[str]:
    """The iteration order of a ``HashMap<String, ?>`` after inserting ``keys`` in order.

    Iteration goes bucket by bucket; within a bucket, keys keep insertion order
    (resizing splits buckets without reordering). A repeated key keeps its first
    place, as ``put`` on an existing key does. Treeified buckets (8+ colliding keys)
    are not modelled.
    """
    unique: list[str] = []
    seen: set[str] = set()
    for key in keys:
        if key not in seen:
            seen.add(key)
            unique.append(key)
    capacity = java_hashmap_capacity(len(unique), initial_capacity)
    mask = capacity - 1
    indexed = [(_spread(java_string_hash(key)) & mask, n, key) for n, key in enumerate(unique)]
    indexed.sort()
    return [key for _, _, key in indexed]


__all__ = ["java_double", "java_float_as_double", "java_float_to_string_widened", "java_string_hash",
           "java_hashmap_order", "java_hashmap_capacity"]
