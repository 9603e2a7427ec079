// vecflow console: talks to /api/v0 (docs/console-api.md) with query models, draws with echarts (bundled, /assets).
// Every chart container gets data-ready="true" and data-points="N" (non-zero values drawn) once it shows an answer,
// which the browser tests read.

const $ = (id) => document.getElementById(id);
let config = null;
const charts = new Map();

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const r = await fetch('/api/v0/' + path, init);
  let json;
  try {
    json = await r.json();
  } catch (e) {
    throw new Error(path + ': HTTP ' + r.status + ' without a JSON answer');
  }
  if (!r.ok) {
    throw new Error(json.error || (path + ': HTTP ' + r.status));
  }
  if (json.sql) {
    console.info('vecflow ' + path + ' on ' + (json.table || config?.store || '') + ':\n' + json.sql);
  }
  return json;
}

function banner(message) {
  const b = $('banner');
  b.textContent = message || '';
  b.hidden = !message;
}

// ---- time range -------------------------------------------------------------------------------------------------

const SPANS = { '15m': 15 * 60e3, '1h': 3600e3, '6h': 6 * 3600e3, '24h': 86400e3, '7d': 7 * 86400e3 };

function isoUtc(ms) {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function timeRange() {
  return rangeFor($('range').value);
}

function rangeFor(choice) {
  const now = Date.now();
  if (choice === 'custom') {
    const s = Date.parse($('start').value + 'Z');
    const e = Date.parse($('end').value + 'Z');
    if (!(s < e)) {
      throw new Error('custom time range: the start must be before the end');
    }
    return { start: isoUtc(s), end: isoUtc(e) };
  }
  if (choice === 'data') {
    const r = config?.range;
    if (r && r.oldest && r.newest) {
      const oldest = Date.parse(r.oldest);
      const newest = Date.parse(r.newest);
      // the stored rows, to 10 s, at least a minute: a short demo run fills the chart instead of a corner of it
      const start = Math.floor(oldest / 10e3) * 10e3;
      const end = Math.max(Math.ceil((newest + 1000) / 10e3) * 10e3, start + 60e3);
      return { start: isoUtc(start), end: isoUtc(end) };
    }
    return { start: isoUtc(now - 3600e3), end: isoUtc(now) };
  }
  return { start: isoUtc(now - SPANS[choice]), end: isoUtc(now) };
}

// ---- formatting ---------------------------------------------------------------------------------------------------

function si(v, unit) {
  if (v === null || v === undefined || Number.isNaN(v)) {
    return '';
  }
  const a = Math.abs(v);
  const steps = [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  for (const [f, p] of steps) {
    if (a >= f) {
      return (v / f).toFixed(a / f >= 100 ? 0 : a / f >= 10 ? 1 : 2) + ' ' + p + unit;
    }
  }
  return (Number.isInteger(v) ? v : v.toFixed(a >= 10 ? 1 : 3)) + (unit ? ' ' + unit : '');
}

function unitOf(metric) {
  return { bps: 'bps', pps: 'pps', samples: 'samples/s', flows: 'flows/s' }[metric] || '/s';
}

// ---- charts -------------------------------------------------------------------------------------------------------

function chart(el) {
  let c = charts.get(el.id);
  if (!c) {
    c = echarts.init(el, null, { renderer: 'canvas' });
    charts.set(el.id, c);
    new ResizeObserver(() => c.resize()).observe(el);
  }
  return c;
}

function mark(el, points) {
  el.dataset.points = String(points);
  el.dataset.ready = 'true';
}

function unmark(el) {
  el.dataset.ready = 'false';
}

function label(row) {
  return row.join(' · ');
}

function drawLine(el, answer, metric, stacked) {
  const c = chart(el);
  let points = 0;
  const series = answer.rows.map((row, i) => {
    const data = answer.t.map((t, j) => {
      const v = answer.points[i][j];
      if (v) {
        points++;
      }
      return [t, v];
    });
    return {
      name: label(row), type: 'line', data, showSymbol: false, smooth: false,
      stack: stacked ? 'total' : undefined, areaStyle: stacked ? { opacity: 0.75 } : undefined,
      lineStyle: { width: stacked ? 0.5 : 1.5 }, emphasis: { focus: 'series' },
    };
  });
  c.setOption({
    animation: false,
    tooltip: { trigger: 'axis', valueFormatter: (v) => si(v, unitOf(metric)) },
    legend: { type: 'scroll', bottom: 0 },
    grid: { left: 16, right: 20, top: 20, bottom: 50, containLabel: true },
    xAxis: { type: 'time' },
    yAxis: { type: 'value', axisLabel: { formatter: (v) => si(v, unitOf(metric)) } },
    series,
  }, true);
  if (!answer.rows.length) {
    c.setOption({ title: { text: 'no data in this range', left: 'center', top: 'middle',
      textStyle: { color: '#5b6575', fontSize: 14, fontWeight: 'normal' } } });
  }
  mark(el, points);
}

function drawSankey(el, answer, metric) {
  const c = chart(el);
  const links = answer.links.filter((l) => l.xps > 0);
  c.setOption({
    animation: false,
    tooltip: { trigger: 'item', valueFormatter: (v) => si(v, unitOf(metric)) },
    series: [{
      type: 'sankey', left: 10, right: 160, top: 10, bottom: 10, emphasis: { focus: 'adjacency' },
      data: answer.nodes.map((n) => ({ name: n })),
      links: links.map((l) => ({ source: l.source, target: l.target, value: l.xps })),
      lineStyle: { color: 'gradient', curveness: 0.5 },
    }],
  }, true);
  mark(el, links.length);
}

function drawTopTable(table, answer, metric) {
  const palette = chart($('viz-chart')).getOption()?.color || [];
  const head = '<tr><th></th>' + (answer.dimensions || []).map((d) => '<th>' + esc(d) + '</th>').join('')
    + '<th>average</th><th>min</th><th>max</th><th>95th</th><th>total</th></tr>';
  const u = unitOf(metric);
  const body = answer.rows.map((row, i) => '<tr><td><span class="swatch" style-color="' + i + '"></span></td>'
    + row.map((v) => '<td>' + esc(v) + '</td>').join('')
    + ['average', 'min', 'max', '95th'].map((k) => '<td class="num">' + si(answer[k][i], u) + '</td>').join('')
    + '<td class="num">' + si(answer.total[i], totalUnit(metric)) + '</td></tr>').join('');
  table.innerHTML = head + body;
  table.querySelectorAll('[style-color]').forEach((s) => {
    s.style.background = palette[Number(s.getAttribute('style-color')) % palette.length] || '#888';
  });
}

function totalUnit(metric) {
  return { bps: 'bits', pps: 'packets', samples: 'samples', flows: 'flows' }[metric] || '';
}

function esc(v) {
  return String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;',
    "'": '&#39;' })[c]);
}

