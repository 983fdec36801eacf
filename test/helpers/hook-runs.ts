// What the hooks test hands the agent file: Claude Code's and Codex's payloads, and a program run.
import { spawn } from 'node:child_process';
import { once } from 'node:events';

/** A Claude Code Notification hook's payload, as Claude Code writes it to the hook's stdin. */
export const NOTIFICATION = {
  session_id: '5f3a9c2e-0d4b-4e4c-9a57-0c3b2f1d9e8a',
  transcript_path: '/home/dev/.claude/projects/-home-dev-webshop/5f3a9c2e.jsonl',
  cwd: '/home/dev/webshop',
  hook_event_name: 'Notification',
  message: 'Claude needs your permission to use Bash',
};
export const STOP = {
  session_id: NOTIFICATION.session_id,
  transcript_path: NOTIFICATION.transcript_path,
  cwd: NOTIFICATION.cwd,
  hook_event_name: 'Stop',
  stop_hook_active: false,
};
/** Codex's notify payload, which it passes as the last argument (thread ids are UUID v7). */
export const CODEX = {
  type: 'agent-turn-complete',
  'thread-id': '0199a213-81c0-7800-8aa1-bbab2a035a53',
  'turn-id': '7',
  cwd: '/home/dev/panoptes',
  'input-messages': ['Rename the flag'],
  'last-assistant-message': 'Renamed it; the tests pass.',
};

/** Everything the programs run by `run` wrote, for the secret scan. */
export const seen: string[] = [];

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end with exactly `env`; stdin gets `input` (then closes). */
export async function run(
  argv: readonly string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; input?: string | undefined },
): Promise<Ran> {
  const [command, ...args] = argv;
  const child = spawn(command as string, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  seen.push(stdout, stderr);
  return { code, stdout, stderr };
}
