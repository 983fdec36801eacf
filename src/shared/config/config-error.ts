/** One problem found in a config file: where it is and what is wrong. */
export interface ConfigProblem {
  /** Dotted path of the field, e.g. `machines[0].key`; empty for the file as a whole. */
  field: string;
  problem: string;
}

/** A config file that cannot be used; the message names the file, each field and its problem. */
export class ConfigError extends Error {
  readonly file: string;
  readonly problems: readonly ConfigProblem[];

  constructor(file: string, problems: readonly ConfigProblem[]) {
    const lines = problems.map((p) => `  ${p.field === '' ? '(file)' : p.field}: ${p.problem}`);
    super(`invalid config ${file}:\n${lines.join('\n')}`);
    this.name = 'ConfigError';
    this.file = file;
    this.problems = problems;
  }
}
