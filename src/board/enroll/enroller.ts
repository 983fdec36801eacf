import type { Labels } from '../../shared/labels.js';
import type { BoardSettings } from '../config/config.js';
import type { Answer } from '../domain/answer.js';
import type { Board } from '../domain/board.js';
import type { BoardLabels } from '../domain/labels.js';
import type { Who } from '../schemas.js';
import { AGENT_FILE_MISSING, AGENT_MJS, type AgentFiles } from './agent-files.js';
import { enrollCommand } from './command.js';
import type { Enrollments } from './enrollments.js';
import type { SumsSigner } from './sums-signer.js';

export interface EnrollerDeps {
  board: Board;
  enrollments: Enrollments;
  agentFiles: AgentFiles;
  /** Its public key goes in the command: the enroll pins it as the agent's update_key. */
  signer: SumsSigner;
  /** The settings now (a reload may change the registration token or announced_keys). */
  settings: () => BoardSettings;
  /** Where the dialog's labels are kept: board labels of the name, before it ever reports. */
  labels: Pick<BoardLabels, 'keep'>;
}

/**
 * POST /api/machines/{name}/enroll: a fresh key for a name, kept in the store, and the one
 * command that adds the machine. Refusals are journaled like every other refusal.
 */
export class Enroller {
  constructor(private readonly deps: EnrollerDeps) {}

  /**
   * `board`: where the machine reaches the board (see boardAddress), or null if unknown.
   * `labels`: the board labels to keep for the name (checked already); null: those it has stay.
   */
  async enroll(
    who: Who,
    name: string,
    board: string | null,
    labels: Labels | null = null,
  ): Promise<Answer> {
    const { enrollments, agentFiles } = this.deps;
    const notes = this.deps.board.notes;
    const settings = this.deps.settings();
    const refused = this.problem(name, settings, board);
    if (refused !== null) return notes.refuse(who, 'enroll', name, refused.status, refused.detail);
    // Every file served: the command carries each one's SHA-256 and picks one on the machine.
    const files = await agentFiles.list();
    const file = files.find((f) => f.name === AGENT_MJS);
    if (file === undefined) return { status: 503, body: { detail: AGENT_FILE_MISSING } };
    // Read (or made) before the key: a store that cannot keep it gives no half enrollment.
    const updateKey = await this.deps.signer.publicKey();
    const again = enrollments.find(name) !== undefined;
    const record = await enrollments.enroll(name);
    if (labels !== null) await this.deps.labels.keep(name, labels);
    this.deps.board.keyGiven([name]);
    const detail = again ? 'a new key made (the earlier one no longer works)' : 'key made';
    await notes.note(who, 'enroll', name, 'enrolled', 200, detail);
    const key = record.key as string;
    const command = enrollCommand({
      board: board as string,
      name,
      key,
      registrationToken: settings.registrationToken as string,
      files,
      updateKey,
    });
    return {
      status: 200,
      body: { name, key, command, agent_sha256: file.sha256, update_key: updateKey },
    };
  }

  private problem(
    name: string,
    settings: BoardSettings,
    board: string | null,
  ): { status: number; detail: string } | null {
    const { registry } = this.deps.board;
    if (settings.registrationToken === null) {
      const detail =
        'Announcing is off on this board (no registration_token in its config): set one to add machines from the board';
      return { status: 409, detail };
    }
    if (board === null) {
      const detail =
        "The board cannot tell its own address from this request's Host header: set public_url in its config";
      return { status: 409, detail };
    }
    // The registry takes the configured machines with every reload of the settings.
    if (registry.get(name)?.origin === 'configured') {
      return { status: 409, detail: `'${name}' is a configured machine; the board polls it` };
    }
    if (settings.announcedKeys.has(name)) {
      const detail = `'${name}' has a key in ${settings.source} (announced_keys); change it there`;
      return { status: 409, detail };
    }
    // An announcement no key proved gives way (Board.keyGiven); a keyed or proven one does not.
    const announced = registry.get(registry.sameName(name) ?? name);
    const squatted = announced?.origin === 'announced' && !announced.verified;
    const same = (squatted ? undefined : announced?.name) ?? this.deps.enrollments.find(name)?.name;
    if (same !== undefined && same !== name) {
      const detail = `'${name}' differs only in case from '${same}' on this board; names are unique without regard to case`;
      return { status: 409, detail };
    }
    if (!this.deps.enrollments.roomFor(name)) {
      return {
        status: 409,
        detail: 'The board keeps no more enrolled machines; revoke some first',
      };
    }
    return null;
  }
}
