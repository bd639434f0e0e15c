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

/* -- timeline ------------------------------------------------------------------------------------ */

const timelineState = { offset: 0, session: "", speaker: "", date_from: "", date_to: "" };

views.timeline = async (main) => {
  const list = h("div", { id: "sessions" });
  const field = (id, label, input) => h("div", { class: "field" }, h("label", { for: id }, label), input);
  const speaker = h("select", { id: "f-speaker", name: "speaker" }, h("option", { value: "" }, "anyone"));
  const form = h("form", { class: "filters", "aria-label": "Filter the timeline" },
    field("f-session", "Session", h("input", { id: "f-session", name: "session", value: timelineState.session, size: 8 })),
    field("f-speaker", "Speaker", speaker),
    field("f-from", "From", h("input", { id: "f-from", name: "date_from", type: "date", value: timelineState.date_from })),
    field("f-to", "To", h("input", { id: "f-to", name: "date_to", type: "date", value: timelineState.date_to })),
    h("button", { type: "submit" }, "Apply"),
    h("button", { type: "reset", class: "quiet" }, "Clear"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(form);
    Object.assign(timelineState, { offset: 0, session: f.get("session").trim(), speaker: f.get("speaker"),
      date_from: f.get("date_from"), date_to: f.get("date_to") });
    load();
  });
  form.addEventListener("reset", () => {
    Object.assign(timelineState, { offset: 0, session: "", speaker: "", date_from: "", date_to: "" });
    setTimeout(load, 0);
  });
  const open = h("form", { class: "filters", "aria-label": "Open a record by id" },
    field("f-open", "Open a record by id (c-…, f-…, e-… or a turn id)",
      h("input", { id: "f-open", name: "id", size: 28, required: true, spellcheck: "false" })),
    h("button", { type: "submit" }, "Open"));
  open.addEventListener("submit", (e) => {
    e.preventDefault();
    window.location.hash = `#/record/${encodeURIComponent(new FormData(open).get("id").trim())}`;
  });
  const counts = h("p", { class: "counts" });
  main.replaceChildren(heading("Timeline"), counts, form, open, list);

  async function load() {
    status("Loading sessions…");
    let page;
    try {
      page = await api("GET", userPath("/inspect/sessions"), { query: scoped({ ...timelineState, limit: 20 }) });
    } catch (err) { showError(err, list); return; }
    const c = page.counts;
    counts.replaceChildren(`${int(c.sessions)} sessions · ${int(c.turns)} turns · ${int(c.contexts)} contexts · ` +
      `${int(c.facts)} facts · ${int(c.events)} events` +
      (page.first_day ? ` · ${page.first_day} to ${page.last_day}` : ""));
    if (speaker.options.length === 1) {
      for (const s of page.speakers) speaker.append(h("option", { value: s }, s));
      speaker.value = timelineState.speaker;
    }
    list.replaceChildren(
      ...(page.items.length ? [] : [h("p", {}, "No session matches these filters.")]),
      ...page.items.map(sessionCard),
      pager(page, (o) => { timelineState.offset = o; load(); }, "Sessions"));
    status(`${int(page.total)} sessions shown by date.`);
  }
  load();
};

function sessionCard(s) {
  const detail = h("div", { class: "session-detail" });
  const toggle = h("button", { type: "button", class: "quiet", "aria-expanded": "false" }, "Show turns");
  toggle.addEventListener("click", () => {
    const open = toggle.getAttribute("aria-expanded") === "true";
    toggle.setAttribute("aria-expanded", String(!open));
    toggle.textContent = open ? "Show turns" : "Hide turns";
    if (open) detail.replaceChildren(); else loadSession(detail, s.session, 0);
  });
  return h("article", { class: "card session", "data-session": s.session },
    h("h3", {}, `Session ${s.session}`, h("span", { class: "muted" }, s.date ? ` — ${s.date}` : " — undated")),
    h("div", { class: "row" },
      h("span", {}, `${int(s.turns)} turns`), h("span", {}, `${int(s.contexts)} contexts`),
      h("span", {}, `${int(s.facts)} facts`), h("span", {}, `${int(s.events)} events`),
      h("span", { class: "muted" }, `speakers: ${s.speakers.join(", ")}`), toggle),
    detail);
}

