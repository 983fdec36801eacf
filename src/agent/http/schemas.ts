import { Type } from '../../shared/typebox.js';
import { Action, Name } from '../../shared/wire/common.js';

/** A FastAPI-shaped error body. */
export const Detail = Type.Object({ detail: Type.String() });

/** The path of POST /api/do/{what}/{action}. */
export const DoParams = Type.Object({ what: Name, action: Action });
