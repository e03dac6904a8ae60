"""The Starlette application of ``wawkit serve``: the page, its script, and the JSON API.

Every route answers JSON shaped as the CLI's ``--json`` where the CLI has one (the
validation report, the LOS answer) and, on bad input, ``{"error": {"type", "message"}}``
with a 4xx status and nothing written. Work on files runs in a worker thread, one request
of a session at a time (a session's lock), so two sessions never wait on each other's
files and one session never sees a half-written save.
"""
from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Awaitable, Callable, Mapping

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from converter.actions_text import MAX_ACTIONS, ActionSpec, ActionSyntaxError, from_mapping, parse
from converter.audit import plain
from converter.errors import WawkitError
from converter.schema import MAX_DOCUMENT_SIZE
from converter.vassal.limits import DEFAULT_LIMITS
from converter.web.sessions import PLAIN_NAME, ROLES, Session, SessionStore, WebError
from referee.errors import RefereeError

STATIC = Path(__file__).with_name("static")
#: The sample game of the source tree (``make demo`` plays it): offered with one click.
SAMPLES = Path(__file__).resolve().parents[2] / "samples"
SAMPLE_FILES = {"save": "demo.vsav", "module": "waw-sample.vmod", "profile": "profile.yaml"}
API = "/api/v1"
COOKIE = "wawkit_token"

#: The largest request body: a save and a module at the readers' cap, and the documents.
MAX_UPLOAD = 2 * DEFAULT_LIMITS.max_total_size + 5 * MAX_DOCUMENT_SIZE
#: The largest JSON request body (a scenario document at most).
MAX_JSON = MAX_DOCUMENT_SIZE + 64 * 1024


@dataclass
class Settings:
    """What ``wawkit serve`` was started with: the operator's module and profile (trusted
    paths, used by every session that uploads none), the port and the token."""

    port: int
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    module: str | None = None
    profile: str | None = None
    units: str | None = None
    terrain: str | None = None
    temp_root: str | None = None
    samples: str | None = field(default_factory=lambda: repo_samples())
    """A folder with the sample game (demo.vsav, its module and profile), offered to start with."""

    def url(self, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}/?token={self.token}"


def repo_samples() -> str | None:
    """The source tree's ``samples/`` folder when it holds the sample game (a checkout, not a wheel)."""
    return str(SAMPLES) if all((SAMPLES / name).is_file() for name in SAMPLE_FILES.values()) else None


def error_body(kind: str, message: str) -> dict[str, Any]:
    return {"error": {"type": kind, "message": message}}


# -- the guard: Host header, token, body size ----------------------------------------------------

