import express, { type RequestHandler } from 'express';
import { unsupportedMediaType } from '../errors.js';

const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * `express.json()` with the contract's answer for a body that is not JSON: 415, where
 * `express.json()` alone would skip it and leave `req.body` undefined. An empty body is no body.
 * Malformed JSON (400) and a body over `limitBytes` (413) are express.json's own errors, worded
 * by the error handler.
 */
export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, type: JSON_TYPES });
  return (req, res, next) => {
    if (req.headers['content-length'] !== '0' && req.is(JSON_TYPES) === false) return next(unsupportedMediaType());
    parse(req, res, next);
  };
}