async function loadSession(where, session, offset) {
  status(`Loading session ${session}…`);
  let page;
  try {
    page = await api("GET", userPath("/inspect/session"),
      { query: scoped({ session, offset, limit: 50, speaker: timelineState.speaker }) });
  } catch (err) { showError(err, where); return; }
  const turns = h("table", {},
    h("caption", { class: "muted" }, `Turns of session ${session}`),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Turn"), h("th", { scope: "col" }, "Speaker"),
      h("th", { scope: "col" }, "Said"), h("th", { scope: "col" }, "Contexts"))),
    h("tbody", {}, page.items.map((t) => h("tr", {},
      h("td", {}, recordLink(t.id)), h("td", {}, t.speaker),
      h("td", {}, t.text, t.image_caption ? h("span", { class: "muted" }, ` [shared ${t.image_caption}]`) : null),
      h("td", {}, t.context_ids.map((c) => [recordLink(c), " "]))))));
  const contexts = page.contexts.map((c) => h("div", { class: "card" },
    h("div", { class: "row" }, h("strong", {}, "Context "), recordLink(c.id),
      h("span", { class: "muted" }, `turns ${c.turn_ids.join(", ")}`)),
    c.facts.length ? h("ul", { class: "plain" }, c.facts.map((f) => h("li", {},
      recordLink(f.id), " ", f.text, " ",
      f.event_ids.map((e) => [h("span", { class: "badge" }, "event ", recordLink(e)), " "])))) :
      h("p", { class: "muted" }, "No facts anchored here.")));
  const events = page.events.length ? [h("h3", {}, "Events tying these facts to other sessions",
    page.events_total > page.events.length ? h("span", { class: "muted" }, ` (first ${page.events.length} of ${int(page.events_total)})`) : null),
    h("ul", { class: "plain" }, page.events.map((e) => h("li", {}, recordLink(e.id), " ",
      h("span", { class: "muted" }, `sessions ${e.sessions.join(", ")}: `), e.text)))] : [];
  where.replaceChildren(turns, pager(page, (o) => loadSession(where, session, o), "Turns"),
    h("h3", {}, "Contexts cut from these turns, and their facts"), ...contexts, ...events);
  status(`Session ${session}: ${int(page.total)} turns.`);
}

/* -- one record ---------------------------------------------------------------------------------- */