class Guard:
    """ASGI middleware: a request whose Host is not 127.0.0.1/localhost with the server's
    port is refused (400, DNS rebinding); one without the token (query ``token``, the
    session cookie, or ``Authorization: Bearer``) is refused (401); a body over the cap
    is refused (413) before the route reads it whole."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self.hosts = {f"127.0.0.1:{settings.port}", f"localhost:{settings.port}"}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        host = request.headers.get("host", "")
        if host not in self.hosts:
            await JSONResponse(error_body("bad_host", f"Host {host[:80]!r} is not this server "
                                          f"(127.0.0.1:{self.settings.port} or localhost:{self.settings.port})"),
                               400)(scope, receive, send)
            return
        token = self.settings.token
        given = request.query_params.get("token")
        bearer = request.headers.get("authorization", "")
        cookie = request.cookies.get(COOKIE, "")
        if given is not None and secrets.compare_digest(given.encode(), token.encode()) \
                and request.method == "GET" and not scope["path"].startswith(API):
            # The token arrives once in the printed URL: keep it in a cookie and drop it from the address bar.
            response = RedirectResponse(scope["path"], 303)
            response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/")
            await response(scope, receive, send)
            return
        allowed = any(secrets.compare_digest(value.encode(), token.encode()) for value in
                      (cookie, bearer[7:] if bearer.lower().startswith("bearer ") else "", given or ""))
        if not allowed:
            await JSONResponse(error_body("unauthorized", "this server needs the token of the URL it printed "
                                          "(?token=..., or Authorization: Bearer ...)"), 401)(scope, receive, send)
            return
        limit = MAX_UPLOAD if request.headers.get("content-type", "").startswith("multipart/") else MAX_JSON
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            await JSONResponse(error_body("too_large", f"the request body is over the {limit}-byte cap"),
                               413)(scope, receive, send)
            return
        await self.app(scope, _bounded(receive, limit), send)


class BodyTooLarge(Exception):
    """A body sent without a length (chunked) that runs past the cap."""


def _bounded(receive: Receive, limit: int) -> Receive:
    seen = 0

    async def wrapped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise BodyTooLarge()
        return message
    return wrapped


# -- helpers ------------------------------------------------------------------------------------

Handler = Callable[[Request], Awaitable[Response]]


def api(handler: Handler) -> Handler:
    """Turn typed failures into typed JSON errors (nothing is written by a failed request)."""
    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except BodyTooLarge:
            return JSONResponse(error_body("too_large", "the request body is over the cap"), 413)
        except WebError as error:
            return _error(request, error.status, error.kind, error.message)
        except ActionSyntaxError as error:
            return _error(request, 400, "bad_action", str(error))
        except WawkitError as error:
            return _error(request, 400, _snake(type(error).__name__), str(error))
        except RefereeError as error:
            return _error(request, 422, "not_supported", str(error))
    wrapped.__name__ = handler.__name__
    return wrapped


def _snake(name: str) -> str:
    out = "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")
    return out.removesuffix("_error") + "_error" if out.endswith("error") else out


def _error(request: Request, status: int, kind: str, message: str) -> JSONResponse:
    session = _session_or_none(request)
    return JSONResponse(error_body(kind, session.hide(message) if session else message), status)


def _session_or_none(request: Request) -> Session | None:
    session_id = request.path_params.get("session")
    if session_id is None:
        return None
    try:
        return store(request).get(session_id)
    except WebError:
        return None


def store(request: Request) -> SessionStore:
    return request.app.state.store


def settings(request: Request) -> Settings:
    return request.app.state.settings


def reply(session: Session, data: Any, status: int = 200) -> Response:
    """JSON with the session folder's paths replaced by the client's own file names."""
    text = session.hide(json.dumps(data, ensure_ascii=False, default=_json_default))
    return Response(text, status, media_type="application/json")


def _json_default(value: Any) -> Any:
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, (set, frozenset, tuple)):
        return sorted(value, key=repr) if not isinstance(value, tuple) else list(value)
    return str(value)


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object (at most MAX_JSON bytes, parsed by the hardened loader)."""
    from converter.documents import parse_json
    raw = await request.body()
    if not raw:
        return {}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise WebError(400, "bad_json", "the request body is not UTF-8") from None
    try:
        data = parse_json(text, file="request body")
    except WawkitError as error:
        raise WebError(400, "bad_json", str(error)) from None
    if not isinstance(data, dict):
        raise WebError(400, "bad_json", "the request body must be a JSON object")
    return data


def text_field(body: Mapping[str, Any], name: str, *, required: bool = True, limit: int = 2000) -> str | None:
    value = body.get(name)
    if value is None:
        if required:
            raise WebError(400, "missing_field", f"the request needs {name!r}")
        return None
    if not isinstance(value, str):
        raise WebError(400, "bad_field", f"{name!r} must be a string")
    if len(value) > limit:
        raise WebError(400, "bad_field", f"{name!r} is over {limit} characters")
    return value


async def locked(session: Session, work: Callable[[], Any]) -> Any:
    """Run file work for a session in a worker thread, one request of the session at a time."""
    def run() -> Any:
        with session.lock:
            return work()
    return await run_in_threadpool(run)


# -- reading a session's position ------------------------------------------------------------------

def paths(request: Request, session: Session) -> dict[str, str]:
    """The module, profile (and unit table, terrain) a session reads its save through."""
    config = settings(request)
    chosen: dict[str, str] = {}
    for role, default in (("module", config.module), ("profile", config.profile)):
        path = session.inputs.get(role) or session.preset.get(role)
        if path is not None:
            chosen[role] = str(path)
        elif default is not None:
            chosen[role] = default
        else:
            raise WebError(400, "missing_file", f"the session has no {role}: upload one (the server was started "
                           f"without --{role})")
    if "profile" not in session.inputs and "profile" not in session.preset:   # the operator's: its files and overrides
        for role, default in (("units", config.units), ("terrain", config.terrain)):
            if default is not None:
                chosen[role] = default
    return chosen


def save_path(session: Session) -> str:
    path = session.inputs.get("save")
    if path is None:
        raise WebError(400, "missing_file", "the session has no save: upload one (POST /api/v1/sessions/ID/save)")
    return str(path)


