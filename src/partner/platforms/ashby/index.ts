import { definePlatform, type PlatformDefinition } from '../platform.js';
import { ashbyApi } from './api.js';
import { ashbyDeliveryRequest, judgeAshbyAnswer } from './delivery.js';
import { ASHBY, ASHBY_CALLS, ASHBY_PATH, credentialCommand, mountAshbyRoutes } from './routes.js';
import { AshbySettings } from './settings.js';

/**
 * Ashby, through its Assessments Partner API (docs/ashby.md): the three calls it makes to the
 * partner, and `assessment.update`, posted to Ashby's API with the customer's Ashby API key (the
 * account's credential for `ashby`). Ashby hears of the candidate's progress (`Started`). The
 * invitation e-mail goes at once: Ashby learnt the assessment's id from the start's answer.
 */
export function ashbyPlatform(): PlatformDefinition<AshbySettings> {
  return definePlatform({
    name: ASHBY,
    label: 'Ashby',
    settings: AshbySettings,
    api: ashbyApi(),
    credential: { label: 'Ashby API key', required: true },
    create: ({ config, settings, publicUrl, clock }) => ({
      name: ASHBY,
      label: 'Ashby',
      emailAfterAcceptance: false,
      hearsProgress: true,
      home: {
        endpoints: {
          base_url: `${publicUrl}${ASHBY_PATH}`,
          ...Object.fromEntries(ASHBY_CALLS.map((call) => [call, `${publicUrl}${ASHBY_PATH}/${call}`])),
        },
        settings: { api_url: settings.apiUrl },
      },
      mount: (router, context) => mountAshbyRoutes(router, { context, partnerName: config.partnerName }),
      deliveryRequest: (target, update) =>
        ashbyDeliveryRequest(target, update, { apiUrl: settings.apiUrl, now: () => clock.now(), accountsCommand: credentialCommand }),
      judgeAnswer: judgeAshbyAnswer,
      details: ashbyDetails,
      hears: {
        known: "Ashby knows the report from assessment.start's answer, which told it Invited.",
        updates:
          "Ashby hears of the candidate's progress (Opened, Started, In review), the result and a cancel of ours, each an " +
          "assessment.update posted to ASHBY_API_URL with the customer's Ashby API key, as it happens. The invitation's start (Ashby was told " +
          'Invited already) and a cancel of its own are settled without a request (superseded).',
        request: 'POST assessment.update',
      },
    }),
  });
}

/** What the dashboard shows of an Ashby invitation: the candidate's profile, the job, its requisition. */
function ashbyDetails(data: Readonly<Record<string, unknown>>): { label: string; value: string; href?: string }[] {
  const text = (key: string) => (typeof data[key] === 'string' && data[key] !== '' ? (data[key] as string) : undefined);
  const web = (key: string) => {
    const url = text(key);
    return url && /^https?:\/\//i.test(url) ? url : undefined;
  };
  const profile = web('ashby_profile_url');
  const job = text('job_name');
  const jobUrl = web('ashby_job_url');
  return [
    ...(profile ? [{ label: 'Ashby profile', value: 'the candidate in Ashby', href: profile }] : []),
    ...(job ? [{ label: 'Job', value: job, ...(jobUrl && { href: jobUrl }) }] : []),
    ...(text('req_id') ? [{ label: 'Requisition', value: text('req_id')! }] : []),
    ...(text('application_status') ? [{ label: 'Application status', value: text('application_status')! }] : []),
  ];
}
