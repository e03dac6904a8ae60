"""The obfuscation of a save's ``savedGame`` entry: plain, ``!VCSK``, ``VOBS``, ``!VCSZ``.

VASSAL hides the command text of a save from casual editing (spec section 3.2):

* ``!VCSK`` + two hex digits of a key byte + two hex digits per plaintext byte XOR
  key. Written by VASSAL 3.2 through 3.7 (lowercase hex; the 2.x files in the
  corpus use uppercase, which VASSAL also reads).
* plain text: VASSAL passes anything without a known header through unchanged.
* ``VOBS`` + one raw key byte + each plaintext byte XOR key: the compact variant
  described for VASSAL 3.8. It is not in the engine sources available to us (the
  vassalengine/vassal history up to 3.8.0-beta has ``!VCSK`` only), so wawkit reads
  it but writes it only when asked.
* ``!VCSZ``: XOR-hex as ``!VCSK``, then zlib-deflated. Third-party tools mention it;
  it is read defensively (inflated under the size cap) and never written.

:func:`deobfuscate` returns the plaintext bytes together with an :class:`Obfuscation`
record (scheme, key, hex case) so that a re-save keeps the scheme the file used.
"""
from __future__ import annotations

import os
import zlib
from dataclasses import dataclass

from converter.errors import LimitExceeded, ObfuscationError
from converter.vassal.limits import DEFAULT_LIMITS, Limits, inflate_cap

PLAIN = "plain"
VCSK = "vcsk"
VOBS = "vobs"
VCSZ = "vcsz"
SCHEMES = (PLAIN, VCSK, VOBS, VCSZ)
#: The schemes wawkit writes.
WRITABLE = (PLAIN, VCSK, VOBS)

VCSK_HEADER = b"!VCSK"
VCSZ_HEADER = b"!VCSZ"
VOBS_HEADER = b"VOBS"

_HEX_DIGITS = frozenset(b"0123456789abcdefABCDEF")
_XOR_TABLES: dict[int, bytes] = {}


@dataclass(frozen=True)
class Obfuscation:
    """How a ``savedGame`` payload was (or will be) obfuscated."""

    scheme: str = VCSK
    #: The XOR key byte; ``None`` means "draw a random one when writing".
    key: int | None = None
    #: Whether the hex digits were uppercase (VASSAL 2.x files); kept on re-save.
    upper: bool = False

    def __post_init__(self) -> None:
        if self.scheme not in SCHEMES:
            raise ValueError(f"unknown obfuscation {self.scheme!r}; expected one of {SCHEMES}")
        if self.key is not None and not 0 <= self.key <= 255:
            raise ValueError(f"obfuscation key {self.key} is not a byte")


def _xor(data: bytes, key: int) -> bytes:
    """XOR every byte with ``key`` (a translate table makes this run at C speed)."""
    if key == 0:
        return bytes(data)
    table = _XOR_TABLES.get(key)
    if table is None:
        table = _XOR_TABLES[key] = bytes(b ^ key for b in range(256))
    return data.translate(table)


def detect(payload: bytes) -> str:
    """The scheme a payload is written in, judged from its header as VASSAL does."""
    if payload.startswith(VCSK_HEADER):
        return VCSK
    if payload.startswith(VCSZ_HEADER):
        return VCSZ
    if payload.startswith(VOBS_HEADER) and len(payload) > len(VOBS_HEADER):
        return VOBS
    return PLAIN


def _bad_hex(payload: bytes, start: int, file: str | None, entry: str | None) -> ObfuscationError:
    """Locate the first byte that is not a hex digit (or the odd trailing digit)."""
    for offset in range(start, len(payload)):
        if payload[offset] not in _HEX_DIGITS:
            return ObfuscationError(f"byte 0x{payload[offset]:02x} is not a hex digit",
                                    file=file, entry=entry, position=offset)
    return ObfuscationError("odd number of hex digits (truncated payload)",
                            file=file, entry=entry, position=len(payload) - 1)