def position_of(request: Request, session: Session) -> Any:
    from converter.resolve import read_position
    chosen = paths(request, session)
    return read_position(save_path(session), chosen["module"], chosen["profile"], units=chosen.get("units"),
                         terrain=chosen.get("terrain"))


def ruleset_of(position: Any) -> tuple[str, Any]:
    from converter.resolve import ResolveError, ruleset_named
    name = position.profile.ruleset_name(None)
    if name is None:
        raise ResolveError(f"the profile says module {position.profile.module!r} is judged by no rules "
                           "(rules: none): there is nothing the referee can answer")
    return name, ruleset_named(name)


def action_spec(body: Mapping[str, Any]) -> ActionSpec:
    """The request's ``action``: a short action (``fire leopard-c1 t-64 ap``), or a mapping
    ``{kind, unit, target, field: value}`` as an actions file gives one (every kind, also
    those without a short form)."""
    return _one_action(body.get("action"), "action") if isinstance(body.get("action"), dict) \
        else parse(str(text_field(body, "action")))


def _one_action(value: Any, where: str) -> ActionSpec:
    if isinstance(value, dict):
        if len(json.dumps(value, default=str)) > 20_000:
            raise WebError(400, "bad_field", f"{where!r} is over 20000 characters")
        return from_mapping(value, where)
    if isinstance(value, str) and len(value) <= 2000:
        return parse(value)
    raise WebError(400, "bad_field", f"{where!r} must be a short action (text) or a mapping {{kind, unit, ...}}")


def unit_list(game: Any) -> list[dict[str, Any]]:
    return [{"key": u.key, "name": u.name, "side": u.side, "hex": u.hex if u.on_map else None,
             "strength": u.strength, "status": plain(u.status)}
            for u in sorted(game.units.values(), key=lambda u: u.key)]


# -- sessions ------------------------------------------------------------------------------------

UPLOAD_ROLES = ("save", "module", "profile", "units", "terrain", "tec")


async def _store_uploads(request: Request, session: Session, roles: tuple[str, ...]) -> list[str]:
    """Write each uploaded part of a multipart form to the session folder; the roles stored."""
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise WebError(415, "unsupported_media_type", "upload the files as multipart/form-data "
                       f"(fields: {', '.join(roles)})")
    form = await request.form(max_files=len(roles), max_fields=len(roles), max_part_size=1024 * 1024)
    try:
        unknown = sorted(set(form) - set(roles))
        if unknown:
            raise WebError(400, "unknown_field", f"unknown upload field(s) {', '.join(unknown)} "
                           f"(known: {', '.join(roles)})")
        uploads: dict[str, tuple[bytes, str | None]] = {}
        for role in roles:
            part = form.get(role)
            if part is None:
                continue
            if isinstance(part, str):
                raise WebError(400, "bad_field", f"{role!r} must be a file upload")
            cap = ROLES[role][1]
            data = await part.read(cap + 1)
            uploads[role] = (data, part.filename)
    finally:
        await form.close()
    await locked(session, lambda: _write_uploads(session, uploads))
    return sorted(uploads)


def _write_uploads(session: Session, uploads: Mapping[str, tuple[bytes, str | None]]) -> None:
    """Store the uploads; a profile's unit table, terrain and TEC must be plain names beside
    it and be uploaded with it (a client never makes the server read one of its own files)."""
    for role in ("save", "module", "profile"):
        if role in uploads:
            session.store(role, *uploads[role])
    if "profile" not in uploads:
        for role in ("units", "terrain", "tec"):
            if role in uploads:
                raise WebError(400, "bad_field", f"{role!r} goes with the profile that names it: upload both")
        return
    from converter.profile import read_profile
    raw = _profile_names(session.inputs["profile"])
    read_profile(session.inputs["profile"])                    # the profile is sound before anything else
    for role, key in (("units", "units_file"), ("terrain", "terrain_file"), ("tec", "tec_file")):
        name = raw.get(key)
        if name is None:
            if role in uploads:
                raise WebError(400, "bad_field", f"the profile names no {key}; {role!r} is not used")
            continue
        if not isinstance(name, str) or not PLAIN_NAME.match(name) or name in {f for r, (f, _c) in ROLES.items() if r != role}:
            raise WebError(400, "bad_profile", f"the profile's {key} {str(name)[:80]!r} must be a plain file "
                           "name (no folder), uploaded with the profile")
        if role not in uploads:
            raise WebError(400, "missing_file", f"the profile names {key}: {name}; upload it as {role!r}")
        session.store(role, *uploads[role], name=name)


