import { spawn } from 'node:child_process';
import { once } from 'node:events';

/**
 * Runs a program with `input` on its standard input (a shell script, say: what it carries is in
 * no process's arguments) and answers its exit code and everything it wrote, both streams in
 * the order they came. Killed past `timeoutMs`.
 */
export async function runWithInput(
  command: string,
  args: readonly string[],
  input: string,
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<{ code: number | null; output: string }> {
  const child = spawn(command, args, {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  const take = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  child.stdin.on('error', () => undefined);
  child.stdin.end(input);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  return { code, output };
}
