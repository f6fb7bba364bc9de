/**
 * What a call costs, in US dollars per million tokens (Anthropic's list prices). The daily budget
 * must never be underestimated: a model missing from the table is priced at the most expensive
 * entry of the table, and the run says so in its usage note.
 */

export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
}

/** List prices (USD per million tokens) of the models this project has been run with. */
export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'claude-haiku-4-5': { inputPerMTok: 1, outputPerMTok: 5 },
  'claude-3-5-haiku': { inputPerMTok: 0.8, outputPerMTok: 4 },
  'claude-sonnet-4-6': { inputPerMTok: 3, outputPerMTok: 15 },
  'claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15 },
  'claude-sonnet-4': { inputPerMTok: 3, outputPerMTok: 15 },
  'claude-opus-4-6': { inputPerMTok: 5, outputPerMTok: 25 },
  'claude-opus-4-5': { inputPerMTok: 5, outputPerMTok: 25 },
  'claude-opus-4-1': { inputPerMTok: 15, outputPerMTok: 75 },
};

/** 'claude-sonnet-4-5-20250929' → 'claude-sonnet-4-5' (dated snapshots cost what their alias costs). */
function alias(model: string): string {
  return model.replace(/-\d{8}$/, '');
}

const DEAREST: ModelPrice = Object.values(MODEL_PRICES).reduce((a, b) => (b.outputPerMTok > a.outputPerMTok ? b : a));

export function priceOf(model: string): { price: ModelPrice; known: boolean } {
  const known = MODEL_PRICES[alias(model)];
  return known ? { price: known, known: true } : { price: DEAREST, known: false };
}

export function costUsd(model: string, inputTokens: number, outputTokens: number): number {
  const { price } = priceOf(model);
  return (inputTokens * price.inputPerMTok + outputTokens * price.outputPerMTok) / 1_000_000;
}
