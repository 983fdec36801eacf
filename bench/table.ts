/** One line of the bench's table: a figure of the board, its baseline, their ratio, the goal. */
export interface Row {
  /** What was measured, with its conditions. */
  what: string;
  board: number;
  unit: string;
  baselineLabel: string;
  baseline: number;
  /** board ÷ baseline (for an overhead row, whatever the row says). */
  ratio: number;
  goal: string;
  /** true / false against the goal; null where the row has no goal. */
  met: boolean | null;
}

/** A number as the table shows it: 3 significant digits, thousands separated. */
export function fmt(value: number, unit = ''): string {
  if (!Number.isFinite(value)) return 'n/a';
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  const text = value.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
  return unit === '' ? text : `${text} ${unit}`;
}

/** The rows as a Markdown table (which reads well in a terminal too). */
export function renderTable(rows: readonly Row[]): string {
  const header = ['measurement', 'board', 'baseline', 'ratio', 'goal', 'met'];
  const body = rows.map((r) => [
    r.what,
    fmt(r.board, r.unit),
    `${r.baselineLabel} ${fmt(r.baseline, r.unit)}`.trim(),
    fmt(r.ratio),
    r.goal,
    r.met === null ? '' : r.met ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) =>
    Math.max(h.length, ...body.map((line) => (line[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 || i === 4 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 || i === 4 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...body.map(line)].join('\n');
}

/** The goal of a row about something this run could not have (the agent binary not built). */
export const NOT_BUILT = 'not built';

/** Rows whose figures are missing (a measurement that produced no number). */
export function missingFigures(rows: readonly Row[]): string[] {
  return rows
    .filter(
      (r) =>
        r.goal !== NOT_BUILT &&
        (!Number.isFinite(r.board) || !Number.isFinite(r.baseline) || !Number.isFinite(r.ratio)),
    )
    .map((r) => r.what);
}
