"""The web companion's JSON API (``wawkit serve``), through Starlette's TestClient: every
endpoint with good and bad input, the token and Host refusals, session isolation, and the
TUS §6.1 example fire resolved with given dice, its save downloaded and re-imported."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from converter.resolve import read_position
from converter.web.app import Settings, guarded_app
from converter.web.openapi import DESCRIPTION

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
MODULE, PROFILE, SAVE = SAMPLES / "waw-sample.vmod", SAMPLES / "profile.yaml", SAMPLES / "demo.vsav"
TOKEN = "test-token-0123456789"
PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"
RULEBOOK_FIRE = "fire leopard-c1 t-64 ap"
RULEBOOK_DICE = "4,1,5,4,1,3,4,4,6"          # TUS §6.1 example: 3 hits, 1 save -> 2 net hits


def client_for(tmp_path: Path, *, preload: bool = True, token: str | None = TOKEN, host: str = BASE) -> TestClient:
    settings = Settings(PORT, token=TOKEN, module=str(MODULE) if preload else None,
                        profile=str(PROFILE) if preload else None, temp_root=str(tmp_path))
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return TestClient(guarded_app(settings), base_url=host, headers=headers)


@pytest.fixture
def client(tmp_path: Path):
    with client_for(tmp_path) as c:
        yield c


def open_session(client: TestClient, save: Path = SAVE) -> str:
    response = client.post("/api/v1/sessions", files={"save": (save.name, save.read_bytes())})
    assert response.status_code == 201, response.text
    return response.json()["session"]


def session_folders(tmp_path: Path) -> list[Path]:
    return sorted(p for p in tmp_path.iterdir() if p.name.startswith("wawkit-web-"))


# -- the guard -------------------------------------------------------------------------------

def test_no_token_is_refused_with_401(tmp_path: Path) -> None:
    with client_for(tmp_path, token=None) as c:
        response = c.post("/api/v1/sessions", files={"save": ("demo.vsav", SAVE.read_bytes())})
        assert response.status_code == 401
        assert response.json()["error"]["type"] == "unauthorized"
        assert c.get("/").status_code == 401
    assert session_folders(tmp_path) == []


def test_wrong_token_is_refused(tmp_path: Path) -> None:
    with client_for(tmp_path, token="not-the-token") as c:
        assert c.get("/api/v1/config").status_code == 401
        assert c.get("/api/v1/config?token=guess").status_code == 401


@pytest.mark.parametrize("host", ["http://evil.example:8765", "http://127.0.0.1:9999", "http://localhost"])
def test_a_foreign_host_header_is_refused(tmp_path: Path, host: str) -> None:
    with client_for(tmp_path, host=host) as c:
        response = c.get("/api/v1/config")
        assert response.status_code == 400
        assert response.json()["error"]["type"] == "bad_host"


def test_localhost_with_the_port_is_accepted(tmp_path: Path) -> None:
    with client_for(tmp_path, host=f"http://localhost:{PORT}") as c:
        assert c.get("/api/v1/config").json() == {"module": "waw-sample.vmod", "profile": "profile.yaml",
                                                  "sample_save": True, "sample": {"save": "demo.vsav"}}


def test_the_token_in_the_url_becomes_a_strict_httponly_cookie(tmp_path: Path) -> None:
    with client_for(tmp_path, token=None) as c:
        response = c.get(f"/?token={TOKEN}", follow_redirects=False)
        assert response.status_code == 303
        assert response.headers["location"] == "/"
        cookie = response.headers["set-cookie"]
        assert cookie.startswith(f"wawkit_token={TOKEN};")
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie
        page = c.get("/")                          # the cookie alone now opens the page and the API
        assert page.status_code == 200 and "<title>wawkit" in page.text
        assert c.get("/static/app.js").status_code == 200
        assert c.get("/api/v1/config").status_code == 200


def test_a_body_over_the_cap_is_refused_before_it_is_read(client: TestClient) -> None:
    sid = open_session(client)
    response = client.post(f"/api/v1/sessions/{sid}/check", content=b"{" + b" " * (33 * 1024 * 1024) + b"}",
                           headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    assert response.json()["error"]["type"] == "too_large"


# -- sessions -------------------------------------------------------------------------------------

def test_a_session_holds_the_save_in_a_private_folder(client: TestClient, tmp_path: Path) -> None:
    response = client.post("/api/v1/sessions", files={"save": ("../../etc/demo.vsav", SAVE.read_bytes())})
    assert response.status_code == 201
    data = response.json()
    assert data["files"] == {"save": "demo.vsav"}           # the client's name, its folders dropped
    assert data["ruleset"] == "classic:untold"
    units = {u["key"]: u for u in data["units"]}
    assert units["t-64"]["hex"] == "F6" and units["leopard-c1"]["hex"] == "B7"
    assert units["t-64"]["strength"] == "full" and units["t-64"]["status"]["disrupted"] is False
    [folder] = session_folders(tmp_path)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert sorted(p.name for p in folder.iterdir()) == ["save.vsav"]
    assert stat.S_IMODE((folder / "save.vsav").stat().st_mode) == 0o600
    assert (folder / "save.vsav").read_bytes() == SAVE.read_bytes()


def test_deleting_a_session_removes_its_files(client: TestClient, tmp_path: Path) -> None:
    sid = open_session(client)
    assert len(session_folders(tmp_path)) == 1
    assert client.delete(f"/api/v1/sessions/{sid}").status_code == 204
    assert session_folders(tmp_path) == []
    response = client.get(f"/api/v1/sessions/{sid}")
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "no_session"
    assert client.delete(f"/api/v1/sessions/{sid}").status_code == 404


def test_shutdown_removes_every_session(tmp_path: Path) -> None:
    with client_for(tmp_path) as c:
        open_session(c)
        open_session(c)
        assert len(session_folders(tmp_path)) == 2
    assert session_folders(tmp_path) == []


def test_an_unreadable_save_is_a_typed_error_and_leaves_nothing(client: TestClient, tmp_path: Path) -> None:
    response = client.post("/api/v1/sessions", files={"save": ("bad.vsav", b"not a zip at all")})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "container_error"
    assert error["message"].startswith("bad.vsav: ")
    assert str(tmp_path) not in error["message"]               # never a server-side path
    assert session_folders(tmp_path) == []


def test_an_upload_must_be_multipart_with_known_fields(client: TestClient, tmp_path: Path) -> None:
    response = client.post("/api/v1/sessions/abc/save", content=b"x")
    assert response.status_code == 404
    sid = open_session(client)
    response = client.post(f"/api/v1/sessions/{sid}/save", content=b"raw", headers={"Content-Type": "text/plain"})
    assert response.status_code == 415
    response = client.post(f"/api/v1/sessions/{sid}/save", files={"path": ("x", b"/etc/passwd")})
    assert response.status_code == 400
    assert response.json()["error"] == {"type": "unknown_field", "message": "unknown upload field(s) path "
                                        "(known: save)"}


def test_without_module_and_profile_at_start_they_are_uploaded(tmp_path: Path) -> None:
    with client_for(tmp_path, preload=False) as c:
        response = c.post("/api/v1/sessions", files={"save": ("demo.vsav", SAVE.read_bytes())})
        assert response.status_code == 400
        assert response.json()["error"] == {"type": "missing_file", "message": "the session has no module: upload "
                                            "one (the server was started without --module)"}
        files = {"save": ("demo.vsav", SAVE.read_bytes()), "module": ("waw-sample.vmod", MODULE.read_bytes()),
                 "profile": ("profile.yaml", PROFILE.read_bytes())}
        response = c.post("/api/v1/sessions", files=files)
        assert response.status_code == 400
        assert response.json()["error"] == {"type": "missing_file", "message": "the profile names units_file: "
                                            "units.yaml; upload it as 'units'"}
        files["units"] = ("my-units.yaml", (SAMPLES / "units.yaml").read_bytes())
        files["terrain"] = ("terrain.yaml", (SAMPLES / "terrain.yaml").read_bytes())
        response = c.post("/api/v1/sessions", files=files)
        assert response.status_code == 201, response.text
        assert response.json()["files"] == {"module": "waw-sample.vmod", "profile": "profile.yaml",
                                            "save": "demo.vsav", "terrain": "terrain.yaml",
                                            "units": "my-units.yaml"}
        [folder] = session_folders(tmp_path)
        assert sorted(p.name for p in folder.iterdir()) == ["module.vmod", "profile.yaml", "save.vsav",
                                                            "terrain.yaml", "units.yaml"]


def test_a_profile_naming_a_server_path_is_refused(tmp_path: Path) -> None:
    profile = PROFILE.read_text().replace("units_file: units.yaml", "units_file: /etc/passwd")
    with client_for(tmp_path, preload=False) as c:
        files = {"save": ("demo.vsav", SAVE.read_bytes()), "module": ("m.vmod", MODULE.read_bytes()),
                 "profile": ("p.yaml", profile.encode())}
        response = c.post("/api/v1/sessions", files=files)
        assert response.status_code == 400
        assert response.json()["error"] == {"type": "bad_profile", "message": "the profile's units_file "
                                            "'/etc/passwd' must be a plain file name (no folder), uploaded with "
                                            "the profile"}
    assert session_folders(tmp_path) == []


def test_two_sessions_do_not_see_each_other(client: TestClient, tmp_path: Path) -> None:
    first, second = open_session(client), open_session(client)
    resolved = client.post(f"/api/v1/sessions/{first}/resolve", json={"action": RULEBOOK_FIRE, "dice": RULEBOOK_DICE})
    assert resolved.status_code == 200
    save_id = resolved.json()["downloads"]["save"]
    assert client.get(f"/api/v1/sessions/{second}/downloads/{save_id}").status_code == 404
    assert client.get(f"/api/v1/sessions/{first}/downloads/{save_id}").status_code == 200
    other = {u["key"]: u for u in client.get(f"/api/v1/sessions/{second}").json()["units"]}
    assert other["t-64"]["strength"] == "full" and other["t-64"]["status"]["disrupted"] is False
    folders = session_folders(tmp_path)
    assert len(folders) == 2
    assert sorted(len(list(f.iterdir())) for f in folders) == [1, 3]    # save | save, resolved save, audit


# -- the jobs ---------------------------------------------------------------------------------------

def test_validate_gives_the_cli_report(client: TestClient) -> None:
    sid = open_session(client)
    response = client.post(f"/api/v1/sessions/{sid}/validate")
    assert response.status_code == 200
    assert response.json() == {"file": "demo.vsav", "kind": "save", "clean": True, "passed": True,
                               "counts": {"error": 0, "warning": 0, "unsupported": 0, "info": 0},
                               "facts": {"pieces": 10, "rules": "classic:untold", "stacks": 2, "units": 8},
                               "findings": []}


def test_check_of_the_rulebook_fire_is_legal_with_its_numbers(client: TestClient) -> None:
    sid = open_session(client)
    verdict = client.post(f"/api/v1/sessions/{sid}/check", json={"action": RULEBOOK_FIRE}).json()
    assert verdict["verdict"] == "legal" and verdict["legal"] is True
    assert verdict["reasons"][:2] == [{"section": "TUS §6.1.1, §6.1.2", "text": "range 4 = effective"},
                                      {"section": "TUS §6.1", "text": "to-hit 4"}]
    assert {"section": "TUS §6.1.5, §6.1.6", "text": "T-64: DB 1 woods + 1 concealed"} in verdict["reasons"]
    assert (verdict["values"]["fp"], verdict["values"]["to_hit"], verdict["values"]["defense_dice"]) == (4, 4, 5)
    assert verdict["refusals"] == []


def test_check_of_fire_at_a_friend_is_refused_with_its_rule(client: TestClient) -> None:
    sid = open_session(client)
    verdict = client.post(f"/api/v1/sessions/{sid}/check", json={"action": "fire leopard-c1 m113 ap"}).json()
    assert verdict["verdict"] == "refused" and verdict["legal"] is False
    assert verdict["refusals"] == [{"section": "TUS §6.1",
                                    "text": "M113 is a friendly unit (NATO): Leopard C1 attacks enemy units only"}]
    assert verdict["modifiers"] == [{"applies_to": "to_hit", "value": -1, "why": "point blank range",
                                     "section": "TUS §6.1.1, §6.1.2"}]


@pytest.mark.parametrize("body, status, error", [
    ({}, 400, {"type": "missing_field", "message": "the request needs 'action'"}),
    ({"action": 5}, 400, {"type": "bad_field", "message": "'action' must be a string"}),
    ({"action": "shoot a b"}, 400, None),
    ({"action": "fire nobody t-64 ap"}, 400, None),
])
def test_check_refuses_bad_actions(client: TestClient, body: dict, status: int, error: dict | None) -> None:
    sid = open_session(client)
    response = client.post(f"/api/v1/sessions/{sid}/check", json=body)
    assert response.status_code == status
    got = response.json()["error"]
    if error is not None:
        assert got == error
    else:
        assert got["type"] == "bad_action" and got["message"]


def test_bad_json_is_a_typed_error(client: TestClient) -> None:
    sid = open_session(client)
    for raw, message in ((b"{not json", None), (b"[1, 2]", "the request body must be a JSON object")):
        response = client.post(f"/api/v1/sessions/{sid}/check", content=raw,
                               headers={"Content-Type": "application/json"})
        assert response.status_code == 400
        assert response.json()["error"]["type"] == "bad_json"
        if message:
            assert response.json()["error"]["message"] == message


def test_odds_are_the_referees_exact_enumeration(client: TestClient) -> None:
    sid = open_session(client)
    odds = client.post(f"/api/v1/sessions/{sid}/odds", json={"action": RULEBOOK_FIRE}).json()
    assert (odds["fp"], odds["to_hit"], odds["defense_dice"], odds["save"]) == (4, 4, 5, 5)
    assert odds["hits"]["2"] == {"p": "3/8", "percent": 37.5}
    assert odds["net_hits"]["0"] == {"p": "29/54", "percent": 53.7}
    from fractions import Fraction
    assert sum(Fraction(v["p"]) for v in odds["results"].values()) == 1
    refused = client.post(f"/api/v1/sessions/{sid}/odds", json={"action": "fire leopard-c1 m113 ap"})
    assert refused.status_code == 422
    assert refused.json()["error"] == {"type": "refused", "message": "M113 is a friendly unit (NATO): Leopard C1 "
                                       "attacks enemy units only (TUS §6.1)"}


def test_the_rulebook_fire_resolved_with_given_dice(client: TestClient, tmp_path: Path) -> None:
    sid = open_session(client)
    response = client.post(f"/api/v1/sessions/{sid}/resolve", json={"action": RULEBOOK_FIRE, "dice": RULEBOOK_DICE})
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["results"] == [{"unit": "t-64", "result": "disrupted_and_reduced"}]
    assert data["rolls"] == [{"action": 0, "label": "attack", "values": [4, 1, 5, 4]},
                             {"action": 0, "label": "save", "values": [1, 3, 4, 4, 6]}]
    assert data["dice"] == {"given": [4, 1, 5, 4, 1, 3, 4, 4, 6]} and data["seed"] is None
    report = data["report"].splitlines()
    assert report[0] == "direct fire AP: Leopard C1 (B7) -> T-64 (F6)"
    assert "  4 dice at 4+: 3 hit(s) (TUS §6.1)" in report
    assert report[-1] == "  result: Leopard C1 is Ops Complete; T-64 is Disrupted; T-64 is Reduced"
    saved = client.get(f"/api/v1/sessions/{sid}/downloads/{data['downloads']['save']}")
    assert saved.status_code == 200
    assert saved.headers["content-disposition"] == 'attachment; filename="demo-resolved-1.vsav"'
    download = tmp_path / "downloaded.vsav"
    download.write_bytes(saved.content)
    t64 = read_position(download, MODULE, PROFILE).game.units["t-64"]
    assert t64.strength == "reduced" and t64.status.disrupted is True
    audit = client.get(f"/api/v1/sessions/{sid}/downloads/{data['downloads']['audit']}").json()
    assert audit["results"] == data["results"] and audit["dice"] == data["dice"]
    # The game goes on from the corrected save.
    after = {u["key"]: u for u in client.get(f"/api/v1/sessions/{sid}").json()["units"]}
    assert after["t-64"]["strength"] == "reduced" and after["t-64"]["status"]["disrupted"] is True
    svg = client.get(f"/api/v1/sessions/{sid}/position.svg")
    assert svg.headers["content-type"] == "image/svg+xml"
    assert 'data-unit="t-64" data-state="DISR REDUCED"' in svg.text and "DISRUPTED + REDUCED" in svg.text


def test_resolve_without_dice_rolls_with_a_seed_it_shows(client: TestClient) -> None:
    first, second = open_session(client), open_session(client)
    one = client.post(f"/api/v1/sessions/{first}/resolve", json={"action": RULEBOOK_FIRE}).json()
    assert isinstance(one["seed"], int) and one["dice"] == {"seed": one["seed"]}
    again = client.post(f"/api/v1/sessions/{second}/resolve", json={"action": RULEBOOK_FIRE, "seed": one["seed"]})
    assert again.json()["rolls"] == one["rolls"] and again.json()["report"] == one["report"]


def test_a_refused_resolution_writes_nothing(client: TestClient, tmp_path: Path) -> None:
    sid = open_session(client)
    response = client.post(f"/api/v1/sessions/{sid}/resolve",
                           json={"action": "fire leopard-c1 m113 ap", "dice": RULEBOOK_DICE})
    assert response.status_code == 422
    data = response.json()
    assert data["error"]["type"] == "refused"
    assert data["refused"]["reasons"] == [{"section": "TUS §6.1", "text": "M113 is a friendly unit (NATO): "
                                           "Leopard C1 attacks enemy units only"}]
    assert "downloads" not in data
    [folder] = session_folders(tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == ["save.vsav"]


@pytest.mark.parametrize("body, message", [
    ({"action": RULEBOOK_FIRE, "dice": "4,x"}, "dice '4,x': expected numbers separated by commas"),
    ({"action": RULEBOOK_FIRE, "dice": [4, 7]}, None),
    ({"action": RULEBOOK_FIRE, "dice": "4", "seed": 3}, "give dice or seed, not both"),
    ({"action": RULEBOOK_FIRE, "seed": -1}, "seed must be a whole number from 0"),
    ({"action": RULEBOOK_FIRE, "seed": "1"}, "seed must be a whole number from 0"),
])
def test_resolve_refuses_bad_dice(client: TestClient, tmp_path: Path, body: dict, message: str | None) -> None:
    sid = open_session(client)
    response = client.post(f"/api/v1/sessions/{sid}/resolve", json=body)
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "bad_dice"
    if message:
        assert response.json()["error"]["message"] == message
    [folder] = session_folders(tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == ["save.vsav"]


def test_too_few_given_dice_cannot_be_resolved(client: TestClient, tmp_path: Path) -> None:
    sid = open_session(client)
    response = client.post(f"/api/v1/sessions/{sid}/resolve", json={"action": RULEBOOK_FIRE, "dice": "4,1"})
    assert response.status_code == 400
    assert response.json()["error"] == {"type": "resolve_error", "message": "fire leopard-c1 t-64 ap: roll 'attack' "
                                        "wants 4 dice but only 2 of the given dice are left (0 already used)"}
    [folder] = session_folders(tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == ["save.vsav"]


def test_los_is_the_cli_answer(client: TestClient) -> None:
    sid = open_session(client)
    answer = client.post(f"/api/v1/sessions/{sid}/los", json={"from": "leopard-c1", "to": "t-64"}).json()
    assert answer == {"from": "B7", "to": "F6", "blocked": False,
                      "reasons": [{"section": "TUS §7.1", "text": "no blocking terrain"}],
                      "intervening": [{"hex": h, "terrain": "clear", "markers": []} for h in ("C7", "D7", "D6", "E7")],
                      "along_hexsides": [], "gaps": []}
    bad = client.post(f"/api/v1/sessions/{sid}/los", json={"from": "leopard-c1", "to": "Z99"})
    assert bad.status_code == 400
    assert bad.json()["error"] == {"type": "bad_field", "message": "'Z99' is neither a unit key nor a hex of the "
                                   "position"}
    assert client.post(f"/api/v1/sessions/{sid}/los", json={"from": "leopard-c1"}).status_code == 400


def test_import_and_export_round_trip(client: TestClient, tmp_path: Path) -> None:
    sid = open_session(client)
    for fmt in ("yaml", "json"):
        data = client.post(f"/api/v1/sessions/{sid}/import", json={"format": fmt}).json()
        assert data["units"] == 8 and data["format"] == fmt
        assert client.get(f"/api/v1/sessions/{sid}/downloads/{data['download']}").text == data["scenario"]
    scenario = json.loads(data["scenario"])
    assert {u["key"]: u["hex"] for u in scenario["units"]}["t-64"] == "F6"
    assert client.post(f"/api/v1/sessions/{sid}/import", json={"format": "xml"}).status_code == 400
    exported = client.post(f"/api/v1/sessions/{sid}/export", json={"scenario": data["scenario"], "format": "json"})
    assert exported.status_code == 200, exported.text
    assert exported.json()["units"] == 8
    save = client.get(f"/api/v1/sessions/{sid}/downloads/{exported.json()['download']}")
    path = tmp_path / "exported.vsav"
    path.write_bytes(save.content)
    units = read_position(path, MODULE, PROFILE).game.units
    assert {k: u.hex for k, u in units.items()} == {u["key"]: u["hex"] for u in scenario["units"]}


def test_export_refuses_a_bad_scenario_and_a_yaml_alias(client: TestClient, tmp_path: Path) -> None:
    sid = open_session(client)
    response = client.post(f"/api/v1/sessions/{sid}/export", json={"scenario": "scenario: 1\nunits: 3\n"})
    assert response.status_code == 400 and response.json()["error"]["type"] == "schema_error"
    alias = "a: &x [1]\nb: *x\n"
    response = client.post(f"/api/v1/sessions/{sid}/export", json={"scenario": alias})
    assert response.status_code == 400 and "alias" in response.json()["error"]["message"]
    assert str(tmp_path) not in response.json()["error"]["message"]
    [folder] = session_folders(tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == ["save.vsav"]


def test_the_sample_session_and_unknown_routes(client: TestClient) -> None:
    response = client.post("/api/v1/sessions/sample")
    assert response.status_code == 201 and response.json()["files"] == {"save": "demo.vsav"}
    missing = client.get("/api/v1/nothing")
    assert missing.status_code == 404 and missing.json()["error"]["type"] == "not_found"
    sid = response.json()["session"]
    assert client.get(f"/api/v1/sessions/{sid}/downloads/nope").json()["error"]["type"] == "no_download"


def test_openapi_describes_every_route(client: TestClient) -> None:
    description = client.get("/api/v1/openapi.json").json()
    assert description == DESCRIPTION and description["openapi"] == "3.1.0"
    from converter.web.app import create_app
    app = create_app(Settings(PORT, token=TOKEN))
    routed = {route.path.replace("{session}", "{session}") for route in app.routes
              if route.path.startswith("/api/v1")}
    assert routed == set(description["paths"])


def test_the_web_import_and_export_keep_what_a_counter_shows(client: TestClient, tmp_path: Path) -> None:
    """The companion makes its scenarios as the CLI does: a counter's Moved flag, which the
    profile does not read, comes back on the exported counter."""
    from converter.vassal.module import Module
    from converter.vassal.save import SavedGame
    from tests.test_counter_states import moved_leopard_save
    moved = tmp_path / "moved.vsav"
    moved.write_bytes(moved_leopard_save(Module.read(MODULE)).to_bytes())
    sid = open_session(client, moved)
    data = client.post(f"/api/v1/sessions/{sid}/import", json={"format": "json"}).json()
    assert json.loads(data["scenario"])["vassal"]["states"] == {
        "leopard-c1": {"piece": "Leopard C1", "traits": {"MovementMarkable": "true"}}}
    exported = client.post(f"/api/v1/sessions/{sid}/export", json={"scenario": data["scenario"], "format": "json"})
    assert exported.status_code == 200, exported.text
    path = tmp_path / "exported.vsav"
    path.write_bytes(client.get(f"/api/v1/sessions/{sid}/downloads/{exported.json()['download']}").content)
    new = SavedGame.read(path)
    leopard = read_position(path, MODULE, PROFILE).piece_of["leopard-c1"]
    assert new.piece(leopard).traits[1].kind == "MovementMarkable" and new.piece(leopard).traits[1].state_text() == "true"


# -- findings point at their unit; a log step by step ---------------------------------------------

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
TLD = CORPUS / "tld-longest-day"
#: The sample save with five logged moves: four break a rule (TUS §5.0, §4.4, §1.3.3.1, §1.4).
LOG_MOVES = [("Leopard C1", "H7"), ("M113", "C8"), ("T-64", "G5"), ("Soviet HQ", "J4"), ("T-64", "H4")]
LEOPARD_MOVE = {"severity": "error", "code": "move",
                "message": "B7 -> H7 (cheapest route C7 D6 E7 F7 G7 H7, 7 MP): 7 MP is more than the Movement "
                           "Factor 4", "name": "Leopard C1", "hex": "B7", "section": "TUS §5.0", "step": 0,
                "unit": "leopard-c1"}


@pytest.fixture
def sample_log(tmp_path: Path) -> Path:
    from tests.test_validate import _log
    folder = tmp_path / "logs"
    folder.mkdir()
    return _log(folder, LOG_MOVES)


def folder_files(tmp_path: Path) -> list[str]:
    return sorted(p.name for folder in session_folders(tmp_path) for p in folder.iterdir())


def test_findings_name_the_unit_and_hex_they_concern(client: TestClient, sample_log: Path) -> None:
    sid = open_session(client, sample_log)
    report = client.post(f"/api/v1/sessions/{sid}/validate").json()
    moves = [f for f in report["findings"] if f["code"] == "move"]
    assert [(f["step"], f["unit"], f["hex"], f["section"]) for f in moves] == [
        (0, "leopard-c1", "B7", "TUS §5.0"), (1, "m113", "B8", "TUS §4.4"), (3, "soviet-hq", "H4", "TUS §1.3.3.1"),
        (4, "t-64", "G5", "TUS §1.4")]
    assert {k: v for k, v in moves[0].items() if k != "piece"} == LEOPARD_MOVE
    listing = client.get(f"/api/v1/sessions/{sid}/steps").json()          # the same report, step by step
    assert sum(s["findings"] for s in listing["steps"]) + len(listing["start"]) == len(report["findings"]) == 4


def test_a_log_is_stepped_through_with_each_steps_position_and_findings(client: TestClient, sample_log: Path,
                                                                       tmp_path: Path) -> None:
    sid = open_session(client, sample_log)
    assert client.get(f"/api/v1/sessions/{sid}").json()["kind"] == "log"
    listing = client.get(f"/api/v1/sessions/{sid}/steps").json()
    assert (listing["file"], listing["count"], listing["rules"], listing["start"]) == \
        ("moves.vlog", 6, "classic:untold", [])
    assert [(s["step"], s["moves"], s["findings"]) for s in listing["steps"]] == \
        [(0, 1, 1), (1, 1, 1), (2, 1, 0), (3, 1, 1), (4, 1, 1), (5, 0, 0)]
    assert listing["steps"][5]["chat"] == ["<alice> done"]

    first = client.get(f"/api/v1/sessions/{sid}/steps/0").json()
    assert [{k: v for k, v in f.items() if k != "piece"} for f in first["findings"]] == [LEOPARD_MOVE]
    assert (first["step"], first["count"], first["changed"], first["moves"]) == (0, 6, ["leopard-c1"], 1)
    assert first["position_svg"] == f"/api/v1/sessions/{sid}/position.svg?step=0"
    hexes = {u["key"]: u["hex"] for u in first["units"]}
    assert (hexes["leopard-c1"], hexes["t-64"]) == ("H7", "F6")

    last = client.get(f"/api/v1/sessions/{sid}/steps/4").json()          # forward, then back again
    assert [(f["code"], f["unit"], f["section"]) for f in last["findings"]] == [("move", "t-64", "TUS §1.4")]
    assert {u["key"]: u["hex"] for u in last["units"]}["t-64"] == "H4"
    quiet = client.get(f"/api/v1/sessions/{sid}/steps/2").json()
    assert (quiet["findings"], quiet["changed"]) == ([], ["t-64"])
    assert {u["key"]: u["hex"] for u in quiet["units"]}["t-64"] == "G5"

    svg = client.get(f"/api/v1/sessions/{sid}/position.svg?step=4")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert svg.text.count('class="counter"') == 8 and 'data-unit="t-64"' in svg.text
    assert folder_files(tmp_path) == ["save.vsav"]                      # stepping writes nothing


@pytest.mark.parametrize("step, message", [
    ("6", "step 6 is past the log's last step (steps 0 to 5)"),
    ("-1", "step '-1' is not a step number (0, 1, 2 ...)"),
    ("two", "step 'two' is not a step number (0, 1, 2 ...)"),
    ("9" * 12, "step '999999999999' is not a step number (0, 1, 2 ...)")])
def test_a_bad_step_is_a_typed_400(client: TestClient, sample_log: Path, tmp_path: Path, step: str,
                                   message: str) -> None:
    sid = open_session(client, sample_log)
    for path in (f"/api/v1/sessions/{sid}/steps/{step}", f"/api/v1/sessions/{sid}/position.svg?step={step}"):
        response = client.get(path)
        assert response.status_code == 400
        assert response.json() == {"error": {"type": "bad_step", "message": message}}
    assert folder_files(tmp_path) == ["save.vsav"]


def test_a_save_has_no_steps(client: TestClient) -> None:
    sid = open_session(client)
    response = client.get(f"/api/v1/sessions/{sid}/steps")
    assert response.status_code == 400
    assert response.json() == {"error": {"type": "not_a_log", "message": "demo.vsav is a save, not a log: it has no "
                                         "steps to go through (upload a log, .vlog, written by VASSAL's Begin "
                                         "Logging)"}}
    assert client.get(f"/api/v1/sessions/{sid}/steps/0").status_code == 400
    assert client.get("/api/v1/sessions/nope/steps").json()["error"]["type"] == "no_session"


@pytest.mark.slow
def test_a_real_log_of_the_corpus_is_stepped_through(tmp_path: Path) -> None:
    """The Longest Day 0606-1 (2,213 steps, soundness only): the step where a logged move names
    a piece that is not there, as ``wawkit validate`` reports it, and the position around it."""
    settings = Settings(PORT, token=TOKEN, module=str(TLD / "buildFile"),
                        profile=str(Path(__file__).resolve().parents[1] / "profiles" / "longest-day.yaml"),
                        units=str(TLD / "faces.csv"), temp_root=str(tmp_path))
    with TestClient(guarded_app(settings), base_url=BASE, headers={"Authorization": f"Bearer {TOKEN}"}) as c:
        sid = open_session(c, TLD / "logs" / "0606-1.log")
        start = {u["key"]: u for u in c.get(f"/api/v1/sessions/{sid}").json()["units"]}
        listing = c.get(f"/api/v1/sessions/{sid}/steps").json()
        assert (listing["count"], listing["rules"], listing["counts"]) == \
            (2213, "none", {"error": 3, "warning": 1469, "unsupported": 0, "info": 0})
        assert [s["step"] for s in listing["steps"] if s["findings"]] == [1145, 1792, 1804]
        assert listing["steps"][2]["chat"] == ["<Joel> - Eisenhower places a letter into his pocket..."]
        step = c.get(f"/api/v1/sessions/{sid}/steps/1145").json()
        assert step["findings"] == [{"severity": "warning", "code": "missing-piece", "message": "moves a piece that "
                                     "is not in the position (VASSAL ignores the command)", "piece": "1168786995021",
                                     "step": 1145}]
        assert (step["moves"], step["changed"]) == (1, [])
        moved = c.get(f"/api/v1/sessions/{sid}/steps/6").json()      # back: the first move of a unit
        assert (moved["findings"], moved["changed"]) == ([], ["1725"])
        unit = {u["key"]: u for u in moved["units"]}["1725"]
        assert (unit["name"], unit["hex"], start["1725"]["hex"]) == ("82 1/508", "2724", None)
        assert folder_files(tmp_path) == ["save.vsav"]


# -- every action kind; the sample game with one click ---------------------------------------------

def test_the_action_menu_lists_every_kind_wawkit_actions_lists(client: TestClient) -> None:
    from click.testing import CliRunner

    from converter.actions_help import FIELD_NOTES
    from converter.cli import main
    listing = client.get("/api/v1/actions").json()
    printed = CliRunner().invoke(main, ["actions", "--json"])
    assert printed.exit_code == 0 and listing["kinds"] == json.loads(printed.output)
    assert listing["fields"] == FIELD_NOTES
    kinds = {k["kind"]: k for k in listing["kinds"]}
    assert kinds["indirect_fire"]["short_form"].startswith("artillery CALLER HEX [he|smoke|")
    assert kinds["concealment"]["short_form"] is None and len(kinds) == 65


def test_an_action_without_a_short_form_is_checked_as_a_mapping(client: TestClient) -> None:
    sid = open_session(client)
    response = client.post(f"/api/v1/sessions/{sid}/check",
                           json={"action": {"kind": "concealment", "unit": "leopard-c1", "target": "soviet-infantry"}})
    assert response.status_code == 200, response.text
    verdict = response.json()
    assert (verdict["kind"], verdict["action"]) == ("concealment", "concealment leopard-c1 soviet-infantry")
    fire = client.post(f"/api/v1/sessions/{sid}/check", json={"action": {"kind": "direct_fire", "unit": "leopard-c1",
                                                                         "target": "m113", "weapon": "ap"}}).json()
    assert fire["verdict"] == "refused"
    assert fire["refusals"] == [{"section": "TUS §6.1", "text": "M113 is a friendly unit (NATO): Leopard C1 attacks "
                                                                "enemy units only"}]


@pytest.mark.parametrize("action, kind, message", [
    ({"unit": "leopard-c1"}, "bad_action", "action: an action needs a 'kind' (e.g. direct_fire)"),
    ({"kind": "direct_fire", "unit": "leopard-c1", "target": "t-64", "hits": "2"}, "bad_action",
     "action: hits must be a whole number, not '2'"),
    ({"kind": "direct_fire", "unit": ["a", "b"], "target": "t-64"}, "bad_action",
     "action: unit must be one unit key, hex or name"),
    (7, "bad_field", "'action' must be a string")])
def test_a_bad_action_mapping_is_a_typed_400(client: TestClient, tmp_path: Path, action: object, kind: str,
                                             message: str) -> None:
    sid = open_session(client)
    for route in ("check", "odds", "resolve"):
        response = client.post(f"/api/v1/sessions/{sid}/{route}", json={"action": action, "dice": RULEBOOK_DICE})
        assert response.status_code == 400, (route, response.text)
        assert response.json() == {"error": {"type": kind, "message": message}}
    assert folder_files(tmp_path) == ["save.vsav"]


def test_without_a_module_the_server_offers_the_sample_game(tmp_path: Path) -> None:
    with client_for(tmp_path, preload=False) as c:
        assert c.get("/api/v1/config").json() == {
            "module": None, "profile": None, "sample_save": True,
            "sample": {"save": "demo.vsav", "module": "waw-sample.vmod", "profile": "profile.yaml"}}
        response = c.post("/api/v1/sessions/sample")
        assert response.status_code == 201, response.text
        data = response.json()
        assert data["files"] == {"module": "waw-sample.vmod", "profile": "profile.yaml", "save": "demo.vsav"}
        assert (data["module_from_server"], data["profile_from_server"], data["ruleset"]) == \
            (True, True, "classic:untold")
        fire = data["pending"][0]
        assert fire == {"id": "leopard-fires-at-t64", "action": {"action": "direct_fire", "unit": "leopard-c1",
                                                                 "target": "t-64", "weapon": "ap"},
                        "dice": [4, 1, 5, 4, 1, 3, 4, 4, 6],
                        "source": "001 §6.1 example: 3 hits, 1 ignored; the T-64 is Disrupted and Reduced"}
        assert [p["id"] for p in data["pending"]][:3] == ["leopard-fires-at-t64", "us-hq-looks-at-soviet-hq",
                                                          "is-the-soviet-infantry-concealed"]
        assert folder_files(tmp_path) == ["save.vsav"]              # the module and profile stay the server's
        resolved = c.post(f"/api/v1/sessions/{data['session']}/resolve",
                          json={"action": fire["action"], "dice": fire["dice"]}).json()
        assert resolved["report"].splitlines()[-1] == \
            "  result: Leopard C1 is Ops Complete; T-64 is Disrupted; T-64 is Reduced"


def test_a_server_without_samples_offers_none(tmp_path: Path) -> None:
    settings = Settings(PORT, token=TOKEN, samples=None, temp_root=str(tmp_path))
    with TestClient(guarded_app(settings), base_url=BASE, headers={"Authorization": f"Bearer {TOKEN}"}) as c:
        assert c.get("/api/v1/config").json() == {"module": None, "profile": None, "sample_save": False,
                                                  "sample": None}
        response = c.post("/api/v1/sessions/sample")
        assert response.status_code == 404 and response.json()["error"]["type"] == "no_sample"
    assert session_folders(tmp_path) == []
