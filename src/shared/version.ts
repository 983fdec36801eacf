/** The interface version of both programs, as their OpenAPI documents and health answers state it. */
export const VERSION = '0.1.0';
