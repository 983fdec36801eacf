/** A status and a JSON body, as the HTTP layer will send them. */
export interface Answer {
  status: number;
  body: unknown;
}
