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

    The defaults accept the largest real saves seen (a 28 MB ``savedGame`` entry holding
    14 MB of plaintext, 76,000 commands, nesting about ten levels deep, entries compressed
    at most 37:1) with margins, and keep the memory one save can demand within
    ``max_memory`` (``docs/limits.md`` gives the measured peaks).
    """

    #: Largest uncompressed size of one zip entry. Checked against the zip header
    #: before inflating *and* enforced while streaming, because headers can lie.
    max_entry_size: int = 128 * MIB
    #: Largest number of entries in one zip archive (a module has images; a save three).
    max_entries: int = 100_000
    #: Deepest ESC nesting of the command tree (each level is one more backslash).
    max_depth: int = 200
    #: Most leaf commands in one ``savedGame``.
    max_commands: int = 1_000_000
    #: Largest metadata XML entry (``savedata``, ``moduledata``, ``extensiondata``).
    max_metadata_size: int = 4 * MIB
    #: Largest sum of the uncompressed entries read from one archive (many entries
    #: each just under ``max_entry_size`` are a zip bomb too), checked over the
    #: declared sizes of all entries before any is inflated, and again on what comes
    #: out; also the largest save or log file read from disk.
    max_total_size: int = 256 * MIB
    #: Deepest element nesting of a buildFile or metadata document (real ones: 10).
    max_xml_depth: int = 100
    #: Longest single command of a ``savedGame`` (the longest real one: 63 KB).
    max_string_length: int = 16 * MIB
    #: Largest ratio of an entry's inflated size to its compressed size, for entries
    #: inflating past ``RATIO_FREE_SIZE`` (real saves: at most 37:1; deflate's own
    #: ceiling, about 1032:1, is what a zip bomb uses).
    max_compression_ratio: int = 200
    #: Memory that decoding one ``savedGame`` may need, estimated from its size and its
    #: command count (:func:`check_memory`) before the command tree is built.
    max_memory: int = 400 * MIB


#: The limits used when the caller gives none.
DEFAULT_LIMITS = Limits()

#: Entries inflating to at most this many bytes are not held to ``max_compression_ratio``
#: (a small file of one repeated byte compresses far better than 200:1 and costs nothing).
RATIO_FREE_SIZE = MIB

#: What decoding a ``savedGame`` costs, measured on real saves and on saves of a million
#: tiny commands (``tests/test_hostile_inputs.py`` checks the peaks these promise): per
#: character of plaintext (the entry, the plaintext, its text and the command strings
#: sliced from it, re-encoded on write) and per command (a node, a command object, a
#: piece entry and its typed traits).
MEMORY_PER_CHARACTER = 12
MEMORY_PER_COMMAND = 3072


def inflate_cap(compressed_size: int, limits: Limits) -> int:
    """The most bytes an entry of ``compressed_size`` compressed bytes may inflate to."""
    return min(limits.max_entry_size, max(RATIO_FREE_SIZE, compressed_size * limits.max_compression_ratio))


def memory_estimate(characters: int, commands: int) -> int:
    """Bytes that decoding a ``savedGame`` of that many characters and commands needs (an upper estimate)."""
    return characters * MEMORY_PER_CHARACTER + commands * MEMORY_PER_COMMAND


def check_memory(text: str, limits: Limits, *, file: str | None = None) -> None:
    """Refuse a command string whose decoding would need more than ``limits.max_memory``.

    Counting the ESC separators (at C speed, without building anything) bounds the
    command count from above, so a five-megabyte save of a million tiny commands is
    refused in milliseconds instead of building a million objects first.
    """
    separators = text.count("\x1b")
    need = memory_estimate(len(text), separators + 1)
    if need > limits.max_memory:
        raise LimitExceeded(f"{len(text)} characters in {separators + 1} commands would need about "
                            f"{need // MIB} MiB to decode, over the {limits.max_memory // MIB} MiB cap (max_memory)",
                            file=file, entry="savedGame")


def check_xml_depth(root: Any, limits: Limits, *, file: str | None = None, entry: str | None = None) -> None:
    """Refuse an lxml tree nested deeper than ``limits.max_xml_depth`` elements.

    One XPath of ``max_xml_depth + 1`` child steps finds any element that deep, in C
    and without visiting an element twice per level, so the check stays cheap on
    large buildFiles. (libxml2 itself stops at 256 levels; this bound is ours.)
    """
    steps = "/".join(["*"] * (limits.max_xml_depth + 1))
    if root.getroottree().xpath(f"boolean(/{steps})"):
        raise LimitExceeded(f"XML nested deeper than {limits.max_xml_depth} elements", file=file, entry=entry)
