import { SimulatedAgents } from './agents.js';
import { announce } from './announcers.js';
import type { SimAnswer, SimRequest } from './protocol.js';
import { reportOverTls } from './tls-reporters.js';

/**
 * The fleet simulator: one process, driven by the bench over IPC. It serves the simulated
 * polled agents and runs the announcing machines. It exits when the bench goes away.
 */
const agents = new SimulatedAgents();

function reply(answer: SimAnswer): void {
  process.send?.(answer);
}

async function handle(message: SimRequest): Promise<SimAnswer> {
  switch (message.type) {
    case 'serve':
      return { ...(await agents.serve(message)), id: message.id };
    case 'announce':
      return { ...(await announce(message)), id: message.id };
    case 'tls-report':
      return { ...(await reportOverTls(message)), id: message.id };
    case 'stats':
      return { ...agents.stats(), id: message.id };
  }
}

process.on('message', (message: SimRequest) => {
  handle(message)
    .then(reply)
    .catch((error: unknown) =>
      reply({
        type: 'error',
        message: error instanceof Error ? error.message : String(error),
        id: message.id,
      }),
    );
});

process.on('disconnect', () => {
  void agents.close().finally(() => process.exit(0));
});
process.send?.({ type: 'ready', id: 0 });
