import type { Request, Response } from 'express';
import multer from 'multer';
import { AppError, badRequest, payloadTooLarge, unsupportedMediaType } from '../../lib/errors.js';
import { compressedBody, contentCoding, jsonBody } from '../body-readers.js';
import { MAX_JSON_BODY_BYTES, MAX_LENGTH, MAX_UPLOAD_BYTES, MAX_UPLOAD_FILES } from './decisions.js';
import { nestFields } from './form-fields.js';
import { IncomingFile, type UploadStorage } from './uploads.js';

/** busboy, as multer hands it to `streamHandler`. */
type FieldSource = NodeJS.WritableStream & { on(event: 'field', listener: (name: string, value: string) => void): unknown };

export interface ApplicationRequest {
  /** The body as one nested object (see form-fields.ts), files in place of their fields. */
  fields: Record<string, unknown>;
  /** Every file received; the caller must store or discard each one. */
  files: IncomingFile[];
}

/**
 * Reads an application body: multipart/form-data (files go to the incoming folder while the request is
 * read) or JSON. No body reads as `{}`; anything else, or a compressed body, is a 415. A file over the limit is a 413 and
 * leaves nothing on disk (multer removes what it wrote when it aborts).
 */
export function applicationBodyReader(storage: UploadStorage) {
  // multer nests bracketed field names itself, but not %5B/%5D-escaped ones, and it loses the names
  // as sent. Its stream hook lets us record every text field exactly as it arrived, so one parser
  // (nestFields) reads both spellings.
  const rawFields = new WeakMap<Request, [string, string][]>();
  // `streamHandler` is a multer 2 option that @types/multer does not declare yet.
  const options: multer.Options & { streamHandler(req: Request, busboy: FieldSource): void } = {
    storage: multer.diskStorage({ destination: storage.incomingDir }),
    limits: {
      fileSize: MAX_UPLOAD_BYTES,
      files: MAX_UPLOAD_FILES,
      fields: 500,
      parts: 500 + MAX_UPLOAD_FILES,
      fieldNameSize: 300,
      fieldSize: 4 * MAX_LENGTH.coverLetter + 1024,
      fieldNestingDepth: 8,
      fieldArrayIndexLimit: 999,
    },
    streamHandler(req, busboy) {
      const fields: [string, string][] = [];
      rawFields.set(req, fields);
      busboy.on('field', (name, value) => fields.push([name, value]));
      req.pipe(busboy);
    },
  };
  const upload = multer(options).any();
  const json = jsonBody(MAX_JSON_BODY_BYTES);

  return async function read(req: Request, res: Response): Promise<ApplicationRequest> {
    const declared = req.headers['content-length'];
    if (declared === '0' || (declared === undefined && req.headers['transfer-encoding'] === undefined)) {
      return { fields: {}, files: [] };
    }
    // Neither reader decompresses: a compressed body would read as a malformed one.
    const coding = contentCoding(req);
    if (coding !== undefined) throw compressedBody(coding);
    const type = req.is(['multipart/form-data', 'application/json', '+json']);
    if (!type) throw unsupportedMediaType('Content-Type must be application/json or multipart/form-data');

    if (type === 'multipart/form-data') {
      await new Promise<void>((resolve, reject) => upload(req, res, (err?: unknown) => (err ? reject(multipartError(err)) : resolve())));
      const received = ((req.files as Express.Multer.File[] | undefined) ?? []).map(
        (f) => [f.fieldname, new IncomingFile(f.originalname, f.mimetype, f.size, { tempPath: f.path })] as const,
      );
      const files = received.map(([, file]) => file);
      try {
        return { fields: nestFields([...(rawFields.get(req) ?? []), ...received]), files };
      } catch (err) {
        await storage.discard(files);
        throw err;
      }
    }

    await new Promise<void>((resolve, reject) => json(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
    const body: unknown = req.body;
    if (body === undefined) return { fields: {}, files: [] };
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The JSON body must be an object');
    return { fields: nestFields(Object.entries(body)), files: [] };
  };
}

function multipartError(err: unknown): unknown {
  if (err instanceof multer.MulterError) {
    switch (err.code) {
      case 'LIMIT_FILE_SIZE':
        return payloadTooLarge(`${err.field ? `File ${err.field}` : 'A file'} is larger than ${MAX_UPLOAD_BYTES / (1024 * 1024)} MB`);
      case 'LIMIT_FILE_COUNT':
      case 'LIMIT_PART_COUNT':
      case 'LIMIT_FIELD_COUNT':
      case 'LIMIT_FIELD_VALUE':
      case 'LIMIT_FIELD_KEY':
        return payloadTooLarge(err.message);
      default:
        return badRequest(`${err.message}${err.field ? ` (${err.field})` : ''}`);
    }
  }
  if (err instanceof AppError) return err;
  // Errors from the file system (a full disk, a missing folder) are ours; the rest come from busboy
  // reading a malformed body.
  if (err instanceof Error && 'syscall' in err) return err;
  return badRequest(`Malformed multipart/form-data body${err instanceof Error ? `: ${err.message}` : ''}`);
}
