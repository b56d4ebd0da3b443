// The topic explorer's results, drawn when a topic is first opened, from the JSON of
// #explorer-data (harness/report/explorer.py documents it). Every text from the data becomes a
// text node (textContent): nothing from it is ever parsed as markup.
(function () {
  "use strict";
  var island = document.getElementById("explorer-data");
  if (!island) return;
  var data = JSON.parse(island.textContent);
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function txt(s) { return document.createTextNode(s); }
  function judgment(label) {
    if (label === null) return ["unj", "unjudged"];
    return label <= 0 ? ["non", "not relevant (" + label + ")"] : ["rel", "relevant (" + label + ")"];
  }
  function snippet(s, div) {
    if (s === null) { div.appendChild(el("span", "muted", "(not in the index)")); return; }
    if (s[0] & 1) div.appendChild(txt("… "));
    for (var i = 1; i < s.length; i++) {
      if (s[i] === "") continue;
      div.appendChild(i % 2 === 0 ? el("mark", null, s[i]) : txt(s[i]));
    }
    if (s[0] & 2) div.appendChild(txt(" …"));
  }
  function hit(t, x, rank) {
    var doc = t.docs[x[0]], j = judgment(doc[1]), li = el("li", j[0]);
    li.appendChild(el("span", "rank", String(rank)));
    li.appendChild(txt(" "));
    var bdi = el("bdi");
    bdi.appendChild(el("code", null, doc[0]));
    li.appendChild(bdi);
    li.appendChild(txt(" "));
    li.appendChild(el("span", "score", x[1]));
    li.appendChild(txt(" "));
    li.appendChild(el("span", "judg", j[1]));
    if (x.length > 2) {
      var m = x[2], way = m.charAt(0) === "▼" ? "down" : m === "=" ? "same" : "up";
      li.appendChild(txt(" "));
      li.appendChild(el("span", "move " + way, m));
    }
    var snip = el("div", "snip");
    snip.dir = "auto";
    snippet(doc[2], snip);
    li.appendChild(snip);
    return li;
  }
  function draw(details) {
    if (details.dataset.drawn) return;
    details.dataset.drawn = "1";
    var t = data.topics[Number(details.dataset.t)], body = details.querySelector(".body");
    var p = el("p", "muted", "Analyzed query terms: "), code = el("code", null, t.terms || "(none)");
    code.dir = "auto";
    p.appendChild(code);
    body.appendChild(p);
    var cols = el("div", "cols");
    data.runs.forEach(function (name, k) {
      var col = el("div", "col"), head = el("h4", null, name);
      if (data.measure && t.values[k] !== null) {
        head.appendChild(txt(" "));
        head.appendChild(el("span", "muted", data.measure + " " + t.values[k]));
      }
      col.appendChild(head);
      var hits = t.hits[k];
      if (!hits.length) {
        col.appendChild(el("p", "muted", "No results."));
      } else {
        var ol = el("ol", "hits");
        hits.forEach(function (x, i) { ol.appendChild(hit(t, x, i + 1)); });
        col.appendChild(ol);
      }
      cols.appendChild(col);
    });
    body.appendChild(cols);
  }
  Array.prototype.forEach.call(document.querySelectorAll("details.topic[data-t]"), function (d) {
    // a click on the summary (mouse, Enter, Space) draws before the topic opens; toggle covers
    // the rest (a link to the topic, a script setting open)
    d.querySelector("summary").addEventListener("click", function () { draw(d); });
    d.addEventListener("toggle", function () { if (d.open) draw(d); });
    if (d.open) draw(d);
  });
})();
