// wawkit's page: open a save or log, click the acting unit then the target, check, roll, download;
// step through a log; click a finding to see its unit or hex on the map.
// Plain JavaScript, no library: every answer comes from the JSON API under /api/v1.
"use strict";

const API = "/api/v1";
const state = { session: null, units: [], actor: null, target: null, downloads: null, kinds: {}, log: null, step: -1 };
const $ = (id) => document.getElementById(id);

function text(tag, content, cls) {
  const node = document.createElement(tag);
  node.textContent = content;
  if (cls) node.className = cls;
  return node;
}

async function call(method, path, body) {
  const options = { method, headers: {}, credentials: "same-origin" };
  if (body instanceof FormData) options.body = body;
  else if (body !== undefined) { options.body = JSON.stringify(body); options.headers["Content-Type"] = "application/json"; }
  const response = await fetch(API + path, options);
  const data = response.status === 204 ? {} : await response.json();
  return { ok: response.ok, status: response.status, data };
}

function showError(data) {
  $("error").textContent = data && data.error ? `${data.error.type}: ${data.error.message}` : "";
}

// -- start: what the server offers, and the action kinds the referee knows ------------------------

async function start() {
  const [{ data }, kinds] = await Promise.all([call("GET", "/config"), call("GET", "/actions")]);
  if (data.module && data.profile) {
    $("preloaded").hidden = false;
    $("preloaded-names").textContent = `${data.module}, ${data.profile}`;
    $("upload-module").hidden = true;
  }
  if (data.sample_save) {
    $("welcome").hidden = false;
    const names = data.sample ? Object.values(data.sample).join(", ") : "";
    $("sample-names").textContent = names ? `(${names})` : "";
  }
  setKinds(kinds.data);
}

function setKinds(catalogue) {
  const select = $("kind");
  const short = document.createElement("optgroup");
  short.label = "Short actions";
  const other = document.createElement("optgroup");
  other.label = "Other kinds (sent as a mapping)";
  for (const kind of catalogue.kinds) {
    state.kinds[kind.kind] = kind;
    const option = text("option", kind.verbs.length ? `${kind.verbs[0]}: ${kind.summary}` : `${kind.kind}: ${kind.summary}`);
    option.value = kind.kind;
    (kind.short_form ? short : other).appendChild(option);
  }
  select.replaceChildren(short, other);
  select.value = "direct_fire";
  kindChanged();
}

// The words of a short form: UNIT, TARGET, HEX... placeholders, [a|b] choices, key=N fields.
function formWords(kind) {
  return (kind.short_form || "").split(/\s+/).slice(1);
}

function kindChanged() {
  const kind = state.kinds[$("kind").value];
  if (!kind) return;
  $("kind-help").textContent = kind.short_form ? `${kind.short_form}   e.g. ${kind.example}` :
    `no short form: sent as ${kind.example}` + (kind.rulesets.length ? "" : " (no ruleset supports it yet)");
  const choice = formWords(kind).find((w) => /^\[[a-z]+(\|[a-z]+)+\]$/.test(w));
  $("option-label").hidden = !choice;
  if (choice) {
    const values = choice.slice(1, -1).split("|");
    $("option-name").textContent = kind.kind === "indirect_fire" ? "mission" : "weapon";
    $("option").replaceChildren(...values.map((v) => { const o = text("option", v.toUpperCase()); o.value = v; return o; }));
  }
  const fields = $("fields");
  fields.replaceChildren();
  for (const word of formWords(kind)) {
    const match = /^\[?([a-z_]+)=([A-Z,.]+)\]?$/.exec(word);
    if (!match || match[1] === "field") continue;
    const input = document.createElement("input");
    input.dataset.field = match[1];
    input.placeholder = match[2];
    input.size = 10;
    input.addEventListener("input", composeAction);
    const label = text("label", `${match[1]}${word.startsWith("[") ? " (optional)" : ""} `);
    label.appendChild(input);
    fields.appendChild(label);
  }
  composeAction();
}

function hexOf(ref) {
  const unit = state.units.find((u) => u.key === ref);
  return unit ? unit.hex : ref;
}

function fieldWords() {
  const words = [];
  document.querySelectorAll("#fields input").forEach((input) => {
    if (input.value.trim()) words.push(`${input.dataset.field}=${input.value.trim()}`);
  });
  return words.concat($("extra").value.trim().split(/\s+/).filter(Boolean));
}