def _profile_names(path: Path) -> dict[str, Any]:
    from converter.schema import load_document
    data = load_document(path, "profile")
    return data if isinstance(data, dict) else {}


def summary(request: Request, session: Session) -> dict[str, Any]:
    """The session: its files (by the client's names) and, with a save, the units read from it."""
    info: dict[str, Any] = {"session": session.id, "files": dict(sorted(session.names.items())),
                            "module_from_server": "module" not in session.inputs
                            and ("module" in session.preset or settings(request).module is not None),
                            "profile_from_server": "profile" not in session.inputs
                            and ("profile" in session.preset or settings(request).profile is not None)}
    if "save" in session.inputs:
        position = position_of(request, session)
        info.update({"ruleset": position.profile.ruleset_name(None), "main_map": position.profile.main_map,
                     "turn": position.game.turn, "phase": position.game.phase, "units": unit_list(position.game),
                     "position_svg": f"{API}/sessions/{session.id}/position.svg",
                     "kind": "log" if position.save.is_log else "save",
                     "steps": len(position.save.log_steps) if position.save.is_log else None})
    pending = session.cache.get("pending")
    if pending:
        info["pending"] = pending
    return info


def _hidden(session: Session, error: BaseException) -> BaseException:
    """A failure of a session being deleted, its message without the session folder's paths."""
    if isinstance(error, WebError):
        return WebError(error.status, error.kind, session.hide(error.message))
    if isinstance(error, ActionSyntaxError):
        return WebError(400, "bad_action", session.hide(str(error)))
    if isinstance(error, WawkitError):
        return WebError(400, _snake(type(error).__name__), session.hide(str(error)))
    if isinstance(error, RefereeError):
        return WebError(422, "not_supported", session.hide(str(error)))
    return error


@api
async def create_session(request: Request) -> Response:
    session = store(request).create()
    try:
        if request.headers.get("content-type", "").startswith("multipart/"):
            await _store_uploads(request, session, UPLOAD_ROLES)
        data = await locked(session, lambda: summary(request, session))
    except BaseException as error:
        store(request).delete(session.id)       # a refused upload leaves no session and no file behind
        raise _hidden(session, error) from None
    return reply(session, data, 201)


@api
async def upload_save(request: Request) -> Response:
    session = store(request).get(request.path_params["session"])
    before = dict(session.inputs), dict(session.names)
    await _store_uploads(request, session, ("save",))
    try:
        data = await locked(session, lambda: summary(request, session))
    except BaseException:
        session.inputs, session.names = before    # the earlier save stays the session's position
        raise
    return reply(session, data)


@api
async def show_session(request: Request) -> Response:
    session = store(request).get(request.path_params["session"])
    return reply(session, await locked(session, lambda: summary(request, session)))


@api
async def delete_session(request: Request) -> Response:
    store(request).delete(request.path_params["session"])
    return Response(status_code=204)


# -- the jobs -------------------------------------------------------------------------------------

@api
async def validate(request: Request) -> Response:
    session = store(request).get(request.path_params["session"])

    def work() -> dict[str, Any]:
        from converter.vassal.save import SavedGame
        from converter.web.steps import validation
        chosen = paths(request, session)
        save = SavedGame.read(save_path(session))
        if save.is_log:          # the report the steps show, read once for both
            return log_steps(request, session).report.to_dict()
        return validation(save, chosen["module"], chosen["profile"], chosen.get("units"), chosen.get("terrain"),
                          session.names.get("save", "save"))[0].to_dict()
    return reply(session, await locked(session, work))


def _verdict(answer: Any, spec: ActionSpec) -> dict[str, Any]:
    legal = answer.legal
    return {"action": spec.text, "kind": answer.action,
            "verdict": {True: "legal", False: "refused", None: "not known"}[legal], "legal": legal,
            "reasons": [{"section": r.section, "text": r.text} for r in answer.reasons],
            "refusals": [{"section": r.section, "text": r.text} for r in answer.refusals],
            "modifiers": [{"applies_to": m.applies_to, "value": m.value, "why": m.why, "section": m.section}
                          for m in answer.modifiers],
            "values": plain(answer.values), "gaps": dict(answer.gaps)}


