/**
 * A label value as the Prometheus text format (0.0.4) writes it inside its quotes: backslash,
 * double quote and line feed escaped. Machine names need none of it; container names, which
 * the machine chooses, may carry any of them.
 */
export function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
