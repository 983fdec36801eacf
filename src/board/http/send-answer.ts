import type { FastifyReply } from 'fastify';
import type { Answer } from '../domain/answer.js';

/** Sends a domain Answer (a status the domain chose, often the agent's own) as it is. */
export function sendAnswer(reply: unknown, answer: Answer): FastifyReply {
  return (reply as FastifyReply).code(answer.status).send(answer.body);
}
