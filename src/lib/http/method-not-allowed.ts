import type { Express, RequestHandler } from 'express';
import { AppError } from '../errors.js';

/** What this reads of Express's router: a layer matches a path; a route knows its methods; a router has a stack. */
interface Layer {
  match(path: string): false | { path: string };
  route?: { path: unknown; methods: Record<string, boolean | undefined> };
  handle: { stack?: readonly Layer[] };
}

const EVERY_PATH = /^\/?(\{\*\w+\}|\*\w*)$/;

/** The methods the app's routes answer for `path`, mounted routers included. */
function methodsFor(stack: readonly Layer[], path: string, into: Set<string>): void {
  for (const layer of stack) {
    const matched = layer.match(path);
    if (!matched) continue;
    // A route for every path (`router.post('/{*any}', check)`) guards the others; it is not a resource.
    if (layer.route && EVERY_PATH.test(String(layer.route.path))) continue;
    if (layer.route) {
      for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== '_all') into.add(method.toUpperCase());
    } else if (Array.isArray(layer.handle.stack)) {
      methodsFor(layer.handle.stack, path.slice(matched.path.length) || '/', into);
    }
  }
}

/**
 * Mounted after every route, before the 404: a path the app knows, asked with a method none of its
 * routes take, answers 405 with `Allow` (RFC 9110 §15.5.6) in the contract's `{"error": "..."}`
 * shape, instead of a 404 that says the path does not exist. A path no route knows goes on to the 404.
 */
export function methodNotAllowed(app: Express): RequestHandler {
  const stack = () => (app as unknown as { router: { stack: readonly Layer[] } }).router.stack;
  return (req, res, next) => {
    const allowed = new Set<string>();
    methodsFor(stack(), req.path, allowed);
    if (allowed.size === 0 || allowed.has(req.method)) return next();
    if (allowed.has('GET')) allowed.add('HEAD');
    const allow = [...allowed].sort().join(', ');
    res.set('Allow', allow);
    next(new AppError(405, 'method_not_allowed', `${req.method} is not allowed here: use ${allow}`));
  };
}
