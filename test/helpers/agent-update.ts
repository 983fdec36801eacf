import { createHash } from 'node:crypto';
import { ROOT, type RunningProgram } from '../../harness/processes.js';

/** The one-file agent as `npm run build` made it: what the update tests install and serve. */
export const BUNDLE = `${ROOT}dist/agent-file/panoptes-agent.mjs`;

export const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** The pid of the new agent file an updated agent started (from its log), or null. */
export function newAgentPid(agent: RunningProgram): number | null {
  const line = agent.output.findLast((l) => l.includes('started the new agent file'));
  const pid = Number(/"new_pid":(\d+)/.exec(line ?? '')?.[1]);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** Kills the process group of an agent an update started (detached: the harness does not know it). */
export function killStarted(pid: number | null): void {
  if (pid === null) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/**
 * The board's update key (GET /agent/update-key), as the enroll pins it: what a hand-written
 * agent config needs (`update_key:`) to take updates. `ca`: PEM trusted for an https board.
 */
export async function updateKeyOf(board: string, ca?: string): Promise<string> {
  const { Agent, fetch } = await import('undici');
  const dispatcher = new Agent(ca === undefined ? {} : { connect: { ca } });
  try {
    const response = await fetch(`${board}/agent/update-key`, { dispatcher });
    if (response.status !== 200) throw new Error(`update-key: ${response.status}`);
    return (await response.text()).trim();
  } finally {
    await dispatcher.close();
  }
}