views.record = async (main, [id]) => {
  main.replaceChildren(heading(`Record ${id}`));
  let data;
  try { data = await api("GET", userPath(`/inspect/record/${encodeURIComponent(id)}`), { query: scoped() }); }
  catch (err) { showError(err, main); return; }
  const r = data.record;
  const kv = (pairs) => h("dl", { class: "kv" }, pairs.filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
  const blocks = [h("p", {}, h("span", { class: "badge" }, data.kind))];
  if (data.kind === "turn") {
    blocks.push(kv([["id", r.id], ["session", r.session], ["speaker", r.speaker], ["time", r.timestamp], ["said", r.text],
      ["image", r.image_caption]]));
  } else if (data.kind === "context") {
    blocks.push(kv([["id", r.id], ["session", r.session], ["date", r.date], ["turns", r.turn_ids.join(", ")]]),
      h("div", { class: "text" }, r.text));
  } else if (data.kind === "fact") {
    blocks.push(kv([["id", r.id], ["text", r.text], ["source", r.source], ["context", recordLink(r.context_id)],
      ["session", r.session], ["date", r.date]]));
  } else {
    blocks.push(kv([["id", r.id], ["source", r.source], ["sessions", r.sessions.join(", ")]]), h("div", { class: "text" }, r.text));
  }
  const factList = (facts) => h("ul", { class: "plain" }, facts.map((f) => h("li", {}, recordLink(f.id), " ",
    h("span", { class: "muted" }, `session ${f.session ?? "?"}${f.day ? `, ${f.day}` : ""}: `), f.text)));
  if (r.facts && r.facts.length) blocks.push(h("h3", {}, "Facts"), factList(r.facts));
  if (data.turns) blocks.push(h("h3", {}, "Turns"), h("ul", { class: "plain" }, data.turns.map((t) =>
    h("li", {}, recordLink(t.id), ` ${t.speaker}: ${t.text}`))));
  if (data.contexts) blocks.push(h("h3", {}, "Contexts"), ...data.contexts.map((c) =>
    h("div", { class: "card" }, recordLink(c.id), h("div", { class: "text" }, c.text))));
  if (data.events && data.events.length) blocks.push(h("h3", {}, "Events",
    data.events_total > data.events.length ? h("span", { class: "muted" }, ` (first ${data.events.length} of ${int(data.events_total)})`) : null),
  h("ul", { class: "plain" },
    data.events.map((e) => h("li", {}, recordLink(e.id), " ", e.text))));
  main.append(...blocks);
};

/* -- search playground --------------------------------------------------------------------------- */

const searchState = { query: "", variant: "", max_contexts: "", k: "" };

views.search = (main) => {
  const field = (id, label, input) => h("div", { class: "field" }, h("label", { for: id }, label), input);
  const variant = h("select", { id: "s-variant", name: "variant" },
    keyInfo.variants.map((v) => h("option", { value: v }, v === keyInfo.default_variant ? `${v} (default)` : v)));
  variant.value = searchState.variant || keyInfo.default_variant;
  const form = h("form", { class: "filters", role: "search" },
    field("s-query", "Question", h("input", { id: "s-query", name: "query", size: 48, required: true, value: searchState.query })),
    field("s-variant", "Retrieval variant", variant),
    field("s-max", "Contexts", h("input", { id: "s-max", name: "max_contexts", type: "number", min: 1, max: 200,
      size: 4, value: searchState.max_contexts, placeholder: "10" })),
    field("s-k", "Facts and events (k)", h("input", { id: "s-k", name: "k", type: "number", min: 1, max: 200,
      size: 4, value: searchState.k, placeholder: "10" })),
    h("button", { type: "submit" }, "Search"));
  const out = h("div", { id: "results" });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(form);
    Object.assign(searchState, { query: f.get("query").trim(), variant: f.get("variant"),
      max_contexts: f.get("max_contexts"), k: f.get("k") });
    run();
  });
  variant.addEventListener("change", () => { if (searchState.query) form.requestSubmit(); });
  main.replaceChildren(heading("Search playground"), form, out);
  if (searchState.query) run();

  async function run() {
    status("Searching…");
    const body = scoped({ query: searchState.query, variant: searchState.variant });
    if (searchState.max_contexts) body.max_contexts = Number(searchState.max_contexts);
    if (searchState.k) body.k = Number(searchState.k);
    for (const k of ["agent_id", "run_id"]) if (body[k] === null) delete body[k];
    const started = performance.now();
    let r;
    try { r = await api("POST", userPath("/inspect/search"), { body }); } catch (err) { showError(err, out); return; }
    const roundTrip = performance.now() - started;
    out.replaceChildren(...renderSearch(r));
    status(`${r.contexts.length} contexts and ${r.events.length} events in ${roundTrip.toFixed(0)} ms ` +
      `(retrieval ${(r.seconds * 1000).toFixed(1)} ms).`);
  }
};

