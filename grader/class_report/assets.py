"""The class report's own style and script, and the Content-Security-Policy that allows
only them (by hash): no network, no font, no external reference; even text that slipped
through escaping could not run or load anything."""

from __future__ import annotations

import base64
import hashlib

CSS = """
:root{color-scheme:light;--ink:#222;--muted:#5a5a5a;--line:#d9d9d9;--bg:#fff;--soft:#f5f6f8;
--blue:#0072B2;--verm:#D55E00;--orange:#E69F00;--purple:#CC79A7;--grey:#999}
*{box-sizing:border-box}
html{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK JP",
"Hiragino Sans","Microsoft YaHei","Malgun Gothic",sans-serif;color:var(--ink);background:var(--bg);
line-height:1.45;font-size:15px}
body{margin:0 auto;max-width:1180px;padding:0 20px 40px}
header{padding:18px 0 6px;border-bottom:2px solid var(--ink)}
h1{font-size:1.7rem;margin:0 0 2px}
h2{font-size:1.3rem;margin:34px 0 8px;padding-top:6px;border-top:1px solid var(--line)}
h3{font-size:1.05rem;margin:18px 0 4px}
p{margin:6px 0}
.muted,.meta{color:var(--muted)}
code,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.92em}
a{color:#0b5c99}
nav ol{display:flex;flex-wrap:wrap;gap:4px 18px;list-style:none;padding:0;margin:10px 0 4px}
.figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(118px,1fr));gap:8px;
margin:14px 0}
.figures div{background:var(--soft);border-radius:6px;padding:8px 12px}
.figures dt{font-size:.85rem;color:var(--muted)}
.figures dd{margin:0;font-size:1.5rem;font-weight:700}
figure{margin:12px 0 18px}
figcaption{color:var(--muted);font-size:.9rem;margin-top:4px}
svg.chart{display:block;width:auto;height:auto;max-width:100%;background:#fff}
.narrow-only{display:none}
@media (max-width:1000px){.wide-only{display:none}.narrow-only{display:block}}
.legend{display:flex;flex-wrap:wrap;gap:4px 18px;margin:6px 0;font-size:.92rem}
.legend .key{display:inline-flex;align-items:center;gap:6px}
svg.swatch{width:.8em;height:.8em}
ol.rates{list-style:none;padding:0;margin:4px 0}
ol.rates>li>a,ol.rates>li.rhead{display:grid;align-items:center;gap:2px 10px;
grid-template-columns:minmax(9rem,16rem) minmax(6rem,1fr) minmax(12rem,19rem) 6.5rem;
padding:1px 0;color:inherit;text-decoration:none}
ol.rates>li>a:hover{background:var(--soft)}
ol.rates>li.rhead{font-size:.85rem;color:var(--muted);border-bottom:1px solid var(--line)}
ol.rates>li.rhead>span:last-child,.rlost{text-align:right;font-variant-numeric:tabular-nums}
.rid{overflow-wrap:anywhere}
svg.rbar{display:block;width:100%;height:.9rem}
.rnote,.rlost{font-size:.9rem;font-variant-numeric:tabular-nums}
.rlost{color:var(--verm)}
.all-passed{color:var(--muted);margin-top:8px}
@media (max-width:640px){ol.rates>li>a,ol.rates>li.rhead{grid-template-columns:1fr 5.5rem}
ol.rates .rid{grid-column:1/3}ol.rates .rnote{grid-column:1}}
svg.chart a.mark:hover *,svg.chart a.bar:hover rect{stroke:#000;stroke-width:2}
.pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(440px,1fr));gap:20px}
table{border-collapse:collapse;width:100%;font-size:.92rem;margin:8px 0}
th,td{text-align:left;vertical-align:top;padding:4px 8px;border-bottom:1px solid var(--line)}
th{background:var(--soft);font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
th button.sort{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;
color:inherit}
th[aria-sort=ascending] button.sort::after{content:" ▲"}
th[aria-sort=descending] button.sort::after{content:" ▼"}
.js-only{display:none}
html.js .js-only{display:inline}
.badge{display:inline-block;border-radius:3px;padding:0 6px;font-size:.82rem;font-weight:600;
border:1px solid currentColor;white-space:nowrap}
.s-passed{color:var(--blue)}.s-failed{color:var(--verm)}.s-skipped{color:#666}.s-error{color:#8a3d6b}
.strong{color:#fff;background:var(--verm);border-color:var(--verm)}
.weak{color:#7a5200;background:#fdf1d6;border-color:var(--orange)}
.check-detail{border-left:3px solid var(--line);padding:2px 0 2px 12px;margin:6px 0}
.check-detail>summary{cursor:pointer;padding:3px 0}
.check-detail[open]{border-left-color:var(--verm)}
.kinds{list-style:none;padding:0;margin:6px 0 10px;display:flex;flex-wrap:wrap;gap:4px 22px}
.scroll{max-height:30rem;overflow:auto;border:1px solid var(--line);border-radius:4px}
.scroll table{margin:0}
.scroll thead th{position:sticky;top:0;z-index:1}
.scroll td{overflow-wrap:anywhere}
.scroll td:first-child{min-width:10ch}
.flags th:last-child{width:45%}
.students thead th{position:sticky;top:0;z-index:1;white-space:normal}
.students td.mono{overflow-wrap:anywhere;font-size:.85rem}
.students td:first-child{min-width:12ch;overflow-wrap:anywhere}
.who{margin:4px 0 8px;padding-left:20px}
.who li{margin:2px 0}
details.student{border:1px solid var(--line);border-radius:6px;margin:6px 0;padding:0 10px}
#feedback,#who-failed,#students{content-visibility:auto;contain-intrinsic-size:auto 3000px}
details.student>summary{cursor:pointer;padding:6px 0;font-weight:600}
details.student[open]{background:#fcfcfd}
details.student:target{outline:3px solid var(--orange)}
.feedback ol{padding-left:20px}
.feedback li{margin:8px 0}
.feedback dl{display:grid;grid-template-columns:max-content 1fr;gap:0 10px;margin:4px 0}
.feedback dt{color:var(--muted)}
.feedback dd{margin:0;overflow-wrap:anywhere}
.feedback code,li code{overflow-wrap:anywhere}
.hint{font-weight:600}
.why{color:var(--muted);font-size:.92rem}
.sid{overflow-wrap:anywhere}
td.num{white-space:nowrap}
.who.clean{columns:2 24em;padding-left:0;list-style:none}
details.who>summary{cursor:pointer;margin:4px 0}
@media print{
html{font-size:10pt}
body{max-width:none;padding:0}
nav,.js-only,html.js .js-only{display:none}
.wide-only{display:none}.narrow-only{display:block}
ol.rates>li{break-inside:avoid}
a{color:inherit;text-decoration:none}
h2{break-after:avoid}
figure,tr,.check-detail,details.student{break-inside:avoid}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
details.student{border:0;padding:0;margin:2px 0}
.scroll{max-height:none;overflow:visible;border:0}
.scroll thead th,.students thead th{position:static}
th button.sort{display:contents}
}
"""

SCRIPT = """
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.add("js");
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id ? document.getElementById(id) : null;
    for (; el; el = el.parentElement) {
      if (el.tagName === "DETAILS") { el.open = true; }
    }
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
  function key(row, col, numeric) {
    var cell = row.cells[col];
    var text = cell ? (cell.getAttribute("data-sort") || cell.textContent) : "";
    if (numeric) { var n = parseFloat(text); return isNaN(n) ? -Infinity : n; }
    return text.trim().toLowerCase();
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    var heads = table.tHead.rows[0].cells;
    var body = table.tBodies[0];
    Array.prototype.forEach.call(heads, function (th, col) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (th.firstChild) { button.appendChild(th.firstChild); }
      th.appendChild(button);
      button.addEventListener("click", function () {
        var numeric = th.getAttribute("data-type") === "number";
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a, col, numeric), y = key(b, col, numeric);
          var c = x < y ? -1 : (x > y ? 1 : 0);
          return ascending ? c : -c;
        });
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  root.setAttribute("data-ready", "1");
})();
"""


def _csp_hash(text: str) -> str:
    return (
        "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"
    )


CSP = (
    f"default-src 'none'; style-src {_csp_hash(CSS)}; script-src {_csp_hash(SCRIPT)}; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)
