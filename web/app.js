// The emu live view: one snapshot (emu-view(8)) drawn as plain SVG.
// Live runs push snapshots over Server-Sent Events (/events); a replay
// (emu view) fetches /snapshot.json?t=S as the slider moves.
'use strict';

const NS = 'http://www.w3.org/2000/svg';
const STAGE_COLOURS = ['#4a7fb0', '#e08000', '#6a6', '#a5a', '#c55', '#5aa', '#997', '#777'];
const $ = (id) => document.getElementById(id);

function el(tag, attrs, text) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}

function clear(svg, w, h) {
  svg.replaceChildren();
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  return svg;
}

function mb(bytes) { return (bytes / 1e6).toFixed(1) + ' MB'; }

function circuitList(cs) {
  return cs.map((c) => (c.port ? `${c.src}>${c.dst}@${c.port}` : `${c.src}>${c.dst}`)).sort();
}

function drawCrossbar(s) {
  const n = Math.max(s.racks, 1), w = 400, step = (w - 20) / n;
  const svg = clear($('crossbar'), w, 150);
  const x = (i) => 10 + step * (i + 0.5);
  for (let i = 0; i < n; i++) {
    svg.append(el('rect', { x: x(i) - step / 3, y: 5, width: step * 2 / 3, height: 16, fill: '#dde' }));
    svg.append(el('text', { x: x(i) - 4, y: 17 }, i));
    svg.append(el('rect', { x: x(i) - step / 3, y: 125, width: step * 2 / 3, height: 16, fill: '#dde' }));
    svg.append(el('text', { x: x(i) - 4, y: 137 }, i));
  }
  const lit = s.ocs ? s.ocs.circuits : [];
  for (const c of lit)
    svg.append(el('line', { x1: x(c.src), y1: 22, x2: x(c.dst), y2: 124, class: 'lit',
                            'stroke-dasharray': c.port ? '4 2' : '' }));
  const list = circuitList(lit);
  $('circuits').dataset.circuits = list.join(' ');
  $('circuits').textContent = s.ocs ? (list.length ? 'lit: ' + list.join(' ') : 'no circuit lit')
                                    : 'this topology has no OCS';
}

function drawDark(s) {
  const svg = clear($('dark'), 400, 90);
  const ev = s.ocs ? s.ocs.dark : [];
  if (!ev.length) { svg.append(el('text', { x: 5, y: 40 }, 'no reconfiguration yet')); return; }
  const max = Math.max(...ev.map((e) => e.dark_s), 1e-3), bw = 400 / 16;
  ev.forEach((e, i) => {
    const h = 60 * e.dark_s / max, d = 60 * Math.max(e.drain_s, 0) / max;
    svg.append(el('rect', { x: i * bw + 2, y: 70 - h, width: bw - 4, height: h - d, class: 'ocs' }));
    svg.append(el('rect', { x: i * bw + 2, y: 70 - d, width: bw - 4, height: d, fill: '#999' }));
    svg.append(el('text', { x: i * bw + 2, y: 82 }, (1e3 * e.dark_s).toFixed(1)));
  });
  const last = ev[ev.length - 1];
  svg.append(el('text', { x: 5, y: 10 },
    `latest at ${last.t.toFixed(2)} s: ${last.changed} outputs changed, drain ${(1e3 * last.drain_s).toFixed(1)} ms, dark ${(1e3 * last.dark_s).toFixed(1)} ms`));
}