function highlighted(text, spans) {
  /* Cut the text at every span edge; each piece carries the anchors and query terms covering it. */
  const edges = new Set([0, text.length]);
  for (const s of spans) { edges.add(s.start); edges.add(s.end); }
  const cuts = [...edges].sort((a, b) => a - b);
  const out = h("div", { class: "text" });
  let mark = null; let markAnchor = -1;
  for (let i = 0; i < cuts.length - 1; i++) {
    const [a, b] = [cuts[i], cuts[i + 1]];
    const cover = spans.filter((s) => s.start <= a && s.end >= b);
    const anchor = cover.find((s) => s.kind === "anchor");
    const term = cover.some((s) => s.kind === "term");
    const piece = term ? h("span", { class: "term" }, text.slice(a, b)) : document.createTextNode(text.slice(a, b));
    if (!anchor) { mark = null; markAnchor = -1; out.append(piece); continue; }
    if (!mark || markAnchor !== anchor.anchor) {  /* one mark per run of the same anchor */
      mark = h("mark", { class: `a${anchor.anchor % 5}`, title: `anchor ${anchor.anchor + 1}` });
      markAnchor = anchor.anchor;
      out.append(mark);
    }
    mark.append(piece);
  }
  return out;
}

const SIGNAL_NAMES = { anchor: "anchor cosine", lexical: "lexical (BM25)", shared_turns: "shared-turn spreading",
  events: "event votes", fact_lexical: "fact BM25", rank: "rank score" };

function explanationBlock(x, mode) {
  if (!x) return h("p", { class: "muted" }, "No breakdown for this context.");
  const parts = Object.entries(x.contributions);
  const total = parts.reduce((a, [, v]) => a + Math.max(0, v), 0) || 1;
  const bar = h("div", { class: "bar", role: "img",
    "aria-label": parts.map(([k, v]) => `${SIGNAL_NAMES[k] || k} ${fmt(v)}`).join(", ") },
  parts.map(([k, v]) => { const s = h("span", { class: k }); s.style.width = `${(100 * Math.max(0, v)) / total}%`; return s; }));
  const rows = parts.map(([k, v]) => {
    const sig = x.signals.find((s) => s.name === k);
    return h("tr", {}, h("th", { scope: "row" }, h("span", { class: `key ${k}` }), SIGNAL_NAMES[k] || k),
      h("td", { class: "num" }, sig ? fmt(sig.raw) : "–"), h("td", { class: "num" }, sig ? fmt(sig.normalised) : "–"),
      h("td", { class: "num" }, fmt(v)));
  });
  const table = h("table", { class: "signals" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Signal"), h("th", { scope: "col", class: "num" }, "raw"),
      h("th", { scope: "col", class: "num" }, "normalised"), h("th", { scope: "col", class: "num" }, "contribution"))),
    h("tbody", {}, rows,
      h("tr", {}, h("th", { scope: "row" }, "relevance"), h("td", {}), h("td", {}), h("td", { class: "num" }, fmt(x.relevance)))));
  const sel = mode === "hybrid"
    ? `Selection: relevance rank ${x.relevance_rank ?? "–"}; taken at step ${x.picked_at ?? "–"}` +
      (x.redundancy !== null && x.redundancy !== undefined ? `; similarity to earlier picks ${fmt(x.redundancy, 2)}` : "")
    : `Selection: rank ${x.relevance_rank ?? "–"} in this variant's ranking; best anchor cosine ${fmt(x.best_anchor_cosine)}, BM25 ${fmt(x.lexical_bm25)}`;
  return h("div", {}, bar, table, h("p", { class: "muted" }, sel));
}

