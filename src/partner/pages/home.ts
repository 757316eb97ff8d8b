import { Router } from 'express';
import type { PartnerKind } from '../../contract/decisions.js';
import { KIND_WORDING } from '../invitations/kinds.js';
import type { Platform } from '../platforms/platform.js';
import { renderPage } from './render.js';

export interface HomePageDeps {
  publicUrl: string;
  kind: PartnerKind;
  /** What each platform is given to reach this server. */
  platforms: readonly Pick<Platform, 'name' | 'label' | 'home'>[];
}

/** What this server answers, at its public URL: what the platform is given on registration. */
export function serverDescription(deps: HomePageDeps) {
  return {
    server: 'partner',
    kind: deps.kind,
    public_url: deps.publicUrl,
    platforms: Object.fromEntries(deps.platforms.map((p) => [p.name, { label: p.label, endpoints: p.home.endpoints, settings: p.home.settings ?? {} }])),
    dashboard: `${deps.publicUrl}/admin`,
    health: `${deps.publicUrl}/healthz`,
  };
}

/**
 * `GET /`: the address the dev banner prints. A browser gets a page saying what this server is,
 * with its callback URLs and links to the dashboard and /healthz; a JSON client gets the same as
 * JSON. Nothing here is secret: it is what the partner record on the platform holds.
 */
export function homePage(deps: HomePageDeps): Router {
  const router = Router();
  const description = serverDescription(deps);
  router.get('/', (req, res) => {
    if (req.accepts(['html', 'json']) === 'json') {
      res.json(description);
      return;
    }
    renderPage(res, './home', {
      pageTitle: 'Partner server',
      brand: 'Partner server',
      description,
      wording: KIND_WORDING[deps.kind],
    });
  });
  return router;
}
