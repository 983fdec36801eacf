import type { Labels } from '../../shared/labels.js';

/** A machine's board labels as the store keeps them (by name, whether or not it is known yet). */
export interface BoardLabelRecord {
  name: string;
  labels: Labels;
}

/** The board labels set from the board (the API, the enroll dialog), shared by every board. */
export interface BoardLabelTable {
  /** Replaces the labels kept for `name`; an empty map removes its row. */
  put(name: string, labels: Labels): Promise<void>;
  /** Every row, by name. */
  load(): Promise<BoardLabelRecord[]>;
}
