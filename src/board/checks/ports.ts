/** One result as history keeps it: per check, per runner (a machine, `board` or `push`). */
export interface CheckSample {
  check: string;
  runner: string;
  /** ms since the epoch. */
  at: number;
  ok: boolean;
  /** Response time; null when the run failed before timing anything. */
  ms: number | null;
}

/** A point of a check's chart: a bucket's share of good runs and its mean response time. */
export interface CheckPoint {
  /** Epoch seconds (the bucket's start). */
  t: number;
  ok: number;
  ms: number | null;
}

/** What the checks need of history (implemented over both engines in history/). */
export interface CheckHistoryPort {
  record(samples: readonly CheckSample[]): void;
  /** One series per runner over [fromS, toS]. */
  series(
    check: string,
    fromS: number,
    toS: number,
  ): Promise<{ runner: string; points: CheckPoint[] }[]>;
  /** The share of time the check was up since `fromMs` (null: nothing known). */
  uptime(check: string, fromMs: number, toMs: number): Promise<number | null>;
  /** The check was removed from the config. */
  forgotten(check: string): void;
}
