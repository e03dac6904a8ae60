"""Zip containers of saves and logs (``.vsav``, ``.vlog``, 2.x ``.sav``/``.log``).

A save is a zip holding ``savedGame`` (the obfuscated command string) and, since
VASSAL 3.1, ``savedata`` and ``moduledata`` (spec section 3.1). 2.x files and the
predefined setups stored inside modules hold ``savedGame`` alone.

Reading treats the archive as hostile: the entry count is capped, every entry's
declared size is checked before inflating, and inflation stops as soon as the real
output passes the cap (headers can lie). Nothing is extracted to disk, so archive
paths are never trusted as file names. Every entry is kept as bytes, with its name,
order, compression and timestamp, so that writing an unchanged container gives the
same entries back; writes go to a temporary file beside the target and are moved
into place with :func:`os.replace`, so a failure never leaves a half-written file.
"""
from __future__ import annotations

import io
import lzma
import contextlib
import os
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterable

from converter.errors import ContainerError, LimitExceeded, WawkitError
from converter.vassal.limits import DEFAULT_LIMITS, Limits
from converter.vassal.metadata import METADATA_ENTRIES, MetaData, parse_metadata
from converter.vassal.obfuscation import VCSK, Obfuscation, deobfuscate, obfuscate

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
    cap = limits.max_entry_size
    if info.file_size > cap:
        raise LimitExceeded(f"declares {info.file_size} bytes uncompressed, over the {cap}-byte cap",
                            file=file, entry=info.filename)
    chunks = []
    total = 0
    try:
        with archive.open(info) as stream:
            while True:
                chunk = stream.read(_CHUNK)
                if not chunk:
                    break
                total += len(chunk)
                if total > cap:
                    raise LimitExceeded(f"inflates past the {cap}-byte cap (its header said {info.file_size})",
                                        file=file, entry=info.filename, position=cap)
                chunks.append(chunk)
    except WawkitError:
        raise
    except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, NotImplementedError, RuntimeError, ValueError,
            OverflowError, OSError) as error:
        # zipfile raises all of these on corrupt headers (bad offsets, undecodable names) and
        # corrupt streams of the other compression methods (LZMA, bzip2).
        raise ContainerError(f"cannot inflate entry: {error}", file=file, entry=info.filename,
                             position=info.header_offset) from None
    return b"".join(chunks)


def open_archive(source: str | os.PathLike[str] | bytes | BinaryIO, *, file: str | None = None,
                 limits: Limits = DEFAULT_LIMITS) -> zipfile.ZipFile:
    """Open a zip archive as a typed :class:`ContainerError` on anything but a sound zip."""
    name = _name(source, file)
    stream: object = io.BytesIO(source) if isinstance(source, bytes) else source
    try:
        archive = zipfile.ZipFile(stream)  # type: ignore[arg-type]
    except zipfile.BadZipFile as error:
        size = len(source) if isinstance(source, bytes) else None
        if size is None and isinstance(source, (str, os.PathLike)):
            size = os.path.getsize(source)
        what = "is empty" if size == 0 else f"is not a zip archive (or is truncated): {error}"
        raise ContainerError(what, file=name, position=0) from None
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except (OSError, ValueError, EOFError, OverflowError, NotImplementedError) as error:
        raise ContainerError(f"cannot read zip archive: {error}", file=name, position=0) from None
    if len(archive.infolist()) > limits.max_entries:
        archive.close()
        raise LimitExceeded(f"has {len(archive.infolist())} zip entries, over the cap of {limits.max_entries}",
                            file=name)
    return archive


#: Entry names of a module's (or extension's) buildFile, as VASSAL writes them.
MODULE_BUILD_FILES = ("buildFile.xml", "buildFile")


def read_container(source: str | os.PathLike[str] | bytes | BinaryIO, *, file: str | None = None,
                   limits: Limits = DEFAULT_LIMITS) -> Container:
    """Read a save or log container and de-obfuscate its ``savedGame``."""
    name = _name(source, file)
    with open_archive(source, file=name, limits=limits) as archive:
        infos = archive.infolist()
        if not any(info.filename == SAVED_GAME for info in infos):
            build_file = next((i.filename for i in infos if i.filename in MODULE_BUILD_FILES), None)
            if build_file is not None:  # the commonest mix-up: a module given for a save
                raise ContainerError(f"no {SAVED_GAME} entry: a VASSAL module or extension (has {build_file}), "
                                     "not a save or log; 'wawkit inspect-module' reads it", file=name)
            listed = ", ".join(i.filename for i in infos[:5]) or "none"
            raise ContainerError(f"no {SAVED_GAME} entry (entries: {listed}); not a save or log", file=name)
        entries = []
        total = 0
        for info in infos:
            declared = total + info.file_size
            if info.file_size <= limits.max_entry_size and declared > limits.max_total_size:
                raise LimitExceeded(f"declares {declared} bytes uncompressed in all, over the "
                                    f"{limits.max_total_size}-byte cap", file=name, entry=info.filename)
            entries.append(Entry(info.filename, _read_entry(archive, info, name, limits), info.compress_type,
                                 info.date_time))
            total += len(entries[-1].data)
            if total > limits.max_total_size:  # headers can lie: count what really came out
                raise LimitExceeded(f"inflates past the {limits.max_total_size}-byte cap in all", file=name,
                                    entry=info.filename)
    saved = next(e for e in entries if e.name == SAVED_GAME)
    plaintext, obfuscation = deobfuscate(saved.data, file=name, entry=SAVED_GAME, limits=limits)
    # Its bytes are the plaintext obfuscated with the key kept in ``obfuscation``: to_bytes
    # makes them again, identical, so they are not kept twice (an obfuscated payload is up
    # to twice the plaintext, the largest thing a read would otherwise hold).
    saved.data = b""
    metadata = {e.name: parse_metadata(e.data, e.name, file=name, limits=limits)
                for e in entries if e.name in METADATA_ENTRIES}
    return Container(entries, plaintext, obfuscation, metadata, name)


