/**
 * The app's small error vocabulary. Domain code throws these; one middleware at the edge
 * (`http/error-handler.ts`) turns them into the contract's `{"error": "..."}` bodies. Anything else
 * that is thrown is a bug: it is logged and answered with a generic 500, never with its message.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Field → messages, for validation failures. */
    readonly fields?: Record<string, string[]>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (message: string) => new AppError(400, 'bad_request', message);
/** 401 and 403 mean "invalid token" to the platform: use them for token problems only. */
export const unauthorized = (message = 'Invalid token') => new AppError(401, 'unauthorized', message);
export const forbidden = (message: string) => new AppError(403, 'forbidden', message);
export const notFound = (message = 'Not Found') => new AppError(404, 'not_found', message);
export const conflict = (message: string) => new AppError(409, 'conflict', message);
export const payloadTooLarge = (message = 'Request body too large') => new AppError(413, 'payload_too_large', message);
export const unsupportedMediaType = (message = 'Content-Type must be application/json') =>
  new AppError(415, 'unsupported_media_type', message);
export const unprocessable = (message: string, fields?: Record<string, string[]>) =>
  new AppError(422, 'unprocessable', message, fields);