def _unhex(payload: bytes, start: int, file: str | None, entry: str | None) -> bytes:
    body = payload[start:]
    if len(body) % 2:
        # bytes.fromhex would skip whitespace; VASSAL rejects it, so find the culprit first.
        raise _bad_hex(payload, start, file, entry)
    try:
        return bytes.fromhex(body.decode("ascii"))
    except (ValueError, UnicodeDecodeError):
        raise _bad_hex(payload, start, file, entry) from None


def _hex_key(payload: bytes, start: int, file: str | None, entry: str | None) -> int:
    digits = payload[start:start + 2]
    if len(digits) < 2:
        raise ObfuscationError("header without its two-digit key", file=file, entry=entry,
                               position=len(payload))
    for i, digit in enumerate(digits):
        if digit not in _HEX_DIGITS:
            raise ObfuscationError(f"key byte 0x{digit:02x} is not a hex digit", file=file,
                                   entry=entry, position=start + i)
    return int(digits, 16)


def _is_upper(payload: bytes, start: int) -> bool:
    """Whether the hex body uses uppercase digits (judged on its first letter digit)."""
    for digit in payload[start:start + 4096]:
        if 0x41 <= digit <= 0x46:
            return True
        if 0x61 <= digit <= 0x66:
            return False
    return False


def deobfuscate(payload: bytes, *, file: str | None = None, entry: str | None = "savedGame",
                limits: Limits = DEFAULT_LIMITS) -> tuple[bytes, Obfuscation]:
    """The plaintext bytes of a ``savedGame`` payload and how it was obfuscated."""
    scheme = detect(payload)
    if scheme == PLAIN:
        return payload, Obfuscation(PLAIN)
    if scheme == VOBS:
        key = payload[len(VOBS_HEADER)]
        return _xor(payload[len(VOBS_HEADER) + 1:], key), Obfuscation(VOBS, key)
    start = len(VCSK_HEADER)
    key = _hex_key(payload, start, file, entry)
    upper = _is_upper(payload, start)
    plain = _xor(_unhex(payload, start + 2, file, entry), key)
    if scheme == VCSZ:
        plain = _inflate(plain, file=file, entry=entry, limits=limits)
    return plain, Obfuscation(scheme, key, upper)


def _inflate(data: bytes, *, file: str | None, entry: str | None, limits: Limits) -> bytes:
    """zlib-inflate ``data`` without ever holding more than the size and compression-ratio caps."""
    cap = inflate_cap(len(data), limits)
    inflater = zlib.decompressobj()
    try:
        plain = inflater.decompress(data, cap + 1)
    except zlib.error as error:
        raise ObfuscationError(f"!VCSZ payload does not inflate: {error}", file=file, entry=entry) from None
    if len(plain) > cap or inflater.unconsumed_tail:
        why = (f"the {cap}-byte cap" if cap == limits.max_entry_size else
               f"the {limits.max_compression_ratio}:1 compression cap ({cap} bytes)")
        raise LimitExceeded(f"!VCSZ payload inflates past {why}", file=file, entry=entry)
    if not inflater.eof:
        raise ObfuscationError("!VCSZ payload is truncated", file=file, entry=entry, position=len(data))
    return plain


def obfuscate(plain: bytes, obfuscation: Obfuscation | str = VCSK) -> bytes:
    """Encode ``plain`` as VASSAL would write it; a ``None`` key draws a random byte."""
    if isinstance(obfuscation, str):
        obfuscation = Obfuscation(obfuscation)
    scheme = obfuscation.scheme
    if scheme == PLAIN:
        return bytes(plain)
    if scheme not in WRITABLE:
        raise ValueError(f"wawkit does not write {scheme!r}; choose one of {WRITABLE}")
    key = obfuscation.key if obfuscation.key is not None else os.urandom(1)[0]
    body = _xor(plain, key)
    if scheme == VOBS:
        return VOBS_HEADER + bytes([key]) + body
    text = (bytes([key]) + body).hex()
    if obfuscation.upper:
        text = text.upper()
    return VCSK_HEADER + text.encode("ascii")