function renderSearch(r) {
  const cards = r.contexts.map((c) => h("article", { class: "card hit", "data-context": c.context.id },
    h("h3", {}, `${c.position}. `, recordLink(c.context.id),
      h("span", { class: "muted" }, ` session ${c.context.session} · ${c.context.date || "undated"} · score ${fmt(c.score)}`)),
    highlighted(c.context.text, c.spans),
    h("ul", { class: "plain anchors", "aria-label": "Anchors that led here" }, c.anchors.map((a, i) => h("li", {},
      h("span", { class: `swatch a${i % 5}`, "aria-hidden": "true" }), `anchor ${i + 1} · cosine ${fmt(a.score)} · `,
      recordLink(a.fact.id), " ", a.fact.text))),
    c.via_events.length ? h("p", { class: "muted" }, "Also reached from events: ",
      c.via_events.map((e) => [recordLink(e), " "])) : null,
    h("details", { open: true }, h("summary", {}, "Why this context"), explanationBlock(c.explanation, r.mode))));
  const events = r.events.length ? r.events.map((e) => h("div", { class: "card event" },
    h("div", { class: "row" }, recordLink(e.event.id), h("span", { class: "muted" }, `score ${fmt(e.score)}`)),
    h("p", {}, e.event.text),
    h("details", {}, h("summary", {}, `${e.facts.length} facts from ${e.context_ids.length} contexts`),
      h("ul", { class: "plain" }, e.facts.map((f) => h("li", {}, recordLink(f.id), " ", f.text))))))
    : [h("p", { class: "muted" }, "This variant returns no events.")];
  const copy = h("button", { type: "button", class: "quiet" }, "Copy");
  copy.addEventListener("click", () => navigator.clipboard && navigator.clipboard.writeText(r.prompt.text));
  return [
    h("p", { class: "counts" }, `Variant ${r.variant} · ${r.contexts.length} contexts in the order returned · ` +
      `${r.turn_ids.length} turns · prompt block ${int(r.prompt.chars)} characters (≈ ${int(r.prompt.approx_tokens)} tokens)`),
    h("p", { class: "muted" }, "Legend: ", h("mark", { class: "a0" }, "anchor"), " words an anchor stands for; ",
      h("span", { class: "term" }, "underlined"), " words shared with the question. Contributions: ",
      ["anchor", "lexical", "shared_turns", "events"].map((k) => [h("span", { class: `key ${k}` }), SIGNAL_NAMES[k], "  "])),
    h("div", { class: "columns" },
      h("section", { "aria-label": "Contexts" }, r.contexts.length ? cards : h("p", {}, "Nothing found.")),
      h("aside", { "aria-label": "Events" }, h("h3", {}, "Events beside"), events)),
    h("section", { "aria-label": "Prompt block" }, h("h3", {}, "The block a reader gets ",
      h("span", { class: "muted" }, `(${int(r.prompt.chars)} characters)`), " ", copy),
    h("pre", { class: "prompt", tabindex: "0" }, r.prompt.text)),
  ];
}

/* -- event graph --------------------------------------------------------------------------------- */

views.graph = async (main, [offsetText]) => {
  const offset = Number(offsetText || 0);
  const panel = h("div", { id: "node-detail", "aria-live": "polite" });
  main.replaceChildren(heading("Event graph"), h("p", { class: "muted" },
    "Each row is an event; its facts sit under the session (and date) they come from, so a row crossing several " +
    "columns is a tie between sessions. Tab to a fact and press Enter to read it."));
  let page;
  try { page = await api("GET", userPath("/inspect/graph"), { query: scoped({ offset, limit: 25 }) }); }
  catch (err) { showError(err, main); return; }
  main.append(h("p", { class: "counts" }, `${int(page.total)} events · ${int(page.facts_in_events)} of ` +
    `${int(page.facts_total)} facts tied into events`));
  if (!page.items.length) { main.append(h("p", {}, "No events yet: facts are tied into events as sessions are added.")); return; }
  main.append(h("div", { class: "graph-wrap" }, window.drawEventGraph(page, (fact) => {
    panel.replaceChildren(h("div", { class: "card" }, h("strong", {}, "Fact "), recordLink(fact.id),
      h("p", {}, fact.text), h("p", { class: "muted" }, `session ${fact.session ?? "?"} · ${fact.date || "undated"} · context `,
        recordLink(fact.context_id))));
  })), panel, pager(page, (o) => { window.location.hash = `#/graph/${o}`; }, "Events"));
};

