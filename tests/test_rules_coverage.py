"""``docs/rules-coverage.md`` kept true: one row for every numbered section of each rulebook,
every section the referee cites exists in its book, every implemented section has a test
that names it, and every piece of referee code the table names exists.

A test *names* a section of a book (see the doc's "How a test names a section"):

- a test function in ``tests/test_*.py`` whose source (decorators, name, docstring,
  comments and strings, from ``def`` to its end) cites it: ``TUS §6.3``, ``001 §6.3``,
  ``EG/TUS §6.3`` (both classic books), or a
  bare ``§6.3`` in a module that declares its book with ``RULEBOOKS = ("TUS",)``; a book
  name carries over the citations that follow it joined by ``,``, ``and``, ``or`` or ``-``
  (``EG §6.1.5, §6.1.6``); a range ``§9.7.1-§9.7.3`` names its two ends;
- a rule case (``tests/rule_cases/*.yaml`` or the shared ``rule-cases.yaml``) whose
  ``source`` cites it (``002_808fc8f3f8c907b3.txt §6.3``), when at least one of its runs
  under that book passes (a case that is only a gap there checks nothing).
"""
from __future__ import annotations

import ast
import importlib
import io
import re
import tokenize
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterator

import pytest

from referee.books import BOOKS, EISENBACH, UNTOLD, WAW85, Book, citation
from referee.cases import load_cases, merge, run_one
from referee.errors import RefereeError
from referee.rulesets import get_ruleset
from tests import rulebooks

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "rules-coverage.md"
SHARED_CASES = ROOT.parent / "shared" / "cases" / "rule-cases.yaml"
PROJECT_CASES = sorted(p for p in (ROOT / "tests" / "rule_cases").glob("*.yaml") if p.name != "known_gaps.yaml")

STATUSES = ("implemented", "partly", "not supported", "not a referee matter")
#: What names a book in a citation: its short name, its file number, its title.
BOOK_NAMES = {"WaW85": "WaW85", "000": "WaW85", "TUS": "TUS", "001": "TUS", "EG": "EG", "002": "EG",
              "Untold Stories": "TUS", "Eisenbach Gap": "EG"}
_NAME = "|".join(sorted(map(re.escape, BOOK_NAMES), key=len, reverse=True))
_NUM = r"\d+(?:\.\d+)*"
#: A run of citations: an optional book name (or file ``000_...txt``), then ``§N`` joined
#: by ``,``/``and``/``or`` (or a range ``-``); group 1 the book, group 2 the run.
_RUN = re.compile(rf"(?:\b({_NAME}|EG/TUS|TUS/EG)(?:_[0-9a-f]+\.txt)?\s+)?(§{_NUM}(?:(?:\s*,\s*|\s+and\s+|\s+or\s+)§{_NUM}|\s*[-–]\s*§?{_NUM})*)")


#: Parts of a book cited by name: an unnumbered chapter of The Untold Stories, or an
#: unnumbered chart of Eisenbach Gap; the referee cites ``TEC`` and ``001 Jamming d``.
NAMED = {"TUS": {"Jamming": "10.0", "Battlefield Chaos": "11.0"},
         "EG": {"TEC": "Terrain Effect Chart", "Terrain Effect Chart": "Terrain Effect Chart",
                "Terrain Effects Chart": "Terrain Effect Chart", "Moving Fire Table": "Moving Fire Table",
                "Helicopter Line of Sight Table": "Helicopter Line of Sight Table"}}
_NAMES = sorted({n for names in NAMED.values() for n in names} | {"Move Fire and Imaging Table"},
                key=len, reverse=True)
_NAMED = re.compile(rf"(?:\b({_NAME}|EG/TUS|TUS/EG)(?:_[0-9a-f]+\.txt)?\s+)?\b({'|'.join(map(re.escape, _NAMES))})\b")


def _books(name: str) -> tuple[str, ...]:
    """The books a name in a citation means (``EG/TUS``: both classic books)."""
    return ("EG", "TUS") if "/" in name else (BOOK_NAMES[name],)


def cited(text: str, default: tuple[str, ...] = (), *, names: bool = True) -> set[tuple[str, str]]:
    """The (book, section) pairs ``text`` cites; a run without a book name belongs to the
    books in ``default``. Sections in the book's form (``10`` -> ``10.0``); a part cited
    by name is its number or entry (``TUS Jamming`` -> ``10.0``, ``EG TEC`` ->
    ``Terrain Effect Chart``), or the name itself where the book has no such part (``TUS
    TEC``). ``names=False``: only ``§`` citations count (in prose a chart's name may name
    a player aid card, not a part of the book)."""
    found: set[tuple[str, str]] = set()
    for match in _RUN.finditer(text):
        books = _books(match.group(1)) if match.group(1) else default
        for number in re.findall(_NUM, match.group(2)):
            found.update((b, rulebooks.normal(number)) for b in books)
    for match in _NAMED.finditer(text) if names else ():
        for b in _books(match.group(1)) if match.group(1) else default:
            found.add((b, NAMED.get(b, {}).get(match.group(2), match.group(2))))
    return found


