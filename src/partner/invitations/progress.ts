/** How far the candidate got in the vendor's product, before the result. Recorded, never sent to the platform. */
export const PROGRESS_STAGES = ['opened', 'started', 'in_review'] as const;
export type ProgressStage = (typeof PROGRESS_STAGES)[number];
