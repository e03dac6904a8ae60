"""Obfuscation of ``savedGame``: VASSAL's own test vectors, the variants, and bad payloads."""
from __future__ import annotations

import zlib

import pytest
from hypothesis import given, strategies as st

from converter.errors import LimitExceeded, ObfuscationError
from converter.vassal.limits import Limits
from converter.vassal.obfuscation import (PLAIN, VCSK, VCSZ, VOBS, Deobfuscator, Obfuscation, deobfuscate,
                                          detect, obfuscate)

PANGRAM = b"All jackdaws love my great sphinx of quartz."
PANGRAM_VCSK = (b"!VCSK581934347832393b333c392f2b7834372e3d783521783f2a3d392c782b283031362078373e"
                b"78292d392a2c2276")


def test_vassal_pangram_vector_decodes() -> None:
    plain, how = deobfuscate(PANGRAM_VCSK)
    assert plain == PANGRAM
    assert how == Obfuscation(VCSK, 0x58, upper=False)


def test_vassal_pangram_vector_encodes_byte_for_byte() -> None:
    assert obfuscate(PANGRAM, Obfuscation(VCSK, 0x58)) == PANGRAM_VCSK


def test_begin_save_vector() -> None:
    assert obfuscate(b"begin_save\x1b", Obfuscation(VCSK, 0xA3)) == b"!VCSKa3c1c6c4cacdfcd0c2d5c6b8"


def test_uppercase_hex_is_read_and_kept() -> None:
    upper = PANGRAM_VCSK[:5] + PANGRAM_VCSK[5:].upper()
    plain, how = deobfuscate(upper)
    assert plain == PANGRAM and how.upper is True and how.key == 0x58
    assert obfuscate(plain, how) == upper


def test_plain_text_passes_through() -> None:
    plain, how = deobfuscate(b"begin_save\x1b\x1bend_save")
    assert plain == b"begin_save\x1b\x1bend_save"
    assert how.scheme == PLAIN
    assert obfuscate(plain, how) == plain


def test_vobs_is_header_key_byte_then_raw_xor() -> None:
    data = obfuscate(b"AB", Obfuscation(VOBS, 0x0F))
    assert data == b"VOBS\x0f" + bytes([0x41 ^ 0x0F, 0x42 ^ 0x0F])
    assert deobfuscate(data) == (b"AB", Obfuscation(VOBS, 0x0F))
    assert detect(data) == VOBS


def test_vcsz_is_hex_xor_then_inflate() -> None:
    packed = zlib.compress(PANGRAM)
    payload = b"!VCSZ" + (bytes([0x21]) + bytes(b ^ 0x21 for b in packed)).hex().encode()
    plain, how = deobfuscate(payload)
    assert plain == PANGRAM and how.scheme == VCSZ and how.key == 0x21


def test_vcsz_is_capped_before_inflating_everything() -> None:
    packed = zlib.compress(b"\0" * 5_000_000)
    payload = b"!VCSZ" + (bytes([0]) + packed).hex().encode()
    with pytest.raises(LimitExceeded, match="1000-byte cap"):
        deobfuscate(payload, file="bomb.vsav", limits=Limits(max_entry_size=1000))


def test_vcsz_is_never_written() -> None:
    with pytest.raises(ValueError, match="does not write"):
        obfuscate(b"x", Obfuscation(VCSZ, 1))


def test_odd_digit_count_names_file_entry_and_offset() -> None:
    with pytest.raises(ObfuscationError) as caught:
        deobfuscate(PANGRAM_VCSK[:-1], file="game.vsav")
    error = caught.value
    assert (error.file, error.entry, error.position) == ("game.vsav", "savedGame", len(PANGRAM_VCSK) - 2)
    assert str(error) == (f"game.vsav: entry savedGame: offset {len(PANGRAM_VCSK) - 2}: "
                          "odd number of hex digits (truncated payload)")


def test_non_hex_digit_is_located() -> None:
    bad = PANGRAM_VCSK[:20] + b"zz" + PANGRAM_VCSK[22:]
    with pytest.raises(ObfuscationError, match=r"offset 20: byte 0x7a is not a hex digit"):
        deobfuscate(bad, file="game.vsav")


