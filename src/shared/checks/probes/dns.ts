import type { Probe } from '../observation.js';

/** The `dns` check type. */
export const dnsProbe: Probe = async (check) => {
  throw new Error(`the dns probe is not built yet (${check.name})`);
};
