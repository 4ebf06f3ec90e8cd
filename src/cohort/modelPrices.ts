/**
 * What model tokens cost, for a what-if batch that calls a real model: its price before it starts and each
 * fork's cost after. List prices in US dollars per million tokens of the models people most often record with
 * (OpenAI's published prices); a model not listed has no known price and the batch says so rather than guess.
 * Pure.
 */

export interface ModelPrice {
  /** USD per million input tokens. */
  input: number;
  /** USD per million output tokens. */
  output: number;
}

const PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'o4-mini': { input: 1.1, output: 4.4 },
};

/** The price of `model` (a dated snapshot such as gpt-4o-2024-08-06 is priced as its model), or undefined. */
export function priceOf(model: string | undefined): ModelPrice | undefined {
  if (!model) return undefined;
  const name = model.replace(/^.*\//, '').replace(/-\d{4}-\d{2}-\d{2}$/, '');
  return Object.hasOwn(PRICES, name) ? PRICES[name] : undefined;
}

/** What `tokens` of `model` cost in USD, or undefined when its price is not known. */
export function costOf(model: string | undefined, tokens: { input: number; output: number }): number | undefined {
  const price = priceOf(model);
  if (!price) return undefined;
  return (tokens.input * price.input + tokens.output * price.output) / 1_000_000;
}
