import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { connectLive, type LiveStatus } from '../api/live.js';
import type { Machine } from '../api/types.js';

/** One machine's record, kept current: undefined until the board answered, null if it has none. */
export interface MachineFeed {
  machine: Machine | null | undefined;
  status: LiveStatus;
}

/**
 * Follows one machine over the live feed (the board page's socket, so an action's result and a
 * new overview show without a reload); every other machine of a message is dropped at once.
 */
export function useMachineFeed(api: Api, name: string): MachineFeed {
  const [machine, setMachine] = useState<Machine | null | undefined>(undefined);
  const [status, setStatus] = useState<LiveStatus>('connecting');
  useEffect(() => {
    const live = connectLive(api, {
      status: setStatus,
      message: (m) => {
        if (m.type === 'board') setMachine(m.board.machines.find((x) => x.name === name) ?? null);
        else if (m.type === 'machine' && m.machine.name === name) setMachine(m.machine);
        else if (m.type === 'removed' && m.name === name) setMachine(null);
      },
      // A socket that keeps failing may mean the token is no longer accepted: ask once.
      failing: () => {
        api.board().catch(() => undefined);
      },
    });
    return () => live.close();
  }, [api, name]);
  return { machine, status };
}