// The action as the API takes it: a short action for a kind with a verb, else a mapping.
function composeAction() {
  const kind = state.kinds[$("kind").value];
  if (!kind) return;
  const actor = state.actor, target = state.target;
  if (!kind.short_form) {
    const mapping = { kind: kind.kind };
    if (actor) mapping.unit = actor;
    if (target) mapping.target = target;
    for (const word of fieldWords()) {
      const [key, ...rest] = word.split("=");
      const value = rest.join("=");
      mapping[key] = /^-?\d+$/.test(value) ? Number(value) : value === "true" ? true : value === "false" ? false :
        value.includes(",") ? value.split(",") : value;
    }
    $("action").value = JSON.stringify(mapping);
    return;
  }
  const words = [kind.verbs[0]];
  for (const word of formWords(kind)) {
    if (word === "UNIT" || word === "CALLER") words.push(actor || word);
    else if (word === "TARGET") words.push(target || word);
    else if (word === "HEX" || word === "HEX...") words.push(target ? hexOf(target) : word);
    else if (word === "[TARGET]" || word === "[HEX]") { if (target) words.push(word === "[HEX]" ? hexOf(target) : target); }
    else if (/^\[[a-z]+(\|[a-z]+)+\]$/.test(word)) words.push($("option").value);
  }
  if (kind.kind === "marker_removal" && !target) words.splice(1);
  $("action").value = words.concat(fieldWords()).join(" ");
}

function actionBody() {
  const typed = $("action").value.trim();
  if (typed.startsWith("{")) {
    try { return JSON.parse(typed); } catch (error) { return typed; }
  }
  return typed;
}

// -- opening a save or log --------------------------------------------------------------------------

async function opened(result) {
  showError(result.ok ? null : result.data);
  if (!result.ok) return;
  state.session = result.data.session;
  state.log = null;
  state.step = -1;
  $("files").textContent = Object.entries(result.data.files).map(([k, v]) => `${k}: ${v}`).join(" | ");
  $("act").disabled = false;
  $("jobs").disabled = false;
  $("findings").replaceChildren();
  $("flag-note").textContent = "";
  setUnits(result.data.units || []);
  showPending(result.data.pending || []);
  await drawBoard(`${API}/sessions/${state.session}/position.svg`);
  $("log").hidden = result.data.kind !== "log";
  if (result.data.kind === "log") await openLog();
}

async function upload(event) {
  event.preventDefault();
  const form = new FormData();
  for (const role of ["save", "module", "profile", "units", "terrain"]) {
    const input = $(role);
    if (input.files.length) form.append(role, input.files[0], input.files[0].name);
  }
  if (state.session) await call("DELETE", `/sessions/${state.session}`);
  state.session = null;
  await opened(await call("POST", "/sessions", form));
}

function showPending(pending) {
  const box = $("pending");
  box.replaceChildren();
  if (!pending.length) return;
  box.appendChild(text("div", "Pending actions of the sample (samples/actions.yaml):", "hint"));
  for (const item of pending) {
    const row = text("div", "", "pending");
    const button = text("button", "Set up");
    button.type = "button";
    button.dataset.pending = item.id;
    button.addEventListener("click", () => setUp(item));
    row.append(button, text("span", ` ${item.id}` + (item.source ? `: ${item.source}` : "")));
    box.appendChild(row);
  }
}

// Fill the action editor with a pending action: its kind, units, weapon and the dice it gives.
function setUp(item) {
  const action = item.action;
  $("kind").value = action.action || action.kind;
  kindChanged();
  state.actor = action.unit || null;
  state.target = action.target || null;
  $("actor").value = state.actor || "";
  $("target").value = state.target || "";
  if (action.weapon) $("option").value = action.weapon;
  composeAction();
  $("dice").value = (item.dice || []).join(",");
  $("seed").value = "";
  mark();
}

function setUnits(units) {
  state.units = units;
  for (const id of ["actor", "target"]) {
    const select = $(id);
    const kept = select.value;
    select.replaceChildren(text("option", "", ""));
    for (const unit of units) {
      const option = text("option", `${unit.name} (${unit.hex || "off map"})`);
      option.value = unit.key;
      select.appendChild(option);
    }
    select.value = kept;
  }
}

