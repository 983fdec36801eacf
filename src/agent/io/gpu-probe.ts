import type { GpuView } from '../../shared/wire/overview.js';
import {
  GpuParseError,
  NVIDIA_ARGS,
  parseNvidiaCsv,
  parseRocmJson,
  ROCM_ARGS,
} from '../domain/gpus.js';
import type { SourceRead, SourceReader } from '../domain/source-watch.js';
import { trackedSpawner } from './node-spawner.js';
import { findExecutable, firstLine, TOOL_OUTPUT_MAX_BYTES, ToolRunner } from './run-tool.js';

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
  const runner = new ToolRunner(trackedSpawner(env).spawn);
  return {
    async read(timeoutMs) {
      const found = await findTool(env.PATH ?? '');
      if (found === null) return { kind: 'absent' };
      const { tool } = found;
      const run = await runner.run([found.path, ...tool.args], timeoutMs);
      switch (run.kind) {
        // Removed since it was found: as if it had never been there.
        case 'missing':
          return { kind: 'absent' };
        case 'not-started':
          return { kind: 'failed', reason: `${tool.name}: ${run.reason}` };
        case 'timed-out':
          return { kind: 'failed', reason: `${tool.name} did not answer within ${timeoutMs} ms` };
        case 'too-much':
          return {
            kind: 'failed',
            reason: `${tool.name} printed more than ${TOOL_OUTPUT_MAX_BYTES} bytes`,
          };
      }
      const { code, signal } = run;
      if (code !== 0) {
        const said = firstLine(run.stderr) ?? firstLine(run.stdout);
        const how = code === null ? `ended by ${String(signal)}` : `exited with code ${code}`;
        return { kind: 'failed', reason: `${tool.name} ${how}${said === null ? '' : `: ${said}`}` };
      }
      return parsed(tool, run.stdout);
    },
    cancel() {
      runner.cancel();
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

/** The first of TOOLS that is an executable file in a directory of `path`, and where. */
async function findTool(path: string): Promise<{ tool: Tool; path: string } | null> {
  for (const tool of TOOLS) {
    const file = await findExecutable(tool.name, path);
    if (file !== null) return { tool, path: file };
  }
  return null;
}
