import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type { GpuRead, GpuReader } from '../domain/gpu-watch.js';
import {
  GpuParseError,
  NVIDIA_ARGS,
  parseNvidiaCsv,
  parseRocmJson,
  ROCM_ARGS,
} from '../domain/gpus.js';

/** The most output a tool may print (64 GPUs fit in a few KB; rocm-smi's JSON in tens). */
const OUTPUT_MAX_BYTES = 1024 * 1024;

interface Tool {
  name: 'nvidia-smi' | 'rocm-smi';
  args: readonly string[];
  parse: (stdout: string) => ReturnType<typeof parseNvidiaCsv>;
}

/** NVIDIA first: on a machine with both, nvidia-smi's GPUs are the ones shown. */
const TOOLS: readonly Tool[] = [
  { name: 'nvidia-smi', args: NVIDIA_ARGS, parse: parseNvidiaCsv },
  { name: 'rocm-smi', args: ROCM_ARGS, parse: parseRocmJson },
];

/**
 * Reads the GPUs with nvidia-smi (or rocm-smi) found on the agent's PATH, never through a
 * shell, with a time-out that kills its process group; the environment is the agent's without
 * its secrets, in the C locale (numbers with a decimal point).
 */
export function nodeGpuReader(env: NodeJS.ProcessEnv): GpuReader {
  let running: (() => void) | null = null;
  return {
    async read(timeoutMs) {
      const found = await findTool(env.PATH ?? '');
      if (found === null) return { kind: 'absent' };
      const { tool } = found;
      return new Promise<GpuRead>((resolve) => {
        let settled = false;
        const finish = (answer: GpuRead) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          running = null;
          resolve(answer);
        };
        const child = spawn(found.path, [...tool.args], {
          env: { ...env, LC_ALL: 'C' },
          stdio: ['ignore', 'pipe', 'pipe'],
          // Its own process group, so that a time-out ends whatever it started (rocm-smi is a
          // Python program).
          detached: process.platform !== 'win32',
          windowsHide: true,
        });
        const kill = () => killTree(child);
        running = kill;
        const out = bounded();
        const err = bounded();
        child.stdout.on('data', out.add);
        child.stderr.on('data', err.add);
        const timer = setTimeout(() => {
          kill();
          finish({ kind: 'failed', reason: `${tool.name} did not answer within ${timeoutMs} ms` });
        }, timeoutMs);
        timer.unref();
        child.on('error', (error: NodeJS.ErrnoException) => {
          // Removed since it was found: as if it had never been there.
          if (error.code === 'ENOENT') finish({ kind: 'absent' });
          else finish({ kind: 'failed', reason: `${tool.name}: ${error.message}` });
        });
        child.on('close', (code, signal) => {
          if (out.over || err.over) {
            finish({
              kind: 'failed',
              reason: `${tool.name} printed more than ${OUTPUT_MAX_BYTES} bytes`,
            });
          } else if (code !== 0) {
            const said = firstLine(err.text()) ?? firstLine(out.text());
            const how = code === null ? `ended by ${String(signal)}` : `exited with code ${code}`;
            finish({
              kind: 'failed',
              reason: `${tool.name} ${how}${said === null ? '' : `: ${said}`}`,
            });
          } else {
            finish(parsed(tool, out.text()));
          }
        });
      });
    },
    cancel() {
      running?.();
    },
  };
}

function parsed(tool: Tool, stdout: string): GpuRead {
  try {
    return { kind: 'ok', gpus: tool.parse(stdout) };
  } catch (parseError) {
    const why = parseError instanceof GpuParseError ? parseError.message : 'unreadable output';
    return { kind: 'failed', reason: why };
  }
}

/** Output gathered up to OUTPUT_MAX_BYTES; `over` once more came. */
function bounded() {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const self = {
    over: false,
    add: (chunk: Buffer) => {
      if (self.over) return;
      bytes += chunk.length;
      if (bytes > OUTPUT_MAX_BYTES) self.over = true;
      else chunks.push(chunk);
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
  return self;
}

function killTree(child: ChildProcess): void {
  try {
    if (process.platform !== 'win32' && child.pid !== undefined)
      process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch {
    // Already gone.
  }
}

function firstLine(text: string): string | null {
  const line = text.split('\n').find((l) => l.trim() !== '');
  return line === undefined ? null : line.trim();
}

/** The first of TOOLS that is an executable file in a directory of `path`, and where. */
async function findTool(path: string): Promise<{ tool: Tool; path: string } | null> {
  const dirs = path.split(delimiter).filter((d) => d !== '');
  const suffixes = process.platform === 'win32' ? ['.exe', ''] : [''];
  for (const tool of TOOLS) {
    for (const dir of dirs) {
      for (const suffix of suffixes) {
        const file = join(dir, tool.name + suffix);
        if (await isExecutable(file)) return { tool, path: file };
      }
    }
  }
  return null;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}
