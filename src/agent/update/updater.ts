import { constants } from 'node:fs';
import { copyFile, link, rename, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { sumsSigned } from '../../shared/sums-signature.js';

export type { Trial } from './trial.js';

import type { UpdateOutcome } from '../../shared/wire/agent-update.js';
import type { ReporterLog } from '../domain/reporter.js';
import { openNoFollow } from '../io/safe-write.js';
import type { UpdateSource } from './download.js';
import type { SelfFile } from './self-file.js';
import {
  atStart,
  outcome,
  removeQuietly,
  type StoredOutcome,
  type UpdateFiles,
  type UpdateRecord,
} from './state.js';
import { parseSha256Sums } from './sums.js';
import { stopTrial, syncDir, type Trial } from './trial.js';

/** Why an agent without a pinned update_key takes no update (docs/agent.md says how to set one). */
export const NO_UPDATE_KEY =
  "no update_key in this agent's config: updates are refused until the board's key is pinned (docs/agent.md, Updates from the board)";

/** How long the new file has to report before the old one takes over again. */
export const TRIAL_MS = 60_000;

export interface UpdaterDeps {
  self: SelfFile | null;
  /** SHA-256 of the own file, taken at start (null when not one file). */
  ownSha: string | null;
  /** Where updates come from; null: updates are off. */
  source: UpdateSource | null;
  files: UpdateFiles;
  log: ReporterLog;
  now: () => Date;
  /** Closes the listener and stops reporting, for the new file to take the port. */
  pause(): Promise<void>;
  /** Listens again and reports again (after a rollback). */
  resume(): Promise<void>;
  /** Starts `path` as the agent, with this agent's config, host and port. */
  spawn(path: string): Trial;
  /** The new file reported: leave the machine to it (exit, one way or the other). */
  finish(trial: Trial): void;
  hash(path: string): Promise<string>;
  trialMs?: number;
  pollMs?: number;
}

/**
 * Updates from the board: downloads the board's own file of this agent's kind, checks it against
 * the board's SHA256SUMS, puts it in place of the running file (the old one kept as `.prev`),
 * starts it, and goes back to the old file unless the new one reports within a minute.
 */
export class Updater {
  private busy = false;
  private trialPending: UpdateRecord | null = null;
  private last: StoredOutcome | null = null;
  private lastRequest: string | null = null;
  /** The own file's SHA-256, taken again after a rollback. */
  private ownSha: string | null;

  private constructor(private readonly deps: UpdaterDeps) {
    this.ownSha = deps.ownSha;
  }

  /** Reads data_dir's record and outcome; settles an update a kill interrupted. */
  static async open(deps: UpdaterDeps): Promise<Updater> {
    const updater = new Updater(deps);
    const record = await deps.files.record();
    updater.last = await deps.files.outcome();
    updater.lastRequest = record?.request_id ?? updater.last?.request_id ?? null;
    const start = atStart(record, deps.ownSha);
    if (start.kind === 'trial') {
      updater.trialPending = start.record;
      deps.log.info(
        { from_sha256: start.record.from_sha256 },
        'update: this is the new agent file on trial; it confirms once the board has heard from it',
      );
    } else if (start.kind === 'interrupted') {
      const r = start.record;
      await removeQuietly(`${r.path}.new`);
      await deps.files.writeRecord({ ...r, state: 'rolled_back' });
      await updater.settle(
        outcome(
          'rolled_back',
          r.to_sha256,
          'the agent stopped during the update; it runs its old file',
          deps.now(),
          r.request_id,
        ),
      );
      deps.log.warn(
        { to_sha256: r.to_sha256 },
        'update: an update was interrupted (the agent was stopped); the old file runs',
      );
    }
    return updater;
  }

  /** The overview's fields about the agent itself. */
  fields(): {
    agent_file?: SelfFile['name'];
    agent_sha256?: string;
    updates: 'on' | 'off';
    update_outcome?: UpdateOutcome;
  } {
    const { self, source } = this.deps;
    const { ownSha, last } = this;
    return {
      ...(self === null ? {} : { agent_file: self.name }),
      ...(ownSha === null ? {} : { agent_sha256: ownSha }),
      updates: source === null ? 'off' : 'on',
      ...(last === null
        ? {}
        : {
            update_outcome: {
              state: last.state,
              to_sha256: last.to_sha256,
              detail: last.detail,
              at: last.at,
            },
          }),
    };
  }

  /** Why an update cannot start now (the 409's detail), or null. */
  refusal(): string | null {
    if (this.deps.source === null)
      return 'updates from the board are off on this agent (update_from_board in its config)';
    if (this.deps.source.key === null) return NO_UPDATE_KEY;
    if (this.deps.self === null || this.ownSha === null) {
      return 'this agent does not run from one agent file (a clone is updated with git and npm run build)';
    }
    if (this.busy || this.trialPending !== null) return 'an update is already running';
    return null;
  }

  /**
   * Starts an update in the background; returns the refusal instead when it cannot. A request
   * id taken before (the board's queue) is not taken again.
   */
  request(requestId?: string): string | null {
    if (requestId !== undefined && requestId === this.lastRequest)
      return 'this update request was taken already';
    const refused = this.refusal();
    if (refused === NO_UPDATE_KEY && requestId !== undefined) {
      // A queued request has no answer to carry the refusal: the outcome tells the board why.
      this.lastRequest = requestId;
      void this.settle(outcome('refused', null, refused, this.deps.now(), requestId)).catch(
        () => undefined,
      );
    }
    if (refused !== null) return refused;
    this.busy = true;
    if (requestId !== undefined) this.lastRequest = requestId;
    this.deps.log.info({ request_id: requestId ?? null }, 'update: asked to update from the board');
    void this.run(requestId).finally(() => {
      this.busy = false;
    });
    return null;
  }

  /** The board has heard from this process: a new file on trial marks itself confirmed. */
  async confirm(): Promise<void> {
    const pending = this.trialPending;
    if (pending === null) return;
    this.trialPending = null;
    const record = await this.deps.files.record();
    if (record === null || record.state !== 'trying' || record.to_sha256 !== pending.to_sha256)
      return;
    await this.deps.files.writeRecord({ ...record, state: 'confirmed' });
    await this.settle(
      outcome(
        'updated',
        record.to_sha256,
        `updated from ${record.from_sha256.slice(0, 12)}`,
        this.deps.now(),
        record.request_id,
      ),
    );
    this.deps.log.info(
      { to_sha256: record.to_sha256 },
      'update: the new agent file reported; confirmed',
    );
  }

  private async settle(value: StoredOutcome): Promise<void> {
    this.last = value;
    await this.deps.files.writeOutcome(value);
  }

  private async run(requestId: string | undefined): Promise<void> {
    const { self, source } = this.deps;
    const { ownSha } = this;
    if (self === null || ownSha === null || source === null || source.key === null) return;
    const updateKey = source.key;
    // The HTTP client is loaded when an update runs, not carried by every agent at rest.
    const { BoardFiles } = await import('./download.js');
    const board = new BoardFiles(source);
    const fresh = `${self.path}.new`;
    let to: string | null = null;
    try {
      const signed = await board.sums();
      // Checked before a byte of it is used: whoever answers for the board cannot sign.
      if (!sumsSigned(signed.text, signed.signature, updateKey)) {
        throw new Refused(
          signed.signature === null
            ? "the board's SHA256SUMS came without a signature: nothing downloaded"
            : "the board's SHA256SUMS is not signed by this agent's update_key: nothing downloaded",
        );
      }
      const sums = parseSha256Sums(signed.text);
      const want = sums.get(self.name);
      if (want === undefined)
        throw new Refused(`the board's SHA256SUMS does not list ${self.name}`);
      to = want;
      if (want === ownSha) throw new Refused("already the board's file");
      this.deps.log.info(
        { file: self.name, to_sha256: want },
        'update: downloading the board’s file',
      );
      const mode = (await stat(self.path)).mode & 0o7777;
      // Made new, never opened through a link planted at .new (it would be written and renamed).
      await removeQuietly(fresh);
      const handle = await openNoFollow(fresh, 'new', mode);
      let got: { sha256: string; size: number };
      try {
        got = await board.download(self.name, async (chunk) => {
          await handle.write(chunk);
        });
        await handle.chmod(mode);
        await handle.sync();
      } finally {
        await handle.close();
      }
      if (got.sha256 !== want) {
        throw new Refused(
          `the downloaded file does not match SHA256SUMS (sha256 ${got.sha256.slice(0, 12)}…, listed ${want.slice(0, 12)}…)`,
        );
      }
      this.deps.log.info(
        { size: got.size, sha256: got.sha256 },
        'update: downloaded and checked against the signed SHA256SUMS',
      );
    } catch (error) {
      await removeQuietly(fresh);
      await board.close().catch(() => undefined);
      const detail =
        error instanceof Refused ? error.message : `download failed: ${message(error)}`;
      this.deps.log.warn({ detail }, 'update: refused; nothing replaced');
      await this.settle(outcome('refused', to, detail, this.deps.now(), requestId));
      return;
    }
    await board.close().catch(() => undefined);
    await this.replaceAndTry(self, ownSha, to, requestId);
  }

  private async replaceAndTry(
    self: SelfFile,
    ownSha: string,
    to: string,
    requestId: string | undefined,
  ): Promise<void> {
    const prev = `${self.path}.prev`;
    const record: UpdateRecord = {
      state: 'trying',
      file: self.name,
      path: self.path,
      from_sha256: ownSha,
      to_sha256: to,
      started_at: this.deps.now().toISOString(),
      ...(requestId === undefined ? {} : { request_id: requestId }),
    };
    try {
      await removeQuietly(prev);
      await link(self.path, prev).catch(() => copyFile(self.path, prev, constants.COPYFILE_EXCL));
      await this.deps.files.writeRecord(record);
      await rename(`${self.path}.new`, self.path);
      await syncDir(dirname(self.path));
    } catch (error) {
      await removeQuietly(`${self.path}.new`);
      await this.deps.files.writeRecord({ ...record, state: 'rolled_back' }).catch(() => undefined);
      const detail = `could not put the new file in place: ${message(error)}`;
      this.deps.log.error({ detail }, 'update: refused; nothing replaced');
      await this.settle(outcome('refused', to, detail, this.deps.now(), requestId));
      return;
    }
    this.deps.log.info(
      { path: self.path, prev },
      'update: the new file is in place (the old one kept as .prev); trying it',
    );
    await this.deps.pause();
    let trial: Trial;
    try {
      trial = this.deps.spawn(self.path);
    } catch (error) {
      await this.rollBack(self, record, null, `could not start the new file: ${message(error)}`);
      return;
    }
    this.deps.log.info(
      { new_pid: trial.pid },
      'update: started the new agent file; waiting for it to report',
    );
    const reason = await this.watch(trial);
    if (reason === null) {
      this.last = await this.deps.files.outcome();
      this.deps.log.info(
        { new_pid: trial.pid, to_sha256: to },
        'update: the new agent file reported; it takes over',
      );
      this.deps.finish(trial);
      return;
    }
    await this.rollBack(self, record, trial, reason);
  }

  /** Null once the new process confirmed; else why it did not. */
  private async watch(trial: Trial): Promise<string | null> {
    const deadline = Date.now() + (this.deps.trialMs ?? TRIAL_MS);
    let exit: { code: number | null; signal: string | null } | null = null;
    void trial.exited.then((e) => {
      exit = e;
    });
    for (;;) {
      const record = await this.deps.files.record().catch(() => null);
      if (record?.state === 'confirmed') return null;
      const ended = exit as { code: number | null; signal: string | null } | null;
      if (ended !== null) {
        return ended.signal !== null
          ? `the new file was ended by ${ended.signal} before it reported`
          : `the new file exited with code ${ended.code} before it reported`;
      }
      if (Date.now() >= deadline)
        return `the new file did not report within ${Math.round((this.deps.trialMs ?? TRIAL_MS) / 1000)} s`;
      await new Promise((r) => setTimeout(r, this.deps.pollMs ?? 200));
    }
  }

  private async rollBack(
    self: SelfFile,
    record: UpdateRecord,
    trial: Trial | null,
    reason: string,
  ): Promise<void> {
    this.deps.log.warn({ reason }, 'update: rolling back to the old file');
    if (trial !== null) await stopTrial(trial);
    try {
      await rename(`${self.path}.prev`, self.path);
      await syncDir(dirname(self.path));
    } catch (error) {
      this.deps.log.error(
        { err: error },
        'update: cannot put the old file back; the new one stays on disk',
      );
    }
    this.ownSha = await this.deps.hash(self.path).catch(() => this.ownSha);
    await this.deps.files.writeRecord({ ...record, state: 'rolled_back' }).catch(() => undefined);
    await this.settle(
      outcome('rolled_back', record.to_sha256, reason, this.deps.now(), record.request_id),
    );
    await this.deps.resume();
    this.deps.log.warn({ reason }, 'update: rolled back; the old file runs and reports again');
  }
}

class Refused extends Error {}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