/* -- forget -------------------------------------------------------------------------------------- */

views.forget = (main) => {
  const field = (id, label, input) => h("div", { class: "field" }, h("label", { for: id }, label), input);
  const kind = h("select", { id: "d-kind", name: "kind" }, h("option", { value: "session" }, "a session"),
    h("option", { value: "turn" }, "a turn"), h("option", { value: "context" }, "a context (its turns)"),
    h("option", { value: "all" }, "everything in this memory"));
  const target = h("input", { id: "d-target", name: "target", size: 24, spellcheck: "false" });
  const form = h("form", { class: "filters", "aria-label": "Choose what to forget" },
    field("d-kind", "Forget", kind), field("d-target", "Session label or id", target),
    h("button", { type: "submit" }, "Preview"));
  kind.addEventListener("change", () => { target.disabled = kind.value === "all"; });
  const out = h("div", { id: "forget-result" });
  main.replaceChildren(heading("Forget"), h("p", { class: "muted" },
    "Deleting words removes every context quoting them, those contexts' facts, the events built on those facts, " +
    "cached LLM responses holding the text, and the bytes in the store file. Nothing is deleted before you confirm."),
  form, out);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const q = kind.value === "all" ? { all: true } : { [kind.value]: target.value.trim() };
    if (kind.value !== "all" && !target.value.trim()) { status("Say which one to forget.", true); target.focus(); return; }
    let p;
    try { p = await api("GET", userPath("/inspect/delete-preview"), { query: scoped(q) }); }
    catch (err) { showError(err, out); return; }
    const list = (label, ids, n, open) => (n ? h("details", { open }, h("summary", {}, `${int(n)} ${label}`),
      h("ul", { class: "plain" }, ids.map((id) => h("li", {}, recordLink(id), p.labels[id] ? ` ${p.labels[id]}` : ""))),
      n > ids.length ? h("p", { class: "muted" }, `and ${int(n - ids.length)} more`) : null) : h("p", {}, `0 ${label}`));
    const confirm = h("button", { type: "button", class: "danger" }, "Delete permanently");
    const cancel = h("button", { type: "button", class: "quiet" }, "Cancel");
    cancel.addEventListener("click", () => { out.replaceChildren(); status("Nothing was deleted."); });
    confirm.addEventListener("click", async () => {
      confirm.disabled = true;
      let report; let hist;
      try {
        report = await api("DELETE", userPath("/memories"), { query: scoped(q) });
        hist = await api("GET", userPath("/history"), { query: scoped({ limit: 1 }) }).catch(() => ({ items: [] }));
      } catch (err) { confirm.disabled = false; showError(err, out); return; }
      const entry = hist.items[hist.items.length - 1];
      out.replaceChildren(h("div", { class: "done", id: "forget-done" }, h("h3", { tabindex: "-1" }, "Forgotten"),
        h("p", {}, `${int(report.turns)} turns, ${int(report.contexts)} contexts, ${int(report.facts)} facts, ` +
          `${int(report.events)} events, ${int(report.cache_entries_forgotten)} cached LLM responses removed; ` +
          `${int(report.contexts_rebuilt)} contexts, ${int(report.facts_rebuilt)} facts and ` +
          `${int(report.events_rebuilt)} events rebuilt from what remains.`),
        entry ? [h("h3", {}, "The history entry it left"), historyTable([entry])] : null));
      out.querySelector("h3").focus();
      status("Deleted.");
    });
    out.replaceChildren(h("div", { class: "danger-zone", id: "forget-preview" },
      h("h3", { tabindex: "-1" }, "This will be deleted"),
      h("p", {}, `${int(p.turns)} turns · ${int(p.contexts)} contexts · ${int(p.facts)} facts · ` +
        `${int(p.events)} events · ${int(p.cache_entries)} cached LLM responses`),
      p.sessions_recut.length ? h("p", {}, `The turns left in session ${p.sessions_recut.join(", ")} will be cut into new contexts.`) : null,
      list("turns", p.turn_ids, p.turns, true), list("contexts", p.context_ids, p.contexts, false),
      list("facts", p.fact_ids, p.facts, false), list("events", p.event_ids, p.events, false),
      h("div", { class: "row" }, confirm, cancel)));
    out.querySelector("h3").focus();
    status("Preview ready: nothing deleted yet.");
  });
};

