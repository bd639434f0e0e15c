/* anchormem inspector: vanilla JavaScript over the REST API. Every value from the server is put into
   the page as text (textContent / createElement), never as markup. The API key lives in this tab's
   sessionStorage and goes only to this server. */
"use strict";

const store = window.sessionStorage;
const $ = (sel) => document.querySelector(sel);

/* -- elements --------------------------------------------------------------------------------- */

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const fmt = (n, d = 3) => (n === null || n === undefined ? "–" : Number(n).toFixed(d));
const int = (n) => (n === null || n === undefined ? "–" : Number(n).toLocaleString("en"));
const bytes = (n) => {
  if (n === null || n === undefined) return "–";
  const units = ["B", "KB", "MB", "GB"];
  let i = 0; let v = n;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${v.toFixed(i ? 1 : 0)} ${units[i]}`;
};

function status(text, error = false) {
  const el = $("#status");
  el.textContent = text || "";
  el.classList.toggle("error", !!error);
}

function recordLink(id, label) {
  return h("a", { href: `#/record/${encodeURIComponent(id)}`, class: "mono" }, label || id);
}

function pager(page, go, noun) {
  const from = page.total ? page.offset + 1 : 0;
  const to = page.offset + page.items.length;
  return h("div", { class: "pager" },
    h("button", { type: "button", class: "quiet", disabled: page.offset <= 0,
      onclick: () => go(Math.max(0, page.offset - page.limit)) }, "Previous"),
    h("span", {}, `${noun} ${int(from)}–${int(to)} of ${int(page.total)}`),
    h("button", { type: "button", class: "quiet", disabled: page.next_offset === null,
      onclick: () => go(page.next_offset) }, "Next"));
}

/* -- API ----------------------------------------------------------------------------------------- */

class ApiError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }
}

function scope() {
  try { return JSON.parse(store.getItem("anchormem.scope") || "null"); } catch { return null; }
}

async function api(method, path, { query, body } = {}) {
  const url = new URL(path, window.location.origin);
  for (const [k, v] of Object.entries(query || {})) {
    if (v !== null && v !== undefined && v !== "") url.searchParams.set(k, v);
  }
  const headers = { Authorization: `Bearer ${store.getItem("anchormem.key") || ""}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) {
    const e = data.error || {};
    throw new ApiError(r.status, e.code || `http_${r.status}`, e.message || r.statusText);
  }
  return data;
}

function userPath(rest) {
  const s = scope();
  return `/v1/users/${encodeURIComponent(s.user_id)}${rest}`;
}

function scoped(query) {
  const s = scope();
  return { agent_id: s.agent_id, run_id: s.run_id, ...(query || {}) };
}

function showError(err, where) {
  if (err instanceof ApiError && err.status === 404 && /no memory/.test(err.message)) {
    where.replaceChildren(h("p", { class: "card" }, "This memory is empty: nothing has been added for this user yet."));
    status("");
    return;
  }
  if (err instanceof ApiError && err.status === 401) { signOut("The key was refused: " + err.message); return; }
  status(err.message || String(err), true);
}

/* -- sign in ------------------------------------------------------------------------------------- */

let keyInfo = null;

async function signIn(raw) {
  store.setItem("anchormem.key", raw);
  try {
    keyInfo = await api("GET", "/v1/inspect/key");
  } catch (err) {
    store.removeItem("anchormem.key");
    status(err instanceof ApiError && err.status === 401 ? "That key is not valid for this server." : err.message, true);
    return false;
  }
  const options = [];
  const seen = new Set();
  for (const s of keyInfo.scopes) {
    const label = [s.user_id, s.agent_id && `agent ${s.agent_id}`, s.run_id && `run ${s.run_id}`].filter(Boolean).join(" · ");
    options.push({ label, value: s });
    seen.add(JSON.stringify(s));
  }
  for (const u of keyInfo.users) {
    const s = { user_id: u, agent_id: null, run_id: null };
    if (!seen.has(JSON.stringify(s))) options.push({ label: `${u} (empty)`, value: s });
  }
  const select = $("#scope");
  select.replaceChildren(...options.map((o, i) => h("option", { value: i }, o.label)));
  select.onchange = () => { store.setItem("anchormem.scope", JSON.stringify(options[select.value].value)); route(); };
  const current = scope();
  const index = options.findIndex((o) => JSON.stringify(o.value) === JSON.stringify(current));
  select.value = String(index >= 0 ? index : 0);
  if (options.length) store.setItem("anchormem.scope", JSON.stringify(options[select.value].value));
  else store.removeItem("anchormem.scope");
  $("#who").textContent = keyInfo.admin ? "admin key: every user" : `key for ${keyInfo.users.join(", ")}`;
  $("#login").hidden = true;
  $("#session-bar").hidden = false;
  $("#nav").hidden = false;
  status("");
  return true;
}

function signOut(message) {
  store.removeItem("anchormem.key");
  store.removeItem("anchormem.scope");
  keyInfo = null;
  $("#login").hidden = false;
  $("#session-bar").hidden = true;
  $("#nav").hidden = true;
  $("#key").value = "";
  $("#view").replaceChildren(h("section", { class: "intro" }, h("h2", {}, "Signed out"),
    h("p", {}, "Sign in with an API key to inspect a memory.")));
  status(message || "", !!message);
  if (window.location.hash) history.replaceState(null, "", "#");
}

/* -- router -------------------------------------------------------------------------------------- */

const views = {};

function route() {
  if (!keyInfo) return;
  const main = $("#view");
  if (!scope()) {
    main.replaceChildren(h("p", { class: "card" }, "This key has no memory to show yet."));
    return;
  }
  const [, name = "timeline", ...rest] = (window.location.hash || "#/timeline").split("/");
  for (const a of document.querySelectorAll("#nav a")) {
    if (a.dataset.view === name) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
  const view = views[name] || views.timeline;
  status("");
  view(main, rest.map(decodeURIComponent));
}

function heading(text) {
  const el = h("h2", { tabindex: "-1" }, text);
  requestAnimationFrame(() => { if (!document.activeElement || document.activeElement === document.body) el.focus(); });
  return el;
}
/* -- start --------------------------------------------------------------------------------------- */

document.addEventListener("DOMContentLoaded", async () => {
  $("#login").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (await signIn($("#key").value.trim())) {
      if (!window.location.hash || window.location.hash === "#") window.location.hash = "#/timeline"; else route();
    }
  });
  $("#logout").addEventListener("click", () => signOut(""));
  window.addEventListener("hashchange", route);
  const saved = store.getItem("anchormem.key");
  if (saved && (await signIn(saved))) route();
});
