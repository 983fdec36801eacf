import pg from 'pg';
import { clientOptions, type PostgresSettings } from './connection.js';

/** Waits between attempts to open the listening connection again. */
const RETRY_MS = 2000;

/**
 * LISTEN on a connection of its own (a pooled one would be handed to other work). A connection
 * that breaks is opened again every 2 s, and `wake` is called once it is (what was published
 * meanwhile is read then); the board also reads every second, so a lost wake-up costs at most
 * that second. Returns a stop.
 */
export async function listen(
  settings: PostgresSettings,
  channel: string,
  wake: () => void,
): Promise<() => Promise<void>> {
  let client: pg.Client | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const open = async (): Promise<void> => {
    if (stopped) return;
    const next = new pg.Client(clientOptions(settings));
    next.on('notification', () => wake());
    next.on('error', () => {
      // Dropped: opened again below (the 'end' event follows an error).
    });
    next.on('end', () => {
      if (client === next) client = null;
      if (!stopped) retry();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
      client = next;
      wake();
    } catch {
      await next.end().catch(() => undefined);
    }
  };
  const retry = () => {
    if (timer !== null || stopped) return;
    timer = setTimeout(() => {
      timer = null;
      void open();
    }, RETRY_MS);
    timer.unref();
  };
  await open();
  if (client === null) retry();
  return async () => {
    stopped = true;
    if (timer !== null) clearTimeout(timer);
    await (client as pg.Client | null)?.end().catch(() => undefined);
  };
}