function drawRows(table, answer) {
  table.innerHTML = '<tr>' + answer.columns.map((c) => '<th>' + esc(c) + '</th>').join('') + '</tr>'
    + answer.rows.map((r) => '<tr>' + r.map((v) => '<td>' + esc(v) + '</td>').join('') + '</tr>').join('');
  mark(table, answer.rows.length);
}

// ---- filters ------------------------------------------------------------------------------------------------------

function filterBox(source, inputId, errorId) {
  const input = $(inputId);
  const error = $(errorId);
  let seq = 0;
  let valid = true;
  async function check() {
    const mine = ++seq;
    const text = input.value;
    if (!text.trim()) {
      valid = true;
      input.classList.remove('invalid');
      error.hidden = true;
      return true;
    }
    const r = await api('POST', 'filter/validate', { source, filter: text });
    if (mine !== seq) {
      return valid;
    }
    valid = r.valid;
    input.classList.toggle('invalid', !r.valid);
    if (r.valid) {
      error.hidden = true;
    } else {
      const pos = r.position ?? 0;
      error.textContent = text + '\n' + ' '.repeat(Math.max(0, pos)) + '^ ' + r.error;
      error.dataset.position = String(pos);
      error.hidden = false;
    }
    return r.valid;
  }
  let timer = 0;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => check().catch((e) => banner(e.message)), 250);
  });
  return { check, value: () => input.value };
}

