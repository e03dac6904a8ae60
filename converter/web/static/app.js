// wawkit's page: upload a save, click the acting unit then the target, check, roll, download.
// Plain JavaScript, no library: every answer comes from the JSON API under /api/v1.
"use strict";

const API = "/api/v1";
const state = { session: null, units: [], actor: null, target: null, downloads: null };
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

async function start() {
  const { data } = await call("GET", "/config");
  if (data.module && data.profile) {
    $("preloaded").hidden = false;
    $("preloaded-names").textContent = `${data.module}, ${data.profile}`;
    $("upload-module").hidden = true;
  }
  $("sample").hidden = !data.sample_save;
}

async function opened(result) {
  showError(result.ok ? null : result.data);
  if (!result.ok) return;
  state.session = result.data.session;
  $("files").textContent = Object.entries(result.data.files).map(([k, v]) => `${k}: ${v}`).join(" | ");
  $("act").disabled = false;
  $("jobs").disabled = false;
  setUnits(result.data.units || []);
  await drawBoard();
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

async function drawBoard() {
  const response = await fetch(`${API}/sessions/${state.session}/position.svg`, { credentials: "same-origin" });
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

function composeAction() {
  const [verb, weapon] = $("verb").value.split("|");
  if (!state.actor || !state.target) return;
  $("action").value = [verb, state.actor, state.target, weapon].filter(Boolean).join(" ");
}

function rules(list) {
  const ul = document.createElement("ul");
  for (const reason of list) ul.appendChild(text("li", reason.section ? `${reason.text} (${reason.section})` : reason.text));
  return ul;
}

async function check() {
  const action = $("action").value.trim();
  $("odds").replaceChildren();
  $("verdict").replaceChildren();
  if (action.startsWith("los ")) {
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
  const action = $("action").value.trim();
  const body = { action };
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
  await drawBoard();
}

async function validate() {
  const result = await call("POST", `/sessions/${state.session}/validate`);
  showError(result.ok ? null : result.data);
  if (!result.ok) return;
  const report = result.data;
  const box = $("findings");
  box.replaceChildren(text("div", `${report.file}: ${report.passed ? "passed" : "findings"} (${report.counts.error} errors, ${report.counts.warning} warnings, ${report.counts.unsupported} not supported)`));
  const ul = document.createElement("ul");
  for (const finding of report.findings) {
    const item = text("li", `${finding.severity}: ${finding.message}` + (finding.section ? ` (${finding.section})` : ""));
    ul.appendChild(item);
  }
  box.appendChild(ul);
}

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
$("verb").addEventListener("change", composeAction);
$("check").addEventListener("click", check);
$("roll").addEventListener("click", roll);
$("copy").addEventListener("click", () => navigator.clipboard.writeText($("report").textContent));
$("validate").addEventListener("click", validate);
$("import-yaml").addEventListener("click", () => importAs("yaml"));
$("import-json").addEventListener("click", () => importAs("json"));
$("scenario").addEventListener("change", exportScenario);
start();
