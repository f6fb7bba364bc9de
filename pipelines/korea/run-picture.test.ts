/**
 * One picture per korea run, on the run's shared demo snapshot (read only): every dataset the run
 * computed names the same inputs in the manifest, and the products agree on what they share (the
 * FX rate, the article set). Fails when two products of one version disagree. Also the rules
 * analyst's deep divergence: its confidence follows its inputs and its action names the token.
 */
import { describe, expect, it } from 'vitest';
import { loadLatest, type LoadedSnapshot } from '../../snapshots/reader.ts';
import { sharedDemo } from '../testing/shared-demo.ts';

type Doc = Record<string, any>;

async function korea(): Promise<LoadedSnapshot> {
  return (await loadLatest((await sharedDemo()).snapshotsDir, 'korea'))!;
}
const doc = (snap: LoadedSnapshot, name: string): Doc => snap.datasets.get(name)!.document as Doc;

describe('one picture per korea run', () => {
  it('every dataset the run computed names the same price snapshot, FX rate and article set', async () => {
    const snap = await korea();
    const made = snap.manifest.datasets.filter((d) => d.produced_in === snap.version);
    expect(made.length).toBe(snap.manifest.datasets.length);
    const pictures = new Set(made.map((d) => JSON.stringify(d.inputs)));
    expect([...pictures]).toHaveLength(1);
    const inputs = made[0]!.inputs!;
    expect(Object.keys(inputs).sort()).toEqual(['articles', 'fx', 'prices']);
    expect(inputs.prices).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, \d+ prices, #[0-9a-f]{12}$/);
    expect(inputs.articles).toMatch(/^\d+ crypto articles published .* #[0-9a-f]{12}$/);
  });

  it('the products agree on the FX rate and the article set', async () => {
    const snap = await korea();
    const inputs = snap.manifest.datasets[0]!.inputs!;
    const rate = Number(inputs.fx!.split(' ')[0]);
    expect(doc(snap, 'fx-rate').rate).toBe(rate);
    expect(doc(snap, 'kimchi-premium').fx_rate).toBe(rate);
    expect(doc(snap, 'stablecoin-premium').fx_rate).toBe(rate);
    expect(doc(snap, 'krw-macro-stress').usdkrw_now.rate).toBe(rate);
    const articles = Number(inputs.articles!.split(' ')[0]);
    expect(articles).toBeGreaterThan(0);
    expect(doc(snap, 'kr-sentiment').inputs.news_articles).toBe(articles);
    const bySymbol = doc(snap, 'divergence').by_symbol as Record<string, Doc>;
    const entries = Object.values(bySymbol);
    expect(entries.length).toBeGreaterThan(20);
    for (const e of entries) {
      expect(e.news_signals.articles_in_window, e.symbol).toBe(articles);
      expect(e.news_signals.article_count, e.symbol).toBeLessThanOrEqual(articles);
      expect(e.fx_rate ?? rate, e.symbol).toBe(rate);
    }
  });

  it("the rules' deep analysis: confidence follows the inputs, and the action names the token", async () => {
    const snap = await korea();
    const entries = Object.values(doc(snap, 'divergence').by_symbol as Record<string, Doc>);
    const confidences = new Set(entries.map((e) => e.analysis.confidence));
    expect(confidences.size).toBeGreaterThan(1);
    const actions = entries.map((e) => e.analysis.action_suggestion as string);
    expect(new Set(actions).size).toBe(actions.length);
    for (const e of entries) {
      if (e.divergence_pct !== null) expect(e.analysis.action_suggestion, e.symbol).toContain(e.symbol);
    }
  });
});
