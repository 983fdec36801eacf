import type { AgentReleases } from '../domain/agent-self.js';
import type { AgentFiles } from './agent-files.js';

/**
 * The SHA-256 of each agent file the board serves, as the domain reads it (synchronously):
 * taken from AgentFiles by `refresh` (a stat per file; a file is hashed again only when its size
 * or modification time changed).
 */
export class ServedReleases implements AgentReleases {
  private sums = new Map<string, string>();

  constructor(private readonly files: AgentFiles) {}

  sha256(file: string): string | null {
    return this.sums.get(file) ?? null;
  }

  /** Reads the files' sums again; true when one came, went or changed. */
  async refresh(): Promise<boolean> {
    const next = new Map((await this.files.list()).map((f) => [f.name as string, f.sha256]));
    const changed =
      next.size !== this.sums.size || [...next].some(([name, sum]) => this.sums.get(name) !== sum);
    this.sums = next;
    return changed;
  }
}
