"""Safety limits for reading untrusted VASSAL files.

Every file wawkit reads may come from a stranger by e-mail. These limits bound the
work and memory one file can demand, so a zip bomb, a hostile archive with millions
of entries or a string of ten thousand nested escapes fails fast with a typed
:class:`~converter.errors.LimitExceeded` instead of exhausting the machine.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from converter.errors import LimitExceeded

GIB = 1 << 30
MIB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """Caps applied while reading a container and decoding its commands.

    The defaults accept the largest real saves seen (a 28 MB ``savedGame`` entry,
    76,000 commands, nesting about ten levels deep) with wide margins.
    """

    #: Largest uncompressed size of one zip entry. Checked against the zip header
    #: before inflating *and* enforced while streaming, because headers can lie.
    max_entry_size: int = GIB
    #: Largest number of entries in one zip archive (a module has images; a save three).
    max_entries: int = 100_000
    #: Deepest ESC nesting of the command tree (each level is one more backslash).
    max_depth: int = 200
    #: Most leaf commands in one ``savedGame``.
    max_commands: int = 5_000_000
    #: Largest metadata XML entry (``savedata``, ``moduledata``, ``extensiondata``).
    max_metadata_size: int = 4 * MIB
    #: Largest sum of the uncompressed entries read from one archive (many entries
    #: each just under ``max_entry_size`` are a zip bomb too).
    max_total_size: int = 2 * GIB
    #: Deepest element nesting of a buildFile or metadata document (real ones: 10).
    max_xml_depth: int = 100
    #: Longest single command of a ``savedGame`` (the longest real one: 63 KB).
    max_string_length: int = 16 * MIB


#: The limits used when the caller gives none.
DEFAULT_LIMITS = Limits()


def check_xml_depth(root: Any, limits: Limits, *, file: str | None = None, entry: str | None = None) -> None:
    """Refuse an lxml tree nested deeper than ``limits.max_xml_depth`` elements.

    One XPath of ``max_xml_depth + 1`` child steps finds any element that deep, in C
    and without visiting an element twice per level, so the check stays cheap on
    large buildFiles. (libxml2 itself stops at 256 levels; this bound is ours.)
    """
    steps = "/".join(["*"] * (limits.max_xml_depth + 1))
    if root.getroottree().xpath(f"boolean(/{steps})"):
        raise LimitExceeded(f"XML nested deeper than {limits.max_xml_depth} elements", file=file, entry=entry)
