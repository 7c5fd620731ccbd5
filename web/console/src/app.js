// The mayfly console: a hash-routed page over the admin server's
// /v1/console/ JSON. #/ is the overview (timeline, live deletion, sources),
// #/source/NAME one source (its timeline and, for a policy, the dry run),
// #/storage the disk use and the purge.
import uPlot from "uplot";

const COLORS = ["#1f6feb", "#e36209", "#2da44e", "#8250df", "#bf3989", "#0a7ea4", "#9a6700", "#57606a"];
const main = document.getElementById("main");
let live = { samples: [], timer: null, refresh: null, charts: [] };
let charts = [];

// ---- helpers

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v);
  }
  for (const c of children.flat()) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

// getJSON fetches path with the admin token of this tab, if one was given.
async function getJSON(path, opts = {}) {
  const token = sessionStorage.getItem("mayfly-token");
  const headers = { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(opts.headers || {}) };
  const r = await fetch(path, { ...opts, headers });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.error ? `${body.error.code}: ${body.error.message}` : `${r.status} ${r.statusText}`);
  return body;
}

const fmtN = (n) => (n === undefined || n === null ? "–" : Number(n).toLocaleString("en-US"));
const fmtS = (s) => (s === undefined || s === null ? "–" : s < 1 ? `${(s * 1000).toFixed(0)} ms` : s < 120 ? `${s.toFixed(1)} s` : s < 7200 ? `${(s / 60).toFixed(1)} min` : `${(s / 3600).toFixed(1)} h`);
const fmtB = (b) => { const u = ["B", "KiB", "MiB", "GiB", "TiB"]; let i = 0; while (b >= 1024 && i < u.length - 1) { b /= 1024; i++; } return `${b.toFixed(i ? 1 : 0)} ${u[i]}`; };
const fmtT = (t) => (t ? new Date(t).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z") : "–");
const sourceHref = (name) => `#/source/${encodeURIComponent(name)}`;
// width is a chart's width in its box: the box's, but at least 240 px.
const width = (node) => Math.max(240, node.clientWidth || 600);

function destroyCharts() {
  for (const c of charts) c.destroy();
  charts = [];
  clearInterval(live.timer);
  clearInterval(live.refresh);
  live.timer = live.refresh = null;
  live.charts = [];
}

// ---- the expiry timeline: stacked bars of the items due per bucket

// timelineChart draws one stacked bar chart of t (a /v1/console/timeline
// reply); overlay, when set, is a second reply drawn as a line of totals
// (the timeline a dry run would give); clickable bars open their source.
function timelineChart(node, t, overlay, clickable = true) {
  // The first bar, left of the "now" marker, is the backlog: items already
  // due that the sweeper has yet to delete. Each later bar ends at its edge.
  const nowSec = t.edges[0] / 1000;
  const xs = [nowSec - t.bucketSeconds / 2, ...t.edges.slice(1).map((ms) => ms / 1000)];
  const sources = t.sources.filter((s) => s.backlog > 0 || s.counts.some((c) => c > 0));
  const n = sources.length;
  const values = sources.map((s) => [s.backlog, ...s.counts]);
  // stacks[k] = values of sources 0..k summed; drawn from the tallest down.
  const stacks = [];
  values.forEach((v, k) => stacks.push(v.map((c, i) => c + (k ? stacks[k - 1][i] : 0))));
  const series = [{}];
  const data = [xs];
  for (let k = n - 1; k >= 0; k--) {
    const s = sources[k];
    series.push({
      label: s.name, fill: COLORS[k % COLORS.length], stroke: COLORS[k % COLORS.length], width: 0,
      paths: uPlot.paths.bars({ size: [0.9, 60] }), points: { show: false },
      value: (u, v, si, i) => (i == null ? "–" : fmtN(values[k][i])),
    });
    data.push(stacks[k]);
  }
  if (overlay) {
    const tot = [overlay.sources.reduce((a, s) => a + s.backlog, 0),
      ...overlay.edges.slice(1).map((_, i) => overlay.sources.reduce((a, s) => a + s.counts[i], 0))];
    series.push({ label: "after the change", stroke: "#c62828", width: 2, dash: [6, 4], points: { show: false } });
    data.push(tot);
  }
  const u = new uPlot({
    width: width(node), height: 220,
    series, data: n || overlay ? data : [xs, xs.map(() => 0)],
    scales: { x: { time: true, range: [nowSec - t.bucketSeconds, xs[xs.length - 1]] }, y: { range: (u, lo, hi) => [0, Math.max(1, hi)] } },
    axes: [{}, { size: 70 }],
    legend: { live: true },
    hooks: {
      // the "now" marker
      draw: [(u) => {
        const x = u.valToPos(nowSec, "x", true);
        const ctx = u.ctx;
        ctx.save(); ctx.strokeStyle = "#c62828"; ctx.lineWidth = 2;
        ctx.beginPath(); ctx.moveTo(x, u.bbox.top); ctx.lineTo(x, u.bbox.top + u.bbox.height); ctx.stroke();
        ctx.fillStyle = "#c62828"; ctx.font = "12px system-ui"; ctx.fillText("now", x + 4, u.bbox.top + 12);
        ctx.restore();
      }],
    },
  }, null, node);
  // A click opens the page of the source whose segment is under the cursor.
  u.over.addEventListener("click", () => {
    const i = u.cursor.idx;
    if (i == null || !n || !clickable) return;
    const y = u.posToVal(u.cursor.top, "y");
    const k = stacks.findIndex((st) => st[i] >= y);
    if (k >= 0 && values[k][i] > 0) location.hash = sourceHref(sources[k].name);
  });
  charts.push(u);
  return u;
}

// timelineTable is the same data as a table, for keyboards, screen readers
// and tests.
function timelineTable(t) {
  const head = el("tr", {}, el("th", {}, "Source"), el("th", { class: "n" }, "Backlog (due now)"),
    t.edges.slice(1).map((ms) => el("th", { class: "n" }, "≤ " + fmtT(ms).slice(11))));
  const rows = t.sources.filter((s) => s.backlog > 0 || s.counts.some((c) => c > 0)).map((s) => el("tr", { "data-source": s.name },
    el("td", {}, el("a", { href: sourceHref(s.name) }, s.name)),
    el("td", { class: "n", "data-backlog": s.backlog }, fmtN(s.backlog)),
    s.counts.map((c) => el("td", { class: "n", "data-count": c }, c))));
  return el("details", {}, el("summary", {}, "Table view"),
    el("div", { class: "scroll" }, el("table", { id: "timeline-table" }, el("thead", {}, head), el("tbody", {}, rows))));
}

function timelineSection(source) {
  const sec = el("section", { "aria-labelledby": "tl-h" });
  const spanSel = el("select", { id: "span" },
    ["minute", "hour", "day", "week"].map((s) => el("option", { value: s, selected: s === "hour" }, `next ${s}`)));
  const chart = el("div", { class: "chart", id: "timeline", role: "img", "aria-label": "items due per interval, stacked by source; the table view below gives the numbers" });
  const info = el("p", { class: "muted", id: "timeline-info" });
  const table = el("div");
  sec.append(el("h2", { id: "tl-h" }, source ? `Timeline of ${source}` : "Expiry timeline"),
    el("div", { class: "row" }, el("label", {}, "Look ahead", spanSel), info), chart, table);
  async function load(overlayShift) {
    const q = `span=${spanSel.value}` + (source ? `&source=${encodeURIComponent(source)}` : "");
    const t = await getJSON(`/v1/console/timeline?${q}`);
    let overlay = null;
    if (overlayShift !== undefined) overlay = await getJSON(`/v1/console/timeline?${q}&shiftSeconds=${overlayShift}`);
    charts = charts.filter((c) => (c.root.parentNode === chart ? (c.destroy(), false) : true));
    chart.replaceChildren();
    // A Redis database's own page stacks its keys by prefix instead.
    const view = t.prefixes ? { ...t, sources: t.prefixes.map((p) => ({ ...p, name: p.name ? `${p.name}:*` : "other prefixes" })) } : t;
    timelineChart(chart, view, overlay, !t.prefixes);
    const due = t.sources.reduce((a, s) => a + s.counts.reduce((x, y) => x + y, 0), 0);
    const backlog = t.sources.reduce((a, s) => a + s.backlog, 0);
    info.replaceChildren(`${fmtN(due)} due in the next ${t.span}, ${fmtN(backlog)} behind now (backlog); buckets of ${fmtS(t.bucketSeconds)}`);
    info.dataset.due = due;
    info.dataset.backlog = backlog;
    const open = table.querySelector("details")?.open;
    table.replaceChildren(timelineTable(t));
    if (open) table.querySelector("details").open = true;
    if (overlay) {
      const after = overlay.sources.reduce((a, s) => a + s.backlog, 0);
      info.append(el("span", { class: "late" }, ` — after the change: ${fmtN(after)} due at once`));
    }
  }
  spanSel.addEventListener("change", () => load());
  return { sec, load };
}

// ---- live deletion: three small charts fed every second

function liveSection() {
  const sec = el("section", { "aria-labelledby": "live-h" });
  const rate = el("div", { class: "chart live", id: "live-rate", role: "img", "aria-label": "deletions per second, rate limit and storm level" });
  const lag = el("div", { class: "chart live", id: "live-lag", role: "img", "aria-label": "deletion lag p50 and p99" });
  const backlog = el("div", { class: "chart live", id: "live-backlog", role: "img", "aria-label": "backlog" });
  const now = el("p", { class: "muted", id: "live-now" });
  sec.append(el("h2", { id: "live-h" }, "Live deletion (last 15 minutes)"), now,
    el("div", { class: "grid" }, rate, lag, backlog));
  const mk = (node, series, extra = {}) => {
    const u = new uPlot({ width: width(node) - 10, height: 160, series: [{}, ...series], data: [[], ...series.map(() => [])],
      // The last 15 minutes, or since the first sample when the server is
      // younger, but never less than a minute.
      scales: { x: { time: true, range: (u, lo, hi) => (hi == null ? [0, 1] : [Math.min(hi - 60, Math.max(lo, hi - 900)), hi]) } },
      axes: [{}, { size: 70 }], ...extra }, null, node);
    charts.push(u); live.charts.push(u); return u;
  };
  requestAnimationFrame(async () => {
    const cRate = mk(rate, [
      { label: "deletions/s", stroke: COLORS[0], width: 2 },
      { label: "rate limit", stroke: "#c62828", dash: [4, 4] },
      { label: "storm level", stroke: COLORS[3], scale: "lvl" },
    ], { axes: [{}, { size: 70 }, { scale: "lvl", side: 1, size: 40, grid: { show: false } }] });
    const cLag = mk(lag, [
      { label: "lag p50", stroke: COLORS[2], value: (u, v) => fmtS(v) },
      { label: "lag p99", stroke: COLORS[1], value: (u, v) => fmtS(v) },
    ]);
    const cBacklog = mk(backlog, [{ label: "backlog", stroke: COLORS[4], fill: "#bf398922" }]);
    async function poll() {
      const last = live.samples.length ? live.samples[live.samples.length - 1].t : 0;
      try {
        const r = await getJSON(`/v1/console/live?since=${last}`);
        live.samples = live.samples.concat(r.samples).slice(-900);
      } catch (e) { now.textContent = e.message; return; }
      const s = live.samples;
      const x = s.map((p) => p.t / 1000);
      cRate.setData([x, s.map((p) => p.deletedPerSecond), s.map((p) => p.rateLimit || null), s.map((p) => p.level)]);
      cLag.setData([x, s.map((p) => p.lagP50Seconds), s.map((p) => p.lagP99Seconds)]);
      cBacklog.setData([x, s.map((p) => p.backlog)]);
      const p = s[s.length - 1];
      const deleted = s.reduce((a, q, i) => a + (i ? (q.deletedPerSecond * (q.t - s[i - 1].t)) / 1000 : 0), 0);
      now.dataset.samples = s.length;
      now.dataset.maxRate = Math.max(0, ...s.map((q) => q.deletedPerSecond));
      now.textContent = p ? `${fmtN(Math.round(p.deletedPerSecond))} deletions/s now, backlog ${fmtN(p.backlog)}, storm level ${p.level.toFixed(1)}` +
        (p.rateLimit ? `, rate limit ${fmtN(p.rateLimit)}/s` : "") + ` — about ${fmtN(Math.round(deleted))} deleted in the window` : "no samples yet";
    }
    await poll();
    live.timer = setInterval(poll, 1000);
  });
  return sec;
}

// ---- the sources table

function sourcesTable(list, id = "sources") {
  const rule = (s) => (s.expireAfterSeconds !== undefined ? `expireAfterSeconds ${s.expireAfterSeconds}` : s.offsetSeconds !== undefined ? `offset ${fmtS(s.offsetSeconds)}` : "key TTL");
  const rows = list.map((s) => el("tr", { "data-source": s.name },
    el("td", {}, el("a", { href: sourceHref(s.name) }, s.name), el("div", { class: "muted" }, s.rule)),
    el("td", {}, s.field || "–"), el("td", {}, rule(s)),
    el("td", { class: "hide-narrow" }, s.partialFilter || "–"),
    el("td", { class: "n" }, fmtN(s.items)), el("td", { class: "n", "data-due": s.dueNow }, fmtN(s.dueNow)),
    el("td", { class: "hide-narrow" }, fmtT(s.nextDue)), el("td", { class: "n" }, fmtN(s.deleted)),
    el("td", { class: "n" }, `${fmtS(s.lag.p50Seconds)} / ${fmtS(s.lag.p99Seconds)}`)));
  return el("div", { class: "scroll" }, el("table", { id },
    el("thead", {}, el("tr", {}, ["Source", "Field", "Rule", "Partial filter", "Items", "Due now", "Next due", "Deleted", "Lag p50 / p99"]
      .map((h, i) => el("th", { class: [4, 5, 7, 8].includes(i) ? "n" : i === 3 || i === 6 ? "hide-narrow" : null }, h)))),
    el("tbody", {}, rows)));
}

// ---- pages

async function overview() {
  const tl = timelineSection();
  const sec = el("section", { "aria-labelledby": "src-h" });
  // Sources that hold nothing and deleted nothing (the empty Redis
  // databases) fold away; the table and the timeline refresh every 5 s.
  async function sources() {
    const src = await getJSON("/v1/console/sources");
    const busy = src.sources.filter((s) => s.items > 0 || s.deleted > 0);
    const idle = src.sources.filter((s) => !(s.items > 0 || s.deleted > 0));
    const open = sec.querySelector("details")?.open;
    sec.replaceChildren(el("h2", { id: "src-h" }, "Sources"), sourcesTable(busy),
      idle.length ? el("details", { open }, el("summary", {}, `${idle.length} empty sources`), sourcesTable(idle, "sources-empty")) : "");
  }
  await sources();
  main.replaceChildren(tl.sec, liveSection(), sec);
  await tl.load();
  live.refresh = setInterval(() => sources().then(() => tl.load()).catch(() => {}), 5000);
}

async function sourcePage(name) {
  const src = (await getJSON("/v1/console/sources")).sources.find((s) => s.name === name);
  if (!src) throw new Error(`no expiry source ${name}`);
  const tl = timelineSection(name);
  const row = el("section", { "aria-labelledby": "row-h" }, el("h2", { id: "row-h" }, "Source"), sourcesTable([src], "source-row"));
  // After a change, the row shows the new rule and the timeline redraws.
  async function refresh() {
    const now = (await getJSON("/v1/console/sources")).sources.find((s) => s.name === name);
    if (now) row.replaceChildren(el("h2", { id: "row-h" }, "Source"), sourcesTable([now], "source-row"));
    await tl.load();
  }
  const parts = [el("p", {}, el("a", { href: "#/" }, "← all sources")), tl.sec, row];
  if (src.group !== undefined || src.expireAfterSeconds !== undefined) parts.push(dryRunSection(src, tl, refresh));
  main.replaceChildren(...parts);
  await tl.load();
}

// dryRunSection previews and applies a new offset: a policy's
// expirationOffset (PATCH /v1/ttl/policies/{group}) or a TTL index's
// expireAfterSeconds (PATCH /v1/ttl/indexes/{source}, MongoDB's collMod).
// Both need an admin token granting ttl.policies.update when the server
// has a token file. onApplied runs once a change is done.
function dryRunSection(src, tl, onApplied) {
  const isPolicy = src.group !== undefined;
  const cur = isPolicy ? src.offsetSeconds : src.expireAfterSeconds;
  const offset = el("input", { id: "dr-offset", name: "offset", required: true, value: isPolicy ? `${cur}s` : `${cur}`, autocomplete: "off", spellcheck: "false", "aria-describedby": "dr-help" });
  const token = el("input", { id: "dr-token", name: "token", type: "password", autocomplete: "off", value: sessionStorage.getItem("mayfly-token") || "" });
  const out = el("div", { id: "dr-result", "aria-live": "polite" });
  const apply = el("button", { type: "button", id: "dr-apply", disabled: true, class: "secondary" }, "Apply");
  const secs = (v) => { const m = /^(\d+(?:\.\d+)?)(s|m|h|d)?$/.exec(v.trim()); return m ? Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[m[2] || "s"] : NaN; };
  const auth = () => { sessionStorage.setItem("mayfly-token", token.value); return token.value ? { Authorization: `Bearer ${token.value}` } : {}; };
  let previewed = null; // the value last previewed ({ s, text }), which Apply applies
  const patch = (dryRun, { s, text }) => isPolicy
    ? getJSON(`/v1/ttl/policies/${encodeURIComponent(src.group)}`, {
      method: "PATCH", headers: { "Content-Type": "application/json", ...auth() },
      body: JSON.stringify({ field: src.field, enabled: true, expirationOffset: text, dryRun }),
    })
    : getJSON(`/v1/ttl/indexes/${encodeURIComponent(src.name)}`, {
      method: "PATCH", headers: { "Content-Type": "application/json", ...auth() },
      body: JSON.stringify({ expireAfterSeconds: s, dryRun }),
    });
  // Editing the value again needs a new preview before Apply.
  offset.addEventListener("input", () => { apply.disabled = true; previewed = null; });
  async function preview(ev) {
    ev.preventDefault();
    apply.disabled = true;
    out.replaceChildren("Computing…");
    const s = secs(offset.value);
    if (Number.isNaN(s) || (!isPolicy && !Number.isInteger(s))) {
      out.replaceChildren(el("p", { class: "error", role: "alert" }, isPolicy ? "Write the offset as a number of seconds, or with s, m, h or d." : "Write expireAfterSeconds as a whole number of seconds, or with s, m, h or d."));
      offset.focus();
      return;
    }
    try {
      const d = await patch(true, { s, text: offset.value.trim() });
      await tl.load(s - cur); // the new timeline over the old
      out.replaceChildren(el("dl", { id: "dr-preview" },
        el("dt", {}, "Would be deleted at once"), el("dd", { "data-would-delete": d.wouldDelete }, fmtN(d.wouldDelete)),
        el("dt", {}, "Their expiry times"), el("dd", {}, d.wouldDelete ? `${fmtT(d.oldestExpiry)} … ${fmtT(d.newestExpiry)}` : "–"),
        el("dt", {}, "Estimated deletion time"), el("dd", {}, d.wouldDelete ? fmtS(d.estimatedDeleteSeconds) : "–"),
        isPolicy ? [el("dt", {}, "Documents scanned"), el("dd", {}, fmtN(d.documentsScanned))] : []),
        el("p", { class: "muted" }, `The dashed line is the timeline with ${isPolicy ? "offset" : "expireAfterSeconds"} ${fmtS(s)}.`));
      previewed = { s, text: offset.value.trim() };
      apply.disabled = false;
    } catch (e) { out.replaceChildren(el("p", { class: "error", role: "alert" }, e.message)); }
  }
  // progress shows an operation: a policy's, polled to its end, or a TTL
  // index's collMod, done when it returns.
  function progress(title) {
    const bar = el("progress", { id: "op-progress", max: 1, value: 0, "aria-label": "operation progress" });
    const state = el("p", { id: "op-state" });
    out.append(el("h3", {}, title), bar, state);
    return (value, max, text, done, st) => {
      bar.max = Math.max(1, max); bar.value = done ? bar.max : value;
      state.textContent = text; state.dataset.state = st; state.dataset.done = done;
    };
  }
  async function doApply() {
    if (previewed === null) return;
    apply.disabled = true;
    try {
      let op = await patch(false, previewed);
      if (!isPolicy) {
        const show = progress(`collMod of ${src.name}`);
        show(1, 1, `${op.state} (done): expireAfterSeconds ${fmtN(op.expireAfterSecondsOld)} → ${fmtN(op.expireAfterSecondsNew)}`, op.done, op.state);
      } else {
        const show = progress(`Operation ${op.id}`);
        while (true) {
          const p = op.progress;
          show(p.documentsScanned, p.documentsEstimate,
            `${op.state}${op.done ? " (done)" : ""}: ${fmtN(p.documentsScanned)} of ${fmtN(p.documentsEstimate)} scanned, ${fmtN(p.deleted)} deleted` + (op.error ? ` — ${op.error}` : ""),
            op.done, op.state);
          if (op.done) break;
          await new Promise((r) => setTimeout(r, 500));
          op = await getJSON(`/v1/operations/${op.id}`, { headers: auth() });
        }
      }
      await onApplied();
    } catch (e) { out.append(el("p", { class: "error", role: "alert" }, e.message)); }
  }
  apply.addEventListener("click", doApply);
  const form = el("form", { id: "dry-run", onsubmit: preview },
    el("div", { class: "row" },
      el("label", { for: "dr-offset" }, isPolicy ? "New expiration offset" : "New expireAfterSeconds", offset),
      el("label", { for: "dr-token" }, "Admin token (ttl.policies.update)", token),
      el("button", { type: "submit", id: "dr-preview-btn" }, "Preview"), apply),
    el("p", { class: "muted", id: "dr-help" }, `Now ${isPolicy ? "offset" : "expireAfterSeconds"} ${fmtS(cur)}. Seconds, or with s, m, h or d. Preview shows how many would go at once and the new timeline (dashed) over the current one; Apply then makes the change` +
      (isPolicy ? "." : " with collMod, which rewrites nothing and is done at once.")));
  return el("section", { "aria-labelledby": "dr-h" }, el("h2", { id: "dr-h" }, isPolicy ? "Change the offset" : "Change expireAfterSeconds"), form, out);
}

async function storagePage() {
  const s = await getJSON("/v1/console/storage");
  const maxB = Math.max(1, ...s.keyspaces.map((k) => k.bytes));
  const late = s.purgeAfterSeconds > 0 && s.oldestPendingSeconds > s.purgeAfterSeconds;
  main.replaceChildren(
    el("section", { "aria-labelledby": "disk-h" }, el("h2", { id: "disk-h" }, "Disk use by keyspace"),
      el("p", {}, "Data directory: ", el("span", { class: "stat", id: "disk-total" }, fmtB(s.diskBytes))),
      el("table", { id: "keyspaces" }, el("thead", {}, el("tr", {}, el("th", {}, "Keyspace"), el("th", { class: "n" }, "Bytes"), el("th", {}, ""))),
        el("tbody", {}, s.keyspaces.map((k) => el("tr", {}, el("td", {}, k.name), el("td", { class: "n" }, fmtB(k.bytes)),
          el("td", { style: "width:40%" }, el("div", { class: "bar", style: `width:${(100 * k.bytes) / maxB}%` }))))))),
    el("section", { "aria-labelledby": "purge-h" }, el("h2", { id: "purge-h" }, "Purge"),
      el("dl", {},
        el("dt", {}, "Deleted but not yet purged (upper bound)"), el("dd", { id: "purge-bytes" }, fmtB(s.pendingPurgeBytes), ` in ${s.pendingSpans} spans`),
        el("dt", {}, "Oldest deletion not purged, against --purge-after"),
        el("dd", { class: late ? "error" : "" }, `${fmtS(s.oldestPendingSeconds)} of ${fmtS(s.purgeAfterSeconds)}`,
          el("meter", { min: 0, max: s.purgeAfterSeconds || 1, value: s.oldestPendingSeconds, "aria-label": "oldest deletion against the purge bound" })),
        el("dt", {}, "Purge cycles"), el("dd", {}, `${fmtN(s.purgeCycles)} (${fmtN(s.purgeFailures)} failed)`))));
}

async function route() {
  destroyCharts();
  const h = decodeURIComponent(location.hash.slice(1) || "/");
  try {
    if (h.startsWith("/source/")) await sourcePage(h.slice(8));
    else if (h === "/storage") await storagePage();
    else await overview();
    document.title = `mayfly console ${h}`;
    // When the first page was drawn, in ms since the navigation started
    // (the load time a test reads).
    if (!main.dataset.renderedMs) main.dataset.renderedMs = Math.round(performance.now());
  } catch (e) {
    main.replaceChildren(el("p", { class: "error" }, e.message));
    // A server started with --admin-require-auth-for-metrics wants a token.
    if (e.message.startsWith("UNAUTHENTICATED")) {
      const input = el("input", { id: "login-token", type: "password", autocomplete: "off" });
      main.append(el("form", { onsubmit: (ev) => { ev.preventDefault(); sessionStorage.setItem("mayfly-token", input.value); route(); } },
        el("label", { for: "login-token" }, "Admin token", input), el("button", { type: "submit" }, "Open")));
      input.focus();
    }
  }
}

// A new page moves the keyboard focus to its content, as a page load
// would; the skip link does the same without changing the page.
window.addEventListener("hashchange", () => { if (location.hash !== "#main") route().then(() => main.focus({ preventScroll: true })); });
document.getElementById("skip").addEventListener("click", (ev) => { ev.preventDefault(); main.focus(); });

// The charts follow the width of their boxes (a phone turned, a window
// resized).
let resizing = null;
window.addEventListener("resize", () => {
  clearTimeout(resizing);
  resizing = setTimeout(() => {
    for (const c of charts) {
      const box = c.root.parentNode;
      if (box) c.setSize({ width: box.classList.contains("live") ? width(box) - 10 : width(box), height: c.height });
    }
  }, 150);
});
route();
