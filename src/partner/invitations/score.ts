/**
 * [kit decision] The number a vendor's score reads as, for a platform that takes a number
 * (Greenhouse's `partner_score`, Ashby's `numeric_score`, Bob's score): `80`, `80%`, `4.5`, `-2`
 * → the number; `A+`, `pass`, `3/5`, none → undefined (the platform then gets the text only, where
 * it takes text). The percent sign is dropped: a score of "87%" is 87 on a 0–100 scale.
 */
export function scoreNumber(score: string | null | undefined): number | undefined {
  const match = score === null || score === undefined ? null : /^\s*(-?\d+(?:\.\d+)?)\s*%?\s*$/.exec(score);
  return match ? Number(match[1]) : undefined;
}
