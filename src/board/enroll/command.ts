import { UPDATE_KEY_PATTERN } from '../../shared/wire/agent-update.js';

/** The file name the pasted command saves the agent as, and the route that serves it. */
export const AGENT_FILE_NAME = 'panoptes-agent.mjs';
export const AGENT_FILE_ROUTE = `/agent/${AGENT_FILE_NAME}`;

/** A file the board serves for machines to fetch, with its hex SHA-256. */
export interface ServedFile {
  name: string;
  sha256: string;
}

/** The agent binaries, by what `uname -m` says on the machine. */
export const AGENT_BINARIES: readonly { name: string; machines: readonly string[] }[] = [
  { name: 'panoptes-agent-linux-x64', machines: ['x86_64', 'amd64'] },
  { name: 'panoptes-agent-linux-arm64', machines: ['aarch64', 'arm64'] },
];

/** What a pasted command is made of. Every value is quoted for a POSIX shell. */
export interface EnrollCommandParts {
  /** The board as the machine reaches it: `public_url`, or where the request came to. */
  board: string;
  name: string;
  key: string;
  registrationToken: string;
  /** The files the board serves (panoptes-agent.mjs at least, and the binaries it has). */
  files: readonly ServedFile[];
  /** The board's update-signing public key (base64url), pinned by the enroll. */
  updateKey: string;
}

/** Single-quotes a value for sh, bash and zsh ('it'\''s). */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** What the command says, on standard error, when the downloaded file is not the stated one. */
export const MISMATCH_MESSAGE = 'does not match the SHA-256 the board gave: removed, not run';

/** What it says on a machine without Node 20 when the board has no binary for it. */
export const NO_BINARY_MESSAGE = 'this board serves no agent binary; install Node 20 or later';

/**
 * What it says, on standard error, when the fetched file does not run here (before the enroll):
 * the binary needs the C++ runtime libraries, which minimal images leave out.
 */
export const CANNOT_RUN_MESSAGE =
  'the agent binary needs the C++ runtime libraries: apt-get install libstdc++6 libatomic1 (Debian, Ubuntu), dnf install libstdc++ libatomic (Fedora, RHEL), apk add libstdc++ libatomic (Alpine)';

// The shell variables the command sets (in the shell it is pasted into: named to collide with nothing).
const FILE = 'panoptes_file';
const SUM = 'panoptes_sum';
const RUN = 'panoptes_run';
const ARG = 'panoptes_arg';
const ERR = 'panoptes_err';

/**
 * The one command that adds a machine. It picks the agent file (the .mjs where `node` >= 20 is
 * there, else the binary for `uname -m`), fetches it from the board (curl, or busybox's wget),
 * checks it against the SHA-256 it carries before anything runs (`sha256sum`, or `shasum -a
 * 256`; on a mismatch the file is removed and the command fails), then enrolls (which writes the
 * agent's config, mode 0600, and starts it). The key and the registration token go in the
 * enroll's environment, never in its arguments, which `ps` shows to every user. Never the board
 * token. It ends with the enroll call, so `--port 0`, `--systemd`… may be added after it.
 */
export function enrollCommand(parts: EnrollCommandParts): string {
  const board = parts.board.replace(/\/+$/, '');
  const sums = new Map<string, string>();
  for (const f of parts.files) {
    if (!/^[0-9a-f]{64}$/.test(f.sha256)) throw new Error('not a hex SHA-256');
    sums.set(f.name, f.sha256);
  }
  if (!new RegExp(UPDATE_KEY_PATTERN).test(parts.updateKey)) throw new Error('not an update key');
  const mjs = sums.get(AGENT_FILE_NAME);
  if (mjs === undefined) throw new Error(`the command needs ${AGENT_FILE_NAME}`);
  const binaries = AGENT_BINARIES.filter((b) => sums.has(b.name));
  const pick = (name: string) => `${FILE}=${name}; ${SUM}=${sums.get(name)};`;
  const noBinary =
    binaries.length === 0
      ? `echo ${shellQuote(NO_BINARY_MESSAGE)} >&2; false;`
      : [
          'case $(uname -m) in',
          ...binaries.map(
            (b) => `${b.machines.join('|')}) ${pick(b.name)} ${RUN}=./${b.name}; ${ARG}=;;`,
          ),
          `*) echo "this board serves no agent binary for $(uname -m); install Node 20 or later" >&2; false;;`,
          'esac;',
        ].join(' ');
  const checked = `"$${SUM}  $${FILE}"`;
  return [
    // Node 20 or later: the one-file agent; `node` missing or older: a binary.
    `{ if node -e 'process.exit(process.versions.node.split(".")[0] >= 20 ? 0 : 1)' 2>/dev/null;`,
    `then ${pick(AGENT_FILE_NAME)} ${RUN}=node; ${ARG}=${AGENT_FILE_NAME};`,
    `else ${noBinary} fi; }`,
    `&& { if command -v curl >/dev/null; then curl -fsSL --compressed ${shellQuote(`${board}/agent/`)}"$${FILE}" -o "$${FILE}";`,
    `else wget -qO "$${FILE}" ${shellQuote(`${board}/agent/`)}"$${FILE}"; fi; }`,
    `&& { if command -v sha256sum >/dev/null; then echo ${checked} | sha256sum -c -;`,
    `else echo ${checked} | shasum -a 256 -c -; fi`,
    `|| { rm -f "$${FILE}"; echo "$${FILE} ${MISMATCH_MESSAGE}" >&2; false; }; }`,
    `&& { [ "$${ARG}" = ${AGENT_FILE_NAME} ] || chmod +x "$${FILE}"; }`,
    // It runs here before anything is written: a missing library is named in one line.
    `&& { ${ERR}=$("$${RUN}" $${ARG} --version 2>&1 >/dev/null)`,
    `|| { printf '%s\\n' "$${ERR}" | { read -r ${ERR}; echo "$${FILE} does not run on this machine: $${ERR}" >&2; };`,
    `[ "$${ARG}" = ${AGENT_FILE_NAME} ] || echo ${shellQuote(CANNOT_RUN_MESSAGE)} >&2; false; }; }`,
    '&&',
    `PANOPTES_BOARD_KEY=${shellQuote(parts.key)}`,
    `PANOPTES_REGISTRATION_TOKEN=${shellQuote(parts.registrationToken)}`,
    // $ARG unquoted: empty for a binary, and then no word at all (in sh, bash and zsh alike).
    `"$${RUN}" $${ARG} enroll`,
    // `--flag=value`: a value that begins with '-' is still a value.
    `--board=${shellQuote(board)}`,
    `--name=${shellQuote(parts.name)}`,
    // Not a secret: the public key the agent checks every update from the board against.
    `--update-key=${shellQuote(parts.updateKey)}`,
  ].join(' ');
}

/** host[:port] as a Host header may carry it (a name, IPv4, or [IPv6]); anything else is refused. */
const HOST_PATTERN =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/**
 * The board's address for the command: `public_url` when set, else the scheme and the Host the
 * request came with (null when that Host is not a plain host[:port]).
 */
export function boardAddress(
  publicUrl: string | null,
  tls: boolean,
  host: string | undefined,
): string | null {
  if (publicUrl !== null) return publicUrl.replace(/\/+$/, '');
  if (host === undefined || !HOST_PATTERN.test(host)) return null;
  return `${tls ? 'https' : 'http'}://${host}`;
}