/* -- stats and history --------------------------------------------------------------------------- */

function historyTable(items) {
  return h("table", { class: "history" },
    h("thead", {}, h("tr", {}, ["#", "When", "Operation", "Scope", "What changed"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, items.map((e) => h("tr", {},
      h("td", { class: "num" }, e.seq), h("td", {}, new Date(e.timestamp * 1000).toISOString().replace("T", " ").slice(0, 19)),
      h("td", {}, e.op), h("td", {}, [e.scope.user_id, e.scope.agent_id, e.scope.run_id].filter(Boolean).join(" / ")),
      h("td", { class: "mono" }, Object.entries(e.detail).filter(([, v]) => v !== 0 && v !== null && !(Array.isArray(v) && !v.length))
        .map(([k, v]) => `${k}: ${typeof v === "object" ? JSON.stringify(v) : v}`).join("; "))))));
}

views.stats = async (main) => {
  main.replaceChildren(heading("Stats & history"));
  let stats; let size; let hist;
  try {
    [stats, size, hist] = await Promise.all([
      api("GET", userPath("/stats"), { query: scoped() }),
      api("GET", userPath("/inspect/size"), { query: scoped() }),
      api("GET", userPath("/history"), { query: scoped({ limit: 100 }) }),
    ]);
  } catch (err) { showError(err, main); return; }
  const num = (label, v) => h("tr", {}, h("th", { scope: "row" }, label), h("td", { class: "num" }, v));
  main.append(
    h("div", { class: "columns" },
      h("section", {}, h("h3", {}, "Counts"), h("table", { class: "narrow" }, h("tbody", {},
        num("sessions", int(stats.sessions)), num("turns", int(stats.turns)), num("contexts", int(stats.contexts)),
        num("facts", int(stats.facts)), num("events", int(stats.events)),
        num("extractions pending", int(stats.pending_extractions)), num("extractions failed", int(stats.failed_extractions))))),
      h("section", {}, h("h3", {}, "Size"), h("table", { class: "narrow" }, h("tbody", {},
        num("text", bytes(size.text_bytes)), num("vectors", bytes(size.vector_bytes)), num("this memory", bytes(size.total_bytes)),
        size.store_file_bytes !== null ? num("store file (every user)", bytes(size.store_file_bytes)) : null)))),
    h("h3", {}, "LLM usage per phase"),
    Object.keys(stats.usage).length ? h("table", {},
      h("thead", {}, h("tr", {}, ["phase", "calls", "cached", "failed", "prompt tokens", "completion tokens", "seconds"]
        .map((t, i) => h("th", { scope: "col", class: i ? "num" : null }, t)))),
      h("tbody", {}, Object.entries(stats.usage).map(([phase, u]) => h("tr", {}, h("th", { scope: "row" }, phase),
        [u.calls, u.cached_calls, u.failed_calls, u.prompt_tokens, u.completion_tokens].map((v) => h("td", { class: "num" }, int(v))),
        h("td", { class: "num" }, fmt(u.seconds, 1))))))
      : h("p", { class: "muted" }, "No LLM calls: this memory was built offline."),
    h("h3", {}, "History (newest first)"), historyTable([...hist.items].reverse()));
};

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
