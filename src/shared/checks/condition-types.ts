/** The parsed form of a condition, shared by the parser (conditions.ts) and the evaluator. */

export const PLACEHOLDERS = [
  'STATUS',
  'RESPONSE_TIME',
  'BODY',
  'CONNECTED',
  'IP',
  'CERTIFICATE_EXPIRATION',
  'DNS_RCODE',
] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

export type Operator = '==' | '!=' | '<=' | '>=' | '<' | '>';

/** One step of a `[BODY]` path: a key, or an array index. */
export type PathStep = string | number;

export type Operand =
  | { kind: 'literal'; text: string; at: number }
  | { kind: 'placeholder'; text: string; at: number; name: Placeholder; path: PathStep[] }
  | { kind: 'len' | 'has'; text: string; at: number; inner: PlaceholderOperand }
  | { kind: 'pat'; text: string; at: number; pattern: string }
  | { kind: 'any'; text: string; at: number; options: string[] };
export type PlaceholderOperand = Extract<Operand, { kind: 'placeholder' }>;

/** A parsed condition: two operands and an operator. */
export interface ParsedCondition {
  left: Operand;
  operator: Operator;
  right: Operand;
}
