"""The three rulebooks the referee implements, and the one way a rule is cited.

Every reason, refusal and modifier the referee gives names its section in the book of
the ruleset that decided it: ``EG §6.3`` (Eisenbach Gap), ``TUS §1.3.6`` (The Untold
Stories), ``WaW85 §13.2.1`` (World At War 85). A classic ruleset reads one book, so a
section shared by both classic books is cited in the book the game is played under.

:func:`citation` turns whatever a procedure wrote (``"6.3"``, ``"§6.1.5, §6.1.6"``,
``"001 §1.3.6"``, ``"WaW85 §10.0"``, ``"TEC"``) into that one format; a section of
another book keeps its own book's name (a reason that explains a book difference).
"""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Book:
    """One rulebook: its key (the ruleset flag), the file number in ``shared/rules``, title
    and the short name citations use."""

    key: str
    number: str
    title: str
    short: str
    ruleset: str


EISENBACH = Book("eisenbach", "002", "World at War: Eisenbach Gap", "EG", "classic")
UNTOLD = Book("untold", "001", "World at War: The Untold Stories", "TUS", "classic")
WAW85 = Book("waw85", "000", "World At War 85: Storming the Gap", "WaW85", "waw85")
BOOKS: dict[str, Book] = {b.key: b for b in (EISENBACH, UNTOLD, WAW85)}

#: How procedures have named books in their citations, and the book each name means.
_PREFIXES = {"002": EISENBACH, "EG": EISENBACH, "001": UNTOLD, "TUS": UNTOLD, "000": WAW85, "WaW85": WAW85}
_PREFIX = re.compile(r"^(002|001|000|EG|TUS|WaW85)\s+")
_SECTION = re.compile(r"§(\d+(?:\.\d+)*)")


def book(key: str | None) -> Book | None:
    """The book a ruleset flag names (``eisenbach``, ``untold``, ``waw85``), if any."""
    return BOOKS.get(key or "")


_BARE = re.compile(r"^§?\d+(?:\.\d+)*(?:-§?\d+(?:\.\d+)*)?$")


def _as_section(text: str) -> str:
    """``6.1`` and ``§6.1`` -> ``§6.1``; any other text (``TEC``, ``Jamming c``) unchanged."""
    if _BARE.match(text):
        return "-".join("§" + end.lstrip("§") for end in text.split("-"))
    return text


def citation(active: Book | None, raw: str) -> str:
    """``raw`` as a citation naming its book: ``citation(UNTOLD, "§6.1.5, §6.1.6")`` is
    ``"TUS §6.1.5, §6.1.6"``. A part naming another book keeps that book's name for itself
    and the parts after it (``citation(EISENBACH, "§1.3.4.3, 001 §8.6")`` is
    ``"EG §1.3.4.3; TUS §8.6"``); ``;`` starts again from the active book."""
    if not raw:
        return raw
    groups: list[tuple[Book | None, list[str]]] = []
    for clause in raw.split(";"):
        owner = active
        for piece in clause.split(","):
            text = piece.strip()
            if not text:
                continue
            found = _PREFIX.match(text)
            if found:
                owner, text = _PREFIXES[found.group(1)], text[found.end():]
            text = _as_section(text)
            if groups and groups[-1][0] == owner:
                groups[-1][1].append(text)
            else:
                groups.append((owner, [text]))
    return "; ".join(((owner.short + " ") if owner else "") + ", ".join(parts) for owner, parts in groups)


def sections(raw: str) -> list[str]:
    """The section numbers a citation names with ``§``, in order (``"TUS §6.1.5, §6.1.6"``
    -> ``["6.1.5", "6.1.6"]``); a range ``§6.1.1-§6.1.3`` names its two ends."""
    return _SECTION.findall(raw)


def first_section(raw: str) -> str | None:
    """The first bare section number of a citation (the ``reason_rule`` of a refusal)."""
    found = sections(raw)
    return found[0] if found else None