@api
async def check(request: Request) -> Response:
    session = store(request).get(request.path_params["session"])
    body = await json_body(request)

    def work() -> dict[str, Any]:
        spec = action_spec(body)
        position = position_of(request, session)
        _name, ruleset = ruleset_of(position)
        action = spec.bind(position.game)
        return _verdict(ruleset.check(position.game, action), spec)
    return reply(session, await locked(session, work))


def distribution(dist: Any) -> dict[str, Any]:
    """An exact distribution: each outcome's probability as a fraction and as a percentage."""
    return {str(k): {"p": str(p), "percent": round(float(p) * 100, 2)} for k, p in dist.items()}


@api
async def odds(request: Request) -> Response:
    session = store(request).get(request.path_params["session"])
    body = await json_body(request)

    def work() -> dict[str, Any]:
        from referee.combat_odds import FireOdds, odds_for
        spec = action_spec(body)
        position = position_of(request, session)
        _name, ruleset = ruleset_of(position)
        action = spec.bind(position.game)
        verdict = ruleset.check(position.game, action)
        if verdict.legal is False:
            raise WebError(422, "refused", "; ".join(f"{r.text} ({r.section})" for r in verdict.refusals)
                           or "the action is not legal")
        found = odds_for(ruleset, position.game, action)
        if isinstance(found, FireOdds):
            return {"action": spec.text, "kind": "fire", "fp": found.fp, "to_hit": found.to_hit,
                    "defense_dice": found.defense_dice, "save": found.save_number,
                    "first_hit_negated": found.first_hit_negated, "hits": distribution(found.hits),
                    "saves": distribution(found.saves), "net_hits": distribution(found.net_hits),
                    "results": distribution(found.results), "lines": found.lines()}
        data = {"action": spec.text, "kind": "assault", "on_defender": distribution(found.on_defender),
                "on_attacker": distribution(found.on_attacker), "outcome": distribution(found.outcome),
                "lines": found.lines()}
        if found.defender_results is not None:
            data["defender_results"] = distribution(found.defender_results)
        if found.attacker_results is not None:
            data["attacker_results"] = distribution(found.attacker_results)
        return data
    return reply(session, await locked(session, work))


def _dice(body: Mapping[str, Any]) -> tuple[list[int] | None, int | None]:
    from converter.resolve import ResolveError, parse_dice
    dice, seed = body.get("dice"), body.get("seed")
    if dice is not None and seed is not None:
        raise WebError(400, "bad_dice", "give dice or seed, not both")
    if isinstance(dice, list):
        if not all(isinstance(d, int) and not isinstance(d, bool) for d in dice):
            raise WebError(400, "bad_dice", "dice must be whole numbers")
        dice = ",".join(map(str, dice))
    if dice is not None:
        if not isinstance(dice, str):
            raise WebError(400, "bad_dice", "dice must be a list of numbers or a text like 4,1,5")
        try:
            return parse_dice(dice), None
        except ResolveError as error:
            raise WebError(400, "bad_dice", error.message.replace("--dice", "dice")) from None
    if seed is None:
        return None, secrets.randbelow(1_000_000)          # rolled: the seed is shown, so it can be replayed
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise WebError(400, "bad_dice", "seed must be a whole number from 0")
    return None, seed


@api
async def resolve(request: Request) -> Response:
    session = store(request).get(request.path_params["session"])
    body = await json_body(request)

    def work() -> tuple[dict[str, Any], int]:
        from converter.resolve import run, write_resolution
        texts = body.get("actions")
        if texts is None:
            specs = [action_spec(body)]
        elif isinstance(texts, list) and texts and len(texts) <= MAX_ACTIONS:
            specs = [_one_action(t, f"actions[{i}]") for i, t in enumerate(texts)]
        else:
            raise WebError(400, "bad_field", f"'actions' must be a list of 1 to {MAX_ACTIONS} actions")
        dice, seed = _dice(body)
        position = position_of(request, session)
        resolved = run(position, specs, dice=dice, seed=seed, audit_dir=session.folder)
        data: dict[str, Any] = {"actions": [s.text for s in specs], "report": resolved.report,
                                "dice": resolved.record.dice, "seed": seed, "rolls": resolved.record.rolls,
                                "results": resolved.record.results}
        if resolved.save is None:
            refused = resolved.outcome.refused
            assert refused is not None
            data.update(error={"type": "refused", "message": refused.to_text()}, refused=refused.to_dict())
            return data, 422
        out = session.new_path("resolved", ".vsav")
        audit = out.with_suffix(".audit.json")
        write_resolution(resolved, out, audit)
        shown = Path(session.names.get("save", "save.vsav")).stem
        count = session.resolutions
        data["downloads"] = {
            "save": session.offer(out, f"{shown}-resolved-{count}.vsav", "application/octet-stream"),
            "audit": session.offer(audit, f"{shown}-resolved-{count}.audit.json", "application/json")}
        data["unused_dice"] = list(resolved.unused_dice)
        session.inputs["save"] = out              # the game goes on from the corrected save
        session.last_results = list(resolved.record.results)
        data["units"] = unit_list(resolved.outcome.after)
        return data, 200
    data, status = await locked(session, work)
    return reply(session, data, status)


