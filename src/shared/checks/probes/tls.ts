import type { Probe } from '../observation.js';

/** The `tls` check type. */
export const tlsProbe: Probe = async (check) => {
  throw new Error(`the tls probe is not built yet (${check.name})`);
};
