"""VASSAL's SequenceEncoder and its Decoder, byte for byte.

VASSAL stores almost everything (commands, trait types and states, keystrokes,
colours) as strings joined by a one-character delimiter. Only the delimiter is
escaped (``\\`` before it); backslashes are never doubled, so every nesting level
adds one backslash before that level's delimiter (spec section 2.1).

Two quoting rules exist for values that contain a backslash:

* ``MODERN`` (VASSAL 3.4.0 and later): quote a value that *starts* with ``\\`` or
  both starts and ends with ``'``;
* ``LEGACY`` (3.2.x-3.3.x): quote a value that *ends* with ``\\`` (or ``'...'``).

Both decode the same way. Under ``MODERN`` a value ending in ``\\`` that is followed
by another field is mis-split by VASSAL's own decoder; we reproduce that defect
rather than fix it, because the files must read the same in VASSAL as in wawkit.

For lossless editing :class:`Fields` keeps each field's raw text and re-encodes only
the fields that are set to a new value.
"""
from __future__ import annotations

import re
from typing import Iterable, Iterator

from converter.errors import EncodingError

MODERN = "modern"
LEGACY = "legacy"
QUOTINGS = (MODERN, LEGACY)

ESC = "\x1b"
TAB = "\t"


def split_raw(text: str, delim: str) -> list[str]:
    """Split ``text`` on unescaped ``delim`` and keep each segment's raw text.

    A delimiter is escaped when the character just before it is a backslash;
    ``delim.join(split_raw(t, d)) == t`` always holds. Linear even when one segment
    holds thousands of escaped delimiters.
    """
    if len(text) > 4096:
        # A long text (a whole save, a block of a log) is split in C: a plain split when no
        # delimiter is escaped, else one regular expression that finds only the unescaped
        # ones, where splitting on every delimiter and gluing the escaped runs back made a
        # string per nested command first.
        if "\\" + delim not in text:
            return text.split(delim)
        return _unescaped(delim).split(text)
    parts = text.split(delim)
    if len(parts) == 1 or "\\" + delim not in text:
        return parts
    out: list[str] = []
    run: list[str] = []  # the pieces of a segment whose delimiters are escaped
    for part in parts:
        if part.endswith("\\"):
            run.append(part)
        elif run:
            run.append(part)
            out.append(delim.join(run))
            run = []
        else:
            out.append(part)
    if run:
        out.append(delim.join(run))
    return out


_UNESCAPED: dict[str, "re.Pattern[str]"] = {}


def _unescaped(delim: str) -> "re.Pattern[str]":
    """The pattern of ``delim`` not after a backslash (the delimiter first, so that the
    search for it runs at C speed, then a look back at the character before it)."""
    pattern = _UNESCAPED.get(delim)
    if pattern is None:
        quoted = re.escape(delim)
        pattern = _UNESCAPED[delim] = re.compile(f"{quoted}(?<!\\\\{quoted})")
    return pattern


def unescape(raw: str, delim: str) -> str:
    """Decode one raw segment as ``Decoder.nextToken`` does: drop the escaping
    backslash of each delimiter, then strip one pair of enclosing single quotes."""
    value = raw.replace("\\" + delim, delim) if delim in raw else raw
    if len(value) > 1 and value[0] == "'" and value[-1] == "'":
        value = value[1:-1]
    return value


def split(text: str | None, delim: str) -> list[str]:
    """All tokens of ``text`` exactly as VASSAL's Decoder yields them.

    ``None`` has no tokens; ``""`` has one empty token; a trailing delimiter
    yields a final empty token.
    """
    if text is None:
        return []
    return [unescape(raw, delim) for raw in split_raw(text, delim)]


def needs_quotes(value: str, quoting: str = MODERN) -> bool:
    """Whether ``SequenceEncoder.append(String)`` wraps ``value`` in single quotes."""
    if value.startswith("'") and value.endswith("'"):
        return True
    if quoting == MODERN:
        return value.startswith("\\")
    if quoting == LEGACY:
        return value.endswith("\\")
    raise ValueError(f"unknown quoting rule {quoting!r}; expected one of {QUOTINGS}")


def escape(value: str | None, delim: str, quoting: str = MODERN) -> str:
    """Encode one field as ``SequenceEncoder.append(String)`` writes it."""
    if not value:
        return ""
    text = value.replace(delim, "\\" + delim) if delim in value else value
    if needs_quotes(value, quoting):
        return "'" + text + "'"
    return text