@api
async def los(request: Request) -> Response:
    session = store(request).get(request.path_params["session"])
    body = await json_body(request)

    def work() -> dict[str, Any]:
        from converter.cli.rules import los_answer
        source, target = text_field(body, "from", limit=100), text_field(body, "to", limit=100)
        position = position_of(request, session)
        name, _ruleset = ruleset_of(position)
        base, _, book = name.partition(":")
        game = position.game
        for where in (source, target):
            if where not in game.units and where not in game.hexes:
                raise WebError(400, "bad_field", f"{where!r} is neither a unit key nor a hex of the position")
            if where in game.units and not (game.units[where].on_map and game.units[where].hex):
                raise WebError(400, "bad_field", f"unit {where!r} is not on the map")
        return los_answer(game, str(source), str(target), base, book or None)
    return reply(session, await locked(session, work))


@api
async def import_position(request: Request) -> Response:
    session = store(request).get(request.path_params["session"])
    body = await json_body(request)

    def work() -> dict[str, Any]:
        from converter.exporter import scenario_of
        from converter.scenario import dumps
        fmt = body.get("format", "yaml")
        if fmt not in ("yaml", "json"):
            raise WebError(400, "bad_field", "format must be 'yaml' or 'json'")
        position = position_of(request, session)
        shown = Path(session.names.get("save", "save.vsav")).stem
        imported = position.imported
        scenario = scenario_of(position.save, imported, position.module, position.profile, position.table,
                               name=shown, save_path=session.names.get("save"))
        text = dumps(scenario, fmt)
        out = session.new_path("scenario", f".{fmt}")
        out.write_text(text, encoding="utf-8")
        media = "application/json" if fmt == "json" else "application/yaml"
        return {"format": fmt, "scenario": text, "units": len(imported.game.units),
                "download": session.offer(out, f"{shown}.{fmt}", media)}
    return reply(session, await locked(session, work))


@api
async def export_scenario(request: Request) -> Response:
    session = store(request).get(request.path_params["session"])
    body = await json_body(request)

    def work() -> dict[str, Any]:
        from converter.importer import read_inputs
        from converter.scenario import read_scenario
        from converter.exporter import export_scenario
        from converter.vassal.module import Module
        text = text_field(body, "scenario", limit=MAX_DOCUMENT_SIZE)
        fmt = body.get("format", "yaml")
        if fmt not in ("yaml", "json"):
            raise WebError(400, "bad_field", "format must be 'yaml' or 'json'")
        chosen = paths(request, session)
        scenario_file = session.folder / f"upload-scenario.{fmt}"
        session.store("scenario", str(text).encode("utf-8"), f"scenario.{fmt}", name=scenario_file.name)
        try:
            wanted = read_scenario(scenario_file)
            read = read_inputs(chosen["profile"], chosen.get("units"), chosen.get("terrain"))
            notes: list[str] = []
            save = export_scenario(wanted, Module.read(chosen["module"]), read.profile, read.table, notes)
        finally:
            session.inputs.pop("scenario", None)
            scenario_file.unlink(missing_ok=True)
        out = session.new_path("exported", ".vsav")
        save.write(out)
        name = (wanted.name or "scenario").replace("/", "_")
        return {"units": len(wanted.game.units), "notes": notes,
                "download": session.offer(out, f"{name}.vsav", "application/octet-stream")}
    return reply(session, await locked(session, work))


