import type { PlatformFactory } from '../platform.js';
import { describePatchTargets, type PatchTargetRules } from './allowlist.js';
import { credentialSealer } from './credential.js';
import { greenhouseDeliveryRequest } from './delivery.js';
import { GREENHOUSE, GREENHOUSE_PATH, greetingName, mountGreenhouseRoutes } from './routes.js';

/**
 * Greenhouse, through its Assessment Partner API (docs/greenhouse.md): the four routes it calls, and
 * the PATCH that tells it a test is complete. The invitation e-mail goes at once: Greenhouse learnt
 * the interview's id from send_test's answer, and has no earlier update to accept.
 */
export function greenhousePlatform(): PlatformFactory {
  return ({ config, publicUrl }) => {
    const sealer = credentialSealer(config.links.secret);
    const rules: PatchTargetRules = { patchHosts: config.greenhouse.patchHosts, loopback: config.localOnly };
    return {
      name: GREENHOUSE,
      label: 'Greenhouse',
      emailAfterAcceptance: false,
      home: {
        endpoints: Object.fromEntries(
          ['list_tests', 'send_test', 'test_status', 'response_error'].map((call) => [call, `${publicUrl}${GREENHOUSE_PATH}/${call}`]),
        ),
        settings: { patch_hosts: describePatchTargets(rules) },
      },
      mount: (router, context) => mountGreenhouseRoutes(router, { context, sealer, rules }),
      deliveryRequest: (target, update) => greenhouseDeliveryRequest(target, update, { sealer, rules }),
      greetingName: ({ firstName, platformData }) =>
        greetingName({ first_name: firstName, preferred_name: typeof platformData.preferred_name === 'string' ? platformData.preferred_name : null }),
    };
  };
}
