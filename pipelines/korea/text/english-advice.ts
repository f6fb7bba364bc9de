/**
 * Trading-advice detection in English text: the service states facts and never tells a reader to
 * trade, so a translation or a summary that does is rejected before publication.
 */

/** Trading verbs an advice sentence tells someone to do. */
const TRADE = String.raw`(?:buy(?:ing)?|sell(?:ing)?|short(?:ing)?|accumulat(?:e|ing)|hold(?:ing)?|hodl|dump(?:ing)?|invest(?:ing)? in|enter(?:ing)?|exit(?:ing)?|load(?:ing)? up|go(?:ing)? (?:long|short)|tak(?:e|ing) profits?|add(?:ing)? to (?:your |their )?positions?|get(?:ting)? (?:in|out)|stack(?:ing)?|avoid(?:ing)?)`;

/** Who the advice is addressed to. */
const ADDRESSEE = String.raw`(?:you|investors|traders|holders|buyers|readers|everyone|one|we|retail investors)`;
const MODAL = String.raw`(?:should|must|ought to|need to|have to|had better|may want to|might want to|would do well to|are advised to)`;
/** Adverbs and helper verbs that may sit between the modal and the trade: 'should seriously consider buying'. */
const FILLER = String.raw`(?:(?:probably|definitely|seriously|really|now|also|still|consider|start|keep|continue|think about|look to|be|not|never)\s+){0,3}`;
/** Nouns after buy/sell that make it a fact about the market, not an order to the reader. */
const MARKET_NOUNS = String.raw`(?:orders?|volumes?|walls?|pressure|side|ratings?|trades?|signals? (?:were|was|appeared|flashed)|-?offs?)`;

/** Each pattern names the offending words in its `phrase` group. */
const ADVICE_PATTERNS: readonly RegExp[] = [
  // A modal addressed to investors or the reader, then a trade: "investors should buy", "you may want to consider selling"
  // (not a condition: "investors must hold the token for 30 days to receive the airdrop").
  new RegExp(
    String.raw`\b(?<phrase>${ADDRESSEE}\s+${MODAL}\s+${FILLER}${TRADE})\b(?!-)(?![^.]{0,60}\bto (?:receive|qualify|be eligible|participate|claim|vote|join)\b)`,
    'i',
  ),
  // A question asking whether to trade: "should you buy", "should investors sell"
  new RegExp(String.raw`\b(?<phrase>should\s+${ADDRESSEE}\s+${FILLER}${TRADE})\b(?!-)`, 'i'),
  // A recommendation to trade: "we recommend", "recommends buying", "recommended that investors"
  new RegExp(
    String.raw`\b(?<phrase>(?:we|I)\s+(?:strongly\s+)?recommend\w*|recommend(?:s|ed|ing)?\s+(?:${TRADE}|that\s+${ADDRESSEE}))\b`,
    'i',
  ),
  // "consider" with a trade: "consider buying", "consider taking profits"
  new RegExp(String.raw`\b(?<phrase>consider\s+${TRADE})\b(?!-)`, 'i'),
  // A timing call: "good time to buy", "now is the time to", "time to sell"
  new RegExp(
    String.raw`\b(?<phrase>(?:(?:good|great|right|best|ideal|perfect)\s+(?:time|moment|opportunity|entry(?:\s+point)?)\s+to\s+${TRADE}|now is the time to|(?:it'?s|it is)\s+time to\s+${TRADE}|(?:good|great) buying opportunity|worth buying|buy(?:ing)? the dip|buy now|sell now|strong (?:buy|sell)|(?:buy|sell) signal(?!s? (?:were|was|appeared|flashed)))|don'?t miss (?:out|the)|(?:do not|don'?t) (?:buy|sell|panic sell))\b`,
    'i',
  ),
  // Trading jargon that is always advice: "go long", "go short", "take profit at", "HODL", "load up on"
  /\b(?<phrase>go (?:long|short)|take profits? (?:at|now|here|before|on)|hodl|load up on)\b/i,
  // An imperative trade at the start of a sentence, a line or a quote: "Buy BTC before ...", "- Sell XRP"
  new RegExp(
    String.raw`(?:^|[.!?;:]\s+|\n\s*(?:[-*•]\s*)?|["“]\s*)(?<phrase>(?:buy|sell|accumulate|hold|hodl|dump|avoid|stack|load up on|take profits?|go (?:long|short)|get in|get out)\b(?!-)(?!\s+${MARKET_NOUNS}\b)(?:\s+\S+)?)`,
    'i',
  ),
];

/**
 * The trading advice in an English text, as the offending phrase, or null when there is none.
 * Advice is an instruction to trade, recognised by its grammar rather than by the words buy and
 * sell: a modal addressed to investors or the reader (investors should buy, you may want to
 * sell), a question (should you buy), a recommendation to trade (we recommend, recommends
 * buying), 'consider' with a trade, a timing call (good time to buy, buy the dip), jargon (go
 * long, take profit at, HODL) or an imperative at a sentence's start (Buy BTC now.). Facts about
 * trading are not advice: net selling by foreigners, foreign investors sold, selling pressure,
 * sell orders, buyers returned, a sell-off, a buy rating, exchanges must hold reserves, holders must
 * hold the token 30 days to receive an airdrop (a condition, not advice). Quoted
 * advice is still advice: the service does not publish it even as a quote.
 */
export function englishAdvice(text: string): string | null {
  let first: { index: number; phrase: string } | null = null;
  for (const pattern of ADVICE_PATTERNS) {
    const m = pattern.exec(text);
    if (!m) continue;
    const phrase = m.groups!['phrase']!;
    const index = m.index + m[0].lastIndexOf(phrase);
    if (first === null || index < first.index) first = { index, phrase: phrase.trim() };
  }
  return first?.phrase ?? null;
}
