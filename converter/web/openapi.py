"""The OpenAPI 3.1 description of ``/api/v1``, written by hand beside the routes it describes
(``tests/test_web_api.py`` checks that every route is described and every description routed)."""
from __future__ import annotations

from typing import Any

_ERROR = {"description": "A typed error; nothing was written",
          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
#: An action: a short action, or a mapping as an actions file gives one (any kind of ``GET /actions``).
_ONE_ACTION = {"oneOf": [{"type": "string", "example": "fire leopard-c1 t-64 ap"},
                         {"type": "object", "required": ["kind"], "example": {"kind": "concealment",
                                                                             "unit": "leopard-c1",
                                                                             "target": "soviet-infantry"}}]}
_ACTION = {"required": True, "content": {"application/json": {"schema": {
    "type": "object", "required": ["action"], "properties": {"action": _ONE_ACTION}}}}}
_STEP = {"name": "step", "in": "query", "required": False, "schema": {"type": "integer", "minimum": 0},
         "description": "a log's step (0-based, as findings number them): the position after it"}
_SESSION = {"name": "session", "in": "path", "required": True, "schema": {"type": "string"}}
_JSON = {"content": {"application/json": {"schema": {"type": "object"}}}}
_UPLOAD = {"content": {"multipart/form-data": {"schema": {"type": "object", "properties": {
    role: {"type": "string", "format": "binary"} for role in ("save", "module", "profile", "units", "terrain", "tec")}}}}}


def _post(summary: str, body: dict[str, Any] | None, ok: str, *, session: bool = True, ok_status: str = "200",
          extra: dict[str, Any] | None = None) -> dict[str, Any]:
    operation: dict[str, Any] = {"summary": summary, "responses": {ok_status: {"description": ok, **_JSON},
                                                                     "400": _ERROR, "401": _ERROR, "404": _ERROR,
                                                                     **(extra or {})}}
    if session:
        operation["parameters"] = [_SESSION]
    if body is not None:
        operation["requestBody"] = body
    return {"post": operation}


DESCRIPTION: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "wawkit", "version": "1",
             "description": "Validate, referee and migrate World at War games on VASSAL. Every request needs the "
                            "token the server printed: Authorization: Bearer TOKEN."},
    "components": {
        "securitySchemes": {"token": {"type": "http", "scheme": "bearer"}},
        "schemas": {"Error": {"type": "object", "required": ["error"], "properties": {"error": {
            "type": "object", "required": ["type", "message"],
            "properties": {"type": {"type": "string"}, "message": {"type": "string"}}}}}}},
    "security": [{"token": []}],
    "paths": {
        "/api/v1/config": {"get": {"summary": "Whether module and profile were given at start, and the sample "
                                              "game offered",
                                   "responses": {"200": {"description": "names", **_JSON}}}},
        "/api/v1/actions": {"get": {"summary": "Every action kind the referee knows, its short form, example and "
                                               "fields (wawkit actions --json, under 'kinds')",
                                    "responses": {"200": {"description": "the kinds", **_JSON}}}},
        "/api/v1/sessions": _post("Open a session: upload a save or log (and the module, profile, unit table, "
                                  "terrain, TEC unless the server was started with them)", _UPLOAD,
                                  "The session, its files and units", session=False, ok_status="201",
                                  extra={"413": _ERROR, "415": _ERROR}),
        "/api/v1/sessions/sample": _post("Open a session on the sample game (the sample save of the server's "
                                         "module, or the source tree's samples/ when started without one)", None,
                                         "The session, with the sample's pending actions", session=False,
                                         ok_status="201"),
        "/api/v1/sessions/{session}": {
            "get": {"summary": "The session: files, units", "parameters": [_SESSION],
                    "responses": {"200": {"description": "summary", **_JSON}, "404": _ERROR}},
            "delete": {"summary": "End the session and delete its files", "parameters": [_SESSION],
                       "responses": {"204": {"description": "deleted"}, "404": _ERROR}}},
        "/api/v1/sessions/{session}/save": _post("Replace the session's save", _UPLOAD, "The session"),
        "/api/v1/sessions/{session}/validate": _post("Validate the save or log (wawkit validate --json)", None,
                                                     "The validation report"),
        "/api/v1/sessions/{session}/check": _post("The referee's verdict before any roll: legal or refused with "
                                                  "the rule, the modifiers", _ACTION, "The verdict"),
        "/api/v1/sessions/{session}/odds": _post("Exact odds of every result of a fire or assault", _ACTION,
                                                 "Distributions (fractions and percentages)",
                                                 extra={"422": _ERROR}),
        "/api/v1/sessions/{session}/resolve": _post(
            "Resolve actions with given dice or a seed (a seed is drawn and shown when neither is given); "
            "the corrected save becomes the session's position",
            {"required": True, "content": {"application/json": {"schema": {"type": "object", "properties": {
                "action": _ONE_ACTION, "actions": {"type": "array", "items": _ONE_ACTION},
                "dice": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "integer"}}]},
                "seed": {"type": "integer"}}}}}},
            "The chat report, rolls, results, download ids of the save and its audit record",
            extra={"422": {"description": "The action is refused (error.type refused, with the rule); nothing "
                                          "was written", **_JSON}}),
        "/api/v1/sessions/{session}/los": _post(
            "Line of sight between two units or hexes (wawkit los --json)",
            {"required": True, "content": {"application/json": {"schema": {"type": "object", "required": ["from", "to"],
                                                                           "properties": {"from": {"type": "string"},
                                                                                          "to": {"type": "string"}}}}}},
            "The LOS answer"),
        "/api/v1/sessions/{session}/import": _post(
            "The position as a scenario document (wawkit import)",
            {"content": {"application/json": {"schema": {"type": "object", "properties": {
                "format": {"enum": ["yaml", "json"]}}}}}}, "The scenario text and its download id"),
        "/api/v1/sessions/{session}/export": _post(
            "A scenario document as a new save of the module (wawkit export)",
            {"required": True, "content": {"application/json": {"schema": {"type": "object", "required": ["scenario"],
                                                                           "properties": {
                                                                               "scenario": {"type": "string"},
                                                                               "format": {"enum": ["yaml", "json"]}}}}}},
            "The download id of the save"),
        "/api/v1/sessions/{session}/position.svg": {"get": {
            "summary": "The position drawn as SVG (of a log: after the step given)", "parameters": [_SESSION, _STEP],
            "responses": {"200": {"description": "SVG", "content": {"image/svg+xml": {}}}, "400": _ERROR,
                          "404": _ERROR}}},
        "/api/v1/sessions/{session}/steps": {"get": {
            "summary": "A log's steps: each step's chat lines, moves and number of findings, and the findings of "
                       "the start (the replay of wawkit validate LOG)", "parameters": [_SESSION],
            "responses": {"200": {"description": "the steps", **_JSON}, "400": _ERROR, "404": _ERROR}}},
        "/api/v1/sessions/{session}/steps/{step}": {"get": {
            "summary": "One step of a log: the position after it (units, SVG), the units it changed, its findings",
            "parameters": [_SESSION, {**_STEP, "in": "path", "required": True}],
            "responses": {"200": {"description": "the step", **_JSON}, "400": _ERROR, "404": _ERROR}}},
        "/api/v1/sessions/{session}/downloads/{download}": {"get": {
            "summary": "A file the session produced", "parameters": [_SESSION, {"name": "download", "in": "path",
                                                                             "required": True,
                                                                             "schema": {"type": "string"}}],
            "responses": {"200": {"description": "the file"}, "404": _ERROR}}},
        "/api/v1/openapi.json": {"get": {"summary": "This description",
                                         "responses": {"200": {"description": "OpenAPI", **_JSON}}}},
    },
}

__all__ = ["DESCRIPTION"]