async function drawBoard(url) {
  const response = await fetch(url, { credentials: "same-origin" });
  const svg = await response.text();
  const board = $("board");
  // The SVG comes from our own server, with every text XML-escaped by converter.render.svg_text.
  board.innerHTML = svg;
  board.querySelectorAll(".counter").forEach((node) => node.addEventListener("click", (event) => {
    event.stopPropagation();
    pick(node.dataset.unit, "unit");
  }));
  board.querySelectorAll(".hex").forEach((node) => node.addEventListener("click", () => pick(node.dataset.hex, "hex")));
  mark();
}

function pick(ref, kind) {
  if (kind === "unit" && (!state.actor || state.target)) { state.actor = ref; state.target = null; }
  else if (state.actor) { state.target = ref; }
  else return;
  $("actor").value = state.actor || "";
  if (kind === "unit" || !state.target) $("target").value = state.target || "";
  composeAction();
  mark();
}

function mark() {
  document.querySelectorAll("#board .counter, #board .hex").forEach((node) => {
    node.classList.toggle("actor", node.dataset.unit === state.actor);
    node.classList.toggle("target", (node.dataset.unit || node.dataset.hex) === state.target);
  });
}

// -- findings: listed with their rule, each one shown on the map when clicked ---------------------

function findingText(finding) {
  const who = [finding.unit || finding.piece, finding.name].filter(Boolean).join(" ");
  const where = finding.hex ? ` @ ${finding.hex}` : "";
  const step = finding.step !== undefined && finding.step !== null ? `step ${finding.step}: ` : "";
  return `${step}${finding.severity}: ${who}${where}${who || where ? ": " : ""}${finding.message}` +
    (finding.section ? ` (${finding.section})` : "");
}

function findingList(findings) {
  const ul = document.createElement("ul");
  for (const finding of findings) {
    const item = text("li", findingText(finding), "finding");
    if (finding.unit || finding.hex) {
      item.classList.add("shows");
      item.title = "show it on the map";
      item.addEventListener("click", () => showFinding(finding));
    }
    ul.appendChild(item);
  }
  return ul;
}

async function showFinding(finding) {
  if (state.log && finding.step !== undefined && finding.step !== null && finding.step !== state.step) {
    await goToStep(finding.step);
  }
  flag(finding);
}

// Highlight the finding's units and hex on the drawn position and scroll the first into view.
function flag(finding) {
  document.querySelectorAll("#board .flagged").forEach((node) => node.classList.remove("flagged"));
  const nodes = [];
  for (const key of (finding.unit || "").split(", ").filter(Boolean)) {
    document.querySelectorAll(`#board .counter[data-unit="${CSS.escape(key)}"]`).forEach((n) => nodes.push(n));
  }
  if (finding.hex) {
    document.querySelectorAll(`#board .hex[data-hex="${CSS.escape(finding.hex)}"]`).forEach((n) => nodes.push(n));
  }
  nodes.forEach((node) => node.classList.add("flagged"));
  const named = [finding.unit, finding.hex].filter(Boolean).join(" @ ");
  $("flag-note").textContent = nodes.length ? `Shown on the map: ${named}` : `${named} is not on the drawn map`;
  if (nodes.length) nodes[0].scrollIntoView({ block: "center", inline: "center" });
}

async function validate() {
  const result = await call("POST", `/sessions/${state.session}/validate`);
  showError(result.ok ? null : result.data);
  if (!result.ok) return;
  const report = result.data;
  const box = $("findings");
  box.replaceChildren(text("div", `${report.file}: ${report.passed ? "passed" : "findings"} (${report.counts.error} errors, ${report.counts.warning} warnings, ${report.counts.unsupported} not supported)`));
  box.appendChild(findingList(report.findings));
}

// -- a log, step by step ---------------------------------------------------------------------------

