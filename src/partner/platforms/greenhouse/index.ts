import { definePlatform, type PlatformDefinition } from '../platform.js';
import { describePatchTargets, type PatchTargetRules } from './allowlist.js';
import { greenhouseApi } from './api.js';
import { credentialSealer } from './credential.js';
import { greenhouseDeliveryRequest } from './delivery.js';
import { GREENHOUSE, GREENHOUSE_PATH, greetingName, mountGreenhouseRoutes } from './routes.js';
import { GreenhouseSettings } from './settings.js';

/**
 * Greenhouse, through its Assessment Partner API (docs/greenhouse.md): the four routes it calls, and
 * the PATCH that tells it a test is complete. The invitation e-mail goes at once: Greenhouse learnt
 * the interview's id from send_test's answer, and has no earlier update to accept.
 */
export function greenhousePlatform(): PlatformDefinition<GreenhouseSettings> {
  return definePlatform({
    name: GREENHOUSE,
    label: 'Greenhouse',
    settings: GreenhouseSettings,
    api: greenhouseApi(),
    create: ({ config, settings, publicUrl }) => {
    const sealer = credentialSealer(config.links.secret);
    const rules: PatchTargetRules = { patchHosts: settings.patchHosts, loopback: config.localOnly };
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
      details: greenhouseDetails,
      hears: {
        known: "Greenhouse knows the report from send_test's answer (its partner_interview_id).",
        updates:
          'Greenhouse hears only of the result: once the test is completed or failed, a PATCH with no body to the url it sent ' +
          "with the test (Basic, the customer's key), after which Greenhouse reads test_status. Its start, the candidate's " +
          'progress and a cancel are nothing Greenhouse hears of: settled without a request (superseded).',
        request: 'PATCH to the url Greenhouse sent, with no body',
      },
      greetingName: ({ firstName, platformData }) =>
        greetingName({ first_name: firstName, preferred_name: typeof platformData.preferred_name === 'string' ? platformData.preferred_name : null }),
    };
    },
  });
}

/** What the dashboard shows of a Greenhouse invitation: the candidate's profile and résumé links, who sent it, where the PATCH goes. */
function greenhouseDetails(data: Readonly<Record<string, unknown>>): { label: string; value: string; href?: string }[] {
  const text = (key: string) => (typeof data[key] === 'string' ? (data[key] as string) : undefined);
  const link = (label: string, key: string, value: string) => {
    const url = text(key);
    return url && /^https?:\/\//i.test(url) ? [{ label, value, href: url }] : [];
  };
  return [
    ...link('Greenhouse profile', 'greenhouse_profile_url', 'the candidate in Greenhouse'),
    ...link('Résumé', 'resume_url', 'the résumé (Greenhouse keeps the link 7 days)'),
    ...(text('preferred_name') ? [{ label: 'Preferred name', value: text('preferred_name')! }] : []),
    ...(text('sent_by') ? [{ label: 'Sent by', value: text('sent_by')! }] : []),
    ...(text('url') ? [{ label: 'PATCH to', value: text('url')! }] : []),
  ];
}
