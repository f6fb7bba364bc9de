import { describe, expect, it } from 'vitest';
import { englishAdvice } from './english-advice.ts';

describe('englishAdvice', () => {
  it.each([
    ['Investors should buy bitcoin before the halving.', 'Investors should buy'],
    ['You may want to consider selling your XRP.', 'You may want to consider selling'],
    ['Traders should go short on rallies.', 'Traders should go short'],
    ['investors must not sell now', 'investors must not sell'],
    ['Should you buy Samsung Electronics now?', 'Should you buy'],
    ['We recommend accumulating ETH.', 'We recommend'],
    ['The analyst recommends buying SK hynix.', 'recommends buying'],
    ['Consider buying the dip.', 'Consider buying'],
    ['Now is a good time to buy.', 'good time to buy'],
    ["It's time to take profits.", "It's time to take profits"],
    ['A great buying opportunity has appeared.', 'great buying opportunity'],
    ['Go long on chip stocks.', 'Go long'],
    ['Take profit at 150 million won.', 'Take profit at'],
    ['HODL through the volatility.', 'HODL'],
    ['Buy BTC before the halving.', 'Buy BTC'],
    ['Prices fell. Sell XRP while you can.', 'Sell XRP'],
    ['Outlook:\n- Accumulate SOL below $150', 'Accumulate SOL'],
    ['BUY NOW', 'BUY NOW'],
    ['Load up on HBM suppliers.', 'Load up on'],
  ])('flags %j', (text, phrase) => {
    expect(englishAdvice(text)).toBe(phrase);
  });

  it.each([
    'Net selling by foreigners reached 300 billion won.',
    'Foreign investors sold a net 120 billion won of Samsung Electronics.',
    'Selling pressure mounted after the hack.',
    'Sell orders piled up on Upbit. Buy orders thinned.',
    'A sell-off hit altcoins. Sell-off deepens in KOSDAQ.',
    'Buyers returned in the afternoon.',
    'Short sellers covered their positions.',
    'Investors took profits after the rally.',
    'Samsung Electronics kept a buy rating from most brokers.',
    'Exchanges must hold 80% of customer assets in cold wallets.',
    'Prices should rise as demand for HBM grows.',
    'The deal should close in the third quarter.',
    'The committee recommended approval of the spot ETF.',
    'Add to that the weaker won.',
    'Holders of the token received an airdrop.',
    'Shares of the holding company fell 3%.',
    'Retail investors bought 1.2 trillion won of chip stocks.',
    'Investors must hold the token for 30 days to receive the airdrop.',
    'Watch for a Korean listing of XRP; informational, not financial advice.',
  ])('does not flag the fact %j', (text) => {
    expect(englishAdvice(text)).toBeNull();
  });

  it('flags quoted advice too (the service does not publish it even as a quote)', () => {
    expect(englishAdvice('He said: "Buy the rumour, sell the news."')).toBe('Buy the');
  });

  it('returns the earliest offending phrase', () => {
    expect(englishAdvice('Consider buying now. Investors should sell later.')).toBe('Consider buying');
  });
});
