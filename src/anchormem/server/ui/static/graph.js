/* The event graph drawn as plain SVG: one lane per event (a cluster), one column per session in date
   order, each fact a node in its event's lane under the session it was said in, the nodes of a lane
   joined by a line. Nodes are focusable; Enter or a click reports the fact to onSelect. */
"use strict";

window.drawEventGraph = function drawEventGraph(page, onSelect) {
  const NS = "http://www.w3.org/2000/svg";
  const el = (tag, attrs, text) => {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const LABEL = 330; const COL = 110; const LANE = 34; const TOP = 58; const R = 7;
  const columns = page.sessions;
  const x = new Map(columns.map((s, i) => [s.session, LABEL + COL * i + COL / 2]));
  const width = LABEL + COL * Math.max(columns.length, 1) + 20;
  const height = TOP + LANE * page.items.length + 16;
  const svg = el("svg", { class: "graph", width, height, viewBox: `0 0 ${width} ${height}`, role: "group",
    "aria-label": `Event graph: ${page.items.length} events across ${columns.length} sessions` });
  columns.forEach((s, i) => {
    const cx = x.get(s.session);
    svg.append(el("line", { class: "col", x1: cx, x2: cx, y1: TOP - 8, y2: height - 8 }));
    svg.append(el("text", { x: cx, y: 20, "text-anchor": "middle" }, `session ${s.session}`));
    svg.append(el("text", { x: cx, y: 38, "text-anchor": "middle", class: "muted" }, s.day || (s.date || "undated").slice(0, 12)));
    if (i === 0) svg.append(el("text", { x: 8, y: 38 }, "event (facts tied together)"));
  });
  const trim = (t, n) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);
  page.items.forEach((event, row) => {
    const y = TOP + LANE * row + LANE / 2;
    const lane = el("g", { role: "group", "aria-label": `Event ${event.id}: ${event.facts.length} facts in sessions ${event.sessions.join(", ")}` });
    lane.append(el("rect", { class: row % 2 ? "lane alt" : "lane", x: 0, y: y - LANE / 2, width, height: LANE }));
    const label = el("text", { x: 8, y: y + 4 }, trim(`${event.id.slice(0, 10)} · ${event.text.replace(/\s+/g, " ")}`, 52));
    label.append(el("title", {}, event.text));
    lane.append(label);
    const xs = event.facts.map((f) => x.get(f.session)).filter((v) => v !== undefined);
    if (xs.length > 1) {
      lane.append(el("line", { class: "link", x1: Math.min(...xs), x2: Math.max(...xs), y1: y, y2: y }));
    }
    const perColumn = new Map();
    for (const fact of event.facts) {
      const cx0 = x.get(fact.session);
      if (cx0 === undefined) continue;
      const k = perColumn.get(fact.session) || 0;
      perColumn.set(fact.session, k + 1);
      const cx = cx0 + (k % 2 ? -1 : 1) * Math.ceil(k / 2) * (2 * R + 3);
      const node = el("circle", { class: "node", cx, cy: y, r: R, tabindex: 0, role: "button", "data-fact": fact.id,
        "aria-label": `Fact ${fact.id}, session ${fact.session}, ${fact.day || fact.date || "undated"}: ${fact.text}` });
      node.append(el("title", {}, `${fact.text}\n(session ${fact.session}, ${fact.date || "undated"})`));
      const pick = () => {
        for (const n of svg.querySelectorAll(".node.sel")) n.classList.remove("sel");
        node.classList.add("sel");
        onSelect(fact);
      };
      node.addEventListener("click", pick);
      node.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(); } });
      lane.append(node);
    }
    svg.append(lane);
  });
  return svg;
};
