/* The search playground: contexts in the returned order with each signal's contribution, the anchors
   highlighted in the original words, the events beside, and the prompt block a reader gets. */
"use strict";

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
  events: "event votes", fact_lexical: "fact BM25", rank: "rank score",
  recency: "recency stage (latest on its subject)", tense: "tense stage (present / past question)",
  "before-change": "before-change stage", "own-words": "own-words stage (the named speaker's messages first)",
  reply: "taken from the reply to it", clipped: "held at 0" };

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
      h("tr", {}, h("th", { scope: "row" }, "relevance"), h("td", {}), h("td", {}), h("td", { class: "num" }, fmt(x.relevance))),
      h("tr", {}, h("th", { scope: "row" }, "score"), h("td", {}), h("td", {}), h("td", { class: "num" }, fmt(x.score)))));
  const sel = mode === "hybrid"
    ? `Selection: relevance rank ${x.relevance_rank ?? "–"}; taken at step ${x.picked_at ?? "–"}` +
      (x.redundancy !== null && x.redundancy !== undefined ? `; similarity to earlier picks ${fmt(x.redundancy, 2)}` : "") +
      (x.same_subject && x.same_subject.length ? `; on one subject with ${x.same_subject.length} other returned context(s)` : "")
    : `Selection: rank ${x.relevance_rank ?? "–"} in this variant's ranking; best anchor cosine ${fmt(x.best_anchor_cosine)}, BM25 ${fmt(x.lexical_bm25)}`;
  return h("div", {}, bar, table, h("p", { class: "muted" }, sel));
}

function renderSearch(r) {
  const cards = r.contexts.map((c) => h("article", { class: "card hit", "data-context": c.context.id },
    h("h3", {}, `${c.position}. `, recordLink(c.context.id),
      h("span", { class: "muted" }, ` session ${c.context.session} · ${c.context.date || "undated"} · score ${fmt(c.score)}`),
      c.latest === true ? h("span", { class: "badge latest", title: "the newest returned statement on the question's subject" }, " [latest]")
        : c.latest === false ? h("span", { class: "badge earlier", title: `said before ${c.newer.length} newer returned context(s) on the subject` }, " [earlier]")
        : ""),
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
    : [h("p", { class: "muted" }, "No events: none adds to the contexts returned (or this variant returns none).")];
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
