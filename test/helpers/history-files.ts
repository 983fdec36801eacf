import { join } from 'node:path';
import { afterAll } from 'vitest';
import { tempDir } from './tmp.js';

/** A value for every history metric, some null: what a test writes and reads back. */
export const EVERY_METRIC = {
  cpu: 0.5,
  mem: 0.25,
  load: 1,
  disk: null,
  latency_ms: 3,
  bells: 0,
  gpu_util: null,
  gpu_mem: 0.75,
  net_rx: 5000,
  net_tx: 250,
  temp_max: 52.5,
};

/** A new history.db path at each call, in a directory removed after the file's tests. */
export function freshHistoryFiles(prefix: string): () => string {
  const dir = tempDir(prefix);
  afterAll(() => dir.cleanup());
  let files = 0;
  return () => {
    files += 1;
    return join(dir.path, `h${files}`, 'history.db');
  };
}
