import type { BoardSettings } from '../config/config.js';

/** The settings in use: those the board started with, then each reload's. */
export class CurrentSettings {
  constructor(private value: BoardSettings) {}

  get(): BoardSettings {
    return this.value;
  }

  /** Takes reloaded settings; answers the ones they replace. */
  replace(next: BoardSettings): BoardSettings {
    const previous = this.value;
    this.value = next;
    return previous;
  }
}
