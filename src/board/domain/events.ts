import type { JournalEntry } from '../schemas.js';
import type { Machine } from './machine.js';

/** What the domain tells the outside (the live feed) when something changes. */
export interface BoardEvents {
  machineChanged(machine: Machine): void;
  machineRemoved(name: string): void;
  journalAppended(entry: JournalEntry): void;
}

/** A fan-out of BoardEvents to any number of listeners. */
export class EventHub implements BoardEvents {
  private readonly listeners = new Set<Partial<BoardEvents>>();

  subscribe(listener: Partial<BoardEvents>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  machineChanged(machine: Machine): void {
    for (const l of this.listeners) l.machineChanged?.(machine);
  }
  machineRemoved(name: string): void {
    for (const l of this.listeners) l.machineRemoved?.(name);
  }
  journalAppended(entry: JournalEntry): void {
    for (const l of this.listeners) l.journalAppended?.(entry);
  }
}
