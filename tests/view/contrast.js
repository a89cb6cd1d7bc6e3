// Every element with text of its own that is painted, with its text colour and the colour
// behind it: for SVG text the shape drawn under its centre (a bar, a label), else the chart's
// white; for HTML the nearest ancestor with a background colour. Evaluates to the pairs
// under WCAG AA (4.5:1) and how many texts were checked, as JSON.
(function () {
  function rgb(c) {
    var m = /rgba?\(([^)]+)\)/.exec(c || "");
    if (!m) return null;
    var p = m[1].split(",").map(parseFloat);
    return p.length > 3 && p[3] === 0 ? null : p.slice(0, 3);
  }
  function lum(p) {
    var c = p.map(function (v) { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  }
  function ratio(a, b) { var x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); }
  function behindHtml(el) {
    for (var e = el; e; e = e.parentElement) { var p = rgb(getComputedStyle(e).backgroundColor); if (p) return p; }
    return [255, 255, 255];
  }
  function behindSvg(el) {
    var box = el.getBoundingClientRect();
    var under = document.elementsFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    for (var i = 0; i < under.length; i++) {
      var u = under[i];
      if (u === el) continue;
      if (u.tagName === "rect") return rgb(getComputedStyle(u).fill) || [255, 255, 255];
      if (u.tagName === "svg") return [255, 255, 255];
    }
    return [255, 255, 255];
  }
  var bad = [], checked = 0;
  document.querySelectorAll("body *").forEach(function (el) {
    var own = Array.prototype.some.call(el.childNodes, function (n) { return n.nodeType === 3 && n.textContent.trim(); });
    if (!own || !el.getClientRects().length) return;
    var style = getComputedStyle(el);
    if (style.visibility === "hidden") return;
    var svg = el instanceof SVGElement;
    var fg = rgb(svg ? style.fill : style.color);
    if (!fg) return;
    var bg = svg ? behindSvg(el) : behindHtml(el);
    checked++;
    var r = ratio(fg, bg);
    if (r < 4.5) bad.push([el.tagName + "." + el.getAttribute("class"), el.textContent.trim().slice(0, 30), fg.join(","), bg.join(","), Math.round(r * 100) / 100]);
  });
  return JSON.stringify({ checked: checked, bad: bad });
})()
