"""End to end in a real headless browser (Debian's chromium through Selenium): the real
``wawkit serve`` on a free port, the sample save uploaded through the page, the TUS §6.1
example fire resolved with the rulebook's dice, the corrected save downloaded and read
back, a refused fire at a friend and a refused assault shown with their rule; a log
stepped through, a finding clicked and its unit highlighted on the map; and the newcomer's
path: ``wawkit serve`` without arguments, the sample game opened and its fire resolved with
one click each. Screenshots are kept in ``tests/interop/artifacts/`` (``web-companion.png``
is the README's picture).
"""
from __future__ import annotations

import dataclasses
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from converter.resolve import read_position
from tests.interop.browser import browser_paths

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
MODULE, PROFILE, SAVE = SAMPLES / "waw-sample.vmod", SAMPLES / "profile.yaml", SAMPLES / "demo.vsav"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
WAIT = 30


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """``wawkit serve`` with the sample module and profile on a free port; its printed URL."""
    yield from _serve(tmp_path, "--module", str(MODULE), "--profile", str(PROFILE))


@pytest.fixture
def bare_server(tmp_path: Path) -> Iterator[str]:
    """``wawkit serve`` as a newcomer starts it: no module, no profile."""
    yield from _serve(tmp_path)


def _serve(tmp_path: Path, *options: str) -> Iterator[str]:
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen([sys.executable, "-c", "from converter.cli import main; main()", "serve", *options,
                                "--port", "0"], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        process.stdout.readline()
        url = process.stdout.readline().strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]{32}", url), url
        yield url
    finally:
        process.terminate()
        process.wait(timeout=WAIT)
    assert not any(p.name.startswith("wawkit-web-") for p in tmp_path.iterdir())   # sessions deleted on shutdown
    assert process.returncode == -signal.SIGTERM       # uvicorn shuts down cleanly, then re-raises the signal


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[object]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    binary, driver_path = browser_paths()
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000",
                     "--disable-gpu"):
        options.add_argument(argument)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                              "download.prompt_for_download": False})
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    driver.downloads = downloads   # type: ignore[attr-defined]
    try:
        yield driver
    finally:
        driver.quit()


def _wait_text(driver: object, element_id: str, text: str) -> str:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(driver, WAIT).until(lambda d: text in d.find_element(By.ID, element_id).text)
    return driver.find_element(By.ID, element_id).text  # type: ignore[attr-defined]


def _downloaded(folder: Path) -> Path:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        done = [p for p in folder.iterdir() if p.suffix == ".vsav"]
        if done:
            return done[0]
        time.sleep(0.2)
    raise AssertionError(f"no save downloaded into {folder}: {sorted(p.name for p in folder.iterdir())}")


def test_resolve_the_rulebook_fire_in_the_browser(server: str, browser: object) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
    driver = browser
    driver.get(server)                                                   # type: ignore[attr-defined]
    assert "token=" not in driver.current_url                            # type: ignore[attr-defined]
    find = driver.find_element                                           # type: ignore[attr-defined]
    # the page fills it in once its script has asked the server (slow on a loaded machine)
    assert _wait_text(driver, "preloaded-names", "profile.yaml") == "waw-sample.vmod, profile.yaml"
    find(By.ID, "save").send_keys(str(SAVE))
    find(By.ID, "open").click()
    WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, '#board .counter[data-unit="t-64"]'))
    assert _wait_text(driver, "files", "save: demo.vsav") == "save: demo.vsav"

    # A fire at a friend is refused with its rule, before any roll.
    find(By.CSS_SELECTOR, '#board .counter[data-unit="leopard-c1"]').click()
    Select(find(By.ID, "target")).select_by_value("m113")      # under the US infantry in B8: picked from the list
    assert find(By.ID, "action").get_attribute("value") == "fire leopard-c1 m113 ap"
    find(By.ID, "check").click()
    refused = _wait_text(driver, "verdict", "REFUSED")
    assert refused.splitlines() == ["REFUSED: fire leopard-c1 m113 ap",
                                    "M113 is a friendly unit (NATO): Leopard C1 attacks enemy units only (TUS §6.1)",
                                    "Modifiers:", "to_hit -1: point blank range (TUS §6.1.1, §6.1.2)"]
    assert find(By.ID, "odds").text == ""                        # no odds for a refused action
    ARTIFACTS.mkdir(exist_ok=True)
    assert driver.save_screenshot(str(ARTIFACTS / "web-companion-refused.png"))  # type: ignore[attr-defined]

    # Click the acting unit, then the target: the action is composed from the choice.
    find(By.CSS_SELECTOR, '#board .counter[data-unit="leopard-c1"]').click()
    find(By.CSS_SELECTOR, '#board .counter[data-unit="t-64"]').click()
    assert find(By.ID, "action").get_attribute("value") == "fire leopard-c1 t-64 ap"
    find(By.ID, "check").click()
    verdict = _wait_text(driver, "verdict", "LEGAL")
    assert verdict.splitlines()[:3] == ["LEGAL: fire leopard-c1 t-64 ap", "range 4 = effective (TUS §6.1.1, §6.1.2)",
                                        "to-hit 4 (TUS §6.1)"]
    odds = _wait_text(driver, "odds", "Exact odds")
    assert odds.splitlines()[0] == "Exact odds: 4 dice at 4+, defence 5 dice at 5+"
    assert "none 53.7% (29/54)" in odds

    find(By.ID, "dice").send_keys("4,1,5,4,1,3,4,4,6")
    find(By.ID, "roll").click()
    report = _wait_text(driver, "report", "result:")
    assert report.splitlines()[0] == "direct fire AP: Leopard C1 (B7) -> T-64 (F6)"
    assert report.splitlines()[-1] == "  result: Leopard C1 is Ops Complete; T-64 is Disrupted; T-64 is Reduced"
    WebDriverWait(driver, WAIT).until(lambda d: d.find_element(
        By.CSS_SELECTOR, '#board .counter[data-unit="t-64"]').get_attribute("data-state") == "DISR REDUCED")
    ARTIFACTS.mkdir(exist_ok=True)
    assert driver.save_screenshot(str(ARTIFACTS / "web-companion-uploaded.png"))   # type: ignore[attr-defined]

    find(By.ID, "download-save").click()
    saved = _downloaded(driver.downloads)                                # type: ignore[attr-defined]
    assert saved.name == "demo-resolved-1.vsav"
    before = read_position(SAVE, MODULE, PROFILE).game.units
    after = read_position(saved, MODULE, PROFILE).game.units
    assert after["t-64"].strength == "reduced" and after["t-64"].status.disrupted is True
    assert after["leopard-c1"].status.ops_complete is True
    changed = {key for key in before if dataclasses.astuple(before[key]) != dataclasses.astuple(after[key])}
    assert changed == {"t-64", "leopard-c1"}



