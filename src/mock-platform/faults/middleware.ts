import type { RequestHandler } from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeFault, type FaultStore } from './store.js';

/**
 * Applies the next armed fault of `endpoint`, if any, before the real handler runs: so a fault
 * answers even requests that would have failed authentication, as a broken network or an
 * overloaded platform would. `res.locals.fault` tells the call log what was injected.
 */
export function injectFault(faults: FaultStore, endpoint: string): RequestHandler {
  faults.register(endpoint);
  return async (req, res, next) => {
    const fault = faults.take(endpoint);
    if (!fault) return next();
    res.locals.fault = describeFault(fault);
    if (fault.delayMs > 0) await sleep(fault.delayMs);
    if (fault.drop) {
      // No status line, no body: the client sees the connection close (ECONNRESET / "other side closed").
      req.socket.destroy();
      return;
    }
    if (fault.status !== null) {
      res.status(fault.status).json({ error: `Injected fault: ${fault.status} on ${endpoint}` });
      return;
    }
    next();
  };
}
