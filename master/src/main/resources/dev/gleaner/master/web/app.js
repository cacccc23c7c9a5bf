// The master's read-only page: polls /api/status every second and redraws. Everything shown is
// written with textContent or SVG attributes, never as HTML: job names and worker ids come from
// whoever submitted or joined.
(function () {
  'use strict';
  const POLL_MS = 1000;
  const HISTORY = 3600;           // points of the units/s chart kept (an hour of polls)
  const CHART_SERIES = 8;         // workers drawn in the chart at most, besides their sum
  const WINDOW = 10;              // polls each point of the chart spans
  const MIN_SPAN_MS = 5000;       // the least time a point spans (the page's first few seconds draw none)
  const ALL = '';                 // the chart's series of all workers (no worker id is empty)
  const SVG = 'http://www.w3.org/2000/svg';
  const token = new URLSearchParams(location.search).get('token');

  const history = { t: [], series: new Map() };  // worker id (ALL: their sum) -> units/s, aligned with t
  const samples = [];                             // the last WINDOW + 1 polls' units done per worker
  let chart = null;
  let chartSeries = null;

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') { e.className = v; } else { e.setAttribute(k, v); }
    }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }

  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) { e.setAttribute(k, String(v)); }
    if (text !== undefined) { e.textContent = String(text); }
    return e;
  }

  // Every number on the page in one form: three significant digits and an SI prefix (1.00 T, 15.9 M,
  // 812 k, 42, 2.50, 0.0123); exact figures stay in the tooltips, /api/status and the command line.
  const PREFIXES = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];

  function human(x) {
    if (x === null || x === undefined || !isFinite(x)) { return '?'; }
    const r = Number(Number(x).toPrecision(3));
    const a = Math.abs(r);
    for (const [d, prefix] of PREFIXES) {
      if (a >= d) { return three(r / d) + ' ' + prefix; }
    }
    return Number.isInteger(r) || a < 1 ? r.toString() : three(r);
  }

  function three(v) {
    const a = Math.abs(v);
    return v.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : 2);
  }

  // the master's messages in the same form: counts of five digits or more and 1.2e+06-style figures
  // (not the digits inside an id, a date or a result line, which are shown as they are)
  function humanText(text) {
    return text.replace(/(?<![\w.:-])(\d{5,}|\d+(\.\d+)?e[+-]?\d+)(?![\w.:-]*\w)/g, m => human(Number(m)));
  }

  function clock(ms) {
    return ms ? new Date(ms).toLocaleString() : '';
  }

  function seconds(s) {
    if (!isFinite(s)) { return '?'; }
    if (s < 120) { return Math.round(s) + ' s'; }
    if (s < 7200) { return Math.round(s / 60) + ' min'; }
    return (s / 3600).toFixed(1) + ' h';
  }

  // seconds as m:ss or h:mm:ss, for the plan's time axis
  function span(s) {
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = Math.round(s % 60);
    const two = n => (n < 10 ? '0' : '') + n;
    return h > 0 ? h + ':' + two(m) + ':' + two(sec) : m + ':' + two(sec);
  }

  function row(cells) {
    const tr = el('tr');
    for (const c of cells) { tr.appendChild(c); }
    return tr;
  }

  function cell(text, cls) { return el('td', cls ? { class: cls } : {}, text); }

  function titled(e, title) {
    e.setAttribute('title', title);
    return e;
  }

  // ------------------------------------------------------------------ jobs

  function progress(j) {
    const total = Math.max(1, j.unitsTotal);
    const bar = el('div', { class: 'bar', title: 'green: units done; blue line: the units the forecast expects saved' });
    const done = el('div', { class: 'done' });
    done.style.width = Math.min(100, 100 * j.unitsDone / total) + '%';
    bar.appendChild(done);
    if (j.forecast) {
      const exp = el('div', { class: 'expected' });
      exp.style.left = Math.min(100, 100 * j.forecast.units / total) + '%';
      bar.appendChild(exp);
    }
    bar.appendChild(el('span', { class: 'label' }, (100 * j.unitsDone / total).toFixed(1) + '% of total'));
    const td = el('td');
    td.appendChild(bar);
    return td;
  }

  // a running job's forecast: the share of it saved by its deadline, or when it ends; with its band,
  // the lowest and the highest of the simulated runs
  function forecastCell(j) {
    const f = j.forecast;
    if (!f) {
      return cell(j.state === 'RUNNING' ? '…' : '', 'num');
    }
    const basis = 'the lowest and highest of ' + f.runs + ' simulated runs from ' + clock(f.atMillis);
    if ((j.deadlineMillis && f.finished < 0.5) || f.endMillis === null) {
      const total = Math.max(1, j.unitsTotal);
      const share = (u) => (100 * u / total).toFixed(1) + '%';
      return titled(cell(share(f.units) + ' (' + share(f.unitsLow) + '–' + share(f.unitsHigh) + ')', 'num forecast'),
          human(f.units) + ' units saved' + (j.deadlineMillis ? ' by the deadline, ' + clock(j.deadlineMillis)
              : ' (fewer than half the runs saved every unit)') + '; band: ' + basis);
    }
    return titled(cell('done ' + clock(f.endMillis) + ' (' + (f.endLowMillis ? clock(f.endLowMillis) : '?') + '–'
        + (f.endHighMillis ? clock(f.endHighMillis) : 'later') + ')', 'forecast'),
        'when every unit is saved; band: ' + basis);
  }

  function drawJobs(s) {
    const body = document.querySelector('#jobs tbody');
    body.replaceChildren();
    document.getElementById('no-jobs').hidden = s.jobs.length > 0;
    document.getElementById('jobs-omitted').textContent = s.jobsOmitted > 0
        ? '(' + s.jobsOmitted + ' older not shown)' : '';
    for (const j of s.jobs.slice().reverse()) {
      const tr = row([
        cell(j.id + (j.name ? ' ' + j.name : '') + ' (' + j.workload + ')'),
        cell(j.state, 'state state-' + j.state),
        progress(j),
        titled(cell(human(j.unitsDone) + ' of ' + human(j.unitsTotal) + ' units', 'num done'),
            j.unitsDone + ' of ' + j.unitsTotal + ' units'),
        forecastCell(j),
        cell(human(j.unitsPerSecond), 'num'),
        cell(j.strategy),
        cell(j.replans, 'num'),
        cell(j.deadlineMillis ? clock(j.deadlineMillis) : ''),
      ]);
      tr.setAttribute('data-job', j.id);
      tr.setAttribute('data-state', j.state);
      tr.setAttribute('data-units-done', j.unitsDone);
      body.appendChild(tr);
      const why = [humanText(j.planReason || ''), humanText(j.message || ''), j.finishedAtMillis ? 'result: ' + j.resultLine : '']
          .filter(x => x).join(' | ');
      if (why) {
        const td = el('td', { colspan: 9, class: 'reason' }, why);
        body.appendChild(row([td]));
      }
    }
  }

  // ------------------------------------------------------------------ plans

  // One job's plan as the planner predicted it, one lane per worker: blue receiving, green
  // computing (a shade per piece, a tick at each checkpoint), the red line now, dashed the deadline.
  function drawPlan(j, now) {
    const p = j.plan;
    const box = el('div', { class: 'plan', 'data-plan': j.id });
    box.appendChild(el('h3', {}, 'Plan of ' + j.id + ': ' + j.strategy + ', made ' + clock(p.plannedAtMillis)
        + (j.replans > 0 ? ' (re-plan ' + j.replans + ')' : '')));
    const LEFT = 120, WIDTH = 800, ROW = 22, TOP = 8, RIGHT = 250;
    const t0 = p.plannedAtMillis;
    let end = Math.max(p.endMillis || t0, now, j.deadlineMillis || 0);
    end = t0 + Math.max(1000, (end - t0) * 1.04);
    const x = t => LEFT + WIDTH * (t - t0) / (end - t0);
    const height = TOP + p.lanes.length * ROW + 28;
    const root = svg('svg', { width: LEFT + WIDTH + RIGHT, height: height, role: 'img' });
    let y = TOP;
    for (const lane of p.lanes) {
      const g = svg('g', { 'data-worker': lane.worker });
      g.appendChild(svg('text', { x: 4, y: y + 14 }, lane.worker));
      g.appendChild(svg('rect', { x: LEFT, y: y + 2, width: WIDTH, height: ROW - 6, fill: '#f1f1f1' }));
      for (const r of lane.receiving) {
        g.appendChild(svg('rect', { x: x(r[0]), y: y + 2, width: Math.max(1, x(r[1]) - x(r[0])), height: ROW - 6,
          fill: '#4a7fd4' }));
      }
      let shade = 0;
      for (const c of lane.pieces) {
        const piece = svg('rect', { x: x(c.startMillis), y: y + 2, width: Math.max(1, x(c.savedMillis) - x(c.startMillis)),
          height: ROW - 6, fill: shade++ % 2 === 0 ? '#3f9d5a' : '#6cc484' });
        piece.appendChild(svg('title', {}, c.units + ' units, saved by ' + new Date(c.savedMillis).toLocaleTimeString()));
        g.appendChild(piece);
        g.appendChild(svg('line', { x1: x(c.savedMillis), x2: x(c.savedMillis), y1: y + 2, y2: y + ROW - 4,
          stroke: '#222' }));
      }
      const saved = (j.unitsByWorker || {})[lane.worker] || 0;
      g.appendChild(svg('text', { x: LEFT + WIDTH + 8, y: y + 14 },
          human(lane.units) + ' in this plan, ' + human(saved) + ' saved in all'
          + (lane.piecesOmitted > 0 ? ' (+' + lane.piecesOmitted + ' pieces)' : '')));
      root.appendChild(g);
      y += ROW;
    }
    if (j.deadlineMillis) {
      root.appendChild(svg('line', { x1: x(j.deadlineMillis), x2: x(j.deadlineMillis), y1: 0, y2: y,
        stroke: '#d43a3a', 'stroke-dasharray': '5,4' }));
    }
    const nx = Math.min(LEFT + WIDTH, x(now));
    root.appendChild(svg('line', { x1: nx, x2: nx, y1: 0, y2: y, stroke: '#d43a3a', 'stroke-width': 2, class: 'now' }));
    // the time axis, seconds since the plan was made
    root.appendChild(svg('line', { x1: LEFT, x2: LEFT + WIDTH, y1: y + 2, y2: y + 2, stroke: '#222' }));
    const total = (end - t0) / 1000;
    const step = niceStep(total / 8);
    for (let t = 0; t <= total; t += step) {
      const tx = LEFT + WIDTH * t / total;
      root.appendChild(svg('line', { x1: tx, x2: tx, y1: y + 2, y2: y + 7, stroke: '#222' }));
      root.appendChild(svg('text', { x: tx, y: y + 19, 'text-anchor': 'middle' }, span(t)));
    }
    box.appendChild(root);
    box.appendChild(el('div', { class: 'muted' },
        'blue: receiving input, green: computing (ticks: checkpoints), red: now, dashed: the deadline;'
        + ' times as the plan predicted them, on computers not interrupted'));
    const lists = Object.entries(j.recoveryLists || {});
    if (lists.length > 0 || (j.reroutes || []).length > 0) {
      const d = el('details');
      d.appendChild(el('summary', {}, 'recovery lists (' + (j.recoveryScheme || 'none') + ') and '
          + (j.reroutes || []).length + ' reroute(s)'));
      for (const [w, l] of lists) {
        d.appendChild(el('div', {}, w + ' -> ' + l.join(', ')));
      }
      for (const r of j.reroutes || []) {
        d.appendChild(el('div', {}, 'rerouted ' + human(r.units) + ' units (' + r.chunks + ' chunks) of ' + r.from
            + ' to ' + (r.to || 'the shared pool') + ' along ' + r.origin + "'s list"));
      }
      box.appendChild(d);
    }
    return box;
  }

  // a step of the time axis a person reads easily: 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min, 1, 2, 3, 6, 12 h, days
  function niceStep(raw) {
    const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];
    for (const k of steps) {
      if (k >= raw) { return k; }
    }
    return 86400 * Math.ceil(raw / 86400);
  }

  function drawPlans(s) {
    const box = document.getElementById('plans');
    box.replaceChildren();
    const running = s.jobs.filter(j => j.plan && j.plan.lanes.length > 0);
    if (running.length > 0) {
      box.appendChild(el('h2', {}, 'Planned timelines'));
    }
    for (const j of running) {
      box.appendChild(drawPlan(j, s.atMillis));
    }
  }

  // ------------------------------------------------------------------ workers

  function drawWorkers(s) {
    const body = document.querySelector('#workers tbody');
    body.replaceChildren();
    document.getElementById('no-workers').hidden = s.workers.length > 0;
    for (const w of s.workers) {
      const rate = w.risk.rate;
      const tr = row([
        cell(w.id),
        cell(w.via ? w.host + ' (through relay ' + w.via + ')' : w.host),
        cell(w.cores, 'num'),
        cell(w.state + (w.awayReason ? ' (' + w.awayReason + ')' : ''), 'state state-' + w.state),
        cell(human(w.unitsPerSecond), 'num'),
        cell(human(w.bandwidth.value) + ' (' + w.bandwidth.observations + ')', 'num'),
        cell(rate === null ? '?' : (rate * 3600).toFixed(3) + ' (' + w.risk.interruptions + ')', 'num'),
        cell(w.currentChunk || (w.idleReason ? 'none: ' + w.idleReason : '-')),
        titled(cell(human(w.unitsDone), 'num'), w.unitsDone + ' units'),
        cell(seconds(w.silentMillis / 1000), 'num'),
      ]);
      tr.setAttribute('data-worker', w.id);
      tr.setAttribute('data-state', w.state);
      body.appendChild(tr);
    }
    // the relays logged in, each with the workers that came through it and the relay it came through
    const relays = s.relays || [];
    const line = document.getElementById('relays');
    line.hidden = relays.length === 0;
    line.textContent = 'Relays: ' + relays.map(r => r.id + ' on ' + r.host
        + (r.via ? ' (through relay ' + r.via + ')' : '') + ', ' + r.workers
        + (r.workers === 1 ? ' worker' : ' workers')).join('; ');
  }

  // ------------------------------------------------------------------ units/s chart (uPlot)

  // Units computed per second by all workers and by each (the first CHART_SERIES), each point over
  // the last WINDOW polls: heartbeats come every few seconds, so a rate over one second is spiky.

  // what a worker computed so far: its own count from its heartbeats (work between checkpoints
  // included), or what the master saved of it for a worker that does not send one
  function computed(w) {
    return w.unitsComputed > 0 ? w.unitsComputed : w.unitsDone;
  }

  function drawChart(s) {
    if (history.t.length === 0 && Array.isArray(s.computed) && s.computed.length > 0) {
      // the master's last hour, a point per 10 s, before this page's own points
      history.t = s.computed.map(p => p[0] / 1000);
      history.series.set(ALL, s.computed.map(p => p[1]));
    }
    const done = new Map([[ALL, s.workers.reduce((sum, w) => sum + computed(w), 0)]]);
    for (const w of s.workers) { done.set(w.id, computed(w)); }
    samples.push({ t: s.atMillis, done: done });
    if (samples.length > WINDOW + 1) { samples.shift(); }
    const first = samples[0];
    // a point once the window spans a few heartbeats: over one or two seconds a rate is 0 or double
    if (samples.length > 1 && s.atMillis - first.t >= MIN_SPAN_MS) {
      const dt = (s.atMillis - first.t) / 1000;
      history.t.push(s.atMillis / 1000);
      for (const [id, units] of done) {
        if (!history.series.has(id)) {
          if (history.series.size > CHART_SERIES) { continue; }
          history.series.set(id, new Array(history.t.length - 1).fill(null));
        }
        const before = first.done.get(id);
        history.series.get(id).push(before === undefined ? null : Math.max(0, (units - before) / dt));
      }
      for (const [id, ys] of history.series) {
        if (!done.has(id)) { ys.push(null); }
      }
      if (history.t.length > HISTORY) {
        history.t.shift();
        for (const ys of history.series.values()) { ys.shift(); }
      }
    }
    const ids = [...history.series.keys()];
    const target = document.getElementById('rate-chart');
    const data = [history.t].concat(ids.map(id => history.series.get(id)));
    if (ids.join('\n') !== chartSeries) {
      if (chart) { chart.destroy(); chart = null; }
      chartSeries = ids.join('\n');
      if (ids.length === 0 || typeof uPlot === 'undefined') {
        target.textContent = ids.length === 0 ? 'measuring...' : 'the chart library did not load';
        return;
      }
      target.textContent = '';
      const colours = ['#222222', '#3f9d5a', '#4a7fd4', '#d48a3a', '#9b4ad4', '#d43a3a', '#3ab7c4', '#a0a03a', '#c44a8a'];
      chart = new uPlot({
        width: 1000, height: 220,
        // at least the last 30 s: one point alone would stretch the axis over years
        scales: { x: { time: true, range: (u, min, max) => [Math.min(min, max - 30), max] } },
        axes: [{}, { label: 'units/s', size: 70, values: (u, vals) => vals.map(human) }],
        series: [{}].concat(ids.map((id, i) => ({ label: id === ALL ? 'all workers' : id,
          stroke: colours[i % colours.length], width: id === ALL ? 2.5 : 1.5, points: { show: false },
          value: (u, v) => v === null ? '-' : human(v) }))),
      }, data, target);
    } else if (chart) {
      chart.setData(data);
    }
  }

  // ------------------------------------------------------------------ polling

  function show(s) {
    document.getElementById('error').hidden = true;
    document.getElementById('updated').textContent = 'updated ' + new Date(s.atMillis).toLocaleTimeString();
    document.getElementById('eps').textContent = s.eps.value === null ? ''
        : 'checkpoint round trip ' + (s.eps.value * 1000).toFixed(1) + ' ms (' + s.eps.observations + ')';
    drawJobs(s);
    drawPlans(s);
    drawWorkers(s);
    drawChart(s);
  }

  function fail(text) {
    const e = document.getElementById('error');
    e.textContent = text;
    e.hidden = false;
  }

  async function poll() {
    try {
      const r = await fetch('/api/status', { cache: 'no-store',
        headers: token ? { Authorization: 'Bearer ' + token } : {} });
      if (!r.ok) {
        fail('the master answered ' + r.status + ': ' + (await r.text()).trim());
      } else {
        show(await r.json());
      }
    } catch (e) {
      fail('cannot reach the master: ' + e.message + ' (trying again every second)');
    } finally {
      setTimeout(poll, POLL_MS);
    }
  }

  // the status the page came with, drawn before the first poll: the first paint shows the jobs and workers
  const initial = document.getElementById('initial-status');
  if (initial) {
    try {
      show(JSON.parse(initial.textContent));
    } catch (e) {
      fail('cannot read the status the page came with: ' + e.message + ' (its polls fetch it)');
    }
  }
  setTimeout(poll, initial ? POLL_MS : 0);
})();
