"""Web sessions: each one a private folder holding its uploads and what it produced.

A session is created by an upload and lives in ``tempfile.mkdtemp`` (mode 0700). Files
are stored under fixed names chosen here (``save.vsav``, ``module.vmod`` ...), never under
a name or path a client sent, and each is size-checked as it is written, with the same
caps the readers apply to files on disk. Downloads are named by random ids. Deleting a
session (or stopping the server) removes its folder.
"""
from __future__ import annotations

import os
import re
import secrets
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from converter.errors import WawkitError
from converter.schema import MAX_DOCUMENT_SIZE
from converter.vassal.limits import DEFAULT_LIMITS

#: Upload roles, the fixed file name each is stored under, and its size cap: the cap the
#: converter's own reader applies to that kind of file.
ROLES: dict[str, tuple[str, int]] = {
    "save": ("save.vsav", DEFAULT_LIMITS.max_total_size),
    "module": ("module.vmod", DEFAULT_LIMITS.max_total_size),
    "profile": ("profile.yaml", MAX_DOCUMENT_SIZE),
    "units": ("units.yaml", MAX_DOCUMENT_SIZE),
    "terrain": ("terrain.yaml", MAX_DOCUMENT_SIZE),
    "tec": ("tec.yaml", MAX_DOCUMENT_SIZE),
    "scenario": ("scenario.yaml", MAX_DOCUMENT_SIZE),
}

#: Sessions one server keeps at once; a client that opens more is refused (memory and disk bounded).
MAX_SESSIONS = 64

#: A file name a profile may give for its unit table, terrain or TEC: a plain name beside it.
PLAIN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,100}$")


class WebError(WawkitError):
    """A request the server refuses: a typed JSON error with a 4xx status."""

    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind


@dataclass
class Download:
    """A file a session produced, offered under a random id."""

    path: Path
    filename: str
    media_type: str


@dataclass
class Session:
    """One client's files: inputs (role -> path), the save being played, and its downloads."""

    id: str
    folder: Path
    inputs: dict[str, Path] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    """Role -> the name the client gave the upload (shown in reports, never used as a path)."""
    downloads: dict[str, Download] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    resolutions: int = 0
    last_results: list[dict[str, str]] = field(default_factory=list)
    """The units the last resolution hit and their results, marked on the drawn position."""
    preset: dict[str, str] = field(default_factory=dict)
    """Role -> a file of the server's own (the sample module and profile), never a client's path."""
    cache: dict[str, Any] = field(default_factory=dict)
    """What a request read and the next may reuse (a log read for stepping), with the key it was read for."""

    def store(self, role: str, data: bytes, client_name: str | None = None, *, name: str | None = None) -> Path:
        """Write an upload under its fixed name (or ``name``, a plain name a profile gave)."""
        fixed, cap = ROLES[role]
        if len(data) > cap:
            raise WebError(413, "too_large", f"{role}: {len(data)} bytes, over the {cap}-byte cap for a {role}")
        target = self.folder / (name or fixed)
        _write_private(target, data)
        self.inputs[role] = target
        self.names[role] = _shown_name(client_name) or (name or fixed)
        return target

    def offer(self, path: Path, filename: str, media_type: str) -> str:
        """Offer a file of this session for download; its random id."""
        download_id = secrets.token_urlsafe(12)
        self.downloads[download_id] = Download(path, _shown_name(filename) or path.name, media_type)
        return download_id

    def new_path(self, stem: str, suffix: str) -> Path:
        """A fresh file name inside the session folder for an output."""
        self.resolutions += 1
        return self.folder / f"{stem}-{self.resolutions}{suffix}"

    def hide(self, text: str) -> str:
        """A message with the session folder's path replaced by the client's own names."""
        for role, path in self.inputs.items():
            text = text.replace(str(path), self.names.get(role, path.name))
        return text.replace(str(self.folder) + os.sep, "").replace(str(self.folder), "session")


def _shown_name(name: str | None) -> str | None:
    """The last part of a client's file name, without characters a header or page would trip on."""
    if not name:
        return None
    base = re.split(r"[\\/]", name)[-1]
    cleaned = re.sub(r"[^A-Za-z0-9._ -]", "_", base)[:100].strip()
    return cleaned or None


def _write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to a new file readable by its owner only."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(descriptor, "wb") as out:
        out.write(data)


class SessionStore:
    """The server's sessions by id; thread-safe, each removed with its folder."""

    def __init__(self, root: str | None = None) -> None:
        self.root = root
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def create(self) -> Session:
        with self._lock:
            if len(self._sessions) >= MAX_SESSIONS:
                raise WebError(429, "too_many_sessions", f"{MAX_SESSIONS} sessions are open; delete one first "
                               "(DELETE /api/v1/sessions/ID)")
            session_id = secrets.token_urlsafe(16)
            folder = Path(tempfile.mkdtemp(prefix="wawkit-web-", dir=self.root))   # mode 0700
            session = Session(session_id, folder)
            self._sessions[session_id] = session
            return session

    def get(self, session_id: str) -> Session:
        with self._lock:
            session = self._sessions.get(session_id)
        if session is None:
            raise WebError(404, "no_session", f"no session {session_id[:40]!r} (it ended or never existed)")
        return session

    def delete(self, session_id: str) -> None:
        with self._lock:
            session = self._sessions.pop(session_id, None)
        if session is None:
            raise WebError(404, "no_session", f"no session {session_id[:40]!r} (it ended or never existed)")
        shutil.rmtree(session.folder, ignore_errors=True)

    def close(self) -> None:
        """Remove every session's folder (the server is stopping)."""
        with self._lock:
            sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            shutil.rmtree(session.folder, ignore_errors=True)

    def __len__(self) -> int:
        return len(self._sessions)


__all__ = ["ROLES", "MAX_SESSIONS", "PLAIN_NAME", "WebError", "Download", "Session", "SessionStore"]
