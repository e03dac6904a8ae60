"""Zip containers of saves and logs (``.vsav``, ``.vlog``, 2.x ``.sav``/``.log``).

A save is a zip holding ``savedGame`` (the obfuscated command string) and, since
VASSAL 3.1, ``savedata`` and ``moduledata`` (spec section 3.1). 2.x files and the
predefined setups stored inside modules hold ``savedGame`` alone.

Reading treats the archive as hostile: the entry count is capped, every entry's
declared size is checked before inflating, and inflation stops as soon as the real
output passes the cap (headers can lie). Nothing is extracted to disk, so archive
paths are never trusted as file names. Every entry is kept as bytes, with its name,
order, compression and timestamp, so that writing an unchanged container gives the
same entries back; writes go through :mod:`converter.writes` (atomic, locked, checked
against the bytes read), so a failure never leaves a half-written file.
"""
from __future__ import annotations

import io
import lzma
import os
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Iterator

from converter.errors import ContainerError, LimitExceeded, WawkitError
from converter.files import open_regular, read_bounded
from converter.vassal.limits import DEFAULT_LIMITS, Limits, inflate_cap
from converter.vassal.metadata import METADATA_ENTRIES, MetaData, parse_metadata
from converter.vassal.obfuscation import VCSK, Deobfuscator, Obfuscation, obfuscate

SAVED_GAME = "savedGame"
_CHUNK = 1 << 20


@dataclass
class Entry:
    """One zip entry: name, bytes and how it was stored (``savedGame``'s bytes are not kept:
    :meth:`Container.to_bytes` obfuscates the plaintext again with the same key)."""

    name: str
    data: bytes
    compress_type: int = zipfile.ZIP_DEFLATED
    date_time: tuple[int, int, int, int, int, int] = (1980, 1, 1, 0, 0, 0)


@dataclass
class Container:
    """The entries of a save or log, with ``savedGame`` decoded to plaintext bytes."""

    entries: list[Entry]
    plaintext: bytes
    obfuscation: Obfuscation
    metadata: dict[str, MetaData] = field(default_factory=dict)
    path: str | None = None
    sha256: str | None = None
    """sha256 of the file's bytes as read (None for a container not read from a file)."""
    mode: int | None = None
    """Permission bits of the file it was read from."""

    def entry(self, name: str) -> Entry | None:
        return next((e for e in self.entries if e.name == name), None)

    @property
    def text(self) -> str:
        """The plaintext as a str; bytes that are not UTF-8 survive as surrogates."""
        return self.plaintext.decode("utf-8", "surrogateescape")

    def to_bytes(self, plaintext: bytes | None = None, obfuscation: Obfuscation | str | None = None) -> bytes:
        """The zip archive, with ``savedGame`` re-obfuscated from ``plaintext``."""
        plain = self.plaintext if plaintext is None else plaintext
        scheme = self.obfuscation if obfuscation is None else obfuscation
        payload = obfuscate(plain, scheme)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for entry in self.entries:
                data = payload if entry.name == SAVED_GAME else entry.data
                info = zipfile.ZipInfo(entry.name, date_time=entry.date_time)
                info.compress_type = entry.compress_type
                archive.writestr(info, data)
        return buffer.getvalue()


def _name(source: str | os.PathLike[str] | bytes | BinaryIO, file: str | None) -> str | None:
    if file is not None:
        return file
    if isinstance(source, (str, os.PathLike)):
        return str(source)
    return None


def _read_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, file: str | None, limits: Limits) -> bytes:
    """One entry's bytes, within the caps of :func:`_inflated_chunks`."""
    return b"".join(_inflated_chunks(archive, info, file, limits))


def _inflated_chunks(archive: zipfile.ZipFile, info: zipfile.ZipInfo, file: str | None,
                     limits: Limits) -> Iterator[bytes]:
    """One entry's bytes as they inflate, refused before inflating when its header is over a
    cap, and while inflating as soon as the output passes the size cap or the
    compression-ratio cap (``inflate_cap``: headers can lie, but zipfile never reads more than
    the declared compressed size, so the ratio bounds the real output)."""
    cap = limits.max_entry_size
    bound = check_header(info, file, limits)
    total = 0
    try:
        check_lzma_dictionary(archive, info, file, limits)
        with archive.open(info) as stream:
            while True:
                chunk = stream.read(_CHUNK)
                if not chunk:
                    break
                total += len(chunk)
                if total > bound:
                    why = (f"the {cap}-byte cap" if bound == cap else
                           f"the {limits.max_compression_ratio}:1 compression cap ({bound} bytes)")
                    raise LimitExceeded(f"inflates past {why} (its header said {info.file_size})",
                                        file=file, entry=info.filename, position=bound)
                yield chunk
    except WawkitError:
        raise
    except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, NotImplementedError, RuntimeError, ValueError,
            OverflowError, OSError) as error:
        # zipfile raises all of these on corrupt headers (bad offsets, undecodable names) and
        # corrupt streams of the other compression methods (LZMA, bzip2).
        raise ContainerError(f"cannot inflate entry: {error}", file=file, entry=info.filename,
                             position=info.header_offset) from None


