// Reads a process's GET /metrics (Prometheus text format) into samples the soak can add up.

/** `[{name, labels, value}]` of one scrape; comment lines and unparsable lines are skipped. */
export function parsePrometheusText(text) {
  const samples = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (match === null) continue;
    const labels = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of a metric's samples whose labels include every pair of `where` (0 when none). */
export function sumOf(samples, name, where = {}) {
  let total = 0;
  for (const sample of samples) {
    if (sample.name !== name) continue;
    if (Object.entries(where).every(([key, value]) => sample.labels[key] === value)) total += sample.value;
  }
  return total;
}

/** Label values of a metric with their summed value, e.g. audit records by event type. */
export function byLabel(samples, name, label) {
  const totals = new Map();
  for (const sample of samples) {
    if (sample.name !== name) continue;
    totals.set(sample.labels[label], (totals.get(sample.labels[label]) ?? 0) + sample.value);
  }
  return totals;
}

/** One scrape of `url`, or null when it does not answer (a process that stalls is reported, not fatal). */
export async function scrape(url) {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
    return response.status === 200 ? parsePrometheusText(await response.text()) : null;
  } catch {
    return null;
  }
}