def join(values: Iterable[str | None], delim: str, quoting: str = MODERN) -> str | None:
    """Encode a sequence of fields; ``None`` when there are none (``getValue()``)."""
    encoded = [escape(v, delim, quoting) for v in values]
    if not encoded:
        return None
    return delim.join(encoded)


def java_bool(value: bool) -> str:
    """``String.valueOf(boolean)``."""
    return "true" if value else "false"


class Decoder:
    """A cursor over the tokens of one encoded string with VASSAL's typed readers.

    Each reader returns its default once the input is exhausted, which is how
    VASSAL reads strings written by older versions with fewer fields.
    """

    __slots__ = ("_tokens", "_pos")

    def __init__(self, text: str | None, delim: str) -> None:
        self._tokens = split(text, delim)
        self._pos = 0

    def has_more(self) -> bool:
        return self._pos < len(self._tokens)

    def __iter__(self) -> Iterator[str]:
        while self.has_more():
            yield self.next_token()

    def next_token(self, default: str | None = None) -> str:
        if not self.has_more():
            if default is None:
                raise EncodingError("no more fields to read")
            return default
        token = self._tokens[self._pos]
        self._pos += 1
        return token

    def next_int(self, default: int) -> int:
        if not self.has_more():
            return default
        token = self.next_token()
        try:
            return java_parse_int(token)
        except ValueError:
            return default

    def next_bool(self, default: bool) -> bool:
        return self.next_token() == "true" if self.has_more() else default

    def next_double(self, default: float) -> float:
        if not self.has_more():
            return default
        token = self.next_token()
        try:
            return float(token.strip())
        except ValueError:
            return default

    def next_char(self, default: str) -> str:
        if not self.has_more():
            return default
        token = self.next_token()
        return token[0] if token else default

    def next_string_array(self, min_length: int = 0) -> list[str | None]:
        items: list[str | None] = list(split(self.next_token(), ",")) if self.has_more() else []
        if items == [""]:
            items = []
        while len(items) < min_length:
            items.append(None)
        return items

    def rest(self) -> list[str]:
        """The tokens not read yet."""
        return self._tokens[self._pos:]


def java_parse_int(token: str) -> int:
    """``Integer.parseInt``: optional sign, ASCII digits only, 32-bit range."""
    body = token[1:] if token[:1] in "+-" else token
    if not body or not body.isascii() or not body.isdigit():
        raise ValueError(f"not an int: {token!r}")
    value = int(token)
    if not -2**31 <= value < 2**31:
        raise ValueError(f"int out of range: {token!r}")
    return value


class Fields:
    """A delimiter-separated field list that keeps every field's raw text.

    Reading a field decodes it; setting a field to a *different* value re-encodes
    only that field. So ``Fields(t, d).encode() == t`` for any ``t``, and an edit
    changes only the characters of the field it touches.
    """

    __slots__ = ("delim", "quoting", "raw")

    def __init__(self, text: str | None, delim: str, quoting: str = MODERN) -> None:
        self.delim = delim
        self.quoting = quoting
        self.raw: list[str] = [] if text is None else split_raw(text, delim)

    @classmethod
    def of(cls, values: Iterable[str | None], delim: str, quoting: str = MODERN) -> "Fields":
        fields = cls(None, delim, quoting)
        fields.raw = [escape(v, delim, quoting) for v in values]
        return fields

    def __len__(self) -> int:
        return len(self.raw)

    def __getitem__(self, index: int) -> str:
        return unescape(self.raw[index], self.delim)

    def get(self, index: int, default: str | None = None) -> str | None:
        if -len(self.raw) <= index < len(self.raw):
            return self[index]
        return default

    def values(self) -> list[str]:
        return [unescape(r, self.delim) for r in self.raw]

    def __setitem__(self, index: int, value: str | None) -> None:
        while index >= len(self.raw):
            self.raw.append("")
        if self.get(index) != (value or ""):
            self.raw[index] = escape(value, self.delim, self.quoting)

    def append(self, value: str | None) -> None:
        self.raw.append(escape(value, self.delim, self.quoting))

    def encode(self) -> str:
        return self.delim.join(self.raw)

    def __repr__(self) -> str:
        return f"Fields({self.encode()!r}, {self.delim!r})"