def drawn(game: Any, module: Any, save: Any, profile: Any, results: list[dict[str, str]]) -> str:
    """The position ``game`` on the main map as SVG, on the board layout the save gives."""
    from converter.render import mark_results, scene_for_map, svg_text
    chosen_map = profile.main_map
    layout = save.board_layouts().get(chosen_map)
    if layout and any(placed.name in profile.board_aliases for placed in layout):
        layout = None
    scene = scene_for_map(game, module, chosen_map, layout)
    mark_results(scene, results)
    return svg_text(scene)


@api
async def position_svg(request: Request) -> Response:
    session = store(request).get(request.path_params["session"])
    step = request.query_params.get("step")

    def work() -> str:
        if step is not None:
            steps = log_steps(request, session)
            shown = steps.position(step_number(step, steps.count))
            return drawn(shown.game, steps.module, steps.save, steps.judge.reader.profile, [])
        position = position_of(request, session)
        return drawn(position.game, position.module, position.save, position.profile, session.last_results)
    return Response(await locked(session, work), media_type="image/svg+xml")


# -- a log, step by step -----------------------------------------------------------------------

def log_steps(request: Request, session: Session) -> Any:
    """The session's log read for stepping (:mod:`converter.web.steps`), read again only when
    the save, module or profile changed."""
    from converter.vassal.save import SavedGame
    from converter.web.steps import LogSteps
    path = save_path(session)
    chosen = paths(request, session)
    found = os.stat(path)
    key = (path, found.st_mtime_ns, found.st_size, tuple(sorted(chosen.items())))
    cached = session.cache.get("steps")
    if cached is not None and cached[0] == key:
        return cached[1]
    save = SavedGame.read(path)
    shown = session.names.get("save", "save")
    if not save.is_log:
        raise WebError(400, "not_a_log", f"{shown} is a save, not a log: it has no steps to go through "
                       "(upload a log, .vlog, written by VASSAL's Begin Logging)")
    steps = LogSteps.of(save, chosen["module"], chosen["profile"], chosen.get("units"), chosen.get("terrain"),
                        file=shown)
    session.cache["steps"] = (key, steps)
    return steps


def step_number(text: str, count: int) -> int:
    """A step as the client names it (0-based, as findings number steps), checked against the log."""
    if not (text.isdigit() and len(text) <= 9):
        raise WebError(400, "bad_step", f"step {text[:20]!r} is not a step number (0, 1, 2 ...)")
    number = int(text)
    if not number < count:
        raise WebError(400, "bad_step", f"step {number} is past the log's last step "
                       f"({'it has no steps' if count == 0 else f'steps 0 to {count - 1}'})")
    return number


@api
async def steps_listing(request: Request) -> Response:
    session = store(request).get(request.path_params["session"])
    return reply(session, await locked(session, lambda: log_steps(request, session).listing()))


@api
async def step_detail(request: Request) -> Response:
    session = store(request).get(request.path_params["session"])

    def work() -> dict[str, Any]:
        steps = log_steps(request, session)
        number = step_number(request.path_params["step"], steps.count)
        shown = steps.position(number)
        return {**steps.summary(steps.replay.steps[number]), "count": steps.count,
                "findings": [f.to_dict() for f in steps.findings(number)], "changed": list(shown.changed),
                "units": unit_list(shown.game),
                "position_svg": f"{API}/sessions/{session.id}/position.svg?step={number}"}
    return reply(session, await locked(session, work))


@api
async def download(request: Request) -> Response:
    session = store(request).get(request.path_params["session"])
    item = session.downloads.get(request.path_params["download"])
    if item is None or not item.path.exists():
        raise WebError(404, "no_download", "no such download in this session")
    return FileResponse(item.path, media_type=item.media_type, filename=item.filename)


async def openapi(request: Request) -> Response:
    from converter.web.openapi import DESCRIPTION
    return JSONResponse(DESCRIPTION)


async def config(request: Request) -> Response:
    """What the page needs to know before any upload: whether module and profile are preloaded."""
    chosen = settings(request)
    sample = _sample(chosen)
    return JSONResponse({"module": os.path.basename(chosen.module) if chosen.module else None,
                         "profile": os.path.basename(chosen.profile) if chosen.profile else None,
                         "sample_save": sample is not None,
                         "sample": {role: path.name for role, path in sample.items()} if sample else None})


def _sample(chosen: Settings) -> dict[str, Path] | None:
    """The sample game offered to start with: the demo save beside the operator's module
    (with the operator's module and profile), else the source tree's samples when the server
    was started without a module. Role -> the server's own file."""
    if chosen.module is not None:
        candidate = Path(chosen.module).with_name(SAMPLE_FILES["save"])
        return {"save": candidate} if candidate.is_file() else None
    if chosen.samples is None:
        return None
    return {role: Path(chosen.samples) / name for role, name in SAMPLE_FILES.items()}


