// test/fork/my-routes.ts — a route of your own: your product tells the partner a candidate started.
import { timingSafeEqual } from 'node:crypto';
import express from 'express';
import { z } from 'zod';
import type { PartnerRoutes } from '../../src/partner/index.js';

const Started = z.object({ report_id: z.string().min(1).max(200) });

// POST /my-product/started {"report_id": "…"}, with the token you and your product share.
export const routes: PartnerRoutes = (router, { reports, logger }) => {
  // Read as the partner starts: every entry point has read .env by then.
  const token = process.env.PRODUCT_CALLBACK_TOKEN ?? '';
  const expected = Buffer.from(`Bearer ${token}`);
  router.post('/my-product/started', express.json({ limit: '16kb' }), async (req, res) => {
    const given = Buffer.from(req.get('authorization') ?? '');
    if (token === '' || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return void res.status(401).json({ error: 'Unauthorized' });
    }
    const body = Started.safeParse(req.body);
    if (!body.success) return void res.status(422).json({ error: 'report_id is required' });
    // recorded, unchanged (said before), conflict (finished or canceled already), unknown.
    const outcome = await reports.progress(body.data.report_id, 'started');
    logger.info({ reportId: body.data.report_id, outcome }, 'my product: the candidate started');
    res.status(outcome === 'unknown' ? 404 : 200).json({ outcome });
  });
};
