"""Writing files: atomic, under a lock, checked against what was read, backed up, several as one unit.

Two players may resolve on one save at the same moment, and a save may be replaced by
another while wawkit works on it. Every write therefore goes through
:func:`write_together`:

1. The target's folder is locked (an advisory ``flock`` on the folder itself, so a
   target that does not exist yet is covered, and no lock file is left behind). Every
   wawkit writer of that folder waits for the lock, for at most :data:`LOCK_TIMEOUT`.
2. Under the lock, each target is checked again: it must not exist unless it may be
   replaced, and a target given with ``expect_sha256`` (the save a command read and is
   about to rewrite) must still hold exactly the bytes that were read. A save changed
   by someone else meanwhile is refused, so no update is ever lost: of two writers
   that read the same save, the first one wins and the second is refused.
3. A replaced file may be kept as a backup, under the first free name of
   ``NAME.bak``, ``NAME.bak.2``, ``NAME.bak.3``... (a hard link, created exclusively,
   so an earlier backup is never overwritten). A file's bytes may depend on the backup
   names (an audit record names the backup of the save it replaces).
4. Every file's bytes go to a temporary file beside its target (unnamed until complete,
   with ``O_TMPFILE``), synced, with the permission bits of the file it replaces (a new
   file gets the usual ``0666`` less the umask). A failure here (a full disk) removes
   every temporary file and backup and leaves every target as it was: the files are
   written together or not at all.
5. The temporary files are renamed over their targets; should a rename fail, the
   targets already renamed are put back.

Every failure is a :class:`~converter.errors.ContainerError` naming the file.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator, Mapping

from converter.errors import ContainerError
from converter.files import sha256_of

#: Seconds a writer waits for another wawkit writer of the same folder to finish.
LOCK_TIMEOUT = 60.0
#: Backups tried before giving up (``NAME.bak`` ... ``NAME.bak.999``).
MAX_BACKUPS = 999


@dataclass
class Output:
    """One file to write: where, what, and under which conditions."""

    path: Path
    data: bytes | Callable[[Mapping[Path, Path]], bytes]
    """The bytes, or a function of the backups kept ({target: backup}) giving them (a record naming
    the backup of the file it replaces)."""
    overwrite: bool = False
    """An existing file may be replaced."""
    expect_sha256: str | None = None
    """The file must still hold the bytes of this sha256 when it is replaced (read, then rewritten)."""
    backup: bool = False
    """Keep the replaced file under the next free ``NAME.bak[.N]``."""
    mode: int | None = None
    """Permission bits; by default those of the file replaced, or 0666 less the umask."""


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
    directory = _folder(target)
    if not directory.is_dir():
        raise ContainerError(f"folder {directory} does not exist; create it first", file=str(target))
    return target


def write_atomic(path: str | os.PathLike[str], data: bytes, *, overwrite: bool = False,
                 protect: str | os.PathLike[str] | None = None, backup: bool = False,
                 expect_sha256: str | None = None, mode: int | None = None) -> dict[Path, Path]:
    """Write one file as :func:`write_together` does; ``protect`` names the command's input,
    which is never replaced unless ``overwrite``. Returns {target: backup} for a backup kept."""
    target = check_target(path, overwrite=overwrite)
    if protect is not None and not overwrite and target.exists() and target.resolve() == Path(protect).resolve():
        raise ContainerError("is the input file; refusing to overwrite it", file=str(target))
    return write_together([Output(target, data, overwrite, expect_sha256, backup, mode)])


def write_together(outputs: list[Output]) -> dict[Path, Path]:
    """Write every output, or none of them (see the module's docstring); {target: backup} of backups kept."""
    for output in outputs:
        check_target(output.path, overwrite=output.overwrite)
    folders = sorted({str(_folder(o.path).resolve()) for o in outputs})
    with contextlib.ExitStack() as held:
        for folder in folders:  # in one order, so two writers of the same folders never deadlock
            held.enter_context(_locked(Path(folder), outputs[0].path))
        for output in outputs:
            _check_under_lock(output)
        temps: list[str] = []
        backups: dict[Path, Path] = {}
        try:
            for output in outputs:
                if output.backup and output.path.exists():
                    backups[output.path] = _keep_backup(output.path)
            for output in outputs:
                data = output.data(backups) if callable(output.data) else output.data
                temps.append(_complete_temp_file(output, data, _mode_for(output)))
            _rename_all(temps, outputs)
        except BaseException:
            for temp in temps:
                _remove(temp)
            for kept in backups.values():  # nothing was replaced: no backup of it either
                _remove(str(kept))
            raise
        for folder in folders:
            _sync_folder(Path(folder))
    return backups


def _folder(target: Path) -> Path:
    return target.parent if str(target.parent) else Path(".")


@contextlib.contextmanager
def _locked(folder: Path, target: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``folder`` (waiting up to LOCK_TIMEOUT for another writer)."""
    try:
        handle = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise ContainerError(f"cannot open folder {folder} to lock it: {error.strerror}", file=str(target)) from None
    try:
        deadline = time.monotonic() + LOCK_TIMEOUT
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise ContainerError(f"folder {folder} is being written by another wawkit command for over "
                                         f"{LOCK_TIMEOUT:.0f} s; try again", file=str(target)) from None
                time.sleep(0.02)
            except OSError as error:
                if error.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL):
                    break  # a file system without locks: the hash check below still guards the save
                raise
        yield
    finally:
        os.close(handle)  # closing the descriptor releases the lock


def _check_under_lock(output: Output) -> None:
    """The checks that count: made while no other wawkit writer can change the folder."""
    target = output.path
    if target.exists() and not output.overwrite:
        raise ContainerError("exists already; refusing to overwrite it (--force replaces it)", file=str(target))
    if output.expect_sha256 is not None:
        if not target.is_file():
            raise ContainerError("was removed while this command worked on it; nothing was written",
                                 file=str(target))
        actual = sha256_of(target, error=ContainerError)
        if actual != output.expect_sha256:
            raise ContainerError(f"changed while this command worked on it (sha256 now {actual[:12]}..., read as "
                                 f"{output.expect_sha256[:12]}...): another player or program wrote it; nothing "
                                 "was written, run the command again on the new file", file=str(target))


def _mode_for(output: Output) -> int:
    if output.mode is not None:
        return output.mode
    try:
        return stat.S_IMODE(os.stat(output.path).st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _complete_temp_file(output: Output, data: bytes, mode: int) -> str:
    """A hidden file beside the target holding all of its data, synced, with ``mode``; its path."""
    directory, name = _folder(output.path), output.path.name
    temp = str(directory / f".{name}.{os.getpid()}.{os.urandom(4).hex()}.part")
    try:
        try:
            handle = os.open(directory, os.O_TMPFILE | os.O_WRONLY, 0o600)  # type: ignore[attr-defined]
        except (AttributeError, OSError):  # not Linux, or a file system without unnamed files
            handle = None
        if handle is not None:
            with os.fdopen(handle, "wb") as stream:
                _write_synced(stream, data, mode)
                with contextlib.suppress(OSError):  # no /proc: fall back to a named temporary file
                    os.link(f"/proc/self/fd/{stream.fileno()}", temp)  # named only now, complete
                    return temp
        handle, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".part", dir=directory)
        try:
            with os.fdopen(handle, "wb") as stream:
                _write_synced(stream, data, mode)
        except BaseException:
            _remove(temp)
            raise
        return temp
    except OSError as error:
        raise ContainerError(f"cannot write: {error.strerror or error}; nothing was written",
                             file=str(output.path)) from None


def _write_synced(stream: BinaryIO, data: bytes, mode: int = 0o600) -> None:
    os.fchmod(stream.fileno(), mode)
    stream.write(data)
    stream.flush()
    os.fsync(stream.fileno())


def backup_name(target: Path, number: int) -> Path:
    """``NAME.bak`` for the first backup, ``NAME.bak.N`` for the N-th."""
    return target.with_name(target.name + (".bak" if number == 1 else f".bak.{number}"))


def _keep_backup(target: Path) -> Path:
    """Keep ``target`` under the first free backup name, created exclusively (never overwriting)."""
    for number in range(1, MAX_BACKUPS + 1):
        name = backup_name(target, number)
        try:
            os.link(target, name)
            return name
        except FileExistsError:
            continue
        except OSError:  # no hard links here: an exclusive copy instead
            try:
                handle = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                continue
            except OSError as error:
                raise ContainerError(f"cannot keep a backup: {error.strerror}", file=str(name)) from None
            with os.fdopen(handle, "wb") as stream:
                _write_synced(stream, target.read_bytes(), stat.S_IMODE(os.stat(target).st_mode))
            return name
    raise ContainerError(f"has {MAX_BACKUPS} backups already; remove some", file=str(target))


def _rename_all(temps: list[str], outputs: list[Output]) -> None:
    """Rename every temporary file over its target; on a failure, put back what was renamed."""
    saved: list[tuple[Path, str | None]] = []  # (target, hidden link to the file it replaced)
    try:
        for temp, output in zip(temps, outputs):
            keep = None
            if len(outputs) > 1 and output.path.exists():
                keep = f"{temp}.old"
                os.link(output.path, keep)
            try:
                os.replace(temp, output.path)
            except BaseException:
                if keep is not None:
                    _remove(keep)
                raise
            saved.append((output.path, keep))
    except BaseException as failure:
        for target, keep in reversed(saved):
            with contextlib.suppress(OSError):
                if keep is None:
                    os.unlink(target)
                else:
                    os.replace(keep, target)
        if isinstance(failure, OSError):
            raise ContainerError(f"cannot write: {failure.strerror or failure}; nothing was written",
                                 file=str(outputs[len(saved)].path)) from None
        raise
    for _, keep in saved:
        if keep is not None:
            _remove(keep)


def _sync_folder(folder: Path) -> None:
    """Make the renames durable (a crash after the command said "wrote" keeps the new names)."""
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def _remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


__all__ = ["LOCK_TIMEOUT", "Output", "backup_name", "check_target", "write_atomic", "write_together"]
