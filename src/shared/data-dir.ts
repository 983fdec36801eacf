import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The per-user directory where a program keeps its state when no config says otherwise:
 * PANOPTES_DATA_DIR, else the platform's usual place (XDG on Linux).
 */
export function userDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PANOPTES_DATA_DIR) return env.PANOPTES_DATA_DIR;
  if (process.platform === 'win32') {
    return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'panoptes');
  }
  if (process.platform === 'darwin') {
    return join(homedir(), 'Library', 'Application Support', 'panoptes');
  }
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'panoptes');
}
