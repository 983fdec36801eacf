/** A series line of a machine: its family, then `{name="…"` (every per-machine family starts so). */
const MACHINE_SERIES = /^[A-Za-z_:][A-Za-z0-9_:]*\{name="((?:[^"\\]|\\.)*)"/;

/**
 * The Prometheus text with only the series of machines `sees` keeps (DESIGN 15: an actor with
 * a scope is shown nothing of a machine out of it). The board's own series go too: their counts
 * (machines, reports, relays) are of the whole fleet. HELP and TYPE lines stay.
 */
export function metricsInScope(text: Buffer, sees: (name: string) => boolean): Buffer {
  const kept: string[] = [];
  for (const line of text.toString('utf8').split('\n')) {
    if (line === '' || line.startsWith('#')) {
      kept.push(line);
      continue;
    }
    const series = MACHINE_SERIES.exec(line);
    if (series !== null && sees(unescapeLabel(series[1] ?? ''))) kept.push(line);
  }
  return Buffer.from(kept.join('\n'));
}

function unescapeLabel(value: string): string {
  return value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}
