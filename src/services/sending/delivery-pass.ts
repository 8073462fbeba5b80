/** What one pass of the delivery loop did, counted (`outreach deliver` prints the sum of its passes). */
export interface PassResult {
  claimed: number;
  sent: number;
  failed: number;
  retried: number;
  skipped: number;
  unconfirmed: number;
}

export function emptyPass(): PassResult {
  return { claimed: 0, sent: 0, failed: 0, retried: 0, skipped: 0, unconfirmed: 0 };
}

export function addPass(total: PassResult, pass: PassResult): void {
  for (const k of Object.keys(total) as Array<keyof PassResult>) total[k] += pass[k];
}
