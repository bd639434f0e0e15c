/* The event graph, forgetting (a dry run, then the delete and the history entry it left), and stats. */
"use strict";

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