def new_container(plaintext: bytes, obfuscation: Obfuscation | str = VCSK) -> Container:
    """A container holding only ``savedGame`` (as VASSAL 2.x and predefined setups do)."""
    if isinstance(obfuscation, str):
        obfuscation = Obfuscation(obfuscation)
    return Container([Entry(SAVED_GAME, b"")], plaintext, obfuscation)


def write_atomic(path: str | os.PathLike[str], data: bytes, *, overwrite: bool = False,
                 protect: str | os.PathLike[str] | None = None,
                 backup: str | os.PathLike[str] | None = None) -> None:
    """Write ``data`` to ``path`` so that a crash at any moment leaves the old file or the new one.

    The bytes go to a temporary file in the same directory, are synced, and the file is
    renamed over ``path`` in one step. On Linux the temporary file has no name until it
    is complete (``O_TMPFILE``), so even a killed process leaves no partial file behind.
    Refuses to replace an existing file unless ``overwrite``; ``protect`` names the
    input file, which is never replaced unless ``overwrite`` is given either. With
    ``backup``, an existing ``path`` is first kept under that name.
    """
    target = check_target(path, overwrite=overwrite)
    if protect is not None and not overwrite and target.resolve() == Path(protect).resolve():
        raise ContainerError("is the input file; refusing to overwrite it", file=str(target))
    directory = target.parent if str(target.parent) else Path(".")
    if backup is not None and target.exists():
        write_atomic(backup, target.read_bytes(), overwrite=True)
    temp = _complete_temp_file(directory, target.name, data)
    try:
        os.replace(temp, target)
    except BaseException:
        _remove(temp)
        raise


def check_target(path: str | os.PathLike[str], *, overwrite: bool = False,
                 inputs: Iterable[str | os.PathLike[str] | None] = ()) -> Path:
    """Refuse an output file that cannot be written, so a command can ask before it does any work.

    A command that rolls dice or reads a large save checks its output first: a refusal after
    the work would show a result that was never written. An output that is one of the
    command's ``inputs`` is refused even with ``overwrite``: a scenario written over the save
    it was read from would lose the game.
    """
    target = Path(path)
    if target.exists() and any(i is not None and Path(i).resolve() == target.resolve() for i in inputs):
        raise ContainerError("is an input of this command; write to another file", file=str(target))
    if target.is_dir():
        raise ContainerError("is a folder; give a file name to write", file=str(target))
    if target.exists() and not overwrite:
        raise ContainerError("exists already; refusing to overwrite it (--force replaces it)", file=str(target))
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise ContainerError(f"folder {directory} does not exist; create it first", file=str(target))
    return target


def _complete_temp_file(directory: Path, name: str, data: bytes) -> str:
    """A hidden file in ``directory`` holding all of ``data``, synced; its path."""
    temp = str(directory / f".{name}.{os.getpid()}.{os.urandom(4).hex()}.part")
    try:
        handle = os.open(directory, os.O_TMPFILE | os.O_WRONLY, 0o666)  # type: ignore[attr-defined]
    except (AttributeError, OSError):  # not Linux, or a file system without unnamed files
        handle = None
    if handle is not None:
        with os.fdopen(handle, "wb") as stream:
            _write_synced(stream, data)
            with contextlib.suppress(OSError):  # no /proc: fall back to a named temporary file
                os.link(f"/proc/self/fd/{stream.fileno()}", temp)  # named only now, complete
                return temp
    import tempfile  # only writes need it
    handle, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".part", dir=directory)
    try:
        with os.fdopen(handle, "wb") as stream:
            _write_synced(stream, data)
    except BaseException:
        _remove(temp)
        raise
    return temp


def _write_synced(stream: BinaryIO, data: bytes) -> None:
    stream.write(data)
    stream.flush()
    os.fsync(stream.fileno())


def _remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