async function openLog() {
  $("step-label").textContent = "reading the log...";
  const result = await call("GET", `/sessions/${state.session}/steps`);
  showError(result.ok ? null : result.data);
  if (!result.ok) return;
  state.log = result.data;
  const slider = $("step-slider");
  slider.max = String(state.log.count - 1);
  slider.value = "-1";
  const list = $("step-list");
  list.replaceChildren(text("option", `start (${state.log.start.length} findings)`));
  list.firstChild.value = "-1";
  for (const step of state.log.steps.filter((s) => s.findings)) {
    const option = text("option", `step ${step.step}: ${step.findings} finding${step.findings > 1 ? "s" : ""}`);
    option.value = String(step.step);
    list.appendChild(option);
  }
  await goToStep(-1);
}

async function goToStep(step) {
  if (!state.log) return;
  step = Math.max(-1, Math.min(state.log.count - 1, step));
  state.step = step;
  $("step-slider").value = String(step);
  $("step-list").value = [...$("step-list").options].some((o) => o.value === String(step)) ? String(step) : "";
  $("flag-note").textContent = "";
  // The board is drawn first, then the step's texts: what the texts say is what the board shows.
  if (step === -1) {
    await drawBoard(`${API}/sessions/${state.session}/position.svg`);
    $("step-label").textContent = `start of the log (${state.log.count} steps)`;
    $("step-chat").replaceChildren();
    $("step-findings").replaceChildren(text("div", `${state.log.start.length} findings at the start`), findingList(state.log.start));
    return;
  }
  const result = await call("GET", `/sessions/${state.session}/steps/${step}`);
  showError(result.ok ? null : result.data);
  if (!result.ok) return;
  const data = result.data;
  if (state.step !== step) return;                 // a later click won
  setUnits(data.units);
  await drawBoard(data.position_svg);
  if (state.step !== step) return;
  document.querySelectorAll("#board .counter").forEach((node) => node.classList.toggle("changed", data.changed.includes(node.dataset.unit)));
  $("step-label").textContent = `step ${data.step} of ${data.count - 1}: ${data.moves} move${data.moves === 1 ? "" : "s"}` +
    (data.changed.length ? `, changed ${data.changed.join(", ")}` : "");
  $("step-chat").replaceChildren(...data.chat.map((line) => text("div", line, "chat")));
  $("step-findings").replaceChildren(text("div", `${data.findings.length} finding${data.findings.length === 1 ? "" : "s"} at this step`),
                                     findingList(data.findings));
}

// -- check, odds, resolve ---------------------------------------------------------------------------

function rules(list) {
  const ul = document.createElement("ul");
  for (const reason of list) ul.appendChild(text("li", reason.section ? `${reason.text} (${reason.section})` : reason.text));
  return ul;
}

async function check() {
  const action = actionBody();
  $("odds").replaceChildren();
  $("verdict").replaceChildren();
  if (typeof action === "string" && action.startsWith("los ")) {
    const [, from, to] = action.split(/\s+/);
    const result = await call("POST", `/sessions/${state.session}/los`, { from, to });
    showError(result.ok ? null : result.data);
    if (!result.ok) return;
    const verdict = { true: "LOS BLOCKED", false: "LOS clear", null: "LOS not known" }[result.data.blocked];
    $("verdict").append(text("div", `${result.data.from} -> ${result.data.to}: ${verdict}`,
                             result.data.blocked ? "refused" : "legal"), rules(result.data.reasons));
    return;
  }
  const result = await call("POST", `/sessions/${state.session}/check`, { action });
  showError(result.ok ? null : result.data);
  if (!result.ok) return;
  const verdict = result.data;
  $("verdict").append(text("div", `${verdict.verdict.toUpperCase()}: ${verdict.action}`, verdict.verdict === "legal" ? "legal" : "refused"));
  $("verdict").append(rules(verdict.legal === false ? verdict.refusals : verdict.reasons));
  if (verdict.modifiers.length) {
    $("verdict").append(text("div", "Modifiers:"));
    $("verdict").append(rules(verdict.modifiers.map((m) => ({ text: `${m.applies_to} ${m.value > 0 ? "+" : ""}${m.value}: ${m.why}`, section: m.section }))));
  }
  // A result waiting for its dice is no gap before the roll; any other missing fact is shown.
  for (const [field, why] of Object.entries(verdict.gaps)) {
    if (!why.includes("dice.")) $("verdict").append(text("div", `${field}: ${why}`));
  }
  if (verdict.legal === false) return;
  const odds = await call("POST", `/sessions/${state.session}/odds`, { action });
  if (odds.ok) showOdds(odds.data);
}