// ---- pages --------------------------------------------------------------------------------------------------------

const viz = { dims: [], filter: null };

function dimensionsOf(source) {
  return (config.sources[source]?.dimensions || []).map((d) => d.name);
}

function renderChips() {
  const box = $('viz-chosen');
  box.innerHTML = '';
  viz.dims.forEach((d, i) => {
    const chip = document.createElement('span');
    chip.className = 'chip';
    chip.textContent = d;
    const x = document.createElement('button');
    x.type = 'button';
    x.textContent = '×';
    x.title = 'remove ' + d;
    x.addEventListener('click', () => {
      viz.dims.splice(i, 1);
      renderChips();
    });
    chip.appendChild(x);
    box.appendChild(chip);
  });
  const sel = $('viz-dimension');
  sel.innerHTML = '<option value="">+ add…</option>' + dimensionsOf('flows').filter((d) => !viz.dims.includes(d))
    .map((d) => '<option>' + esc(d) + '</option>').join('');
}

function setupVisualize() {
  const flows = config.sources.flows;
  viz.dims = (flows.defaultDimensions || []).slice(0, 6);
  $('viz-metric').innerHTML = flows.metrics.map((m) => '<option>' + esc(m) + '</option>').join('');
  renderChips();
  $('viz-dimension').addEventListener('change', (e) => {
    if (e.target.value && viz.dims.length < 6) {
      viz.dims.push(e.target.value);
    }
    renderChips();
  });
  viz.filter = filterBox('flows', 'viz-filter', 'viz-filter-error');
  $('viz-form').addEventListener('submit', (e) => {
    e.preventDefault();
    loadVisualize();
  });
  $('viz-graph').addEventListener('change', () => loadVisualize());
  $('viz-metric').addEventListener('change', () => loadVisualize());
}

async function loadVisualize() {
  const el = $('viz-chart');
  unmark(el);
  if (!(await viz.filter.check())) {
    return;
  }
  const graph = $('viz-graph').value;
  const metric = $('viz-metric').value;
  const q = { source: 'flows', ...timeRange(), dimensions: viz.dims, filter: viz.filter.value(), metric,
    limit: Math.min(50, Math.max(1, Number($('viz-limit').value) || 10)) };
  if (graph === 'sankey') {
    if (viz.dims.length < 2) {
      throw new Error('a sankey needs at least two dimensions');
    }
    const a = await api('POST', 'graph/sankey', q);
    drawSankey(el, a, metric);
    $('viz-table').innerHTML = '';
    $('viz-info').textContent = 'table ' + a.table + ', ' + a.rows.length + ' rows';
  } else {
    const a = await api('POST', 'graph/line', { ...q, points: 200 });
    a.dimensions = viz.dims.length ? viz.dims : ['Total'];
    drawLine(el, a, metric, graph === 'stacked');
    drawTopTable($('viz-table'), a, metric);
    $('viz-info').textContent = 'table ' + a.table + ', ' + a.interval + ' s per point, ' + a.t.length + ' points';
  }
}

let drops = null;

function setupDrops() {
  const dims = dimensionsOf('drops');
  const wanted = ['DiscardReasonName', 'InIfName', 'AgentAddress', 'ExporterName', 'Proto'];
  $('drops-dimension').innerHTML = wanted.filter((d) => dims.includes(d))
    .map((d) => '<option>' + esc(d) + '</option>').join('');
  drops = filterBox('drops', 'drops-filter', 'drops-filter-error');
  $('drops-form').addEventListener('submit', (e) => {
    e.preventDefault();
    loadDrops();
  });
  $('drops-dimension').addEventListener('change', () => loadDrops());
}