def check_header(info: zipfile.ZipInfo, file: str | None, limits: Limits) -> int:
    """Refuse an entry whose header declares more than the caps allow; the most it may inflate to."""
    if info.file_size > limits.max_entry_size:
        raise LimitExceeded(f"declares {info.file_size} bytes uncompressed, over the {limits.max_entry_size}-byte cap",
                            file=file, entry=info.filename)
    bound = inflate_cap(info.compress_size, limits)
    if info.file_size > bound:
        raise LimitExceeded(f"declares {info.file_size} bytes from {info.compress_size} compressed, over the "
                            f"{limits.max_compression_ratio}:1 compression cap", file=file, entry=info.filename)
    return bound


def check_lzma_dictionary(archive: zipfile.ZipFile, info: zipfile.ZipInfo, file: str | None, limits: Limits) -> None:
    """Refuse an LZMA entry whose stream asks for a dictionary larger than ``max_entry_size``.

    The decoder allocates the dictionary its properties name before it inflates a byte, and
    the size is four bytes of the entry: one flipped byte asked for 3.6 GB, a ``MemoryError``
    under an address-space limit (the fuzzer's 1.5 GB) or on a host that does not overcommit
    memory. No entry within the cap needs a larger dictionary (xz's largest preset uses 64 MiB). The properties follow the entry's local header: LZMA
    SDK version (2 bytes), properties size (2), then lc/lp/pb (1) and the dictionary size (4).
    A header or stream too short to hold them is left to zipfile, which refuses it."""
    if info.compress_type != zipfile.ZIP_LZMA or archive.fp is None or info.header_offset < 0:
        return      # a header offset before the file's start: zipfile refuses it when opening the entry
    archive.fp.seek(info.header_offset)
    header = archive.fp.read(30)
    if len(header) < 30 or header[:4] != b"PK\x03\x04":
        return
    name_size, extra_size = struct.unpack("<HH", header[26:30])
    archive.fp.seek(info.header_offset + 30 + name_size + extra_size)
    properties = archive.fp.read(9)
    if len(properties) < 9:
        return
    dictionary = struct.unpack("<I", properties[5:9])[0]
    if dictionary > limits.max_entry_size:
        raise LimitExceeded(f"its LZMA stream asks for a {dictionary}-byte dictionary, over the "
                            f"{limits.max_entry_size}-byte cap (max_entry_size)", file=file, entry=info.filename,
                            position=info.header_offset)


class _OwnedZipFile(zipfile.ZipFile):
    """A ZipFile over a file object it owns: closing the archive closes the file."""

    def close(self) -> None:
        handle = self.fp
        try:
            super().close()
        finally:
            if handle is not None:
                handle.close()


def open_archive(source: str | os.PathLike[str] | bytes | BinaryIO, *, file: str | None = None,
                 limits: Limits = DEFAULT_LIMITS) -> zipfile.ZipFile:
    """Open a zip archive as a typed :class:`ContainerError` on anything but a sound zip.

    A path is opened through :func:`converter.files.open_regular` (devices, pipes and
    folders refused). An archive holding two entries of one name is refused: VASSAL
    and zipfile would each pick a different one (the first ``savedGame``, the last
    ``buildFile.xml``), so what wawkit checked would not be what VASSAL loads.
    """
    name = _name(source, file)
    if isinstance(source, (str, os.PathLike)):
        stream: object = open_regular(source, error=ContainerError)
        opener: type[zipfile.ZipFile] = _OwnedZipFile
    else:
        stream = io.BytesIO(source) if isinstance(source, bytes) else source
        opener = zipfile.ZipFile
    try:
        archive = opener(stream)  # type: ignore[arg-type]
    except zipfile.BadZipFile as error:
        size = len(source) if isinstance(source, bytes) else _size(stream)
        _close(stream, source)
        what = "is empty" if size == 0 else f"is not a zip archive (or is truncated): {error}"
        raise ContainerError(what, file=name, position=0) from None
    except (OSError, ValueError, EOFError, OverflowError, NotImplementedError) as error:
        _close(stream, source)
        raise ContainerError(f"cannot read zip archive: {error}", file=name, position=0) from None
    infos = archive.infolist()
    if len(infos) > limits.max_entries:
        archive.close()
        raise LimitExceeded(f"has {len(infos)} zip entries, over the cap of {limits.max_entries}", file=name)
    seen: dict[str, int] = {}
    for info in infos:
        if info.filename in seen:
            archive.close()
            raise ContainerError(f"has two zip entries named {info.filename!r} (at offsets {seen[info.filename]} "
                                 f"and {info.header_offset}); refused, as VASSAL would read only one of them",
                                 file=name, entry=info.filename, position=info.header_offset)
        seen[info.filename] = info.header_offset
    return archive


