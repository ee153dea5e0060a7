// The detail's charts, drawn by uPlot from GET /api/v1/audit/rollups: failure rate, mean time and
// evaluations per version over the window, each version's baseline as a dashed line. A table
// beside them gives the same figures as text (screen readers, copying).
import uPlot from '/console/vendor/uPlot.esm.js';
import { h } from './dom.js';
import { formatMs, formatPercent, formatTime } from './format.js';

// Distinct on white at 4.5:1 or more.
const COLOURS = ['#1f4e99', '#a4262c', '#1b6e3a', '#6b3fa0', '#8a5300', '#00616b'];
const CHART_HEIGHT = 320;
/** Room per time label on the x axis (`2026-11-28 14:05 UTC`), so labels never overlap. */
const TIME_LABEL_SPACE = 170;
/** uPlot's x values are seconds since 1970. */
const timeOf = (seconds) => formatTime(seconds * 1000);

const METRICS = [
  { key: 'failureRate', title: 'Failure rate', axis: (v) => formatPercent(v), baseline: (total) => total.failureRate },
  { key: 'meanMs', title: 'Mean execution time', axis: (v) => formatMs(v), baseline: (total) => total.meanMs },
  { key: 'count', title: 'Evaluations per step', axis: (v) => v.toLocaleString('en-US'), baseline: null },
];

function chartOptions(metric, series, baselineByVersion, width) {
  const lines = [{ label: 'Time', value: (_u, seconds) => (seconds === null ? '—' : timeOf(seconds)) }];
  series.forEach((one, index) => {
    const stroke = COLOURS[index % COLOURS.length];
    // Points too: a step with evaluations between two without is no line, only a point.
    lines.push({ label: `v${one.version}`, stroke, width: 2, spanGaps: false, points: { show: true, size: 5, fill: stroke }, value: (_u, v) => (v === null ? '—' : metric.axis(v)) });
    if (metric.baseline && baselineByVersion.has(one.version)) {
      lines.push({ label: `v${one.version} baseline`, stroke, width: 1, dash: [6, 4], value: (_u, v) => (v === null ? '—' : metric.axis(v)) });
    }
  });
  return {
    width,
    height: CHART_HEIGHT,
    series: lines,
    scales: { x: { time: true } },
    axes: [{ values: (_u, ticks) => ticks.map(timeOf), space: TIME_LABEL_SPACE }, { values: (_u, ticks) => ticks.map(metric.axis), size: 80 }],
    legend: { live: true },
  };
}

function chartData(metric, series, baselineByVersion) {
  const xs = (series[0]?.points ?? []).map((point) => Date.parse(point.at) / 1000);
  const columns = [xs];
  for (const one of series) {
    columns.push(one.points.map((point) => point[metric.key]));
    const baseline = baselineByVersion.get(one.version);
    if (metric.baseline && baseline) columns.push(xs.map(() => metric.baseline(baseline)));
  }
  return columns;
}

function summaryTable(series, baselineByVersion, withBaseline) {
  const cells = (total) => (total ? [total.count.toLocaleString('en-US'), formatPercent(total.failureRate), formatMs(total.meanMs)] : ['0', '—', '—']);
  const headings = ['Version', 'Evaluations', 'Failure rate', 'Mean time', ...(withBaseline ? ['Baseline evaluations', 'Baseline failure rate', 'Baseline mean time'] : [])];
  return h(
    'table',
    { className: 'rollup-table' },
    h('caption', {}, withBaseline ? 'Per version: the charted window and the baseline' : 'Per version: the charted window'),
    h('thead', {}, h('tr', {}, headings.map((title) => h('th', { scope: 'col' }, title)))),
    h(
      'tbody',
      {},
      series.map((one) =>
        h('tr', {}, h('th', { scope: 'row' }, one.versionId), cells(one.total).map((text) => h('td', {}, text)), withBaseline && cells(baselineByVersion.get(one.version)).map((text) => h('td', {}, text))),
      ),
    ),
  );
}

/**
 * The charts of a window answer and a baseline answer (null: no baseline, no dashed lines); the
 * element and a `dispose` for when the page goes.
 */
export function rollupCharts(windowAnswer, baselineAnswer) {
  const withBaseline = baselineAnswer !== null && baselineAnswer !== undefined;
  const baselineByVersion = new Map(withBaseline ? baselineAnswer.series.filter((one) => one.total.count > 0).map((one) => [one.version, one.total]) : []);
  const series = windowAnswer.series;
  const element = h('div', { className: 'rollup-charts', 'data-testid': 'rollup-charts' });
  if (series.length === 0) {
    element.append(h('p', { className: 'empty' }, 'No evaluations of this policy function in the window.'));
    return { element, dispose: () => {} };
  }
  const plots = [];
  const figures = METRICS.map((metric) => {
    const host = h('div', { className: 'chart-host', 'aria-hidden': 'true' });
    const figure = h('figure', { className: 'chart', 'data-metric': metric.key, 'data-series': String(series.length) }, h('figcaption', {}, metric.title), host);
    plots.push({ metric, host });
    return figure;
  });
  element.append(...figures, summaryTable(series, baselineByVersion, withBaseline));

  // uPlot needs a width in pixels: draw once the figures are laid out, and again when they resize.
  const draw = () => {
    for (const plot of plots) {
      const width = Math.max(240, Math.floor(plot.host.clientWidth));
      if (plot.chart) plot.chart.setSize({ width, height: CHART_HEIGHT });
      else plot.chart = new uPlot(chartOptions(plot.metric, series, baselineByVersion, width), chartData(plot.metric, series, baselineByVersion), plot.host);
    }
  };
  const observer = new ResizeObserver(() => {
    if (element.isConnected) draw();
  });
  observer.observe(element);
  return {
    element,
    dispose: () => {
      observer.disconnect();
      for (const plot of plots) plot.chart?.destroy();
    },
  };
}
