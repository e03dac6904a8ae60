"""Every reader, fed generated hostile input, ends normally or with a typed error.

A bounded budget per reader keeps this part of the suite fast (the examples are fixed
by the derandomized profile in ``tests/conftest.py``); ``make fuzz`` runs the same
targets for a million inputs. Two generators per reader: input spelled from the
delimiters and keywords the reader dispatches on, and a real file with random edits.
"""
from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz.run import TOKENS
from fuzz.targets import ALLOWED, TARGETS, seeds

SEEDS = seeds()
NAMES = sorted(TARGETS)
#: Examples per reader and generator; 14 readers x 2 generators stay well under a minute.
BUDGET = 200
#: No single input may take longer than this (the acceptance limit of the long run).
SLOWEST = 2.0

SPELLED = st.lists(st.one_of(st.sampled_from(TOKENS), st.binary(max_size=6)), max_size=40).map(b"".join)
EDIT = st.tuples(st.integers(0, 1 << 16), st.integers(0, 64), st.one_of(st.sampled_from(TOKENS),
                                                                         st.binary(max_size=8)))


def edited(seed: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    """``seed`` with each (position, deleted length, inserted bytes) edit applied in turn."""
    out = bytearray(seed)
    for position, length, inserted in edits:
        at = position % (len(out) + 1)
        out[at:at + length] = inserted
    return bytes(out)


def check(name: str, data: bytes) -> None:
    began = time.perf_counter()
    try:
        TARGETS[name](data)
    except ALLOWED:
        pass
    took = time.perf_counter() - began
    assert took < SLOWEST, f"{name} took {took:.2f} s on {data[:80]!r}"


FUZZ = settings(max_examples=BUDGET, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", NAMES)
@FUZZ
@given(data=SPELLED)
def test_spelled_input_gives_typed_errors_only(name: str, data: bytes) -> None:
    check(name, data)


@pytest.mark.parametrize("name", NAMES)
@FUZZ
@given(choice=st.integers(0, 1 << 10), edits=st.lists(EDIT, min_size=1, max_size=6))
def test_edited_real_input_gives_typed_errors_only(name: str, choice: int,
                                                    edits: list[tuple[int, int, bytes]]) -> None:
    pool = SEEDS[name]
    check(name, edited(pool[choice % len(pool)], edits))


@pytest.mark.parametrize("name", NAMES)
def test_every_seed_is_read_without_error(name: str) -> None:
    """The unedited seeds are real, valid files: each reader accepts them all."""
    for data in SEEDS[name]:
        if name == "obfuscation" and data.startswith(b"!VCSZ"):
            continue  # the deliberately truncated !VCSZ seed
        TARGETS[name](data)


def test_targets_cover_every_reader() -> None:
    assert NAMES == ["action_fields", "actions", "actions_file", "buildfile", "commands", "container", "metadata",
                     "module_images", "obfuscation", "profile", "save", "scenario", "sequence", "traits"]
    assert all(SEEDS[name] for name in NAMES)
