"""The report page's only script: filters, sorting and openings, all kept in the URL hash.

Cards store their bodies gzipped, many to a stream (``.lazy[data-z="STREAM.INDEX"]`` refers to a body of
``script#zSTREAM``); opening a card inflates its stream once, with the browser's DecompressionStream, and
puts that card's body in place. Hash keys: ``paper``, ``status``, ``kind``, ``unexpected=1``, ``unguarded=1``, ``loose=1``, ``cannotfail=1``, ``q`` (text in
the id or the statement), ``sort=COLUMN:asc|desc``, ``open=ID``; ``#claim-ID`` opens one claim.
"""

SCRIPT = """
(function () {
  var tbody = document.querySelector('#claim-table tbody');
  var rows = Array.prototype.slice.call(tbody.querySelectorAll('tr'));
  var secs = Array.prototype.slice.call(document.querySelectorAll('details.claim'));
  var byId = function (id) { return document.getElementById(id); };
  var selects = {paper: byId('filter-paper'), status: byId('filter-status'), kind: byId('filter-kind')};
  var checks = {unexpected: byId('filter-unexpected'), unguarded: byId('filter-unguarded'), loose: byId('filter-loose'),
                cannotfail: byId('filter-cannotfail')};
  var ft = byId('filter-text'), count = byId('filter-count');
  var heads = Array.prototype.slice.call(document.querySelectorAll('#claim-table th[data-sort]'));
  var text = {};
  rows.forEach(function (r) { text[r.getAttribute('data-id')] = r.textContent.toLowerCase(); });
  var sortState = null;
  function slug(s) { return String(s).trim().split(/\\s+/).join('-'); }
  function matches(el) {
    var t = ft.value.trim().toLowerCase();
    var id = el.getAttribute('data-id');
    if (selects.paper.value && el.getAttribute('data-paper') !== selects.paper.value) { return false; }
    if (selects.status.value && el.getAttribute('data-statuses').split(' ').indexOf(selects.status.value) < 0) { return false; }
    if (selects.kind.value && el.getAttribute('data-kind') !== selects.kind.value) { return false; }
    for (var k in checks) { if (checks[k].checked && el.getAttribute('data-' + k) !== '1') { return false; } }
    return !t || id.toLowerCase().indexOf(t) >= 0 || (text[id] || '').indexOf(t) >= 0;
  }
  function apply() {
    var shown = 0;
    rows.forEach(function (r) { var m = matches(r); r.hidden = !m; if (m) { shown++; } });
    secs.forEach(function (s) { s.hidden = !matches(s); });
    count.textContent = shown + ' of ' + rows.length + ' claims shown';
    count.setAttribute('data-shown', String(shown));
  }
  function cellKey(row, col, numeric) {
    var td = row.children[col];
    var v = td.hasAttribute('data-value') ? td.getAttribute('data-value') : td.textContent.trim();
    if (!numeric) { return v.toLowerCase(); }
    return v === '' ? null : parseFloat(v);
  }
  function sortBy(col, dir) {
    var th = heads.filter(function (h) { return h.getAttribute('data-col') === String(col); })[0];
    if (!th) { return; }
    var numeric = th.getAttribute('data-sort') === 'num';
    var sign = dir === 'desc' ? -1 : 1;
    var sorted = rows.slice().sort(function (a, b) {
      var x = cellKey(a, col, numeric), y = cellKey(b, col, numeric);
      if (x === null && y === null) { return 0; }
      if (x === null) { return 1; }
      if (y === null) { return -1; }
      var c = x < y ? -1 : x > y ? 1 : 0;
      if (c === 0) { c = parseInt(a.getAttribute('data-order'), 10) - parseInt(b.getAttribute('data-order'), 10); return c; }
      return sign * c;
    });
    sorted.forEach(function (r) { tbody.appendChild(r); });
    heads.forEach(function (h) { h.removeAttribute('aria-sort'); });
    th.setAttribute('aria-sort', dir === 'desc' ? 'descending' : 'ascending');
    sortState = col + ':' + dir;
  }
  var streams = {};
  function stream(n) {
    if (!streams[n]) {
      var bin = atob(byId('z' + n).textContent), bytes = new Uint8Array(bin.length);
      for (var i = 0; i < bin.length; i++) { bytes[i] = bin.charCodeAt(i); }
      var inflated = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
      streams[n] = new Response(inflated).text().then(function (t) { return t.split('\\u0000'); });
    }
    return streams[n];
  }
  function inflate(el) {
    var z = el.getAttribute('data-z');
    if (!z) { return; }
    el.removeAttribute('data-z');
    var at = z.split('.');
    stream(at[0]).then(function (bodies) {
      el.innerHTML = bodies[parseInt(at[1], 10)];
      el.setAttribute('data-inflated', '1');
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll('.lazy[data-z]'), function (el) {
    var d = el.parentNode.closest('details');
    if (!d) { inflate(el); return; }
    d.addEventListener('toggle', function () { if (d.open) { inflate(el); } });
    if (d.open) { inflate(el); }
  });
  function openClaim(id) {
    var d = byId('claim-' + id);
    if (!d) { return; }
    d.hidden = false; d.open = true;
    if (d.scrollIntoView) { d.scrollIntoView(); }
  }
  function readHash() {
    var raw = location.hash.replace(/^#/, '');
    if (!raw) { return; }
    if (raw.indexOf('=') < 0) {
      var name = decodeURIComponent(raw);
      if (name.indexOf('claim-') === 0) { openClaim(name.slice(6)); }
      return;
    }
    var q = new URLSearchParams(raw);
    selects.paper.value = q.get('paper') || '';
    selects.status.value = q.get('status') ? slug(q.get('status')) : '';
    selects.kind.value = q.get('kind') || '';
    for (var k in checks) { checks[k].checked = q.get(k) === '1'; }
    ft.value = q.get('q') || '';
    var s = (q.get('sort') || '').split(':');
    if (s[0] !== '') { sortBy(parseInt(s[0], 10), s[1] === 'desc' ? 'desc' : 'asc'); }
    apply();
    if (q.get('open')) { openClaim(q.get('open')); }
  }
  function writeHash() {
    var q = new URLSearchParams();
    for (var k in selects) { if (selects[k].value) { q.set(k, selects[k].value); } }
    for (var c in checks) { if (checks[c].checked) { q.set(c, '1'); } }
    if (ft.value.trim()) { q.set('q', ft.value.trim()); }
    if (sortState) { q.set('sort', sortState); }
    var h = q.toString();
    if (history.replaceState) { history.replaceState(null, '', h ? '#' + h : location.pathname + location.search); }
  }
  heads.forEach(function (th) {
    th.addEventListener('click', function () {
      var col = th.getAttribute('data-col');
      var dir = th.getAttribute('aria-sort') === 'ascending' ? 'desc' : 'asc';
      sortBy(parseInt(col, 10), dir);
      writeHash();
    });
  });
  Object.keys(selects).forEach(function (k) { selects[k].addEventListener('change', function () { apply(); writeHash(); }); });
  Object.keys(checks).forEach(function (k) { checks[k].addEventListener('change', function () { apply(); writeHash(); }); });
  ft.addEventListener('input', function () { apply(); writeHash(); });
  byId('expand-all').addEventListener('click', function () {
    secs.forEach(function (s) { if (!s.hidden) { s.open = true; } });
  });
  byId('collapse-all').addEventListener('click', function () {
    secs.forEach(function (s) { s.open = false; });
  });
  // Dependency graphs: each drawing fits its box; zoom (buttons, or ctrl + wheel) and pan (drag) move its viewBox.
  Array.prototype.forEach.call(document.querySelectorAll('svg.depgraph'), function (svg) {
    var W = parseFloat(svg.getAttribute('data-w')), H = parseFloat(svg.getAttribute('data-h'));
    var vb = {x: 0, y: 0, w: W, h: H};
    function show() { svg.setAttribute('viewBox', [vb.x, vb.y, vb.w, vb.h].map(function (v) { return v.toFixed(1); }).join(' ')); }
    function zoom(f) {
      var w = Math.min(W, Math.max(W / 20, vb.w * f)), h = w * H / W;
      vb.x = Math.min(Math.max(0, vb.x + (vb.w - w) / 2), W - w); vb.y = Math.min(Math.max(0, vb.y + (vb.h - h) / 2), H - h);
      vb.w = w; vb.h = h; show();
    }
    var box = svg.parentNode;
    Array.prototype.forEach.call(box.parentNode.querySelectorAll('button[data-zoom]'), function (b) {
      b.addEventListener('click', function () {
        var z = b.getAttribute('data-zoom');
        if (z === 'fit') { vb = {x: 0, y: 0, w: W, h: H}; show(); } else { zoom(z === 'in' ? 0.7 : 1 / 0.7); }
      });
    });
    svg.addEventListener('wheel', function (e) { if (e.ctrlKey || e.metaKey) { e.preventDefault(); zoom(e.deltaY < 0 ? 0.8 : 1.25); } }, {passive: false});
    var drag = null;
    svg.addEventListener('pointerdown', function (e) { if (vb.w < W) { drag = {x: e.clientX, y: e.clientY}; } });
    window.addEventListener('pointerup', function () { drag = null; });
    svg.addEventListener('pointermove', function (e) {
      if (!drag) { return; }
      var r = svg.getBoundingClientRect(), k = vb.w / Math.max(1, r.width);
      vb.x = Math.min(Math.max(0, vb.x - (e.clientX - drag.x) * k), W - vb.w);
      vb.y = Math.min(Math.max(0, vb.y - (e.clientY - drag.y) * k), H - vb.h);
      drag = {x: e.clientX, y: e.clientY}; show();
    });
  });
  window.addEventListener('hashchange', readHash);
  apply();
  readHash();
  document.body.setAttribute('data-ready', '1');
})();
"""
