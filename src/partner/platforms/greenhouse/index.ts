import type { Config } from '../../config.js';
import type { Platform } from '../platform.js';
import type { PatchTargetRules } from './allowlist.js';
import { credentialSealer } from './credential.js';
import { greenhouseDeliveryRequest } from './delivery.js';
import { GREENHOUSE, mountGreenhouseRoutes } from './routes.js';

/**
 * Greenhouse, through its Assessment Partner API (docs/greenhouse.md): the four routes it calls, and
 * the PATCH that tells it a test is complete. The invitation e-mail goes at once: Greenhouse learnt
 * the interview's id from send_test's answer, and has no earlier update to accept.
 */
export function greenhousePlatform(config: Pick<Config, 'links' | 'localOnly' | 'greenhouse'>): Platform {
  const sealer = credentialSealer(config.links.secret);
  const rules: PatchTargetRules = { patchHosts: config.greenhouse.patchHosts, loopback: config.localOnly };
  return {
    name: GREENHOUSE,
    label: 'Greenhouse',
    emailAfterAcceptance: false,
    mount: (router, context) => mountGreenhouseRoutes(router, { context, sealer, rules }),
    deliveryRequest: (target, update) => greenhouseDeliveryRequest(target, update, { sealer, rules }),
  };
}