def _flagged(driver: object) -> list[str]:
    """The highlighted counters and hexes, read in one go (the board may be redrawn meanwhile)."""
    return sorted(driver.execute_script(  # type: ignore[attr-defined]
        "return [...document.querySelectorAll('#board .flagged')].map("
        "e => e.classList[0] + ' ' + (e.dataset.unit || e.dataset.hex));"))


def _in_view(driver: object, selector: str) -> bool:
    """Whether the element's centre lies inside the scrolled board's visible box."""
    return driver.execute_script(  # type: ignore[attr-defined]
        "const e = document.querySelector(arguments[0]).getBoundingClientRect();"
        "const b = document.getElementById('board').getBoundingClientRect();"
        "const x = e.left + e.width / 2, y = e.top + e.height / 2;"
        "return x >= b.left && x <= b.right && y >= b.top && y <= b.bottom;", selector)


def test_step_through_a_log_and_click_its_findings(server: str, browser: object, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
    from tests.test_validate import _log
    log = _log(tmp_path, [("Leopard C1", "H7"), ("M113", "C8"), ("T-64", "G5"), ("Soviet HQ", "J4"), ("T-64", "H4")])
    driver = browser
    find = driver.find_element                                           # type: ignore[attr-defined]
    driver.get(server)                                                   # type: ignore[attr-defined]
    _wait_text(driver, "preloaded-names", "profile.yaml")
    find(By.ID, "save").send_keys(str(log))
    find(By.ID, "open").click()
    assert _wait_text(driver, "step-label", "start of the log") == "start of the log (6 steps)"
    assert [o.text for o in Select(find(By.ID, "step-list")).options] == [
        "start (0 findings)", "step 0: 1 finding", "step 1: 1 finding", "step 3: 1 finding", "step 4: 1 finding"]

    find(By.ID, "step-next").click()
    assert _wait_text(driver, "step-label", "step 0 of") == "step 0 of 5: 1 move, changed leopard-c1"
    assert _wait_text(driver, "step-findings", "TUS").splitlines() == [
        "1 finding at this step",
        "step 0: error: leopard-c1 Leopard C1 @ B7: B7 -> H7 (cheapest route C7 D6 E7 F7 G7 H7, 7 MP): 7 MP is more "
        "than the Movement Factor 4 (TUS §5.0)"]
    find(By.CSS_SELECTOR, "#step-findings li.shows").click()
    WebDriverWait(driver, WAIT).until(lambda d: _flagged(d) == ["counter leopard-c1", "hex B7"])
    assert find(By.ID, "flag-note").text == "Shown on the map: leopard-c1 @ B7"
    assert _in_view(driver, '#board .counter.flagged[data-unit="leopard-c1"]')

    # The whole log's findings: clicking the last one goes to its step and shows its unit there.
    find(By.ID, "validate").click()
    _wait_text(driver, "findings", "moves.vlog: findings (4 errors")
    find(By.XPATH, "//div[@id='findings']//li[starts-with(., 'step 4:')]").click()
    assert _wait_text(driver, "step-label", "step 4 of") == "step 4 of 5: 1 move, changed t-64"
    WebDriverWait(driver, WAIT).until(lambda d: _flagged(d) == ["counter t-64", "hex G5"])
    assert _wait_text(driver, "step-findings", "TUS").splitlines()[1] == (
        "step 4: error: t-64 T-64 @ G5: G5 -> H4 (cheapest route H4, 1 MP): H4 already holds two combat units "
        "(TUS §1.4)")
    counter = find(By.CSS_SELECTOR, '#board .counter[data-unit="t-64"]')
    assert counter.get_attribute("class") == "counter changed flagged"
    assert _in_view(driver, '#board .counter[data-unit="t-64"]')
    ARTIFACTS.mkdir(exist_ok=True)
    assert driver.save_screenshot(str(ARTIFACTS / "web-companion-log.png"))   # type: ignore[attr-defined]

    find(By.ID, "step-prev").click()
    assert _wait_text(driver, "step-label", "step 3 of") == "step 3 of 5: 1 move, changed soviet-hq"
    assert _wait_text(driver, "step-findings", "TUS").splitlines() == [
        "1 finding at this step",
        "step 3: error: soviet-hq Soviet HQ @ H4: H4 -> J4 (cheapest route I4 J4, 2 MP): Soviet HQ may move only "
        "accompanied by a unit of its Formation stacked with it (TUS §1.3.3.1)"]
    assert _flagged(driver) == []                   # nothing highlighted until a finding is clicked
    find(By.ID, "step-prev").click()
    assert _wait_text(driver, "step-label", "step 2 of") == "step 2 of 5: 1 move, changed t-64"
    assert find(By.ID, "step-findings").text == "0 findings at this step"


def test_a_newcomer_opens_the_sample_and_resolves_its_fire(bare_server: str, browser: object) -> None:
    """``make demo``, ``wawkit serve``, the printed URL: the page offers the sample game and its
    rulebook fire; nothing else to read. Any other kind of the menu is refused with its rule."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
    driver = browser
    find = driver.find_element                                           # type: ignore[attr-defined]
    driver.get(bare_server)                                              # type: ignore[attr-defined]
    assert _wait_text(driver, "sample-names", "demo.vsav") == "(demo.vsav, waw-sample.vmod, profile.yaml)"
    find(By.ID, "sample").click()
    WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, '#board .counter[data-unit="t-64"]'))
    assert _wait_text(driver, "files", "save") == "module: waw-sample.vmod | profile: profile.yaml | save: demo.vsav"

    # Another kind from the menu: an assault by a tank without an Assault Factor is refused with its rule.
    Select(find(By.ID, "kind")).select_by_value("assault")
    find(By.CSS_SELECTOR, '#board .counter[data-unit="leopard-c1"]').click()
    find(By.CSS_SELECTOR, '#board .counter[data-unit="t-64"]').click()
    assert find(By.ID, "action").get_attribute("value") == "assault leopard-c1 t-64"
    find(By.ID, "check").click()
    assert _wait_text(driver, "verdict", "REFUSED").splitlines()[:2] == [
        "REFUSED: assault leopard-c1 t-64", "Leopard C1 has no Assault Factor and cannot assault (TUS §6.3)"]
    kinds = Select(find(By.ID, "kind")).options
    assert len(kinds) == 65 and "concealment: " in " ".join(o.text for o in kinds)

    find(By.CSS_SELECTOR, 'button[data-pending="leopard-fires-at-t64"]').click()
    assert find(By.ID, "action").get_attribute("value") == "fire leopard-c1 t-64 ap"
    assert find(By.ID, "dice").get_attribute("value") == "4,1,5,4,1,3,4,4,6"
    find(By.ID, "check").click()
    assert _wait_text(driver, "verdict", "LEGAL").splitlines()[0] == "LEGAL: fire leopard-c1 t-64 ap"
    _wait_text(driver, "odds", "Exact odds")
    find(By.ID, "roll").click()
    report = _wait_text(driver, "report", "result:")
    assert report.splitlines()[-1] == "  result: Leopard C1 is Ops Complete; T-64 is Disrupted; T-64 is Reduced"
    WebDriverWait(driver, WAIT).until(lambda d: d.find_element(
        By.CSS_SELECTOR, '#board .counter[data-unit="t-64"]').get_attribute("data-state") == "DISR REDUCED")
    assert find(By.ID, "download-save").is_displayed()
    ARTIFACTS.mkdir(exist_ok=True)
    assert driver.save_screenshot(str(ARTIFACTS / "web-companion.png"))   # type: ignore[attr-defined]
