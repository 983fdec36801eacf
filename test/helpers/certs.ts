import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { TempDir } from './tmp.js';

/** A made-up CA and the files of certificates it signed, all under a test's directory. */
export interface TestCa {
  /** The CA certificate (PEM file), what `ca:` names. */
  caFile: string;
  /**
   * Issues a certificate for 127.0.0.1 and localhost (or `altNames`, openssl's subjectAltName
   * text), valid `days` (2), signed by this CA; its two files.
   */
  issue(
    name: string,
    options?: { days?: number; altNames?: string },
  ): { cert: string; key: string };
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * Makes a CA with the openssl CLI (no network; .ci/run installs openssl when it is missing).
 * EC P-256 keys, valid two days: quick to make, and nothing outlives the test.
 */
export function makeTestCa(dir: TempDir, name = 'ca'): TestCa {
  const cwd = dir.path;
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    [
      'req',
      '-x509',
      ...ec,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-subj',
      `/CN=Panoptes test ${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    cwd,
  );
  return {
    caFile: join(cwd, `${name}.pem`),
    issue(leaf, options = {}) {
      const altNames = options.altNames ?? 'IP:127.0.0.1,DNS:localhost';
      const ext = dir.write(`${leaf}.ext`, `subjectAltName=${altNames}\n`);
      openssl(
        ['req', ...ec, '-keyout', `${leaf}.key`, '-out', `${leaf}.csr`, '-subj', `/CN=${leaf}`],
        cwd,
      );
      openssl(
        [
          'x509',
          '-req',
          '-in',
          `${leaf}.csr`,
          '-CA',
          `${name}.pem`,
          '-CAkey',
          `${name}.key`,
          '-CAcreateserial',
          '-out',
          `${leaf}.pem`,
          '-days',
          String(options.days ?? 2),
          '-extfile',
          ext,
        ],
        cwd,
      );
      return { cert: join(cwd, `${leaf}.pem`), key: join(cwd, `${leaf}.key`) };
    },
  };
}
