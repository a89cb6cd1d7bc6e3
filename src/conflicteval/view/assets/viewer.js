"use strict";
// conflicteval report: draws the items and the item comparison from the inline JSON blob.
// Every piece of data goes into the page through textContent or attribute values, never as
// markup. The filter state lives in the URL fragment, e.g. #tab=items&failed=1&f.template=5.
(function () {
  var root = document.documentElement;
  var errors = [];
  window.addEventListener("error", function (e) {
    errors.push(String(e.message || e));
    root.setAttribute("data-js-errors", errors.join(" | "));
  });
  var PAGE = 50;
  var data = JSON.parse(document.getElementById("ce-data").textContent);
  var texts = data.texts || [];
  var state = { tab: "summary", run: 0, q: "", failed: false, conflicted: false, f: {}, page: 0,
                item: null, cell: "", diff: true, cpage: 0, sort: "", desc: false };
  root.classList.remove("nojs");

  function el(tag, attrs, kids) {
    var node = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "cls") node.className = attrs[k];
      else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), attrs[k]);
      else node.setAttribute(k, attrs[k]);
    }
    (kids || []).forEach(function (c) {
      if (c !== null && c !== undefined) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }
  function $(id) { return document.getElementById(id); }

  function decode(text) {
    try { return decodeURIComponent(text.replace(/\+/g, " ")); } catch (e) { return text; }
  }
  function readHash() {
    var h = location.hash.replace(/^#/, "");
    if (!h) return;
    h.split("&").forEach(function (part) {
      var i = part.indexOf("="), k = decode(i < 0 ? part : part.slice(0, i));
      var v = i < 0 ? "1" : decode(part.slice(i + 1));
      if (k === "tab") state.tab = v;
      else if (k === "run") state.run = Math.max(0, Math.min(data.runs.length - 1, parseInt(v, 10) || 0));
      else if (k === "q") state.q = v;
      else if (k === "failed") state.failed = v === "1";
      else if (k === "conflicted") state.conflicted = v === "1";
      else if (k === "page") state.page = Math.max(0, (parseInt(v, 10) || 1) - 1);
      else if (k === "item") state.item = v;
      else if (k === "cell") state.cell = v;
      else if (k === "diff") state.diff = v !== "0";
      else if (k === "sort") state.sort = v;
      else if (k === "desc") state.desc = v === "1";
      else if (k.slice(0, 2) === "f.") state.f[k.slice(2)] = v;
    });
  }
  function writeHash() {
    var parts = ["tab=" + state.tab];
    if (state.run) parts.push("run=" + state.run);
    if (state.q) parts.push("q=" + encodeURIComponent(state.q));
    if (state.failed) parts.push("failed=1");
    if (state.conflicted) parts.push("conflicted=1");
    for (var k in state.f) if (state.f[k]) parts.push("f." + encodeURIComponent(k) + "=" + encodeURIComponent(state.f[k]));
    if (state.page) parts.push("page=" + (state.page + 1));
    if (state.item !== null) parts.push("item=" + encodeURIComponent(state.item));
    if (state.item !== null && state.cell) parts.push("cell=" + state.cell);
    if (!state.diff) parts.push("diff=0");
    if (state.sort) parts.push("sort=" + encodeURIComponent(state.sort));
    if (state.sort && state.desc) parts.push("desc=1");
    try { history.replaceState(null, "", "#" + parts.join("&")); } catch (e) { /* file: URLs in some browsers */ }
  }

  function showTab(name) {
    var tabs = document.querySelectorAll("[data-tab]");
    var found = false;
    tabs.forEach(function (t) { if (t.getAttribute("data-tab") === name) found = true; });
    if (!found) name = "summary";
    state.tab = name;
    tabs.forEach(function (t) {
      var on = t.getAttribute("data-tab") === name;
      t.classList.toggle("active", on);
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.setAttribute("tabindex", on ? "0" : "-1");
    });
    document.querySelectorAll("section.view").forEach(function (s) { s.hidden = s.id !== "view-" + name; });
  }

  function run() { return data.runs[state.run]; }
  function searchText(it) {
    if (it._s === undefined) {
      it._s = [it.id, it.title, it.question, it.response, it.error, it.value,
               (it.gold || []).join(" "), it.judge ? it.judge.comment : "",
               (it.documents || []).map(function (d) { return (d.title || "") + "\n" + docText(d); }).join("\n"),
               it.grid ? (it.grid.claims || []).join("\n") : ""].join("\n").toLowerCase();
    }
    return it._s;
  }

  // the item list's columns: id, status, the run's facets, question and response when the
  // run's items have them, then the short result
  function columns(r) {
    var cols = [{ key: "id", name: "id" }, { key: "status", name: "status" }];
    r.facets.forEach(function (f) { cols.push({ key: "f." + f, name: f }); });
    var numbers = [];
    r.items.forEach(function (it) { for (var k in it.numbers || {}) if (numbers.indexOf(k) < 0) numbers.push(k); });
    numbers.forEach(function (k) { cols.push({ key: "n." + k, name: k, num: true }); });
    if (r.items.some(function (it) { return it.question; })) cols.push({ key: "question", name: "question", snip: true });
    if (r.items.some(function (it) { return typeof it.response === "string" && it.response; })) cols.push({ key: "response", name: "response", snip: true });
    cols.push({ key: "value", name: "value" });
    return cols;
  }
  function cellValue(it, key) {
    var head = key.slice(0, 2);
    var v = head === "f." ? (it.facets || {})[key.slice(2)] : head === "n." ? (it.numbers || {})[key.slice(2)] : it[key];
    return v === undefined || v === null ? "" : v;
  }
  function snip(text) { text = String(text); return text.length > 120 ? text.slice(0, 117) + "\u2026" : text; }
  var collator = typeof Intl !== "undefined" ? new Intl.Collator(undefined, { numeric: true, sensitivity: "base" }) : null;
  function compareValues(a, b) {  // numbers as numbers, text in natural order
    var x = Number(a), y = Number(b);
    if (String(a).trim() !== "" && String(b).trim() !== "" && !isNaN(x) && !isNaN(y)) return x - y;
    a = String(a); b = String(b);
    return collator ? collator.compare(a, b) : a < b ? -1 : a > b ? 1 : 0;
  }
  function sorted(list) {
    if (!state.sort) return list;
    var key = state.sort, sign = state.desc ? -1 : 1;
    return list.map(function (it, i) { return [it, i]; }).sort(function (p, q) {
      var a = cellValue(p[0], key), b = cellValue(q[0], key);
      if (a === "" || b === "") return (a === b ? 0 : a === "" ? 1 : -1) || p[1] - q[1];
      return sign * compareValues(a, b) || p[1] - q[1];
    }).map(function (p) { return p[0]; });
  }
  function matches(it) {
    if (state.failed && it.status === "ok") return false;
    if (state.conflicted && it.conflicted !== true) return false;
    var f = it.facets || {};
    for (var k in state.f) if (state.f[k] && String(f[k]) !== state.f[k]) return false;
    return !state.q || searchText(it).indexOf(state.q.toLowerCase()) >= 0;
  }

  function buildFilters() {
    var r = run(), box = $("facets");
    box.textContent = "";
    r.facets.forEach(function (name) {
      var values = {};
      r.items.forEach(function (it) { var v = (it.facets || {})[name]; if (v !== undefined && v !== null) values[v] = (values[v] || 0) + 1; });
      var sel = el("select", { "data-facet": name, "aria-label": name, onchange: function () {
        state.f[name] = sel.value; state.page = 0; state.item = null; drawItems(); } },
        [el("option", { value: "", text: name + ": all" })]);
      Object.keys(values).sort().forEach(function (v) {
        sel.appendChild(el("option", { value: v, text: name + ": " + v + " (" + values[v] + ")" }));
      });
      sel.value = state.f[name] || "";
      box.appendChild(sel);
    });
    $("q").value = state.q;
    $("failed").checked = state.failed;
    $("conflicted").checked = state.conflicted;
    $("conflicted-box").hidden = !r.items.some(function (it) { return it.conflicted === true || it.conflicted === false; });
  }

  function sortBy(key) {
    if (state.sort === key) { if (state.desc) { state.sort = ""; state.desc = false; } else state.desc = true; }
    else { state.sort = key; state.desc = false; }
    state.page = 0;
    drawItems();
    var b = document.querySelector('#item-head button[data-sort="' + key.replace(/["\\]/g, "") + '"]');
    if (b) b.focus();
  }
  function activates(e) { return e.key === "Enter" || e.key === " " || e.key === "Spacebar"; }

  function drawItems(focusId) {
    var r = run(), shown = sorted(r.items.filter(matches));
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    if (state.page >= pages) state.page = pages - 1;
    $("count").textContent = shown.length + " of " + r.items.length + " items" +
      (pages > 1 ? " \u00b7 page " + (state.page + 1) + " of " + pages : "");
    $("goto").max = String(pages);
    $("goto").value = String(state.page + 1);
    var body = $("item-rows");
    body.textContent = "";
    var head = $("item-head");
    head.textContent = "";
    var cols = columns(r);
    head.appendChild(el("tr", null, cols.map(function (c) {
      var sort = state.sort === c.key ? (state.desc ? "descending" : "ascending") : "none";
      return el("th", { "aria-sort": sort, scope: "col" }, [el("button", {
        type: "button", "data-sort": c.key, text: c.name, title: "sort by " + c.name,
        onclick: function () { sortBy(c.key); } })]);
    })));
    var focusRow = null;
    shown.slice(state.page * PAGE, (state.page + 1) * PAGE).forEach(function (it) {
      var tr = el("tr", { cls: "row " + (it.status === "ok" ? "" : "failed"), "data-id": it.id, tabindex: "0",
                          "aria-expanded": state.item === it.id ? "true" : "false" },
        cols.map(function (c) {
          if (c.key === "id") return el("td", { cls: "id", text: it.id });
          if (c.key === "status") return el("td", null, [el("span", { cls: "badge " + it.status, text: it.status })]);
          var v = cellValue(it, c.key);
          if (c.num && typeof v === "number") v = v.toFixed(3);
          return el("td", { cls: c.snip ? "snip" : c.num ? "num" : "", text: c.snip ? snip(v) : String(v) });
        }));
      var toggle = function () { state.item = state.item === it.id ? null : it.id; state.cell = ""; drawItems(it.id); };
      tr.addEventListener("click", toggle);
      tr.addEventListener("keydown", function (e) { if (e.target === tr && activates(e)) { e.preventDefault(); toggle(); } });
      if (focusId !== undefined && String(focusId) === String(it.id)) focusRow = tr;
      body.appendChild(tr);
      if (state.item === it.id) {
        tr.classList.add("open");
        body.appendChild(el("tr", { cls: "detail-row" }, [el("td", { colspan: String(cols.length) }, [detail(it)])]));
        var cell = state.cell && body.querySelector('td[data-cell="' + state.cell.replace(/[^0-9.]/g, "") + '"]');
        if (cell) cell.click();
      }
    });
    $("prev").disabled = $("first").disabled = state.page === 0;
    $("next").disabled = $("last").disabled = state.page >= pages - 1;
    if (focusRow) focusRow.focus();
    writeHash();
  }

  function block(title, kids, cls) {
    return el("div", { cls: "block " + (cls || "") }, [el("h4", { text: title })].concat(kids));
  }
  function para(text, cls) { return el("div", { cls: "text " + (cls || ""), text: text }); }
  function docText(d) { return typeof d.t === "number" ? texts[d.t] : (d.text || ""); }

  function detail(it) {
    var out = el("div", { cls: "detail" });
    if (it.status !== "ok" || it.error) {
      out.appendChild(el("div", { cls: "failure" }, [el("b", { text: it.status + ": " }), it.error || "no reason recorded"]));
      if (it.raw) out.appendChild(block("raw reply", [para(it.raw, "raw")]));
    }
    if (it.title) out.appendChild(el("h3", { text: it.title }));
    if (it.question) out.appendChild(block("question", [para(it.question)]));
    if (it.gold || it.judge) {
      var side = el("div", { cls: "side" });
      if (it.gold) side.appendChild(block("gold answers", [el("ul", null, it.gold.map(function (g) { return el("li", { text: g }); }))]));
      if (it.judge) side.appendChild(block("judge", [
        el("div", null, [el("span", { cls: "verdict v-" + String(it.judge.verdict).replace(/ /g, "-"), text: it.judge.verdict || "no verdict" })]),
        it.judge.comment ? para(it.judge.comment, "comment") : null]));
      out.appendChild(side);
    }
    if (it.documents && it.documents.length) {
      out.appendChild(block("documents", it.documents.map(function (d, i) {
        return el("div", { cls: "doc" }, [el("div", { cls: "doc-head" }, [el("b", { text: "D" + (i + 1) }), " ", d.id !== undefined ? "[" + d.id + "] " : "", d.title || ""]),
                                           para(docText(d))]);
      })));
    }
    if (it.response !== undefined && it.response !== null) out.appendChild(block("response", [para(it.response, "response")]));
    if (it.debate && it.debate.length) out.appendChild(debate(it.debate));
    if (it.grid) out.appendChild(grid(it));
    if (it.fields && it.fields.length) {
      out.appendChild(block("details", [el("table", { cls: "kv" }, it.fields.map(function (f) {
        var v = f[1] === null || f[1] === undefined ? "undefined"
          : typeof f[1] === "number" && !Number.isInteger(f[1]) ? f[1].toFixed(3) : String(f[1]);
        return el("tr", null, [el("th", { text: f[0] }), el("td", { text: v })]);
      }))]));
    }
    if (it.prompt) out.appendChild(el("details", null, [el("summary", { text: "prompt sent" }), para(it.prompt, "raw")]));
    if (it.calls && it.calls.length) out.appendChild(calls(it));
    return out;
  }

  // every model call's reply the run kept: [model, reply, cached, finish reason, seconds, characters not shown]
  function calls(it) {
    var more = it.more_calls ? ", " + it.more_calls + " more not kept" : "";
    var head = "model calls (" + it.calls.length + more + ")";
    return el("details", { cls: "calls" }, [el("summary", { text: head })].concat(it.calls.map(function (c, i) {
      var about = "#" + (i + 1) + " " + c[0] + (c[2] ? " \u00b7 from the cache" : "") + (c[3] ? " \u00b7 " + c[3] : "") +
        (typeof c[4] === "number" ? " \u00b7 " + c[4].toFixed(2) + " s" : "");
      var text = c[1] + (c[5] ? " \u2026 [" + c[5] + " more characters not shown]" : "");
      return el("div", { cls: "call" }, [el("div", { cls: "call-head", text: about }), para(text, "raw")]);
    })));
  }

  // MADAM-RAG: every round's agents (one per document) and the aggregator's summary
  function debate(rounds) {
    var kids = rounds.map(function (r, k) {
      var head = el("tr", null, ["agent", "answer", "explanation", "response"].map(function (h) { return el("th", { text: h }); }));
      var rows = r.answers.map(function (a, i) {
        return el("tr", null, [el("th", { text: "agent " + (i + 1) + " (D" + (i + 1) + ")" }),
          el("td", { text: a || "(no answer)" }), el("td", { text: r.explanations[i] || "" }),
          el("td", null, [el("details", null, [el("summary", { text: "whole response" }), para(r.responses[i] || "", "raw")])])]);
      });
      return el("div", { cls: "round" }, [el("h4", { text: "round " + (k + 1) }),
        el("div", { cls: "table-wrap" }, [el("table", { cls: "kv debate" }, [head].concat(rows))]),
        r.aggregation !== null && r.aggregation !== undefined
          ? el("div", { cls: "aggregation" }, [el("b", { text: "aggregator: " }), r.aggregation])
          : el("div", { cls: "muted", text: "not aggregated: the agents' answers did not change, so the debate stopped with the previous round's aggregation" })]);
    });
    return block("MADAM-RAG debate (" + rounds.length + " round" + (rounds.length === 1 ? "" : "s") + ")", kids, "debate");
  }

  var NAMES = { S: "SUPPORTS", C: "CONTRADICTS", I: "IRRELEVANT" };
  function grid(it) {
    var g = it.grid, info = el("div", { cls: "cell-info", text: "Click a cell for the labeler's snippet and reasoning." });
    var docs = g.docs || [];
    var table = el("table", { cls: "grid" }, [el("tr", null, [el("th", { text: "claim" })].concat(docs.map(function (d, j) {
      var doc = (it.documents || [])[j];
      return el("th", { title: doc && doc.title ? doc.title : String(d), text: "D" + (j + 1) });
    })))]);
    g.claims.forEach(function (claim, i) {
      var row = el("tr", null, [el("td", { cls: "claim", text: (i + 1) + ". " + claim })]);
      (g.cells[i] || []).forEach(function (c, j) {
        var label = c[0], cls = label ? "cell " + label : "cell fail";
        var gold = g.gold && g.gold[i] ? g.gold[i][j] : null;
        if (gold && gold !== label) cls += " miss";
        var td = el("td", { cls: cls, tabindex: "0", role: "button", "data-cell": (i + 1) + "." + (j + 1),
                            title: label ? NAMES[label] : "failed: " + (c[3] || ""), text: label || "!",
                            "aria-label": "claim " + (i + 1) + ", D" + (j + 1) + ": " + (label ? NAMES[label] : "failed") });
        td.addEventListener("keydown", function (e) { if (activates(e)) { e.preventDefault(); e.stopPropagation(); td.click(); } });
        td.addEventListener("click", function (e) {
          e.stopPropagation();
          table.querySelectorAll("td.sel").forEach(function (x) { x.classList.remove("sel"); });
          td.classList.add("sel");
          state.cell = (i + 1) + "." + (j + 1);
          writeHash();
          info.textContent = "";
          info.appendChild(el("div", { cls: "cell-title" }, [el("b", { text: "claim " + (i + 1) + " \u00d7 D" + (j + 1) + ": " }), label ? NAMES[label] : "no label (failed)"]));
          if (gold) info.appendChild(el("div", null, [el("b", { text: "gold: " }), NAMES[gold] + (gold === label ? "" : " (the label differs)")]));
          if (c[3]) info.appendChild(el("div", { cls: "failure", text: c[3] }));
          if (c[1]) info.appendChild(el("div", null, [el("b", { text: "snippet: " }), c[1]]));
          if (c[2]) info.appendChild(el("div", null, [el("b", { text: "reasoning: " }), c[2]]));
          if (c[4]) info.appendChild(el("div", { cls: "raw" }, [el("b", { text: "raw reply: " }), c[4]]));
          if (!c[1] && !c[2] && !c[3] && !gold) info.appendChild(el("div", { cls: "muted", text: "the labeler gave no snippet or reasoning" }));
        });
        row.appendChild(td);
      });
      table.appendChild(row);
    });
    var legend = el("div", { cls: "legend" }, [el("span", { cls: "cell S", text: "S" }), " supports ",
      el("span", { cls: "cell C", text: "C" }), " contradicts ", el("span", { cls: "cell I", text: "I" }), " irrelevant ",
      el("span", { cls: "cell fail", text: "!" }), " failed pair",
      g.gold ? el("span", null, [" \u00b7 ", el("span", { cls: "cell I miss", text: "I" }), " differs from gold"]) : null]);
    return block("claims \u00d7 documents", [legend, el("div", { cls: "grid-wrap" }, [table]), info]);
  }

  function drawCompare() {
    var c = data.compare;
    if (!c) return;
    var rows = c.rows.filter(function (r) { return !state.diff || r[2]; });
    var pages = Math.max(1, Math.ceil(rows.length / PAGE));
    if (state.cpage >= pages) state.cpage = pages - 1;
    $("ccount").textContent = rows.length + " of " + c.rows.length + " items" + (pages > 1 ? " \u00b7 page " + (state.cpage + 1) + " of " + pages : "");
    var body = $("compare-rows");
    body.textContent = "";
    rows.slice(state.cpage * PAGE, (state.cpage + 1) * PAGE).forEach(function (r) {
      body.appendChild(el("tr", { cls: r[2] ? "differs" : "" }, [el("td", { cls: "id", text: r[0] })].concat(r[1].map(function (v) {
        return el("td", { cls: v === null ? "muted" : "", text: v === null ? "absent" : String(v) });
      }))));
    });
    $("cprev").disabled = state.cpage === 0;
    $("cnext").disabled = state.cpage >= pages - 1;
  }

  function init() {
    readHash();
    var tabList = Array.prototype.slice.call(document.querySelectorAll("[data-tab]"));
    tabList.forEach(function (t, i) {
      t.addEventListener("click", function () { showTab(t.getAttribute("data-tab")); writeHash(); });
      t.addEventListener("keydown", function (e) {  // arrow keys move between tabs (ARIA tabs)
        var step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
        if (!step) return;
        e.preventDefault();
        var next = tabList[(i + step + tabList.length) % tabList.length];
        showTab(next.getAttribute("data-tab"));
        writeHash();
        next.focus();
      });
    });
    var runSel = $("run");
    data.runs.forEach(function (r, i) { runSel.appendChild(el("option", { value: String(i), text: r.name + " (" + r.kind + ")" })); });
    runSel.value = String(state.run);
    $("run-box").hidden = data.runs.length < 2;
    runSel.addEventListener("change", function () { state.run = parseInt(runSel.value, 10); state.f = {}; state.page = 0; state.item = null; buildFilters(); drawItems(); });
    var timer = null;
    $("q").addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { state.q = $("q").value; state.page = 0; drawItems(); }, 150);
    });
    $("failed").addEventListener("change", function () { state.failed = $("failed").checked; state.page = 0; drawItems(); });
    $("conflicted").addEventListener("change", function () { state.conflicted = $("conflicted").checked; state.page = 0; drawItems(); });
    $("prev").addEventListener("click", function () { state.page--; drawItems(); });
    $("next").addEventListener("click", function () { state.page++; drawItems(); });
    $("first").addEventListener("click", function () { state.page = 0; drawItems(); });
    $("last").addEventListener("click", function () { state.page = 1e9; drawItems(); });
    $("goto").addEventListener("change", function () { state.page = Math.max(0, (parseInt($("goto").value, 10) || 1) - 1); drawItems(); });
    $("clear").addEventListener("click", function () { state.q = ""; state.failed = false; state.conflicted = false; state.f = {}; state.sort = ""; state.desc = false; state.page = 0; buildFilters(); drawItems(); });
    if (data.compare) {
      $("diff").checked = state.diff;
      $("diff").addEventListener("change", function () { state.diff = $("diff").checked; state.cpage = 0; drawCompare(); writeHash(); });
      $("cprev").addEventListener("click", function () { state.cpage--; drawCompare(); });
      $("cnext").addEventListener("click", function () { state.cpage++; drawCompare(); });
      drawCompare();
    }
    buildFilters();
    showTab(state.tab);
    if (state.item !== null && !/(^|&)page=/.test(location.hash)) {
      // a link to an item opens the page of the list that holds it
      var at = sorted(run().items.filter(matches)).map(function (it) { return String(it.id); }).indexOf(state.item);
      if (at >= 0) state.page = Math.floor(at / PAGE);
    }
    drawItems();
    root.setAttribute("data-ready", "1");
    if (window.performance) root.setAttribute("data-ready-ms", String(Math.round(performance.now())));
  }
  init();
})();