async function loadDrops() {
  const el = $('drops-chart');
  unmark(el);
  unmark($('drops-rows'));
  if (!(await drops.check())) {
    return;
  }
  const r = timeRange();
  const dim = $('drops-dimension').value;
  const a = await api('POST', 'graph/line', { source: 'drops', ...r, dimensions: dim ? [dim] : [],
    filter: drops.value(), metric: 'pps', limit: 10, points: 200 });
  drawLine(el, a, 'pps', true);
  $('drops-info').textContent = 'dropped packets per second by ' + (dim || 'total') + ' (table ' + a.table + ')';
  drawRows($('drops-rows'), await api('POST', 'rows', { source: 'drops', ...r, filter: drops.value(), limit: 50 }));
}

async function loadLb() {
  const r = timeRange();
  const dims = dimensionsOf('lb_decisions');
  const pair = ['VIP', 'Backend'].filter((d) => dims.includes(d));
  const metric = (config.sources.lb_decisions.metrics || ['flows'])[0];
  for (const id of ['lb-chart', 'lb-sankey', 'lb-choice']) {
    unmark($(id));
  }
  const line = await api('POST', 'graph/line', { source: 'lb_decisions', ...r, dimensions: pair, filter: '',
    metric, limit: 20, points: 200 });
  drawLine($('lb-chart'), line, metric, true);
  $('lb-table').innerHTML = '<tr>' + pair.map((d) => '<th>' + esc(d) + '</th>').join('')
    + '<th>total ' + esc(metric) + '</th><th>share</th></tr>' + lbRows(line);
  drawFairness($('lb-fairness'), line, pair);
  if (pair.length === 2) {
    drawSankey($('lb-sankey'), await api('POST', 'graph/sankey', { source: 'lb_decisions', ...r,
      dimensions: pair, filter: '', metric, limit: 20 }), metric);
  }
  const choice = dims.find((d) => /choice|hunt|attempt/i.test(d));
  $('lb-choice').hidden = !choice;
  $('lb-choice-title').hidden = !choice;
  if (choice) {
    drawLine($('lb-choice'), await api('POST', 'graph/line', { source: 'lb_decisions', ...r, dimensions: [choice],
      filter: '', metric, limit: 5, points: 100 }), metric, true);
  }
}

// Per VIP, how evenly its backends took the placements: Jain's fairness index (sum x)^2 / (n * sum x^2), 1 when
// every backend took the same share, 1/n when one took all; and the largest share against the even share 1/n.
function drawFairness(el, a, pair) {
  const vip = pair.indexOf('VIP');
  const backend = pair.indexOf('Backend');
  if (vip < 0 || backend < 0) {
    el.innerHTML = '';
    mark(el, 0);
    return;
  }
  const per = new Map();
  a.rows.forEach((row, i) => {
    if (row[vip] === 'Other') {
      return;
    }
    const xs = per.get(row[vip]) || [];
    xs.push(a.total[i]);
    per.set(row[vip], xs);
  });
  const rows = [...per.entries()].map(([v, xs]) => {
    const sum = xs.reduce((x, y) => x + y, 0);
    const sq = xs.reduce((x, y) => x + y * y, 0);
    const jain = sq ? (sum * sum) / (xs.length * sq) : 1;
    const maxShare = sum ? Math.max(...xs) / sum : 0;
    return '<tr><td>' + esc(v) + '</td><td class="num">' + xs.length + '</td><td class="num">' + jain.toFixed(3)
      + '</td><td class="num">' + (100 * maxShare).toFixed(1) + ' % (even ' + (100 / xs.length).toFixed(1)
      + ' %)</td></tr>';
  });
  el.innerHTML = '<tr><th>VIP</th><th>backends</th><th>fairness (Jain)</th><th>largest share</th></tr>'
    + rows.join('');
  mark(el, rows.length);
}

