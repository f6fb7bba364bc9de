/**
 * The first-funding chain as SQL pieces, shared by the wallets' funding (funding.ts) and the
 * sellers' operators (operators.ts): from a relation aliased `f` with a `funder` column (a row of
 * wc_first_fund), f<i> is the i-th funder up the chain, x<i> says it is an exchange and, with
 * hubs, h<i> that it is a funding hub (wc_hubs).
 */

export const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

/** The columns f<i>, x<i> (and h<i> with hubs) up to `hops`. */
export function chainColumns(hops: number, hubs: boolean): string {
  return range(hops)
    .map(
      (i) =>
        `${i === 1 ? 'f.funder' : `u${i}.funder`} AS f${i}, e${i}.k IS NOT NULL AS x${i}` +
        (hubs ? `, hb${i}.address IS NOT NULL AS h${i}` : ''),
    )
    .join(',\n         ');
}

/** The joins that walk the chain up from `f.funder` (wc_first_fund per hop, wc_exchanges and wc_hubs flags). */
export function chainJoins(hops: number, hubs: boolean): string {
  return range(hops)
    .map((i) => {
      const funder = i === 1 ? 'f.funder' : `u${i}.funder`;
      const up = i === 1 ? '' : `LEFT JOIN wc_first_fund u${i} ON u${i}.address = ${i === 2 ? 'f.funder' : `u${i - 1}.funder`}\n    `;
      return (
        `${up}LEFT JOIN wc_exchanges e${i} ON e${i}.k = hash(${funder})` +
        (hubs ? `\n    LEFT JOIN wc_hubs hb${i} ON hb${i}.address = ${funder}` : '')
      );
    })
    .join('\n    ');
}

/** The i-th funder is reached: no exchange (and, when `hubsToo`, no hub) below or at it. */
export function cut(i: number, hubsToo: boolean): string {
  return [`f${i} IS NOT NULL`, ...range(i).map((j) => `NOT x${j}`), ...(hubsToo ? range(i).map((j) => `NOT h${j}`) : [])].join(' AND ');
}

/** The chain's funders as hash keys, up to the first exchange (and hub, when `hubsToo`): over chainColumns' columns. */
export function chainKeysSql(hops: number, hubsToo: boolean): string {
  return `list_filter([${range(hops)
    .map((i) => `CASE WHEN ${cut(i, hubsToo)} THEN hash(f${i}) END`)
    .join(', ')}], k -> k IS NOT NULL)`;
}