def pending_actions(path: Path) -> list[dict[str, Any]]:
    """The pending actions of the sample's actions file (``samples/actions.yaml``), each as the
    mapping the API takes, with the dice it gives (in roll order) and the rule it comes from."""
    from converter.actions_text import load_actions
    from converter.schema import load_document
    if not path.is_file():
        return []
    load_actions(path)                                # the file is sound before any of it is shown
    data = load_document(path, "actions")
    items = data.get("actions", []) if isinstance(data, dict) else data
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        action = {k: v for k, v in item.items() if k not in ("id", "source", "note", "dice")}
        dice = [d for values in (item.get("dice") or {}).values() for d in values]
        out.append({"id": item.get("id"), "action": action, "dice": dice,
                    "source": item.get("source") or item.get("note")})
    return out


@api
async def sample_session(request: Request) -> Response:
    """A session on the sample game (the server's own files, never a client's path)."""
    sample = _sample(settings(request))
    if sample is None:
        raise WebError(404, "no_sample", "the server was started with a module that has no sample save beside it")
    session = store(request).create()

    def work() -> dict[str, Any]:
        save = sample["save"]
        for role in ("module", "profile"):
            if role in sample:
                session.preset[role] = str(sample[role])
                session.names[role] = sample[role].name
        session.store("save", save.read_bytes(), save.name)
        session.cache["pending"] = pending_actions(save.with_name("actions.yaml"))
        return summary(request, session)
    try:
        data = await locked(session, work)
    except BaseException as error:
        store(request).delete(session.id)
        raise _hidden(session, error) from None
    return reply(session, data, 201)


async def action_kinds(request: Request) -> Response:
    """Every action kind the referee knows, as ``wawkit actions --json`` lists them, with the
    fields every action takes: what the page's action menu offers."""
    from converter.actions_help import FIELD_NOTES, catalogue
    return JSONResponse({"fields": FIELD_NOTES, "kinds": [kind.to_dict() for kind in catalogue()]})


async def page(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", media_type="text/html")


async def not_found(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 404)
    detail = getattr(exc, "detail", "not found")
    return JSONResponse(error_body("not_found" if status == 404 else "http_error", str(detail)), status)


def create_app(config_: Settings) -> Starlette:
    """The application for ``config_``; its sessions are removed when it shuts down."""
    sessions = SessionStore(config_.temp_root)
    S = f"{API}/sessions/{{session}}"
    routes = [
        Route("/", page),
        Route(f"{API}/openapi.json", openapi),
        Route(f"{API}/config", config),
        Route(f"{API}/actions", action_kinds),
        Route(f"{API}/sessions", create_session, methods=["POST"]),
        Route(f"{API}/sessions/sample", sample_session, methods=["POST"]),
        Route(S, show_session, methods=["GET"]),
        Route(S, delete_session, methods=["DELETE"]),
        Route(f"{S}/save", upload_save, methods=["POST"]),
        Route(f"{S}/validate", validate, methods=["POST"]),
        Route(f"{S}/check", check, methods=["POST"]),
        Route(f"{S}/odds", odds, methods=["POST"]),
        Route(f"{S}/resolve", resolve, methods=["POST"]),
        Route(f"{S}/los", los, methods=["POST"]),
        Route(f"{S}/import", import_position, methods=["POST"]),
        Route(f"{S}/export", export_scenario, methods=["POST"]),
        Route(f"{S}/position.svg", position_svg),
        Route(f"{S}/steps", steps_listing),
        Route(f"{S}/steps/{{step}}", step_detail),
        Route(f"{S}/downloads/{{download}}", download),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(_app: Starlette):  # type: ignore[no-untyped-def]
        yield
        sessions.close()

    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={404: not_found, 405: not_found})
    app.state.store = sessions
    app.state.settings = config_
    return app


def guarded_app(config_: Settings) -> ASGIApp:
    """The application behind the Host/token/size guard: what the server runs."""
    app = create_app(config_)
    guard = Guard(app, config_)
    guard.state = app.state          # type: ignore[attr-defined]  # tests reach the store through it
    return guard


__all__ = ["Settings", "create_app", "guarded_app", "Guard", "MAX_UPLOAD", "MAX_JSON"]