function lbRows(a) {
  const sum = a.total.reduce((x, y) => x + y, 0) || 1;
  return a.rows.map((row, i) => '<tr>' + row.map((v) => '<td>' + esc(v) + '</td>').join('')
    + '<td class="num">' + si(a.total[i], '') + '</td><td class="num">' + (100 * a.total[i] / sum).toFixed(1)
    + ' %</td></tr>').join('');
}

async function loadPipeline() {
  const r = timeRange();
  const el = $('pipe-chart');
  unmark(el);
  unmark($('pipe-table'));
  const metrics = config.sources.agents.metrics;
  const answers = {};
  for (const m of metrics) {
    answers[m] = await api('POST', 'graph/line', { source: 'agents', ...r, dimensions: ['AgentAddress'],
      filter: '', metric: m, limit: 20, points: 120 });
  }
  const s = answers.samples;
  const lost = answers.samples_lost;
  const merged = { t: s.t, rows: [], points: [] };
  s.rows.forEach((row, i) => {
    merged.rows.push([row[0], 'samples']);
    merged.points.push(s.points[i]);
  });
  (lost?.rows || []).forEach((row, i) => {
    merged.rows.push([row[0], 'samples lost']);
    merged.points.push(lost.points[i]);
  });
  drawLine(el, merged, 'samples', false);
  const agents = [...new Set(metrics.flatMap((m) => answers[m].rows.map((row) => row[0])))]
    .filter((a) => a !== 'Other');
  const total = (m, agent) => {
    const a = answers[m];
    const i = a.rows.findIndex((row) => row[0] === agent);
    return i < 0 ? 0 : a.total[i];
  };
  $('pipe-table').innerHTML = '<tr><th>AgentAddress</th>' + metrics.map((m) => '<th>' + esc(m) + '</th>').join('')
    + '<th>sample coverage</th></tr>' + agents.map((agent) => {
    const got = total('samples', agent);
    const miss = metrics.includes('samples_lost') ? total('samples_lost', agent) : 0;
    return '<tr><td>' + esc(agent) + '</td>' + metrics.map((m) => '<td class="num">' + si(total(m, agent), '')
      + '</td>').join('') + '<td class="num">' + (got + miss ? (100 * got / (got + miss)).toFixed(2) + ' %' : '')
      + '</td></tr>';
  }).join('');
  mark($('pipe-table'), agents.length);
}

const PAGES = { visualize: loadVisualize, drops: loadDrops, lb: loadLb, pipeline: loadPipeline };

function currentPage() {
  const p = location.hash.replace('#', '');
  return PAGES[p] ? p : 'visualize';
}

async function show() {
  const page = currentPage();
  document.querySelectorAll('.page').forEach((s) => {
    s.hidden = s.id !== 'page-' + page;
  });
  document.querySelectorAll('#tabs a').forEach((a) => a.classList.toggle('active', a.dataset.page === page));
  banner('');
  try {
    await PAGES[page]();
  } catch (e) {
    banner(e.message);
  }
  document.body.dataset.page = page;
}

async function main() {
  try {
    config = await api('GET', 'configuration');
  } catch (e) {
    banner('cannot load the configuration: ' + e.message);
    return;
  }
  $('store').textContent = config.store + (config.version ? ' · ' + config.version : '');
  setupVisualize();
  setupDrops();
  $('range').addEventListener('change', () => {
    $('custom-range').hidden = $('range').value !== 'custom';
    if ($('range').value === 'custom') {
      const r = rangeFor('data');
      $('start').value = r.start.replace('Z', '');
      $('end').value = r.end.replace('Z', '');
    }
    show();
  });
  $('refresh').addEventListener('click', async () => {
    config = await api('GET', 'configuration');
    show();
  });
  window.addEventListener('hashchange', show);
  await show();
}

window.addEventListener('load', main);
