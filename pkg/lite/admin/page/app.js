// The admin page: reads the API, renders it with textContent only (every
// value is a remote's), and refreshes on each event of the stream.
"use strict";

const $ = (sel) => document.querySelector(sel);
const eventTypes = ["joined", "ended", "refused", "backend-up", "backend-down", "route-added", "route-removed", "wake"];

async function api(path, opts = {}) {
  const headers = Object.assign({ "X-Gate-Operator": "page" }, opts.headers || {});
  const resp = await fetch(path, Object.assign({ credentials: "same-origin" }, opts, { headers }));
  if (resp.status === 401) {
    showLogin();
    throw new Error("unauthorized");
  }
  if (!resp.ok) {
    throw new Error(path + ": " + resp.status + " " + (await resp.text()).trim());
  }
  return resp.json();
}

function showLogin() {
  $("#login").hidden = false;
  $("#main").hidden = true;
  $("#logout").hidden = true;
  $("#login-failed").hidden = !location.search.includes("login=failed");
}

function row(tbody, cells, attrs = {}) {
  const tr = document.createElement("tr");
  for (const [k, v] of Object.entries(attrs)) tr.dataset[k] = v;
  for (const c of cells) {
    const td = document.createElement("td");
    if (c instanceof Node) td.append(c);
    else if (c && typeof c === "object") {
      td.textContent = c.text;
      if (c.cls) td.className = c.cls;
    } else td.textContent = c == null ? "" : String(c);
    tr.append(td);
  }
  tbody.append(tr);
  return tr;
}

function button(label, action, onClick) {
  const b = document.createElement("button");
  b.textContent = label;
  b.dataset.action = action;
  b.addEventListener("click", onClick);
  return b;
}

function fill(id, items, render) {
  const tbody = $(id + " tbody");
  tbody.replaceChildren();
  for (const it of items || []) render(tbody, it);
}

function since(t) {
  if (!t) return "";
  const s = Math.max(0, Math.round((Date.now() - Date.parse(t)) / 1000));
  return s < 120 ? s + "s" : Math.round(s / 60) + "m";
}

async function write(method, kind, body, target) {
  const q = target !== undefined ? "?target=" + encodeURIComponent(target) : "";
  const opts = { method, headers: { "Content-Type": "application/json" } };
  if (body) opts.body = JSON.stringify(body);
  try {
    await api("/api/v1/operator/" + kind + q, opts);
    showError("");
  } catch (e) {
    showError(e.message);
  }
  refresh();
}

function showError(msg) {
  $("#error").textContent = msg;
  $("#error").hidden = !msg;
}

function renderBackends(tbody, b) {
  const drained = b.reason === "drained";
  const state = drained ? "drained" : b.state;
  const load = b.load ? b.load.online + "/" + b.load.max : "";
  const lat = b.latencyMs != null ? b.latencyMs.toFixed(1) + " ms" : "";
  const act = drained
    ? button("undrain", "undrain", () => write("DELETE", "drain", null, b.backend))
    : button("drain", "drain", () => write("POST", "drain", { target: b.backend }));
  if (b.state === "template") act.hidden = true;
  row(tbody, [b.route, b.backend, { text: state, cls: "state state-" + state }, b.active || 0, load, lat,
    { text: b.why, cls: "why" }, act], { backend: b.backend, route: b.route, state });
}

function details(e) {
  const parts = [];
  if (e.text) parts.push(e.text);
  if (e.bypass) parts.push("bypass: " + e.bypass.join(", "));
  if (e.motd) parts.push("motd: " + e.motd);
  if (e.version) parts.push("version: " + e.version);
  if (e.maxPlayers != null) parts.push("max: " + e.maxPlayers);
  if (e.favicon) parts.push("favicon");
  if (e.expires) parts.push("until " + new Date(e.expires).toLocaleString());
  return parts.join("; ");
}

function render(d) {
  fill("#routes", d.routes, (tb, r) => row(tb, [r.key, (r.hosts || []).join(", "), r.strategy, (r.backends || []).join(", ")]));
  fill("#backends", d.backends, renderBackends);
  fill("#wake", d.wake, (tb, w) => row(tb, [w.key, w.phase, since(w.since), w.sessions]));
  fill("#sessions", d.sessions, (tb, s) => row(tb, [s.player ? s.player.name : "", s.route, s.backend, s.client, since(s.since)]));
  $("#store").textContent = d.operator.store ? "Stored in " + d.operator.store + "." : "";
  fill("#operator", d.operator.entries, (tb, e) => row(tb, [e.kind, e.target, details(e), e.by, since(e.at),
    button("remove", "remove", () => write("DELETE", e.kind, null, e.target))], { kind: e.kind, target: e.target }));
}

let refreshing = null;
let again = false;

async function refresh() {
  if (refreshing) {
    again = true;
    return refreshing;
  }
  refreshing = (async () => {
    try {
      const [routes, backends, wake, sessions, operator] = await Promise.all(
        ["/api/v1/routes", "/api/v1/backends", "/api/v1/wake", "/api/v1/sessions", "/api/v1/operator"].map((p) => api(p)));
      $("#login").hidden = true;
      $("#main").hidden = false;
      render({ routes, backends, wake, sessions, operator });
      document.body.dataset.loaded = String(Date.now());
    } catch (e) {
      if (e.message !== "unauthorized") showError(e.message);
    }
  })();
  await refreshing;
  refreshing = null;
  if (again) {
    again = false;
    refresh();
  }
}

function listen() {
  const es = new EventSource("/api/v1/events");
  es.onopen = () => { $("#live").textContent = "live"; $("#live").className = "on"; };
  es.onerror = () => { $("#live").textContent = "reconnecting"; $("#live").className = "off"; };
  for (const t of eventTypes) es.addEventListener(t, () => refresh());
}

function formBody(form) {
  const body = {};
  for (const [k, v] of new FormData(form)) {
    const s = String(v).trim();
    if (!s) continue;
    if (k === "bypass") body.bypass = s.split(",").map((x) => x.trim()).filter(Boolean);
    else if (k === "maxPlayers") body.maxPlayers = Number(s);
    else body[k] = s;
  }
  return body;
}

function init() {
  for (const form of document.querySelectorAll("form[data-kind]")) {
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      write("POST", form.dataset.kind, formBody(form));
    });
  }
  refresh().then(() => { if (!$("#main").hidden) listen(); });
  setInterval(refresh, 5000); // what the stream does not carry: other replicas' writes
}

init();