function showOdds(odds) {
  const results = odds.results || odds.defender_results || odds.outcome;
  if (!results) return;
  const table = document.createElement("table");
  const head = document.createElement("tr");
  head.append(text("th", "result"), text("th", "odds"));
  table.appendChild(head);
  for (const [result, p] of Object.entries(results)) {
    const row = document.createElement("tr");
    row.append(text("td", result.replaceAll("_", " ")), text("td", `${p.percent}% (${p.p})`));
    table.appendChild(row);
  }
  const title = odds.kind === "fire" ? `Exact odds: ${odds.fp} dice at ${odds.to_hit}+, defence ${odds.defense_dice} dice at ${odds.save}+` : "Exact odds";
  $("odds").append(text("div", title), table);
}

async function roll() {
  const body = { action: actionBody() };
  const dice = $("dice").value.trim();
  const seed = $("seed").value.trim();
  if (dice) body.dice = dice;
  else if (seed) body.seed = Number(seed);
  const result = await call("POST", `/sessions/${state.session}/resolve`, body);
  $("after").hidden = true;
  if (!result.ok && result.status !== 422) { showError(result.data); return; }
  showError(null);
  const data = result.data;
  const seedLine = data.seed !== null && data.seed !== undefined ? `seed ${data.seed}\n` : "";
  $("report").textContent = seedLine + data.report;
  if (result.status === 422) {
    $("verdict").replaceChildren(text("div", "REFUSED: " + data.refused.text, "refused"), rules(data.refused.reasons));
    return;
  }
  state.downloads = data.downloads;
  $("download-save").href = `${API}/sessions/${state.session}/downloads/${data.downloads.save}`;
  $("download-audit").href = `${API}/sessions/${state.session}/downloads/${data.downloads.audit}`;
  $("after").hidden = false;
  setUnits(data.units);
  await drawBoard(`${API}/sessions/${state.session}/position.svg`);
}

// -- migrate ----------------------------------------------------------------------------------------

async function importAs(format) {
  const result = await call("POST", `/sessions/${state.session}/import`, { format });
  showError(result.ok ? null : result.data);
  if (!result.ok) return;
  const link = text("a", `Download the position as ${format.toUpperCase()} (${result.data.units} units)`);
  link.href = `${API}/sessions/${state.session}/downloads/${result.data.download}`;
  $("migrate").replaceChildren(link);
}

async function exportScenario() {
  const file = $("scenario").files[0];
  if (!file) return;
  const format = file.name.toLowerCase().endsWith(".json") ? "json" : "yaml";
  const result = await call("POST", `/sessions/${state.session}/export`, { scenario: await file.text(), format });
  showError(result.ok ? null : result.data);
  if (!result.ok) return;
  const link = text("a", `Download the save made from ${file.name} (${result.data.units} units)`);
  link.href = `${API}/sessions/${state.session}/downloads/${result.data.download}`;
  $("migrate").replaceChildren(link);
}

$("upload").addEventListener("submit", upload);
$("sample").addEventListener("click", async () => {
  if (state.session) await call("DELETE", `/sessions/${state.session}`);
  await opened(await call("POST", "/sessions/sample"));
});
$("actor").addEventListener("change", () => { state.actor = $("actor").value || null; composeAction(); mark(); });
$("target").addEventListener("change", () => { state.target = $("target").value || null; composeAction(); mark(); });
$("kind").addEventListener("change", kindChanged);
$("option").addEventListener("change", composeAction);
$("extra").addEventListener("input", composeAction);
$("check").addEventListener("click", check);
$("roll").addEventListener("click", roll);
$("copy").addEventListener("click", () => navigator.clipboard.writeText($("report").textContent));
$("validate").addEventListener("click", validate);
$("import-yaml").addEventListener("click", () => importAs("yaml"));
$("import-json").addEventListener("click", () => importAs("json"));
$("scenario").addEventListener("change", exportScenario);
$("step-prev").addEventListener("click", () => goToStep(state.step - 1));
$("step-next").addEventListener("click", () => goToStep(state.step + 1));
$("step-slider").addEventListener("change", () => goToStep(Number($("step-slider").value)));
$("step-list").addEventListener("change", () => { if ($("step-list").value !== "") goToStep(Number($("step-list").value)); });
start();
