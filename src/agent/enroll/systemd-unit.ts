import { execFile } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The unit an enrollment installs. */
export const UNIT_NAME = 'panoptes-agent.service';

/** A path as one ExecStart word: double-quoted, with \ and " escaped (systemd.syntax). */
function execWord(value: string): string {
  return `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

/**
 * The systemd unit that runs this agent file with this config; `user`: a user unit (systemctl
 * --user), which starts with the user's session, or at boot with `loginctl enable-linger`.
 */
export function unitText(parts: {
  /** What runs this agent: node and the .mjs, or the agent binary alone. */
  program: readonly string[];
  config: string;
  workDir: string;
  name: string;
  board: string;
  user: boolean;
}): string {
  for (const value of [...Object.values(parts), ...parts.program]) {
    if (typeof value === 'string' && /[\n\r%$]/.test(value)) {
      throw new Error(`--systemd: a path or name holds a character a unit cannot carry: ${value}`);
    }
  }
  return `# Written by \`panoptes-agent enroll --systemd\`: the Panoptes agent enrolled as ${parts.name}
# on ${parts.board}. Its config (mode 0600) is ${parts.config}.
[Unit]
Description=Panoptes agent (${parts.name})
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
WorkingDirectory=${parts.workDir}
ExecStart=${parts.program.map(execWord).join(' ')} --config ${execWord(parts.config)}
# Reloads the config (key, services, certificate) without a restart. The shell's own kill: a
# minimal Debian (debootstrap minbase, slim images) has no /bin/kill (procps).
ExecReload=/bin/sh -c "kill -HUP \${MAINPID}"
UMask=0077
Restart=on-failure
RestartSec=5
# SIGTERM to the agent alone: it stops its process services itself, then exits 0.
KillMode=mixed
KillSignal=SIGTERM
TimeoutStopSec=90

[Install]
WantedBy=${parts.user ? 'default.target' : 'multi-user.target'}
`;
}

/** Where units go: the system's directory for root, the user's otherwise. */
export function defaultUnitDir(root: boolean): string {
  return root
    ? '/etc/systemd/system'
    : join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'systemd', 'user');
}

/** `systemctl [--user] daemon-reload` then `enable --now` the unit; throws with systemctl's words. */
export async function enableUnit(user: boolean): Promise<void> {
  const scope = user ? ['--user'] : [];
  for (const args of [
    [...scope, 'daemon-reload'],
    [...scope, 'enable', '--now', UNIT_NAME],
  ]) {
    try {
      await run('systemctl', args, { timeout: 60_000 });
    } catch (error) {
      const e = error as { stderr?: string; message: string };
      throw new Error(
        `systemctl ${args.join(' ')} failed: ${(e.stderr ?? e.message).trim().split('\n')[0]}`,
      );
    }
  }
}