function drawDemand(s) {
  const n = Math.max(s.racks, 1), size = 280, c = size / n;
  const svg = clear($('demand'), size + 20, size + 20);
  if (!s.ocs) { svg.append(el('text', { x: 5, y: 20 }, 'no OCS')); return; }
  const m = s.ocs.demand, max = Math.max(1, ...m.flat());
  for (let i = 0; i < n; i++) {
    svg.append(el('text', { x: 0, y: 20 + c * (i + 0.6) }, i));
    svg.append(el('text', { x: 20 + c * (i + 0.3), y: 10 }, i));
    for (let j = 0; j < n; j++) {
      const v = (m[i] && m[i][j]) || 0;
      const cell = el('rect', { x: 20 + c * j, y: 15 + c * i, width: c - 1, height: c - 1,
                                fill: v ? `rgba(74,127,176,${0.15 + 0.85 * v / max})` : '#f2f2f2' });
      cell.append(el('title', {}, `${i} → ${j}: ${mb(v)}`));
      svg.append(cell);
    }
  }
  for (const k of s.ocs.matching)
    svg.append(el('rect', { x: 20 + c * k.dst + 1, y: 15 + c * k.src + 1, width: c - 3, height: c - 3, class: 'chosen' }));
  $('demand-note').textContent = `served ${mb(s.ocs.served_bytes)} of ${mb(s.ocs.demand_bytes)}; ` +
    `${s.ocs.reconfigurations} reconfigurations` +
    (s.mode === 'replay' ? ' (replay: demand = circuit-eligible transfers in flight, from flows.csv)' : '');
}

function drawLinks(s) {
  const n = Math.max(s.racks, 1), w = 400, g = (w - 10) / n;
  const per = Array.from({ length: n }, () => ({ eps: 0, ocs: 0, srv: 0, backlog: 0 }));
  for (const l of s.links) {
    const r = per[l.rack];
    if (!r) continue;
    const key = l.class === 'server' ? 'srv' : l.class;
    r[key] += Math.max(l.tx_mbps, l.rx_mbps);
    r.backlog += l.backlog;
  }
  const max = Math.max(1, ...per.flatMap((r) => [r.eps, r.ocs, r.srv]));
  const svg = clear($('links'), w, 200);
  per.forEach((r, i) => {
    ['eps', 'ocs', 'srv'].forEach((k, j) => {
      const h = 150 * r[k] / max, bar = el('rect', { x: 5 + g * i + j * g / 4, y: 160 - h, width: g / 4 - 1, height: h, class: k });
      bar.append(el('title', {}, `rack ${i} ${k}: ${r[k].toFixed(1)} Mb/s`));
      svg.append(bar);
    });
    svg.append(el('text', { x: 5 + g * i, y: 172 }, i));
    if (r.backlog) svg.append(el('text', { x: 5 + g * i, y: 186, class: 'backlog' }, (r.backlog / 1e3).toFixed(0) + 'k'));
  });
  svg.append(el('text', { x: 5, y: 198 }, `blue EPS uplink, orange OCS, green servers; top = ${max.toFixed(0)} Mb/s; red: backlog (bytes)`));
}

function drawRunning(s) {
  const n = Math.max(s.racks, 1), w = 400, g = (w - 10) / n;
  const svg = clear($('running'), w, 80), max = Math.max(1, ...s.running_per_rack);
  s.running_per_rack.forEach((k, i) => {
    const h = 55 * k / max;
    svg.append(el('rect', { x: 5 + g * i, y: 60 - h, width: g - 3, height: h, class: 'srv' }));
    svg.append(el('text', { x: 5 + g * i, y: 74 }, k));
  });
}

function rows(table, entries) {
  table.replaceChildren(...entries.map(([k, v, id]) => {
    const tr = document.createElement('tr'), a = document.createElement('td'), b = document.createElement('td');
    a.textContent = k;
    b.textContent = v;
    if (id) b.id = id;
    tr.append(a, b);
    return tr;
  }));
}

function drawTables(s) {
  const m = s.summary;
  rows($('summary'), [
    ['jobs finished', m.jobs_finished, 'jobs-finished'], ['jobs', m.jobs],
    ['tasks done', `${m.tasks_done} / ${m.tasks}`],
    ['makespan so far', m.makespan_s.toFixed(2) + ' s'], ['JCT mean', m.jct_mean_s.toFixed(2) + ' s'],
    ['cross-rack, EPS', mb(m.eps_bytes)], ['cross-rack, OCS', mb(m.ocs_bytes)],
    ['on circuits', (100 * m.ocs_share).toFixed(1) + ' %'],
  ]);
  const f = s.fidelity;
  rows($('fidelity'), [
    ['verdict', f.verdict + (f.detail ? ': ' + f.detail : ''), 'verdict'], ['samples', f.samples],
    ['standing queues (link-samples)', f.standing], ['of them slow', f.slow], ['bursts', f.bursts],
    ['dropping', f.dropping], ['paused by the network', f.paused], ['CPU saturated', f.cpu_saturated],
    ['late reconfigurations', f.late_reconfigurations],
  ]);
}

