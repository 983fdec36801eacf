import type { RawData } from 'ws';
import { parseSelector, type Selector, SelectorError } from '../../shared/selector.js';
import type { Machine } from '../domain/machine.js';
import type { MachinePick } from '../domain/machine-memory.js';

/**
 * What one live-feed client is sent (`?selector=` or a `select` message, within its scope): the
 * pick, and the names it was last shown as selected, so that a machine whose labels no longer
 * match gets a `left` message (not `removed`: it is still on the board, only not selected).
 */
export class LiveSelection {
  private constructor(
    readonly pick: MachinePick,
    private readonly shown: Set<string>,
  ) {}

  /** The selection of `pick` among `machines` now (what the board message lists). */
  static of(pick: MachinePick, machines: Iterable<Machine>): LiveSelection {
    const shown = new Set<string>();
    for (const m of machines) if (pick.picks(m)) shown.add(m.name);
    return new LiveSelection(pick, shown);
  }

  /** What the client is sent of a changed machine: its record, that it left, or nothing. */
  changed(m: Machine): 'machine' | 'left' | null {
    if (this.pick.picks(m)) {
      this.shown.add(m.name);
      return 'machine';
    }
    return this.shown.delete(m.name) ? 'left' : null;
  }

  /** Whether the client is told that `name` was forgotten (it was shown to it). */
  removed(name: string): boolean {
    return this.shown.delete(name);
  }
}

/** A client's `{"type":"select","selector":…}`: the selector parsed, or the error to answer. */
export type SelectRequest = { selector: Selector } | { error: string };

/**
 * Reads a client message: a `select` (parsed once here), or null for anything else, which is
 * ignored as every client message was before selections (a frame that is not JSON included).
 */
export function selectRequest(data: RawData, isBinary: boolean): SelectRequest | null {
  if (isBinary) return null;
  let value: unknown;
  try {
    value = JSON.parse(String(data));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { type, selector } = value as { type?: unknown; selector?: unknown };
  if (type !== 'select') return null;
  if (typeof selector !== 'string') return { error: 'select: "selector" must be a string' };
  return selectorOrError(selector);
}

/** `text` parsed, or the message naming what is wrong and where (`selector: … at position N`). */
export function selectorOrError(text: string): SelectRequest {
  try {
    return { selector: parseSelector(text) };
  } catch (error) {
    if (error instanceof SelectorError) return { error: error.message };
    throw error;
  }
}
