/**
 * The rules analyst's macro note: deterministic sentences built from the numbers the
 * krw-macro-stress score already holds, the answer of macroNoteTask (macro-note.ts) when no Claude
 * model is configured (responses say `analyst: 'rules'`). It states facts only (levels,
 * percentiles, changes, what was left out) and never gives trading advice.
 */

export interface MacroComponentFacts {
  name: string;
  /** Short name for prose, e.g. 'the US 3-year Treasury yield'. */
  label: string;
  percentile: number | null;
  effectiveWeight: number;
  degraded: boolean;
  degradedReason: string | null;
  /** The component's headline input, formatted with its unit, e.g. '3.92 %' or '5-day return -5.74 %'. */
  headline: string | null;
}

export interface MacroStressFacts {
  score: number;
  regime: string;
  /** Score five calendar rows (trading days) earlier, with the same components; null if unknown. */
  scoreFiveDaysAgo: number | null;
  direction: string;
  usdKrwChange5dPct: number | null;
  components: readonly MacroComponentFacts[];
}

const ordinal = (n: number): string => {
  const r = Math.round(n);
  const tens = r % 100;
  if (tens >= 11 && tens <= 13) return `${r}th`;
  return `${r}${['th', 'st', 'nd', 'rd'][r % 10] ?? 'th'}`;
};

const signed = (value: number, decimals: number): string => `${value > 0 ? '+' : value < 0 ? '-' : ''}${Math.abs(value).toFixed(decimals)}`;

/** A factual note on the KRW macro stress score: level and change, main contributors, USD/KRW, what was left out. */
export function macroStressNote(facts: MacroStressFacts): string {
  const sentences: string[] = [];
  let opening = `KRW macro stress is ${facts.score.toFixed(1)} of 100 (${facts.regime.replace('_', '-')})`;
  if (facts.scoreFiveDaysAgo !== null) {
    const delta = facts.score - facts.scoreFiveDaysAgo;
    opening +=
      Math.abs(delta) < 0.05
        ? ', unchanged from five trading days earlier'
        : `, ${delta > 0 ? 'up' : 'down'} ${Math.abs(delta).toFixed(1)} points from five trading days earlier`;
  }
  sentences.push(`${opening}.`);

  const active = facts.components
    .filter((c) => !c.degraded && c.percentile !== null)
    .map((c) => ({ ...c, contribution: c.effectiveWeight * (c.percentile ?? 0) }))
    .sort((a, b) => b.contribution - a.contribution || a.name.localeCompare(b.name));
  const top = active.slice(0, 2).map((c) => {
    const value = c.headline ? `${c.headline}; ` : '';
    return `${c.label} (${value}${ordinal(c.percentile ?? 0)} percentile of the last 120 trading days)`;
  });
  if (top.length > 0) sentences.push(`The largest contributions come from ${top.join(' and ')}.`);

  if (facts.usdKrwChange5dPct !== null) {
    const move =
      facts.direction === 'krw_weakening'
        ? 'the won weakened'
        : facts.direction === 'strengthening'
          ? 'the won strengthened'
          : 'the won was broadly stable';
    sentences.push(`USD/KRW moved ${signed(facts.usdKrwChange5dPct, 2)} % over five trading days: ${move}.`);
  }

  const left = facts.components.filter((c) => c.degraded);
  if (left.length > 0) {
    const parts = left.map((c) => `${c.label}${c.degradedReason ? ` (${c.degradedReason})` : ''}`);
    sentences.push(`Left out of the score, with the other weights renormalised: ${parts.join('; ')}.`);
  }
  return sentences.join(' ');
}