function drawGantt(s) {
  const jobs = s.jobs, rowh = 12, w = 800, left = 60;
  const svg = clear($('gantt'), w, Math.max(40, jobs.length * rowh + 30));
  const span = Math.max(s.t_end || 0, s.t, 1e-3), x = (t) => left + (w - left - 10) * t / span;
  jobs.forEach((j, i) => {
    const y = 5 + i * rowh;
    svg.append(el('text', { x: 0, y: y + 9 }, j.name));
    svg.append(el('line', { x1: x(j.submit), y1: y, x2: x(j.submit), y2: y + rowh - 2, stroke: '#999' }));
    j.stages.forEach((st, k) => {
      if (st.start === null) return;
      const end = st.end === null ? s.t : st.end;
      const bar = el('rect', { x: x(st.start), y: y + 1, width: Math.max(1, x(end) - x(st.start)), height: rowh - 4,
                               fill: STAGE_COLOURS[k % STAGE_COLOURS.length], opacity: st.end === null ? 0.6 : 1 });
      bar.append(el('title', {}, `${j.name} ${st.name}: ${st.done}/${st.tasks} done, ${st.running} running`));
      svg.append(bar);
    });
  });
  const y = jobs.length * rowh + 20;
  svg.append(el('line', { x1: x(s.t), y1: 0, x2: x(s.t), y2: y - 10, stroke: '#c33' }));
  for (let k = 0; k <= 4; k++) svg.append(el('text', { x: x(span * k / 4) - 8, y }, (span * k / 4).toFixed(1) + ' s'));
}

function render(s) {
  if (s.waiting) return;
  $('title').textContent = `emu — ${s.scheduler} on ${s.topology} (${s.backend})`;
  $('t').textContent = s.t.toFixed(1);
  const st = $('status');
  st.textContent = s.mode === 'replay' ? 'replay' : s.final ? 'run over' : 'live';
  st.className = 'status' + (s.final ? ' final' : '');
  drawCrossbar(s);
  drawDark(s);
  drawDemand(s);
  drawLinks(s);
  drawRunning(s);
  drawTables(s);
  drawGantt(s);
  document.body.dataset.t = s.t;   // what is shown, for tests and scripts
}

function live() {
  const es = new EventSource('/events');
  es.onmessage = (e) => render(JSON.parse(e.data));
  es.onerror = () => {
    const st = $('status');
    if (!st.classList.contains('final')) { st.textContent = 'connection lost'; st.className = 'status lost'; }
  };
}

function replay(first) {
  const slider = $('slider');
  let busy = false, want = null, timer = null;
  $('replay').hidden = false;
  slider.max = first.t_end;
  $('t-end').textContent = `of ${first.t_end.toFixed(1)} s`;
  const show = (t) => {
    if (busy) { want = t; return; }
    busy = true;
    fetch('/snapshot.json?t=' + t).then((r) => r.json()).then(render).finally(() => {
      busy = false;
      if (want !== null) { const w = want; want = null; show(w); }
    });
  };
  slider.addEventListener('input', () => show(slider.value));
  $('play').addEventListener('click', () => {
    if (timer) { clearInterval(timer); timer = null; $('play').textContent = 'play'; return; }
    $('play').textContent = 'pause';
    timer = setInterval(() => {
      const t = Math.min(first.t_end, +slider.value + Math.max(0.1, first.t_end / 300));
      slider.value = t;
      show(t);
      if (t >= first.t_end) $('play').click();
    }, 100);
  });
  render(first);
}

fetch('/snapshot.json').then((r) => r.json()).then((s) => (s.mode === 'replay' ? replay(s) : live()))
  .catch(() => { $('status').textContent = 'no connection'; });
