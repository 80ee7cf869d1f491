// The latency-versus-offered-load chart of docs/benchmarks.md, as a self-contained SVG (no
// library, no fonts to fetch: it must render on GitHub and offline). Both axes are logarithmic:
// the ramp's rates roughly double, and latency spans milliseconds to seconds.

const W = 720;
const H = 400;
const M = { left: 64, right: 150, top: 36, bottom: 52 };
const plotW = W - M.left - M.right;
const plotH = H - M.top - M.bottom;

const escapeXml = (text) => String(text).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** steps: [{offered, p50, p90, p99, holds}]; limitMs: the p99 a step must stay under. */
export function latencyChart(steps, limitMs) {
  const rates = steps.map((s) => s.offered);
  const xMin = Math.min(...rates) / 1.25;
  const xMax = Math.max(...rates) * 1.25;
  const latencies = steps.flatMap((s) => [s.p50, s.p99]).filter((v) => Number.isFinite(v) && v > 0);
  const yMin = 10 ** Math.floor(Math.log10(Math.max(0.1, Math.min(...latencies, limitMs))));
  const yMax = 10 ** Math.ceil(Math.log10(Math.max(...latencies, limitMs) * 1.01));
  const x = (v) => M.left + (plotW * Math.log(v / xMin)) / Math.log(xMax / xMin);
  const y = (v) => M.top + plotH - (plotH * Math.log(Math.max(v, yMin) / yMin)) / Math.log(yMax / yMin);

  const parts = [];
  for (let v = yMin; v <= yMax * 1.0001; v *= 10) {
    parts.push(`<line x1="${M.left}" x2="${M.left + plotW}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`);
    parts.push(`<text x="${M.left - 8}" y="${y(v) + 4}" text-anchor="end">${v >= 1 ? v : v.toFixed(1)}</text>`);
  }
  for (const rate of rates) {
    parts.push(`<line x1="${x(rate)}" x2="${x(rate)}" y1="${M.top}" y2="${M.top + plotH}" stroke="#eee"/>`);
    parts.push(`<text x="${x(rate)}" y="${M.top + plotH + 18}" text-anchor="middle">${rate}</text>`);
  }
  parts.push(
    `<line x1="${M.left}" x2="${M.left + plotW}" y1="${y(limitMs)}" y2="${y(limitMs)}" stroke="#c00" stroke-dasharray="6 4"/>`,
    `<text x="${M.left + plotW + 6}" y="${y(limitMs) + 4}" fill="#c00">p99 limit ${limitMs} ms</text>`,
  );
  const series = [
    ['p50', '#1f77b4'],
    ['p90', '#2ca02c'],
    ['p99', '#d62728'],
  ];
  series.forEach(([key, color], i) => {
    const points = steps.filter((s) => Number.isFinite(s[key]));
    parts.push(
      `<polyline fill="none" stroke="${color}" stroke-width="2" points="${points.map((s) => `${x(s.offered)},${y(s[key])}`).join(' ')}"/>`,
    );
    for (const s of points) {
      // A filled dot: the step held; a hollow one: it failed.
      parts.push(
        `<circle cx="${x(s.offered)}" cy="${y(s[key])}" r="4" stroke="${color}" fill="${s.holds ? color : '#fff'}"/>`,
      );
    }
    parts.push(
      `<line x1="${M.left + plotW + 6}" x2="${M.left + plotW + 26}" y1="${M.top + 10 + i * 18}" y2="${M.top + 10 + i * 18}" stroke="${color}" stroke-width="2"/>`,
      `<text x="${M.left + plotW + 32}" y="${M.top + 14 + i * 18}">${key} latency</text>`,
    );
  });
  parts.push(
    `<text x="${M.left + plotW + 6}" y="${M.top + 14 + 3 * 18}">filled: step held</text>`,
    `<rect x="${M.left}" y="${M.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#888"/>`,
    `<text x="${M.left + plotW / 2}" y="${H - 12}" text-anchor="middle">offered load, requests/s (log scale)</text>`,
    `<text transform="translate(16 ${M.top + plotH / 2}) rotate(-90)" text-anchor="middle">latency from the scheduled time, ms (log scale)</text>`,
    `<text x="${M.left}" y="20" font-weight="bold">${escapeXml('Mixed workload, open loop: latency against offered load')}</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">
<title>Mixed workload, open loop: p50, p90 and p99 latency against offered load</title>
<rect width="${W}" height="${H}" fill="#fff"/>
${parts.join('\n')}
</svg>
`;
}
