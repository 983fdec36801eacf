import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type Static, type TSchema, Type, Value } from '../../shared/typebox.js';
import {
  AGENT_FILE_NAMES,
  UPDATE_DETAIL_MAX,
  UpdateOutcome,
} from '../../shared/wire/agent-update.js';
import { safeText } from '../../shared/wire/free-text.js';
import { replaceFile } from '../io/safe-write.js';

const Sha = Type.String({ pattern: '^[0-9a-f]{64}$' });

/**
 * data_dir/update.json: the update in progress or the last one, the handshake between the old
 * process (which writes `trying` and watches) and the new one (which writes `confirmed`).
 */
export const UpdateRecord = Type.Object({
  state: Type.Union([
    Type.Literal('trying'),
    Type.Literal('confirmed'),
    Type.Literal('rolled_back'),
  ]),
  file: Type.Union([
    Type.Literal(AGENT_FILE_NAMES[0]),
    Type.Literal(AGENT_FILE_NAMES[1]),
    Type.Literal(AGENT_FILE_NAMES[2]),
  ]),
  path: Type.String(),
  from_sha256: Sha,
  to_sha256: Sha,
  started_at: Type.String(),
  request_id: Type.Optional(Type.String({ maxLength: 200 })),
});
export type UpdateRecord = Static<typeof UpdateRecord>;

/** The outcome as kept in data_dir/update-outcome.json, with the request it answered. */
const StoredOutcome = Type.Intersect([
  UpdateOutcome,
  Type.Object({ request_id: Type.Optional(Type.String({ maxLength: 200 })) }),
]);
export type StoredOutcome = UpdateOutcome & { request_id?: string };

export const RECORD_FILE = 'update.json';
export const OUTCOME_FILE = 'update-outcome.json';

/** What a starting agent does about the update record it finds. */
export type AtStart =
  | { kind: 'none' }
  /** It is the new file of an update on trial: confirm once the board has heard from it. */
  | { kind: 'trial'; record: UpdateRecord }
  /** An update was left `trying` and this is not its new file: it was interrupted. */
  | { kind: 'interrupted'; record: UpdateRecord };

/** Decides, from the record and the running file's SHA-256, what a starting agent does. */
export function atStart(record: UpdateRecord | null, ownSha: string | null): AtStart {
  if (record === null || record.state !== 'trying') return { kind: 'none' };
  if (ownSha !== null && record.to_sha256 === ownSha) return { kind: 'trial', record };
  return { kind: 'interrupted', record };
}

/** An outcome with its detail cut to one line of at most 200 characters. */
export function outcome(
  state: UpdateOutcome['state'],
  toSha: string | null,
  detail: string,
  at: Date,
  requestId?: string,
): StoredOutcome {
  const line = safeText(detail.replace(/\s*\n\s*/g, ' ')).slice(0, UPDATE_DETAIL_MAX);
  return {
    state,
    to_sha256: toSha,
    detail: line,
    at: at.toISOString(),
    ...(requestId === undefined ? {} : { request_id: requestId }),
  };
}

/** The two files of data_dir, each written whole (0600, renamed into place). */
export class UpdateFiles {
  constructor(private readonly dataDir: string) {}

  async record(): Promise<UpdateRecord | null> {
    return readChecked<UpdateRecord>(join(this.dataDir, RECORD_FILE), UpdateRecord);
  }

  async writeRecord(record: UpdateRecord): Promise<void> {
    await writeWhole(join(this.dataDir, RECORD_FILE), record);
  }

  async outcome(): Promise<StoredOutcome | null> {
    return readChecked<StoredOutcome>(join(this.dataDir, OUTCOME_FILE), StoredOutcome);
  }

  async writeOutcome(value: StoredOutcome): Promise<void> {
    await writeWhole(join(this.dataDir, OUTCOME_FILE), value);
  }
}

async function readChecked<T>(path: string, schema: TSchema): Promise<T | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const value: unknown = JSON.parse(text);
    // A damaged or foreign file is as good as none.
    return Value.Check(schema, value) ? (value as T) : null;
  } catch {
    return null;
  }
}

/** Writes JSON to a 0600 temporary file, fsyncs it and renames it over `path` (never a link). */
export async function writeWhole(path: string, value: unknown): Promise<void> {
  await replaceFile(path, `${JSON.stringify(value)}\n`, 0o600);
}

/** Removes a file if it is there. */
export async function removeQuietly(path: string): Promise<void> {
  await unlink(path).catch(() => undefined);
}