def test_whitespace_is_not_hex() -> None:
    with pytest.raises(ObfuscationError, match="offset 9: byte 0x20"):
        deobfuscate(b"!VCSK5819 3", file="x")


def test_missing_key_is_an_error() -> None:
    with pytest.raises(ObfuscationError, match="header without its two-digit key"):
        deobfuscate(b"!VCSK5")


def test_bad_key_digit_is_located() -> None:
    with pytest.raises(ObfuscationError, match="offset 6: key byte 0x67"):
        deobfuscate(b"!VCSK5g00")


@given(st.binary(max_size=300), st.integers(0, 255), st.sampled_from([VCSK, VOBS]), st.booleans())
def test_any_bytes_round_trip(plain: bytes, key: int, scheme: str, upper: bool) -> None:
    payload = obfuscate(plain, Obfuscation(scheme, key, upper and scheme == VCSK))
    again, how = deobfuscate(payload)
    assert again == plain and how.key == key and how.scheme == scheme
    assert obfuscate(again, how) == payload  # the same scheme, key and hex case on re-save


def test_random_key_is_drawn_when_none_given() -> None:
    keys = {deobfuscate(obfuscate(b"x", VCSK))[1].key for _ in range(40)}
    assert len(keys) > 1


def _fed(payload: bytes, size: int, file: str | None = None) -> tuple[bytes, Obfuscation]:
    """De-obfuscate ``payload`` fed in chunks of ``size`` bytes, as a save's entry inflates."""
    reader = Deobfuscator(file=file)
    for start in range(0, len(payload), size):
        reader.feed(payload[start:start + size])
    return reader.finish()


@given(st.binary(max_size=9000), st.integers(0, 255), st.sampled_from([VCSK, VOBS, PLAIN]), st.booleans(),
       st.integers(1, 5000))
def test_chunks_of_any_size_give_the_whole_payloads_plaintext(plain: bytes, key: int, scheme: str, upper: bool,
                                                              size: int) -> None:
    payload = obfuscate(plain, Obfuscation(scheme, key, upper and scheme == VCSK))
    assert _fed(payload, size) == deobfuscate(payload)


def test_the_hex_case_is_judged_on_the_first_digits_whatever_the_chunks() -> None:
    payload = obfuscate(bytes(range(256)) * 40, Obfuscation(VCSK, 0x11, upper=True))
    assert _fed(payload, 3) == (bytes(range(256)) * 40, Obfuscation(VCSK, 0x11, upper=True))


def test_a_bad_digit_in_a_later_chunk_is_located_in_the_payload() -> None:
    payload = obfuscate(b"x" * 6000, Obfuscation(VCSK, 0x20))
    bad = payload[:9001] + b"q" + payload[9002:]
    for size in (1, 2, 7, 4096, 5000, len(bad)):
        with pytest.raises(ObfuscationError) as caught:
            _fed(bad, size, file="game.vsav")
        assert (caught.value.position, str(caught.value)) == (
            9001, "game.vsav: entry savedGame: offset 9001: byte 0x71 is not a hex digit")


def test_an_odd_last_digit_is_located_whatever_the_chunks() -> None:
    payload = obfuscate(b"y" * 5000, Obfuscation(VCSK, 0x20))
    for size in (1, 3, 4101, 8000):
        with pytest.raises(ObfuscationError, match="odd number of hex digits") as caught:
            _fed(payload[:-1], size)
        assert caught.value.position == len(payload) - 2
        with pytest.raises(ObfuscationError, match="byte 0x20 is not a hex digit") as caught:
            _fed(payload[:-1] + b" ", size)
        assert caught.value.position == len(payload) - 1


def test_whitespace_between_digit_pairs_is_refused() -> None:
    # bytes.fromhex would skip it; VASSAL's decoder does not.
    with pytest.raises(ObfuscationError, match="offset 9: byte 0x20 is not a hex digit"):
        deobfuscate(b"!VCSK5819 31a")
