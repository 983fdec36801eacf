import type { BindingView } from '../auth/can.js';

/** GET /api/me: who is signed in, how, and their role bindings. */
export interface Me {
  name: string;
  via: string;
  bindings: BindingView[];
}

/** /api/me's answer, or null when it is not one. */
export function parseMe(value: unknown): Me | null {
  if (typeof value !== 'object' || value === null) return null;
  const { name, via, bindings } = value as Record<string, unknown>;
  if (typeof name !== 'string' || typeof via !== 'string' || !Array.isArray(bindings)) return null;
  const out: BindingView[] = [];
  for (const b of bindings as unknown[]) {
    if (typeof b !== 'object' || b === null) continue;
    const { role, selector } = b as Record<string, unknown>;
    if (typeof role !== 'string') continue;
    out.push({ role, selector: typeof selector === 'string' ? selector : null });
  }
  return { name, via, bindings: out };
}