def exists(book: str, part: str) -> bool:
    """Whether ``part`` (a number or an unnumbered entry) is part of ``book``."""
    return part in rulebooks.numbers(book) or part in rulebooks.entries(book)


# ---------------------------------------------------------------- the document -----

@dataclass(frozen=True)
class Row:
    book: str
    number: str      # "10.6.1", or "" for an unnumbered entry
    title: str
    status: str
    code: tuple[str, ...]
    tests: tuple[str, ...]
    notes: str
    line: int
    body_only: bool   # marked †: a body heading the printed contents leave out


_BOOK_HEADING = re.compile(r"^## .*\((WaW85|TUS|EG)\b")
_TICKED = re.compile(r"`([^`]+)`")


@lru_cache(maxsize=None)
def rows() -> tuple[Row, ...]:
    """The table rows of the document, by book (``## ... (WaW85, ...)`` starts a book)."""
    found: list[Row] = []
    book = None
    for number, line in enumerate(DOC.read_text(encoding="utf-8").splitlines(), 1):
        heading = _BOOK_HEADING.match(line)
        if heading:
            book = heading.group(1)
            continue
        if line.startswith("## "):
            book = None
        if book is None or not line.startswith("|") or line.startswith("|---") or line.startswith("| §"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 6, f"docs/rules-coverage.md:{number}: {len(cells)} cells, expected 6"
        section, title, status, code, tests, notes = cells
        body_only = title.endswith(" †")
        found.append(Row(book, "" if section == "—" else section, title.removesuffix(" †"), status,
                         tuple(_TICKED.findall(code)), tuple(_TICKED.findall(tests)), notes, number,
                         body_only))
    return tuple(found)


def where(row: Row) -> str:
    return f"docs/rules-coverage.md:{row.line} {row.book} §{row.number or row.title}"


# ---------------------------------------------------------------- tests naming sections --

def _test_functions(path: Path) -> Iterator[tuple[str, str]]:
    """(name, source) of every test function of a test module (methods as Class::name)."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    lines = text.splitlines()

    def source(node: ast.AST) -> str:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        return "\n".join(lines[start - 1:node.end_lineno])

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            yield node.name, source(node)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("test"):
                    yield f"{node.name}::{item.name}", source(item)


def _declared_books(path: Path) -> tuple[str, ...]:
    """The module's ``RULEBOOKS = ("WaW85",)``, if it declares one."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "RULEBOOKS" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    return ()


@lru_cache(maxsize=None)
def citations_in_tests() -> dict[str, set[tuple[str, str]]]:
    """``tests/test_x.py::test_name`` -> the (book, section) pairs the test names."""
    found: dict[str, set[tuple[str, str]]] = {}
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        if path.name == Path(__file__).name:       # its citations are examples of the matching
            continue
        default = _declared_books(path)
        for name, source in _test_functions(path):
            found[f"tests/{path.name}::{name}"] = cited(source, default)
    return found


def _source_books(source: str) -> set[tuple[str, str]]:
    """A rule case's ``source``: ``001_...txt §6.3 (Untold Stories); 002_...txt §6.3``."""
    found: set[tuple[str, str]] = set()
    for clause in source.split(";"):
        named = re.search(r"\b(000|001|002)_[0-9a-f]+\.txt", clause)
        if named:
            found |= cited(clause, (BOOK_NAMES[named.group(1)],))
    return found


@dataclass
class CaseFacts:
    """One rule case: the sections its source cites, the books it passed under."""

    sections: set[tuple[str, str]]
    passed: set[str]


def _runs(case: dict) -> Iterator[tuple[dict, dict, dict, str | None]]:
    """(given, expect, row, book flag) of every run FORMAT.md gives a case."""
    rows_ = case.get("rows") or []
    runs = ([(merge(case.get("given") or {}, r.get("given") or {}),
              merge(case.get("expect") or {}, r.get("expect") or {}), r) for r in rows_]
            if rows_ else [(case.get("given") or {}, case.get("expect") or {}, case)])
    for given, expect, row in runs:
        variant = row.get("variant") or case.get("variant")
        for flag in ([None] if case["ruleset"] == "waw85" else ([variant] if variant else ["eisenbach", "untold"])):
            yield given, expect, row, flag


@dataclass
class CaseRuns:
    """Every case of the shared and project files, run once: what each names, where it
    passed, and every citation the referee printed while answering them."""

    cases: dict[str, CaseFacts]
    printed: set[tuple[str, str, str]]     # (book, section, where)


@lru_cache(maxsize=None)
def case_runs() -> CaseRuns:
    """Run every case as ``referee.cases`` does (a run passes with no failure, no gap and
    no unsettled mark), keeping the answers' citations: the sections of reasons and
    modifiers (always formatted by :func:`referee.books.citation`, so charts cited by name
    count), and the ``§`` citations inside reason texts and gaps."""
    facts: dict[str, CaseFacts] = {}
    printed: set[tuple[str, str, str]] = set()
    for path in [SHARED_CASES] + PROJECT_CASES:
        for case in load_cases(path):
            fact = facts[case["id"]] = CaseFacts(_source_books(case.get("source") or ""), set())
            for given, expect, row, flag in _runs(case):
                ruleset = get_ruleset(case["ruleset"], flag)
                active = ruleset.book.short if ruleset.book else "WaW85"
                place = f"rule case {case['id']}@{active}"
                try:
                    answer, comparison = run_one(ruleset, given, expect)
                except RefereeError as error:
                    printed.update((*pair, f"{place}: {error}") for pair in cited(str(error), (active,), names=False))
                    continue
                if not (comparison.failures or comparison.gaps or row.get("unsettled") or case.get("unsettled")):
                    fact.passed.add(active)
                for text in [r.section for r in answer.reasons] + [m.section for m in answer.modifiers]:
                    printed.update((*pair, f"{place}: {text}") for pair in cited(text, (active,)))
                for text in [r.text for r in answer.reasons] + list(answer.gaps.values()):
                    printed.update((*pair, f"{place}: {text}") for pair in cited(text, (active,), names=False))
    return CaseRuns(facts, printed)


def names_section(test: str, book: str, number: str) -> bool:
    """Whether the test (``tests/x.py::name`` or a rule case id) names §number of book."""
    if "::" in test:
        return (book, number) in citations_in_tests().get(test, set())
    facts = case_runs().cases.get(test)
    return facts is not None and (book, number) in facts.sections and book in facts.passed


# ---------------------------------------------------------------- referee citations ----

def _book_of_module(path: Path) -> tuple[Book, ...]:
    """The books an unnamed citation in a referee module belongs to: WaW85 code cites WaW85,
    classic code both classic books, shared code any (it is checked by the printed answers
    and the SECTIONS tables, which name their book)."""
    parts = path.relative_to(ROOT / "referee").parts
    if parts[0] == "waw85":
        return (WAW85,)
    if parts[0] == "classic":
        return (EISENBACH, UNTOLD)
    return ()


_BARE_SECTION = re.compile(rf"^(?:(?:{_NAME})\s+)?§?{_NUM}(?:\s*[-,]\s*(?:(?:{_NAME})\s+)?§?{_NUM})*$")


#: A string that is only a chart's name, as a procedure passes it for its section (``"TEC"``).
_NAMED_ARGUMENT = re.compile(rf"^(?:(?:{_NAME})\s+)?(?:{'|'.join(map(re.escape, _NAMES))})(?:\s+\w+)?$")


def _strings_and_comments(path: Path) -> Iterator[tuple[int, str]]:
    text = path.read_text(encoding="utf-8")
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in (tokenize.STRING, tokenize.COMMENT):
            yield token.start[0], token.string


def referee_citations() -> set[tuple[str, str, str]]:
    """(book, section, where) for every section the referee's source cites: ``§N`` in any
    string or comment, a string that is only a section (``"6.1.7"``, ``"001 §8.6"``, as
    procedures pass them to ``because``/``illegal``), and the rulesets' SECTIONS tables,
    each read the way :func:`referee.books.citation` prints it under each book the module
    serves; in shared modules only citations naming a book are taken."""
    found: set[tuple[str, str, str]] = set()
    for path in sorted((ROOT / "referee").rglob("*.py")):
        books = _book_of_module(path)
        for line, token in _strings_and_comments(path):
            text = token.lstrip("#").strip()
            try:
                value = ast.literal_eval(token) if not token.startswith("#") else text
            except (ValueError, SyntaxError):
                value = text
            if not isinstance(value, str):
                continue
            bare = _BARE_SECTION.match(value.strip()) and not re.fullmatch(r"\d{3}", value.strip())
            if bare:
                value = citation(None, value.strip())
            named = bool(_NAMED_ARGUMENT.match(value.strip()))
            for book_, number in cited(value, tuple(b.short for b in books), names=named):
                found.add((book_, number, f"{path.relative_to(ROOT)}:{line}"))
    for key in ("eisenbach", "untold", "waw85"):
        ruleset = get_ruleset("waw85" if key == "waw85" else "classic", None if key == "waw85" else key)
        active = ruleset.book.short if ruleset.book else "WaW85"
        for topic, raw in ruleset.SECTIONS.items():
            for pair in cited(citation(ruleset.book, raw), (active,)):
                found.add((*pair, f"{type(ruleset).__name__}.SECTIONS[{topic!r}] under {active}"))
    return found


# ---------------------------------------------------------------- the tests -----------

@pytest.mark.parametrize("book", list(rulebooks.FILES))
def test_every_section_of_the_book_is_listed_once_with_a_status(book: str) -> None:
    """(a) The rows of a book are exactly its numbered sections (contents and body
    headings, docs/rules-coverage.md says how they were read) and its unnumbered contents
    entries, each once, each with one of the statuses."""
    listed = [(r.number, r.title) for r in rows() if r.book == book]
    wanted = [(s.number, s.title) for s in rulebooks.sections(book)] + [("", e) for e in rulebooks.entries(book)]
    doubled = sorted({x for x in listed if listed.count(x) > 1})
    assert doubled == []
    assert sorted(set(wanted) - set(listed)) == [], "sections missing from the table"
    assert sorted(set(listed) - set(wanted)) == [], "rows that are not sections of the book"
    bad = [where(r) + f": {r.status!r}" for r in rows() if r.book == book and r.status not in STATUSES]
    assert bad == []
    marks = {(s.number, s.title): not s.in_toc for s in rulebooks.sections(book)}
    wrong = [where(r) for r in rows() if r.book == book and r.number and r.body_only != marks[(r.number, r.title)]]
    assert wrong == [], "† marks a heading the printed contents leave out, and only such headings"


def test_the_contents_agree_with_the_body() -> None:
    """How the contents were read: every contents entry has its body heading; only WaW85's
    contents leave out body headings (151 sub-sections, listed as rows of their own)."""
    assert rulebooks.toc_mismatches("TUS") == ([], [])
    assert rulebooks.toc_mismatches("EG") == ([], [])
    missing, extra = rulebooks.toc_mismatches("WaW85")
    assert missing == [] and len(extra) == 151
    assert [(s.number, s.title) for s in rulebooks.sections("TUS") if s.number.endswith(".0")] == [
        ("1.0", "General Concepts"), ("2.0", "Setting Up the Game"), ("3.0", "Outline of Play"),
        ("4.0", "Formation Impulse"), ("5.0", "Movement"), ("6.0", "Combat"), ("7.0", "Line of Sight"),
        ("8.0", "Artillery"), ("9.0", "Air Support"), ("10.0", "Jamming"), ("11.0", "Battlefield Chaos"),
        ("12.0", "Fortifications and Terrain Improvements"), ("13.0", "Scenarios")]
    assert [s.title for s in rulebooks.sections("TUS") if s.number == "8.6"] == ["MLRS Strike", "On Map Artillery Units"]


def test_rows_say_why_and_what_the_referee_answers() -> None:
    """Implemented and partly rows name code and tests; partly, not supported and not a
    referee matter rows say why; not supported rows say what the referee answers."""
    bad = []
    for row in rows():
        if row.status in ("implemented", "partly") and not (row.code and row.tests):
            bad.append(where(row) + ": names no code or no test")
        if row.status != "implemented" and not row.notes:
            bad.append(where(row) + ": says not why")
        if row.status == "not supported" and not re.search(r"not supported|not stated|gap|refus|cites? no|never", row.notes):
            bad.append(where(row) + ": does not say what the referee answers")
    assert bad == []


def test_every_section_the_referee_cites_is_a_section_of_its_book() -> None:
    """(b) In the referee's source, its SECTIONS tables, the answers it printed for every
    rule case, and the cases' own sources."""
    offenders = sorted(f"{book} §{number}: {place}"
                       for book, number, place in referee_citations() | case_runs().printed
                       if not exists(book, number))
    for case_id, facts in case_runs().cases.items():
        offenders += [f"{book} §{number}: rule case {case_id}" for book, number in sorted(facts.sections)
                      if not exists(book, number)]
    assert offenders == []


def test_every_implemented_section_has_a_test_that_names_it() -> None:
    """(c) Each test a row lists exists, and an implemented (or partly) row lists at least
    one test that names the section of that book (see the module docstring)."""
    missing, silent = [], []
    for row in rows():
        for test in row.tests:
            if "::" in test and test not in citations_in_tests():
                missing.append(f"{where(row)}: no test {test}")
            elif "::" not in test and test not in case_runs().cases:
                missing.append(f"{where(row)}: no rule case {test}")
        if row.status in ("implemented", "partly") and not any(
                names_section(t, row.book, row.number or row.title) for t in row.tests):
            silent.append(f"{where(row)}: none of {', '.join(row.tests) or 'no tests'} names it")
    assert missing == []
    assert silent == []


def _code_exists(ref: str) -> bool:
    """``referee/assault.py: settle`` or ``referee/waw85/__init__.py: Waw85Ruleset.SECTIONS``."""
    path, _, name = (part.strip() for part in ref.partition(":"))
    if not path.startswith("referee/") or not path.endswith(".py") or not (ROOT / path).is_file():
        return False
    module = importlib.import_module(path[:-3].replace("/", ".").removesuffix(".__init__"))
    target: object = module
    for part in name.split("."):
        if not hasattr(target, part):
            return False
        target = getattr(target, part)
    return bool(name)


def test_every_code_reference_exists() -> None:
    """(d) Every ``module: function`` the table names can be imported."""
    bad = [f"{where(row)}: {ref}" for row in rows() for ref in row.code if not _code_exists(ref)]
    assert bad == []


def test_how_a_citation_is_read() -> None:
    """The matching the other tests rely on, on the forms the project writes."""
    assert cited("TUS §6.1.5, §6.1.6; EG §8.2") == {("TUS", "6.1.5"), ("TUS", "6.1.6"), ("EG", "8.2")}
    assert cited("§8.3, 001 §12.2", ("EG",)) == {("EG", "8.3"), ("TUS", "12.2")}
    assert cited("WaW85 §9.7.1-§9.7.3 and §10") == {("WaW85", "9.7.1"), ("WaW85", "9.7.3"), ("WaW85", "10.0")}
    assert cited("EG/TUS §6.3") == {("EG", "6.3"), ("TUS", "6.3")}
    assert cited("a bare §6.3") == set()
    assert cited("002_808fc8f3f8c907b3.txt Terrain Effect Chart, §7.1") == {("EG", "Terrain Effect Chart")}
    assert _source_books("002_808fc8f3f8c907b3.txt Terrain Effect Chart, §7.1 (Eisenbach Gap)") == {
        ("EG", "Terrain Effect Chart"), ("EG", "7.1")}
    assert cited("001 Jamming d") == {("TUS", "10.0")}
    assert cited("TUS TEC") == {("TUS", "TEC")} and not exists("TUS", "TEC")
    assert exists("EG", "Terrain Effect Chart") and not exists("EG", "12.1") and exists("TUS", "12.1")
    assert _source_books("001_5886fd6148e82afe.txt §6.3 (Untold Stories); 002_808fc8f3f8c907b3.txt §6.3, §6.3.1") == {
        ("TUS", "6.3"), ("EG", "6.3"), ("EG", "6.3.1")}


def test_a_row_is_named_only_by_a_test_of_its_book() -> None:
    """A WaW85 test citing a bare §10.3.4 names WaW85 §10.3.4 (its module declares WaW85) and
    not EG §10.3.4; a rule case names only the sections its source cites, under the books it
    passed in."""
    test = "tests/test_waw85_rules.py::test_range_bands_of_the_rulebook_example"
    assert names_section(test, "WaW85", "10.3.4") and not names_section(test, "EG", "10.3.4")
    assert names_section("classic-us-reduced-range-t80", "TUS", "6.1.2") is False     # only gaps there
    assert names_section("classic-us-hallowed-ground", "TUS", "1.3.6.1")
    assert names_section("classic-us-cdo-mc-road-bonus", "TUS", "1.3.1.1")
    assert not names_section("classic-us-cdo-mc-road-bonus", "EG", "1.3.1.1")


def test_the_summary_counts_the_rows() -> None:
    """The table at the top of the page counts each book's rows by status."""
    found = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 + len(STATUSES) and cells[0] in rulebooks.FILES:
            found[cells[0]] = [int(c) for c in cells[1:]]
    wanted = {}
    for book in rulebooks.FILES:
        mine = [r for r in rows() if r.book == book]
        wanted[book] = [len(mine)] + [sum(r.status == s for r in mine) for s in STATUSES]
    assert found == wanted
