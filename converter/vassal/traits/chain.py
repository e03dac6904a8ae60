"""Splitting and re-encoding TAB-nested trait chains (spec sections 2.1 and 2.3).

``Decorator.getType()`` is ``SequenceEncoder(own, TAB).append(inner)``, so level k
of a chain is reached after k rounds of TAB-unescaping, and the separator after
level k is a TAB preceded by exactly k backslashes. VASSAL reads a chain level by
level (:func:`split_levels`), which copies the rest of the text at every level:
quadratic for the 150-trait, 100 kB pieces of large modules. :func:`split_fast`
finds every separator in one scan from the backslash run before each TAB and
gives the same result; it declines (returns ``None``) when a segment starts with
a quote, the one case where a level's unescaping also strips characters.

Re-encoding reuses each level's raw text when that level and everything inside it
are unchanged, so an edit rewrites only the trait it touches and the nesting around it.
"""
from __future__ import annotations

import re
from typing import Sequence

from converter.vassal.sequence import TAB, escape, unescape

_TAB_RUN = re.compile(r"(\\*)\t")
_UNESCAPED_TAB = re.compile(r"(?<!\\)\t")


class TooManyLevels(ValueError):
    """A state with more TAB-separated segments than the type has traits."""


def _unescape_levels(segment: str, levels: int) -> str:
    """``levels`` rounds of TAB-unescaping of a segment that needs no unquoting."""
    if levels <= 0 or TAB not in segment:
        return segment
    return _TAB_RUN.sub(lambda m: "\\" * max(len(m.group(1)) - levels, 0) + TAB, segment)


def split_fast(text: str, *, limit: int | None = None, state: bool = False) -> list[str] | None:
    """Each level's own decoded text, outermost first, in one scan; ``None`` if a quote needs the exact path.

    ``limit`` and ``state`` read a state against a type of ``limit`` traits: its
    innermost segment is handed inward whole (TABs escaped inside it included), and
    a segment beyond it raises :class:`TooManyLevels`.
    """
    innermost = limit - 1 if state and limit is not None else None
    if innermost == 0:
        return [text]
    if text.startswith("'"):
        return None
    simple = _split_plain(text, innermost)
    if simple is not None:
        return simple
    parts = text.split(TAB)
    own: list[str] = []
    segment: list[str] = []
    for i in range(len(parts) - 1):
        part = parts[i]
        run = len(part) - len(part.rstrip("\\"))
        level = len(own)
        if level == innermost and run < level:
            raise TooManyLevels(f"more than {limit} TAB-separated segments")
        if level == innermost or run > level:
            segment.append(part)  # an escaped TAB inside this level
            continue
        segment.append(part[:len(part) - run])
        own.append(_unescape_levels(TAB.join(segment), level + 1))
        segment = []
        if parts[i + 1].startswith("'"):
            return None
    segment.append(parts[-1])
    level = len(own)
    own.append(_unescape_levels(TAB.join(segment), level if level == innermost else level + 1))
    return own


def _split_plain(text: str, innermost: int | None) -> list[str] | None:
    """The common case (:func:`plain_levels`), for a state read against ``innermost + 1`` traits."""
    if innermost is not None and text.count(TAB) > innermost:
        return None
    levels = plain_levels(text)
    return None if levels is None else list(levels)


def plain_levels(text: str, tabs: int | None = None) -> tuple[str, ...] | None:
    """Each level's own text when the chain is in its common form, else ``None``.

    The common form: every TAB is a separator, the k-th after exactly k backslashes
    (a level's text never ends in a backslash), and no level starts with a quote. Then
    no level needs unescaping and one regular-expression match (C code, per chain
    length) checks the whole chain and cuts it into its levels. ``tabs`` is the text's
    count of TABs when the caller has it already.
    """
    count = text.count(TAB) if tabs is None else tabs
    if count >= MAX_PLAIN_LEVELS:
        return None
    pattern = _PLAIN[count]
    if pattern is None:
        pattern = _PLAIN[count] = _plain_pattern(count + 1)
    found = pattern.fullmatch(text)
    return None if found is None else found.groups()


#: Chains longer than this take the general path (real pieces: up to about 150 levels).
MAX_PLAIN_LEVELS = 256
_PLAIN: list[re.Pattern[str] | None] = [None] * MAX_PLAIN_LEVELS


def _plain_pattern(levels: int) -> re.Pattern[str]:
    """The chain of ``levels`` levels in its common form, one group per level.

    A level but the innermost is a run of characters other than TAB that does not end in a
    backslash: plain characters, or backslashes followed by a plain character. Written with
    possessive repeats, the match reads each character once; "any run of non-TABs, then a
    look back for a backslash" backtracks over every separator's backslashes instead, which
    grows with the square of the nesting depth (25% slower on a large module's palette).
    """
    own = r"(?!')((?:[^\t\\]++|\\++[^\t\\])*+)"
    innermost = r"(?!')([^\t]*)"
    return re.compile("".join(own + r"\\" * k + r"\t" for k in range(levels - 1)) + innermost)


def split_level(text: str) -> tuple[str, str | None]:
    """One level as ``Decoder(text, TAB)`` sees it: (own raw, rest raw), ``rest`` ``None`` at the innermost."""
    match = _UNESCAPED_TAB.search(text)
    if match is None:
        return text, None
    return text[:match.start()], text[match.end():]


def split_levels(text: str, *, limit: int | None = None,
                 state: bool = False) -> tuple[list[str], list[str], list[str]]:
    """Level by level as VASSAL reads it: own decoded texts, own raw segments, raw rests.

    ``own_raw[i] + TAB + rest_raw[i]`` is the text level i was read from (after i
    rounds of unescaping); the innermost level's rest is ``""``. ``limit``/``state``
    as in :func:`split_fast`.
    """
    innermost = limit - 1 if state and limit is not None else None
    own: list[str] = []
    own_raw: list[str] = []
    rest_raw: list[str] = []
    current = text
    while True:
        level = len(own)
        if level == innermost:
            own.append(current)
            own_raw.append(current)
            rest_raw.append("")
            return own, own_raw, rest_raw
        head, rest = split_level(current)
        own_raw.append(head)
        own.append(unescape(head, TAB))
        if rest is None:
            rest_raw.append("")
            return own, own_raw, rest_raw
        if innermost is not None and level == innermost - 1 and split_level(rest)[1] is not None:
            raise TooManyLevels(f"more than {limit} TAB-separated segments")
        rest_raw.append(rest)
        current = unescape(rest, TAB)


def compose(values: Sequence[str | None], originals: Sequence[str | None], whole: str | None,
            own_raw: Sequence[str], rest_raw: Sequence[str], quoting: str) -> str | None:
    """Re-encode a chain of per-level texts (``None`` = level absent, chain ends above it).

    Levels equal to ``originals`` reuse ``own_raw``/``rest_raw``; ``whole`` comes back
    untouched when nothing changed.
    """
    changed = [v != o for v, o in zip(values, originals)]
    if not any(changed):
        return whole
    present = [i for i, v in enumerate(values) if v is not None]
    if not present:
        return None
    deepest = present[-1]
    text = values[deepest] or ""
    deeper_changed = any(changed[deepest:])
    for i in range(deepest - 1, -1, -1):
        rest = escape(text, TAB, quoting) if deeper_changed or i >= len(rest_raw) else rest_raw[i]
        own = escape(values[i], TAB, quoting) if changed[i] or i >= len(own_raw) else own_raw[i]
        text = own + TAB + rest
        deeper_changed = deeper_changed or changed[i]
    return text


__all__ = ["split_fast", "split_levels", "split_level", "compose", "TooManyLevels"]
