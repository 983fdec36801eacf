import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { NetMeter, NetParseError, type NetView, parseNetDev } from '../domain/net.js';
import type { SourceReader } from '../domain/source-watch.js';

/**
 * The network from the kernel's counters, `/proc/net/dev` (another file in tests); rates are
 * measured on a monotonic clock between two reads. No such file (not Linux): absent.
 */
export function nodeNetReader(file = '/proc/net/dev'): SourceReader<NetView> {
  const meter = new NetMeter();
  return {
    async read() {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
        return { kind: 'failed', reason: `${file}: ${(error as Error).message}` };
      }
      try {
        return { kind: 'ok', value: meter.sample(parseNetDev(text), performance.now()) };
      } catch (error) {
        if (error instanceof NetParseError) return { kind: 'failed', reason: error.message };
        throw error;
      }
    },
    // One small file, read at once: nothing to end.
    cancel() {},
  };
}
