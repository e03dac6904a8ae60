"""The numbered sections of the three rulebooks in ``shared/rules``, read from each book's
table of contents and checked against its body's headings.

How each table of contents is read (``docs/rules-coverage.md`` says the same):

- WaW85 (``000``): the printed contents list (``- 10.6.1 Anti-Aircraft Fire``) names the
  chapters and some sub-sections; the body has many more numbered headings (``9.8.1
  Loading``, run-in ones such as ``2.3.4.1 Fire Burn Out. Check if...``). A section is
  every numbered contents entry and every numbered body heading; each knows whether the
  printed contents list it.
- The Untold Stories (``001``): the contents list its chapters without numbers
  (``• Combat``); a chapter's number is that of its sub-sections (``6.1`` -> ``6.0``), or
  one more than the chapter before when it has none (``Setting Up the Game`` is ``2.0``,
  ``Jamming`` ``10.0``, ``Battlefield Chaos`` ``11.0``, ``Scenarios`` ``13.0``). The book
  prints ``8.6`` twice (``MLRS Strike``, ``On Map Artillery Units``): both are sections.
- Eisenbach Gap (``002``): the contents number every chapter and sub-section.

In all three the contents and the body's headings agree (:func:`toc_mismatches` is empty but
for WaW85's shortened contents). Unnumbered entries (WaW85 ``Introduction``, ``Counter
Reference``, ``Glossary``; Eisenbach Gap's ``Terrain Effect Chart``, ``Helicopter Line of
Sight Table``, ``Moving Fire Table``) are kept apart as :func:`entries`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

RULES = Path(__file__).resolve().parents[1].parent / "shared" / "rules"

#: The books by the short name the referee cites them with (referee.books).
FILES = {"WaW85": "000_1996f2e63100e804.txt", "TUS": "001_5886fd6148e82afe.txt",
         "EG": "002_808fc8f3f8c907b3.txt"}

_NUMBERED = re.compile(r"^(\d+(?:\.\d+)+)\s+(.+)$")
_TOC_ITEM = re.compile(r"^\s*[-•]\s+(.+)$")


@dataclass(frozen=True)
class Section:
    """One numbered section: ``number`` as the book prints it (``10.6.1``; chapters ``6.0``)."""

    number: str
    title: str
    in_toc: bool
    in_body: bool

    @property
    def key(self) -> tuple[int, ...]:
        return tuple(int(part) for part in self.number.split("."))


def normal(number: str) -> str:
    """A citation's section number in the book's form: a bare chapter ``10`` is ``10.0``."""
    return number if "." in number else number + ".0"


def _title(text: str) -> str:
    """A heading's title; a run-in heading (``Fire Burn Out. Check if...``, a heading line
    running on into its rule text) ends at its first period."""
    text = text.strip()
    head, _, rest = text.partition(". ")
    return head if len(rest.split()) >= 4 else text


@lru_cache(maxsize=None)
def _read(book: str) -> tuple[list[str], list[str]]:
    """The contents lines and the body lines of ``book``."""
    lines = (RULES / FILES[book]).read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == "Table of Contents"]
    first = starts[-1] + 1
    end = first
    while end < len(lines) and (not lines[end].strip() or _TOC_ITEM.match(lines[end])):
        end += 1
    return lines[first:end], lines[end:]


def _toc(book: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The numbered contents entries (number, title) in order, and the unnumbered ones."""
    toc, _ = _read(book)
    items = [m.group(1).strip() for m in map(_TOC_ITEM.match, toc) if m]
    numbered: list[tuple[str, str]] = []
    unnumbered: list[str] = []
    if book == "TUS":
        chapter = 0
        for i, item in enumerate(items):
            found = _NUMBERED.match(item)
            if found:
                numbered.append((found.group(1), found.group(2)))
                continue
            following = _NUMBERED.match(items[i + 1]) if i + 1 < len(items) else None
            chapter = int(following.group(1).split(".")[0]) if following else chapter + 1
            numbered.append((f"{chapter}.0", item))
        return numbered, unnumbered
    for item in items:
        found = re.match(r"^(\d+(?:\.\d+)+)\s+(.+)$", item)
        if found:
            numbered.append((found.group(1), found.group(2)))
        else:
            unnumbered.append(item)
    return numbered, unnumbered


def _body(book: str) -> list[tuple[str, str]]:
    """The numbered headings of the body (number, title), in order; TUS chapters as ``N.0``."""
    _, body = _read(book)
    found = [(m.group(1), _title(m.group(2))) for m in map(_NUMBERED.match, body) if m]
    if book == "TUS":
        chapters = {title: number for number, title in _toc(book)[0] if number.endswith(".0")}
        found += [(chapters[line.strip()], line.strip()) for line in body if line.strip() in chapters]
    return found


@lru_cache(maxsize=None)
def sections(book: str) -> tuple[Section, ...]:
    """Every numbered section of ``book``, in the book's order (contents first, then
    the body headings the contents leave out, each after its parent)."""
    toc = _toc(book)[0]
    body = _body(book)
    in_toc = {(n, t) for n, t in toc}
    toc_numbers = {n for n, _ in toc}
    merged: dict[tuple[str, str], Section] = {}
    for number, title in toc:
        merged[(number, title)] = Section(number, title, True, (number, title) in body
                                          or any(n == number for n, _ in body))
    for number, title in body:
        if number in toc_numbers and not _duplicate(toc, number):
            continue
        if (number, title) in in_toc or (number, title) in merged:
            continue
        merged[(number, title)] = Section(number, title, False, True)
    return tuple(sorted(merged.values(), key=lambda s: (s.key, not s.in_toc)))


def _duplicate(toc: list[tuple[str, str]], number: str) -> bool:
    return sum(1 for n, _ in toc if n == number) > 1


def numbers(book: str) -> frozenset[str]:
    """The section numbers of ``book`` (``10.6.1``, chapters ``6.0``)."""
    return frozenset(s.number for s in sections(book))


def entries(book: str) -> tuple[str, ...]:
    """The unnumbered contents entries of ``book`` (charts, introduction, glossary)."""
    return tuple(_toc(book)[1])


def toc_mismatches(book: str) -> tuple[list[str], list[str]]:
    """Contents entries with no body heading, and body headings the contents leave out."""
    toc = _toc(book)[0]
    body = _body(book)
    body_numbers = {n for n, _ in body}
    missing = [f"{n} {t}" for n, t in toc if n not in body_numbers]
    toc_numbers = {n for n, _ in toc}
    extra = [f"{n} {t}" for n, t in body if n not in toc_numbers]
    return missing, extra
