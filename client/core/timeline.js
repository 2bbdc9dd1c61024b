/* The report page's script (timeline.c embeds it): draws the runs of the
 * JSON in #nl-data, then checks what it drew against that data and writes
 * the verdict to <body data-selfcheck> for tests and people. Text from the
 * data goes in through textContent only, never as markup. */
(function () {
  'use strict';
  var body = document.body;
  var verdict = null;

  function fail(why) {
    if (verdict !== null) return;
    verdict = 'error: ' + why;
    body.setAttribute('data-selfcheck', verdict);
    body.insertBefore(el('p', 'selfcheck bad', 'self-check failed: ' + why), body.firstChild);
  }
  window.addEventListener('error', function (e) { fail(String(e.message)); });

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function str(v) { return v === undefined || v === null ? '' : String(v); }
  function secs(usec) {
    var s = usec / 1e6;
    return (Math.round(s * 1000) / 1000) + 's';
  }

  /* Which row an event belongs to: the object it acted on. */
  function objectOf(e) {
    if (e.kind === 'condition') return 'node ' + str(e.node) + ' ' + str(e.type);
    if (!e.resource) return str(e.path);
    var ns = e.namespace ? e.namespace + '/' : '';
    return e.resource + ' ' + ns + (e.name ? e.name : '(all)');
  }
  /* Which group: who sent it. */
  function clientOf(e) {
    var ua = str(e.userAgent).split(' ')[0];
    return (ua || 'unknown client') + (e.user ? ' as ' + e.user : '');
  }
  function classOf(e) {
    /* Ready is healthy when True, the pressures when False. */
    if (e.kind === 'condition')
      return 'mark cond ' + (e.status === 'Unknown' ? 'unknown' : (e.type === 'Ready') === (e.status === 'True') ? 'good' : 'bad');
    var c = Number(e.code), cls = 'mark';
    if (c === 0) cls += ' drop';
    else if (c >= 500) cls += ' err';
    else if (c >= 400) cls += ' warn';
    else if (e.verb === 'watch') cls += ' watch';
    else if (e.resource === 'leases' && (e.verb === 'update' || e.verb === 'patch')) cls += ' renew';
    if (e.fault) cls += ' fault';
    return cls;
  }
  function describe(e) {
    if (e.kind === 'condition')
      return '@' + secs(e.t) + ' node ' + str(e.node) + ' ' + str(e.type) + '=' + str(e.status) +
        (e.reason ? ' (' + e.reason + ')' : '') + (e.since ? ', since ' + e.since : '');
    var what = str(e.verb) + ' ' + objectOf(e) + (e.subresource ? ' [' + e.subresource + ']' : '');
    var s = '@' + secs(e.t) + ' ' + what + ' \u2192 ' + (Number(e.code) === 0 ? 'no answer' : str(e.code));
    if (e.reason) s += ' ' + e.reason;
    if (e.fault) s += ' (fault ' + e.fault + ')';
    if (e.durationMs !== undefined) s += ', ' + e.durationMs + ' ms';
    return s;
  }

  function tickStep(span) {
    var steps = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600];
    for (var i = 0; i < steps.length; i++)
      if (span / (steps[i] * 1e6) <= 10) return steps[i] * 1e6;
    return 7200e6;
  }
  function pct(t, span) { return (100 * t / span) + '%'; }

  function failLine(track, run, span, label) {
    var l = el('div', 'failline');
    l.style.left = pct(run.failedAt, span);
    track.appendChild(l);
    if (label) {
      var t = el('span', 'failtext', 'failed @' + secs(run.failedAt));
      t.style.left = pct(run.failedAt, span);
      track.appendChild(t);
    }
  }

  function row(label, span) {
    var r = el('div', 'row'), track = el('div', 'track');
    var l = el('div', 'label', label);
    l.title = label;
    r.appendChild(l);
    r.appendChild(track);
    return { row: r, track: track };
  }

  /* Groups (clients) of rows (objects), in order of first appearance:
   * the Node conditions first, then the agents, then everyone else. */
  function rank(g) { return g === CONDITIONS ? 0 : g.indexOf('nodelet/') === 0 ? 1 : 2; }
  var CONDITIONS = 'Node conditions';
  function lanes(events) {
    var groups = [], byName = {};
    events.forEach(function (e) {
      var g = e.kind === 'condition' ? CONDITIONS : clientOf(e);
      if (!byName[g]) { byName[g] = { name: g, rows: [], byObj: {}, at: groups.length }; groups.push(byName[g]); }
      var grp = byName[g], o = objectOf(e);
      if (!grp.byObj[o]) { grp.byObj[o] = { name: o, events: [] }; grp.rows.push(grp.byObj[o]); }
      grp.byObj[o].events.push(e);
    });
    return groups.sort(function (a, b) { return rank(a.name) - rank(b.name) || a.at - b.at; });
  }

  function drawTimeline(run, events, steps) {
    var box = el('div', 'timeline');
    var end = 0;
    events.concat(steps).forEach(function (e) { end = Math.max(end, e.t); });
    if (typeof run.failedAt === 'number') end = Math.max(end, run.failedAt);
    var span = Math.max(end, 1e6) * 1.03;
    var axis = row('virtual time', span);
    axis.row.className = 'row axis';
    for (var t = 0, step = tickStep(span); t <= span; t += step) {
      var tick = el('span', 'tick', secs(t));
      tick.style.left = pct(t, span);
      axis.track.appendChild(tick);
    }
    if (typeof run.failedAt === 'number') failLine(axis.track, run, span, true);
    box.appendChild(axis.row);
    if (steps.length) {
      var sr = row('steps', span);
      steps.forEach(function (st) {
        var m = el('span', 'step');
        m.style.left = pct(st.t, span);
        m.title = '@' + secs(st.t) + ' ' + str(st.path) + ' ' + str(st.step) + (st.where ? ' (' + st.where + ')' : '');
        sr.track.appendChild(m);
      });
      if (typeof run.failedAt === 'number') failLine(sr.track, run, span, false);
      box.appendChild(sr.row);
    }
    if (!events.length) box.appendChild(el('p', 'message', 'no requests recorded'));
    lanes(events).forEach(function (g) {
      box.appendChild(el('div', 'group', g.name));
      g.rows.forEach(function (o) {
        var r = row(o.name, span);
        o.events.forEach(function (e, k) {
          var m = el('span', classOf(e), e.kind === 'condition' ? str(e.status) : null);
          m.style.left = pct(e.t, span);
          /* A condition holds until the next one of its row. */
          if (e.kind === 'condition')
            m.style.width = pct((k + 1 < o.events.length ? o.events[k + 1].t : end) - e.t, span);
          m.title = describe(e);
          r.track.appendChild(m);
        });
        if (typeof run.failedAt === 'number') failLine(r.track, run, span, false);
        box.appendChild(r.row);
      });
    });
    return box;
  }

  function drawFailure(run) {
    var box = el('aside', 'failure');
    box.appendChild(el('h3', null, 'Failed' + (typeof run.failedAt === 'number' ? ' @' + secs(run.failedAt) : '')));
    if (run.message) box.appendChild(el('pre', 'message', run.message));
    if (run.detail) {
      var pre = el('pre', 'diff');
      str(run.detail).split('\n').forEach(function (line) {
        var cls = /^(---|\+\+\+)/.test(line) ? null : line[0] === '-' ? 'del' : line[0] === '+' ? 'add' : null;
        var s = el('span', cls, line + '\n');
        pre.appendChild(s);
      });
      box.appendChild(pre);
    }
    return box;
  }

  function drawTable(events) {
    var d = el('details'), table = el('table'), head = el('tr');
    d.appendChild(el('summary', null, events.length + ' event' + (events.length === 1 ? '' : 's')));
    ['time', 'client', 'what', 'answer', 'fault'].forEach(function (h) { head.appendChild(el('th', null, h)); });
    table.appendChild(head);
    events.forEach(function (e) {
      var tr = el('tr');
      var cells = e.kind === 'condition'
        ? [secs(e.t), 'Node condition', 'node ' + str(e.node) + ' ' + str(e.type), str(e.status) + ' ' + str(e.reason), '']
        : [secs(e.t), clientOf(e), str(e.verb) + ' ' + objectOf(e) + (e.subresource ? ' [' + e.subresource + ']' : ''),
           Number(e.code) === 0 ? 'no answer' : str(e.code) + ' ' + str(e.reason), str(e.fault)];
      cells.forEach(function (c) { tr.appendChild(el('td', null, c)); });
      table.appendChild(tr);
    });
    d.appendChild(table);
    return d;
  }

  /* In time order; what happened at one time stays in its order. */
  function byTime(list) {
    return list.map(function (e, i) { return [e, i]; })
      .sort(function (a, b) { return a[0].t - b[0].t || a[1] - b[1]; })
      .map(function (x) { return x[0]; });
  }

  function drawRun(run, i) {
    var outcome = str(run.outcome) || 'journal';
    var sec = el('section', 'run ' + outcome), events = byTime(run.events || []);
    sec.id = 'run-' + (i + 1);
    var h = el('h2', null, str(run.name));
    h.appendChild(el('span', 'badge ' + outcome, outcome));
    sec.appendChild(h);
    if (run.file) sec.appendChild(el('div', 'file', run.file));
    if (run.message && outcome !== 'fail') sec.appendChild(el('div', 'message', run.message));
    var cols = el('div', 'cols');
    cols.appendChild(drawTimeline(run, events, byTime(run.steps || [])));
    if (outcome === 'fail') cols.appendChild(drawFailure(run));
    sec.appendChild(cols);
    sec.appendChild(drawTable(events));
    return sec;
  }

  function legend() {
    var p = el('p', 'legend');
    [['mark', '2xx'], ['mark renew', 'lease renewal'], ['mark watch', 'watch'], ['mark warn', '4xx'],
     ['mark err', '5xx'], ['mark drop', 'no answer'], ['mark fault', 'injected fault'],
     ['mark cond good', 'Node condition, healthy'], ['mark cond bad', 'not'], ['mark cond unknown', 'Unknown'], ['step', 'scenario step']].forEach(function (x) {
      var s = el('span');
      s.appendChild(el('span', x[0]));
      s.appendChild(document.createTextNode(x[1]));
      p.appendChild(s);
    });
    return p;
  }

  /* What was drawn, against the data. */
  function check(runs) {
    var sections = document.querySelectorAll('section.run');
    if (sections.length !== runs.length) return 'drew ' + sections.length + ' runs of ' + runs.length;
    for (var i = 0; i < runs.length; i++) {
      var run = runs[i], sec = sections[i], n = (run.events || []).length;
      var marks = sec.querySelectorAll('.timeline .mark').length;
      if (marks !== n) return str(run.name) + ': drew ' + marks + ' marks of ' + n + ' events';
      var ns = (run.steps || []).length, drawn = sec.querySelectorAll('.timeline .step').length;
      if (drawn !== ns) return str(run.name) + ': drew ' + drawn + ' steps of ' + ns;
      if (sec.querySelectorAll('tr').length !== n + 1) return str(run.name) + ': table rows';
      if (run.outcome === 'fail') {
        if (!sec.querySelector('.failure')) return str(run.name) + ': failure not shown';
        if (typeof run.failedAt === 'number' && !sec.querySelector('.failline'))
          return str(run.name) + ': failure not marked on the timeline';
        if (run.detail && !sec.querySelector('.failure pre.diff')) return str(run.name) + ': no diff';
      }
    }
    /* The data element and this script, nothing injected; nothing to fetch. */
    if (document.scripts.length !== 2) return document.scripts.length + ' script elements';
    var ext = document.querySelectorAll('img,iframe,object,embed,link,[src]');
    if (ext.length) return 'an external resource: ' + ext[0].tagName;
    var links = document.querySelectorAll('[href]');
    for (var j = 0; j < links.length; j++)
      if (links[j].getAttribute('href').charAt(0) !== '#') return 'a link out of the page';
    return null;
  }

  /* The data, before anything is drawn from it: what the C side promises
   * (<nodelet/timeline.h>). */
  var OUTCOMES = { pass: 1, fail: 1, skip: 1, journal: 1 };
  function isTime(v) { return typeof v === 'number' && isFinite(v) && v >= 0; }
  function isText(v) { return v === undefined || v === null || typeof v === 'string'; }
  function validEvent(e) {
    if (!e || typeof e !== 'object') return 'not an object';
    if (!isTime(e.t)) return 't is not a time';
    if (e.kind === 'condition') {
      if (typeof e.node !== 'string' || typeof e.type !== 'string' || typeof e.status !== 'string')
        return 'a condition without node, type and status';
      return null;
    }
    if (e.kind !== undefined) return 'unknown kind ' + JSON.stringify(e.kind);
    if (e.code !== undefined && typeof e.code !== 'number') return 'code is not a number';
    var texts = ['verb', 'resource', 'subresource', 'namespace', 'name', 'path', 'userAgent', 'user', 'reason', 'fault'];
    for (var k = 0; k < texts.length; k++)
      if (!isText(e[texts[k]])) return texts[k] + ' is not text';
    return null;
  }
  function validList(list, what, each) {
    if (list === undefined) return null;
    if (!Array.isArray(list)) return what + ' is not a list';
    for (var i = 0; i < list.length; i++) {
      var why = each(list[i]);
      if (why) return what + '[' + i + ']: ' + why;
    }
    return null;
  }
  function validStep(st) {
    if (!st || typeof st !== 'object' || !isTime(st.t)) return 't is not a time';
    return typeof st.step === 'string' ? null : 'no step';
  }
  function validate(doc) {
    if (!doc || typeof doc !== 'object' || !Array.isArray(doc.runs)) return 'no runs';
    if (!isText(doc.title)) return 'the title is not text';
    for (var i = 0; i < doc.runs.length; i++) {
      var r = doc.runs[i], at = 'runs[' + i + ']';
      if (!r || typeof r !== 'object') return at + ' is not an object';
      if (typeof r.name !== 'string') return at + ' has no name';
      if (r.outcome !== undefined && !OUTCOMES[r.outcome]) return at + ': unknown outcome';
      if (r.failedAt !== undefined && !isTime(r.failedAt)) return at + ': failedAt is not a time';
      if (!isText(r.message) || !isText(r.detail) || !isText(r.file)) return at + ': a text that is not';
      var why = validList(r.events, at + '.events', validEvent) || validList(r.steps, at + '.steps', validStep);
      if (why) return why;
    }
    return null;
  }

  var doc = null, bad = null;
  try { doc = JSON.parse(document.getElementById('nl-data').textContent); } catch (e) { bad = 'the data is not JSON'; }
  bad = bad || validate(doc);
  if (bad) { fail(bad); return; }
  var runs = doc.runs;
  var failed = runs.filter(function (r) { return r.outcome === 'fail'; }).length;
  body.appendChild(el('h1', null, str(doc.title) || 'timeline'));
  var sum = el('p', 'summary', runs.length + ' run' + (runs.length === 1 ? '' : 's') + ', ' + failed + ' failed: ');
  runs.forEach(function (r, i) {
    var a = el('a', null, str(r.name));
    a.setAttribute('href', '#run-' + (i + 1));
    sum.appendChild(a);
  });
  body.appendChild(sum);
  body.appendChild(legend());
  runs.forEach(function (r, i) { body.appendChild(drawRun(r, i)); });
  var why = check(runs);
  if (why) fail(why);
  else if (verdict === null) { verdict = 'ok'; body.setAttribute('data-selfcheck', 'ok'); }
}());
