import type { Selector } from '../../shared/selector.js';
import type { Machine } from '../domain/machine.js';
import type { MachinePick } from '../domain/machine-memory.js';
import type { Scope } from './roles.js';

const keys = new WeakMap<Scope, string>();

/** A scope's bindings as text: the same bindings, the same key (a view's cache and ETag). */
export function scopeKey(scope: Scope): string {
  let key = keys.get(scope);
  if (key === undefined) {
    key = scope.bindings
      .map((b) => `${b.role}:${b.selector === null ? '' : b.selector.text}`)
      .sort()
      .join('\n');
    keys.set(scope, key);
  }
  return key;
}

/**
 * What an actor is shown of the board: the machines in its scope that `selector` selects. null:
 * every machine (an unscoped viewer without a selector), the shared cached view's bytes.
 */
export function boardPick(scope: Scope, selector: Selector | null): MachinePick | null {
  const chosen = selector === null || selector.everything ? null : selector;
  const whole = scope.whole('viewer');
  if (whole && chosen === null) return null;
  const picksLabels = (m: Machine) => chosen === null || chosen.matches(m.labels, m.name);
  if (whole) return { text: chosen?.text ?? '', picks: picksLabels };
  // A newline is in no selector's text: a scoped pick's text never equals a plain selector's.
  return {
    text: `scope\n${scopeKey(scope)}\n${chosen?.text ?? ''}`,
    picks: (m) => scope.sees(m) && picksLabels(m),
  };
}
