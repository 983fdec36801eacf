import { parseSelector, type Selector, SelectorError } from '../../../../shared/selector.js';
import type { Machine } from '../api/types.js';

/**
 * What the filter box holds: words matched against names and the like (as ever), or a label
 * selector, or a selector that does not parse (shown with its position, filtering nothing).
 */
export type TextFilter =
  | { kind: 'words'; needles: string[] }
  | { kind: 'selector'; selector: Selector }
  | { kind: 'error'; position: number; problem: string };

// Label syntax: `=`, `!=`, `!key`, ` in (`, ` notin (`. A plain word (`web`, `gpu`) stays a search.
const LABEL_SYNTAX = /[=!]|\s(?:not)?in\s*\(/;

/** Reads the filter box once per change of its text. */
export function readFilter(q: string): TextFilter {
  if (LABEL_SYNTAX.test(q)) {
    try {
      return { kind: 'selector', selector: parseSelector(q) };
    } catch (error) {
      if (error instanceof SelectorError)
        return { kind: 'error', position: error.position, problem: error.problem };
      throw error;
    }
  }
  return {
    kind: 'words',
    needles: q
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w !== ''),
  };
}

/** Whether `m` passes the filter (a selector that does not parse lets everything through). */
export function passes(filter: TextFilter, m: Machine): boolean {
  switch (filter.kind) {
    case 'words':
      return filter.needles.every((n) => m.haystack.includes(n));
    case 'selector':
      return filter.selector.matches(m.labels, m.name);
    case 'error':
      return true;
  }
}

/** The label keys some machine has, sorted (the group-by choices). */
export function labelKeys(machines: Iterable<Machine>): string[] {
  const keys = new Set<string>();
  for (const m of machines) for (const k of Object.keys(m.labels)) keys.add(k);
  return [...keys].sort();
}

/**
 * Where `m` goes when the list is grouped by `key`: its value, `''` for the empty value, or
 * null without the key. Ordered values first, then the empty value, then machines without it.
 */
export function bucketOf(m: Machine, key: string): string | null {
  return Object.hasOwn(m.labels, key) ? (m.labels[key] as string) : null;
}

/** Orders buckets: values (code-unit order), then `''`, then null. */
export function compareBuckets(a: string | null, b: string | null): number {
  if (a === b) return 0;
  const rank = (x: string | null) => (x === null ? 2 : x === '' ? 1 : 0);
  return rank(a) - rank(b) || ((a as string) < (b as string) ? -1 : 1);
}

export interface BucketCount {
  up: number;
  down: number;
}

/** Up and down counts per bucket of `machines` grouped by `key`. */
export function countBuckets(
  machines: readonly Machine[],
  key: string,
): Map<string | null, BucketCount> {
  const out = new Map<string | null, BucketCount>();
  for (const m of machines) {
    const b = bucketOf(m, key);
    let c = out.get(b);
    if (c === undefined) {
      c = { up: 0, down: 0 };
      out.set(b, c);
    }
    if (m.state === 'up') c.up += 1;
    else c.down += 1;
  }
  return out;
}
