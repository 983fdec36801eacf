import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type { GpuView } from '../../shared/wire/overview.js';
import {
  GpuParseError,
  NVIDIA_ARGS,
  parseNvidiaCsv,
  parseRocmJson,
  ROCM_ARGS,
} from '../domain/gpus.js';
import type { SourceRead, SourceReader } from '../domain/source-watch.js';
import type { Child } from '../domain/spawner.js';
import { trackedSpawner } from './node-spawner.js';

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
export function nodeGpuReader(env: NodeJS.ProcessEnv): SourceReader<GpuView[]> {
  // The agent's own spawner: no shell, its own process group (rocm-smi is a Python program,
  // and a time-out must end whatever it started).
  const spawn = trackedSpawner(env).spawn;
  let running: Child | null = null;
  return {
    async read(timeoutMs) {
      const found = await findTool(env.PATH ?? '');
      if (found === null) return { kind: 'absent' };
      const { tool } = found;
      const out = bounded();
      const err = bounded();
      const child = spawn({
        argv: [found.path, ...tool.args],
        cwd: null,
        env: { LC_ALL: 'C' },
        onOutput: out.add,
        onStderr: err.add,
      });
      try {
        await child.started;
      } catch (error) {
        // Removed since it was found: as if it had never been there.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
        return { kind: 'failed', reason: `${tool.name}: ${(error as Error).message}` };
      }
      running = child;
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, timeoutMs);
      timer.unref();
      const { code, signal } = await child.exited;
      clearTimeout(timer);
      running = null;
      if (timedOut) {
        return { kind: 'failed', reason: `${tool.name} did not answer within ${timeoutMs} ms` };
      }
      if (out.over || err.over) {
        return {
          kind: 'failed',
          reason: `${tool.name} printed more than ${OUTPUT_MAX_BYTES} bytes`,
        };
      }
      if (code !== 0) {
        const said = firstLine(err.text()) ?? firstLine(out.text());
        const how = code === null ? `ended by ${String(signal)}` : `exited with code ${code}`;
        return { kind: 'failed', reason: `${tool.name} ${how}${said === null ? '' : `: ${said}`}` };
      }
      return parsed(tool, out.text());
    },
    cancel() {
      running?.kill('SIGKILL');
    },
  };
}

function parsed(tool: Tool, stdout: string): SourceRead<GpuView[]> {
  try {
    return { kind: 'ok', value: tool.parse(stdout) };
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
