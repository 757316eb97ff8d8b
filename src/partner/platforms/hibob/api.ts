import { z } from 'zod';
import { error } from '../../api-examples.js';
import type { PlatformApi } from '../platform.js';
import { CALLBACK_PATH } from './install.js';
import { signBobBody } from './signature.js';
import { WEBHOOKS_PATH } from './webhooks.js';

/** A page for a browser (text/html): what the tests can check of it is its status. */
const HtmlPage = z.unknown().describe('An HTML page for the person whose browser Bob sent here.');
const WebhookAnswer = z.object({
  ok: z.literal(true),
  duplicate: z.literal(true).optional().describe('This assessment request\'s event of this type was received before: nothing new was stored.'),
  ignored: z.literal(true).optional().describe('A signed event of a type the kit does not handle: nothing was stored.'),
});

/**
 * HiBob's part of the partner's OpenAPI document: the two routes Bob calls (docs/hibob.md). Their
 * examples are the answers that need no configuration — the page the callback shows without a code,
 * Bob's listener check — so that they run against any partner; the rest of each route's answers
 * are documented without examples.
 */
export function hibobApi(): PlatformApi {
  return {
    tags: [{ name: 'HiBob', description: "Called by Bob (HiBob's Hiring Assessments API): the end of an app install, and the webhooks of assessment orders (docs/hibob.md)." }],
    operations: [
      {
        operationId: 'hibobOAuthCallback',
        method: 'get',
        path: CALLBACK_PATH,
        tags: ['HiBob'],
        summary: 'The end of an install from Bob\'s marketplace: the code exchanged for the company\'s tokens',
        description:
          'The app\'s redirect URI in Bob\'s Developer Portal. Bob sends the installing user\'s browser here with ' +
          '`code` (the one-time authorization code), and may add `companyId` and `state`; after a refused consent, ' +
          '`error`. The code is exchanged at HIBOB_TOKEN_URL (RFC 6749 `authorization_code`); Bob\'s company — the ' +
          'token answer\'s `companyId`, else the query\'s — is connected to the account an operator linked it to, else ' +
          'to a new account named after it; the tokens become the connection\'s sealed credential and the catalog\'s ' +
          'registration is queued. Answers are HTML pages: installed (200); a code Bob refuses, an `error`, a ' +
          'malformed query (400); Bob unreachable or refusing the app\'s credentials (502). Without `code` and ' +
          '`error`, a page saying what the address is (200). While HIBOB_CLIENT_ID, HIBOB_CLIENT_SECRET or ' +
          'HIBOB_WEBHOOK_SECRET is unset, a request with a code or an error answers 503 in the kit\'s error shape. ' +
          'See docs/hibob.md §2.',
        responses: {
          200: { description: 'Installed; or, without a code, what the address is.', schema: HtmlPage, contentType: 'text/html' },
          400: { description: 'The code was refused (used, expired, made up), Bob ended the install, or the query is malformed.', schema: HtmlPage, contentType: 'text/html' },
          502: { description: 'Bob could not be reached, or refused the partner\'s app credentials.', schema: HtmlPage, contentType: 'text/html' },
          503: error('HiBob is not configured on this partner: the settings to set are named.'),
        },
        examples: [{ name: 'landing', summary: 'Opened without a code', status: 200 }],
      },
      {
        operationId: 'hibobWebhooks',
        method: 'post',
        path: WEBHOOKS_PATH,
        tags: ['HiBob'],
        summary: 'Bob\'s assessment events, for every installed company',
        description:
          'The one listener URL of the app, for all companies. The body is Bob\'s event, signed as it was sent: ' +
          '`{"companyId", "type": "assessment.triggered" | "assessment.cancelled", "triggeredBy", "triggeredAt", ' +
          '"version", "data": {"assessmentRequestId"}}`. `Bob-Signature` is the standard Base64 of the HMAC-SHA512 ' +
          'of the exact body under HIBOB_WEBHOOK_SECRET; anything else is 401 and nothing is stored. An event is ' +
          'stored once per assessment request and type (a duplicate answers 200 with `duplicate: true`) and handled ' +
          'after the answer: a trigger reads the order\'s details from Bob with that company\'s token and makes an ' +
          'invitation whose report id is the `assessmentRequestId`; a cancel cancels it. A body with no event in it ' +
          '(empty, `Ping test`, `{"text": "Ping test"}`) is Bob\'s listener check: 200, even unconfigured. A signed ' +
          'event of another type: 200 with `ignored: true`. See docs/hibob.md §5.',
        parameters: [
          {
            name: 'Bob-Signature',
            in: 'header',
            description: 'Base64 (RFC 4648 §4, padded) of the HMAC-SHA512 of the raw body under HIBOB_WEBHOOK_SECRET.',
            schema: z.string().regex(/^[A-Za-z0-9+/]{86}==$/),
            example: signBobBody('example-webhook-secret', '{"companyId":"620400","type":"assessment.triggered","data":{"assessmentRequestId":"90417"}}'),
          },
        ],
        responses: {
          200: { description: 'Stored, a duplicate, ignored, or a listener check.', schema: WebhookAnswer },
          400: error('A signed body that is not well-formed JSON.'),
          401: error('No `Bob-Signature`, or one that is not the body\'s under HIBOB_WEBHOOK_SECRET.'),
          413: error('The body is larger than BODY_LIMIT_BYTES.'),
          415: error('A compressed body: Bob\'s signature is over the bytes sent.'),
          422: error('A signed assessment event without a valid `companyId` or `data.assessmentRequestId`.'),
          503: error('HiBob is not configured on this partner: the settings to set are named.'),
        },
        examples: [{ name: 'listener_check', summary: 'Bob checks the listener: an empty body', status: 200, response: { ok: true } }],
      },
    ],
  };
}
