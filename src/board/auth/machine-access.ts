import { errors, type HttpError } from '../../shared/http/errors.js';
import type { Role, Scope, Scoped } from './roles.js';

/**
 * What an actor asking for `role` over the machine `name` is answered, or null (it may): a
 * machine out of sight gets the very answer of an unknown one (never a 403 confirming a name).
 */
export function machineRefusal(
  scope: Scope,
  role: Role,
  name: string,
  machine: Scoped | undefined,
): HttpError | null {
  if (scope.whole(role)) return null;
  if (machine === undefined || !scope.sees(machine))
    return errors.notFound(`No machine named '${name}' on this board`);
  return scope.may(role, machine) ? null : errors.forbidden(`This needs the ${role} role here`);
}
