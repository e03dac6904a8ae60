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

import binascii
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
    table = _xor_table(key)
    return bytes(data) if table is None else data.translate(table)


def detect(payload: bytes) -> str:
    """The scheme a payload is written in, judged from its header as VASSAL does."""
    if payload.startswith(VCSK_HEADER):
        return VCSK
    if payload.startswith(VCSZ_HEADER):
        return VCSZ
    if payload.startswith(VOBS_HEADER) and len(payload) > len(VOBS_HEADER):
        return VOBS
    return PLAIN


#: The payload bytes a :class:`Deobfuscator` holds back before it decides the scheme, the key
#: and the hex case: the header, then the first 4,096 digits that :func:`_is_upper` reads.
_HEAD = len(VCSK_HEADER) + 4096


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


class Deobfuscator:
    """De-obfuscates a ``savedGame`` payload as its bytes arrive, chunk by chunk.

    A ``!VCSK`` payload is two hex digits per plaintext byte: read whole, a 30 MB save is a
    60 MB payload, then a copy of its body, its digits as text and the unhexed bytes before
    the XOR, each a fresh block of memory the system must hand over page by page. Fed the
    inflated chunks of the zip entry instead, it keeps only each chunk's plaintext, and the
    work per byte stays the same at any size (bench/README.md has the figures).

    The bytes of the payload's start are held back until the scheme, the key and the hex
    case can be told (:data:`_HEAD`); :meth:`finish` returns the plaintext and the
    :class:`Obfuscation`, and every error names the payload offset of the byte at fault.
    """

    __slots__ = ("file", "entry", "limits", "_head", "_scheme", "_table", "_odd", "_offset", "_parts",
                 "_obfuscation")

    def __init__(self, *, file: str | None = None, entry: str | None = "savedGame",
                 limits: Limits = DEFAULT_LIMITS) -> None:
        self.file, self.entry, self.limits = file, entry, limits
        self._head = b""
        self._scheme: str | None = None
        self._table: bytes | None = None
        self._odd = b""      # a hex digit whose pair is in the next chunk
        self._offset = 0     # the payload offset of the next byte fed
        self._parts: list[bytes] = []
        self._obfuscation = Obfuscation(PLAIN)

    def feed(self, data: bytes) -> None:
        """Take the payload's next bytes."""
        if self._scheme is None:
            self._head += data
            if len(self._head) < _HEAD:
                return
            data, self._head = self._start(self._head), b""
        self._body(data)

    def finish(self) -> tuple[bytes, Obfuscation]:
        """The plaintext and how it was obfuscated, once every byte has been fed."""
        if self._scheme is None:
            self._body(self._start(self._head))
            self._head = b""
        if self._odd:
            position = self._offset - 1
            if self._odd[0] not in _HEX_DIGITS:
                raise self._error(f"byte 0x{self._odd[0]:02x} is not a hex digit", position)
            raise self._error("odd number of hex digits (truncated payload)", position)
        parts, self._parts = self._parts, []
        plain = parts[0] if len(parts) == 1 else b"".join(parts)
        if self._scheme == VCSZ:
            plain = _inflate(plain, file=self.file, entry=self.entry, limits=self.limits)
        return plain, self._obfuscation

    # -- the steps ----------------------------------------------------------------------

    def _start(self, head: bytes) -> memoryview:
        """Tell the scheme from the payload's first bytes; what follows the header and key."""
        scheme = self._scheme = detect(head)
        view = memoryview(head)
        if scheme == PLAIN:
            self._offset = 0
            return view
        if scheme == VOBS:
            key = head[len(VOBS_HEADER)]
            self._table, self._obfuscation = _xor_table(key), Obfuscation(VOBS, key)
            self._offset = len(VOBS_HEADER) + 1
            return view[self._offset:]
        start = len(VCSK_HEADER)
        key = _hex_key(head, start, self.file, self.entry)
        self._table, self._obfuscation = _xor_table(key), Obfuscation(scheme, key, _is_upper(head, start))
        self._offset = start + 2
        return view[self._offset:]

    def _body(self, data: bytes | memoryview) -> None:
        if not data:
            return
        if self._scheme in (PLAIN, VOBS):
            self._offset += len(data)
            part = bytes(data)
            self._parts.append(part if self._table is None else part.translate(self._table))
            return
        view = memoryview(data)
        start = self._offset
        self._offset += len(view)
        if self._odd:  # the digit left over from the last chunk, with this chunk's first
            self._unhex(memoryview(self._odd + view[:1]), start - 1)
            self._odd, view, start = b"", view[1:], start + 1
        whole = len(view) & ~1
        if whole < len(view):
            self._odd = bytes(view[whole:])
        self._unhex(view[:whole], start)

    def _unhex(self, digits: memoryview, start: int) -> None:
        """Unhex and un-XOR ``digits`` (an even count), which begin at payload offset ``start``."""
        if not digits:
            return
        try:
            plain = binascii.a2b_hex(digits)  # unlike bytes.fromhex, refuses whitespace, as VASSAL does
        except binascii.Error:
            offset = next(i for i, digit in enumerate(digits) if digit not in _HEX_DIGITS)
            raise self._error(f"byte 0x{digits[offset]:02x} is not a hex digit", start + offset) from None
        self._parts.append(plain.translate(self._table) if self._table is not None else plain)

    def _error(self, message: str, position: int) -> ObfuscationError:
        return ObfuscationError(message, file=self.file, entry=self.entry, position=position)


def _xor_table(key: int) -> bytes | None:
    """The translate table that XORs every byte with ``key`` (``None`` for key 0)."""
    if key == 0:
        return None
    table = _XOR_TABLES.get(key)
    if table is None:
        table = _XOR_TABLES[key] = bytes(b ^ key for b in range(256))
    return table


def deobfuscate(payload: bytes, *, file: str | None = None, entry: str | None = "savedGame",
                limits: Limits = DEFAULT_LIMITS) -> tuple[bytes, Obfuscation]:
    """The plaintext bytes of a whole ``savedGame`` payload and how it was obfuscated."""
    if detect(payload) == PLAIN:
        return payload, Obfuscation(PLAIN)
    reader = Deobfuscator(file=file, entry=entry, limits=limits)
    reader.feed(payload)
    return reader.finish()


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
