/* The timeline (sessions by date, their turns, contexts, facts and events) and one record with its ties. */
"use strict";

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