def _size(stream: object) -> int | None:
    try:
        return os.fstat(stream.fileno()).st_size  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None


def _close(stream: object, source: object) -> None:
    """Close a file object opened here (never one the caller passed in)."""
    if isinstance(source, (str, os.PathLike)):
        stream.close()  # type: ignore[attr-defined]


#: Entry names of a module's (or extension's) buildFile, as VASSAL writes them.
MODULE_BUILD_FILES = ("buildFile.xml", "buildFile")


def read_container(source: str | os.PathLike[str] | bytes | BinaryIO, *, file: str | None = None,
                   limits: Limits = DEFAULT_LIMITS) -> Container:
    """Read a save or log container and de-obfuscate its ``savedGame``.

    A path is read once, whole, through the bounded reader (no bigger than
    ``limits.max_total_size``); the container keeps the sha256 and permission bits of
    the bytes it was read from, so a command that rewrites the file can check it is
    still the file it read, and an audit names exactly those bytes.
    """
    name = _name(source, file)
    snapshot = None
    if isinstance(source, (str, os.PathLike)):
        snapshot = read_bounded(source, limits.max_total_size, error=ContainerError)
        source = snapshot.data
    with open_archive(source, file=name, limits=limits) as archive:
        infos = archive.infolist()
        if not any(info.filename == SAVED_GAME for info in infos):
            build_file = next((i.filename for i in infos if i.filename in MODULE_BUILD_FILES), None)
            if build_file is not None:  # the commonest mix-up: a module given for a save
                raise ContainerError(f"no {SAVED_GAME} entry: a VASSAL module or extension (has {build_file}), "
                                     "not a save or log; 'wawkit inspect-module' reads it", file=name)
            listed = ", ".join(i.filename for i in infos[:5]) or "none"
            raise ContainerError(f"no {SAVED_GAME} entry (entries: {listed}); not a save or log", file=name)
        for info in infos:
            check_header(info, name, limits)
        declared = sum(info.file_size for info in infos)
        if declared > limits.max_total_size:  # all entries at once, before inflating any
            raise LimitExceeded(f"declares {declared} bytes uncompressed in all ({len(infos)} entries), over the "
                                f"{limits.max_total_size}-byte cap", file=name)
        entries = []
        total = 0
        plaintext, obfuscation = b"", Obfuscation(VCSK)
        for info in infos:
            if info.filename == SAVED_GAME:
                # De-obfuscated as it inflates: the payload (hex, up to twice the plaintext) is
                # never held whole. Its bytes are the plaintext obfuscated with the key kept in
                # ``obfuscation``, so to_bytes makes them again, identical, and they are not kept.
                reader = Deobfuscator(file=name, entry=SAVED_GAME, limits=limits)
                for chunk in _inflated_chunks(archive, info, name, limits):
                    total += len(chunk)
                    _check_total(total, limits, name, info.filename)
                    reader.feed(chunk)
                plaintext, obfuscation = reader.finish()
                data = b""
            else:
                data = _read_entry(archive, info, name, limits)
                total += len(data)
                _check_total(total, limits, name, info.filename)
            entries.append(Entry(info.filename, data, info.compress_type, info.date_time))
    metadata = {e.name: parse_metadata(e.data, e.name, file=name, limits=limits)
                for e in entries if e.name in METADATA_ENTRIES}
    container = Container(entries, plaintext, obfuscation, metadata, name)
    if snapshot is not None:
        container.sha256, container.mode = snapshot.sha256, snapshot.mode
    return container


def _check_total(total: int, limits: Limits, file: str | None, entry: str) -> None:
    """Refuse a container whose entries have inflated past the total cap (headers can lie:
    this counts what really came out)."""
    if total > limits.max_total_size:
        raise LimitExceeded(f"inflates past the {limits.max_total_size}-byte cap in all", file=file, entry=entry)


def new_container(plaintext: bytes, obfuscation: Obfuscation | str = VCSK) -> Container:
    """A container holding only ``savedGame`` (as VASSAL 2.x and predefined setups do)."""
    if isinstance(obfuscation, str):
        obfuscation = Obfuscation(obfuscation)
    return Container([Entry(SAVED_GAME, b"")], plaintext, obfuscation)


#: The writers of :mod:`converter.writes`, offered here as well; loaded when first asked for,
#: so that reading a save (``wawkit inspect``) does not load what writing needs.
_WRITERS = ("check_target", "write_atomic", "write_together")


def __getattr__(name: str) -> Any:
    if name in _WRITERS:
        from converter import writes
        return getattr(writes, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Container", "Entry", "MODULE_BUILD_FILES", "SAVED_GAME", "check_header", "check_lzma_dictionary",
           "check_target", "new_container", "open_archive", "read_container", "write_atomic", "write_together"]
