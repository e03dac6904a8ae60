"""The two generated parts of ``tests/rule_cases/README.md``: the counts of the Files table
(cases and rows of each file, and the total; a case without rows counts one) and the "sections -> case ids" lists, both
derived from the case files so that they cannot drift from them.

Only the counts and lists are generated; the ``area`` column and the prose are written by
hand. ``python -m tests.rule_cases_index`` rewrites the README in place;
``tests/test_rule_cases_project.py`` fails when the README differs from what this builds.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from referee.cases import load_cases
from tests.test_rules_coverage import NAMED, cited

HERE = Path(__file__).resolve().parent / "rule_cases"
README = HERE / "README.md"

#: The README's headings of the three books' lists, in the order they are printed.
BOOK_HEADINGS = {
    "WaW85": "### World At War 85 — `000_1996f2e63100e804.txt` (ruleset `waw85`)",
    "TUS": "### The Untold Stories — `001_5886fd6148e82afe.txt` (ruleset `classic`, variant `untold`)",
    "EG": "### Eisenbach Gap — `002_808fc8f3f8c907b3.txt` (ruleset `classic`, variant `eisenbach`)",
}
#: Chapters a book prints without a number (TUS "Jamming"), shown by name beside the number.
_UNNUMBERED = {(book, number): name for book, names in NAMED.items() for name, number in names.items()
               if re.fullmatch(r"\d+(?:\.\d+)*", number)}
_ROW = re.compile(r"^\| `(?P<file>[^`]+\.yaml)` \| \d+ \| \d+ \| (?P<area>.*) \|$")
_TOTAL = re.compile(r"^\| total \| \d+ \| \d+ \| \|$")


def case_files() -> list[Path]:
    """Every case file of the folder but the list of known gaps."""
    return sorted(p for p in HERE.glob("*.yaml") if p.name != "known_gaps.yaml")


def _default_books(case: dict, source: str) -> tuple[str, ...]:
    """The book of a section the source cites without naming one (``... §14.6 Chart, §14.9``):
    the one book the source names, else the books of the case's ruleset and variant."""
    named = {book for book, _ in cited(source)}
    if len(named) == 1:
        return tuple(named)
    if case.get("ruleset") == "waw85":
        return ("WaW85",)
    return {"eisenbach": ("EG",), "untold": ("TUS",)}.get(str(case.get("variant")), ("EG", "TUS"))


def _section_key(section: str) -> tuple[int, tuple[int, ...], str]:
    """Numbered sections in numeric order (§9.8 before §10.0), then parts cited by name."""
    if re.fullmatch(r"\d+(?:\.\d+)*", section):
        return (0, tuple(int(n) for n in section.split(".")), "")
    return (1, (), section)


def build(text: str) -> str:
    """The README ``text`` with its counts and lists made anew from the case files."""
    counts: dict[str, tuple[int, int]] = {}
    sections: dict[str, dict[str, set[str]]] = {book: {} for book in BOOK_HEADINGS}
    for path in case_files():
        cases = load_cases(path)
        counts[path.name] = (len(cases), sum(len(case.get("rows") or ()) or 1 for case in cases))
        for case in cases:
            source = str(case.get("source", ""))
            for book, section in cited(source, _default_books(case, source)):
                sections[book].setdefault(section, set()).add(case["id"])
    lines = text.splitlines()
    out: list[str] = []
    listed: set[str] = set()
    index = 0
    while index < len(lines):
        line = lines[index]
        row = _ROW.match(line)
        if row and row["file"] in counts and row["file"] not in listed:   # a file listed twice: its first row stays
            cases, runs = counts[row["file"]]
            out.append(f"| `{row['file']}` | {cases} | {runs} | {row['area']} |")
            listed.add(row["file"])
        elif _TOTAL.match(line):
            if "total" in listed:       # one total row (a merge of two branches may leave two)
                index += 1
                continue
            listed.add("total")
            missing = sorted(set(counts) - listed - {"total"})
            out.extend(f"| `{name}` | {counts[name][0]} | {counts[name][1]} | (area to describe) |"
                       for name in missing)
            out.append(f"| total | {sum(c for c, _ in counts.values())} | "
                       f"{sum(r for _, r in counts.values())} | |")
        elif line in BOOK_HEADINGS.values():
            book = next(b for b, h in BOOK_HEADINGS.items() if h == line)
            out.extend([line, ""])
            for section in sorted(sections[book], key=_section_key):
                ids = ", ".join(f"`{i}`" for i in sorted(sections[book][section]))
                number = f"§{section}" if _section_key(section)[0] == 0 else section
                chapter = _UNNUMBERED.get((book, section))
                number = f"{chapter} ({number})" if chapter else number
                out.append(f"- {number}: {ids}")
            out.append("")
            index += 1
            while index < len(lines) and not lines[index].startswith("#"):
                index += 1
            continue
        elif not row:
            out.append(line)
        index += 1
    return "\n".join(out) + "\n"


def main() -> int:
    """Rewrite the README; exit 1 when it changed (so a script can tell)."""
    old = README.read_text(encoding="utf-8")
    new = build(old)
    if new != old:
        README.write_text(new, encoding="utf-8")
        print(f"rewrote {README}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
