import { type Labels, NO_LABELS, toLabels } from '../../shared/labels.js';
import type { Who } from '../schemas.js';
import type { Answer } from './answer.js';
import type { BoardLabelRecord, BoardLabelTable } from './board-label-table.js';
import type { Journal } from './journal.js';
import { relabel } from './machine-labels.js';
import type { Registry } from './registry.js';
import type { MachineConfig } from './settings.js';

/**
 * The labels the board sets on machines (DESIGN section 14): board.yaml's `machines[].labels`
 * and those kept in the store (set through the API or the enroll dialog, by name, shared by
 * every board), the store's value winning on the same key. What a machine's agent carries is
 * merged under them (registry, machine-labels.ts).
 */
export class LabelBook {
  private readonly configured = new Map<string, Labels>();
  private readonly stored = new Map<string, Labels>();

  constructor(machines: readonly MachineConfig[], records: readonly BoardLabelRecord[]) {
    this.configure(machines);
    for (const r of records) this.stored.set(r.name, r.labels);
  }

  /** The board labels of `name`. */
  of(name: string): Labels {
    const file = this.configured.get(name);
    const kept = this.stored.get(name);
    if (kept === undefined) return file ?? NO_LABELS;
    return file === undefined ? kept : toLabels({ ...file, ...kept });
  }

  /** The labels kept in the store for `name` (what the API replaces). */
  kept(name: string): Labels {
    return this.stored.get(name) ?? NO_LABELS;
  }

  /** board.yaml's labels, at start and on each reload; answers the names whose labels it names. */
  configure(machines: readonly MachineConfig[]): string[] {
    const touched = new Set(this.configured.keys());
    this.configured.clear();
    for (const m of machines) {
      touched.add(m.name);
      if (m.labels !== undefined && Object.keys(m.labels).length > 0)
        this.configured.set(m.name, m.labels);
    }
    return [...touched];
  }

  /** The store's rows, as read (of several boards: one set through another board); answers the names changed. */
  sync(records: readonly BoardLabelRecord[]): string[] {
    const touched = new Set(this.stored.keys());
    this.stored.clear();
    for (const r of records) {
      this.stored.set(r.name, r.labels);
      touched.add(r.name);
    }
    return [...touched];
  }

  /** Keeps `labels` for `name` here (after the store took them). */
  set(name: string, labels: Labels): void {
    if (Object.keys(labels).length === 0) this.stored.delete(name);
    else this.stored.set(name, labels);
  }
}

/** PUT /api/machines/{name}/labels, the enroll dialog's labels, and the store's and board.yaml's changes. */
export class BoardLabels {
  private changes = 0;

  constructor(
    readonly book: LabelBook,
    private readonly deps: { registry: Registry; journal: Journal; table: BoardLabelTable },
  ) {}

  /** Sets the whole map of `name`'s labels kept in the store; `{}` clears them. */
  async set(who: Who, name: string, labels: Labels): Promise<Answer> {
    const m = this.deps.registry.get(name);
    if (m === undefined)
      return { status: 404, body: { detail: `No machine named '${name}' on this board` } };
    await this.keep(name, labels);
    const pairs = Object.entries(labels).map(([k, v]) => (v === '' ? k : `${k}=${v}`));
    await this.deps.journal.record({
      who,
      op: 'labels',
      target: name,
      outcome: 'labeled',
      status: 200,
      detail: pairs.length === 0 ? 'board labels cleared' : `board labels: ${pairs.join(', ')}`,
    });
    return { status: 200, body: labelAnswer(name, m.labels, m.boardLabels) };
  }

  /** Keeps `labels` as `name`'s (a machine enrolled now, which may report later): store first. */
  async keep(name: string, labels: Labels): Promise<void> {
    this.changes += 1;
    try {
      await this.deps.table.put(name, labels);
    } finally {
      this.changes += 1;
    }
    this.book.set(name, labels);
    this.deps.registry.update(name, (m) => relabel(m, this.book.of(name)));
  }

  /** board.yaml was read again. */
  configure(machines: readonly MachineConfig[]): void {
    this.apply(this.book.configure(machines));
  }

  /**
   * Makes the kept labels those the store holds; `version` is `this.version` from before the
   * read: a set here while it was read (the read may predate its save) waits for the next.
   */
  sync(records: readonly BoardLabelRecord[], version: number): void {
    if (version !== this.changes) return;
    this.apply(this.book.sync(records));
  }

  /** Bumped before and after each save made here (see `sync`). */
  get version(): number {
    return this.changes;
  }

  private apply(names: readonly string[]): void {
    for (const name of names)
      this.deps.registry.update(name, (m) => relabel(m, this.book.of(name)));
  }
}

/** The answer to PUT /api/machines/{name}/labels (the record's `labels` and `board_labels`). */
export function labelAnswer(
  name: string,
  labels: Labels,
  board: Labels,
): { name: string; labels: Labels; board_labels: string[] } {
  return { name, labels: { ...labels }, board_labels: Object.keys(board) };
}
