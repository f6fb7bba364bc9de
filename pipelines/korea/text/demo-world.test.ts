/**
 * The text tools over the demo world's own news: every article of every topic the world publishes,
 * over 63 KST days and 3 seeds, with its reference English. The articles come from koreaNews, the
 * demo world's news with the simulated markets its crypto stories read,
 * so a topic added to the news module is tested here without an edit.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { koreaNews } from '../../../sources/demo/korea/world.ts';
import { articlesOfDay, type NewsTone, type NewsTopic } from '../../../sources/demo/korea/news.ts';
import { macroHistory } from '../../../sources/demo/korea/macro.ts';
import { DAY_MS, KST_OFFSET_MS, isoDateOfDay, kstDayIndexOf, msOfDay } from '../../../sources/demo/korea/calendar.ts';
import { checkNumbers } from './korean-numbers.ts';
import { assignTopic, entitiesOf, keywordsOf, kpopRelevance, sentimentOf } from './lexicon.ts';
import { englishAdvice } from './english-advice.ts';

const SEEDS = [1, 42, 20261120] as const;
/** Each koreaWorld shows three KST days of news: 21 worlds per seed. */
const WORLDS_PER_SEED = 21;
const DAYS = WORLDS_PER_SEED * 3;
const LAST_DAY = kstDayIndexOf(Date.parse('2026-11-20T12:00:00Z'));

interface DemoArticle {
  id: string;
  topic: string;
  titleKr: string;
  bodyKr: string;
  titleEn: string;
  bodyEn: string;
  /** The template's tone, where articlesOfDay can tell it without the markets (null for crypto). */
  tone: NewsTone | null;
}

function demoCorpus(): DemoArticle[] {
  const byId = new Map<string, DemoArticle>();
  for (const seed of SEEDS) {
    for (let k = 0; k < WORLDS_PER_SEED; k++) {
      // The last second of a KST day: the world then shows all of that day and the two before.
      const day = LAST_DAY - 3 * k;
      for (const a of koreaNews({ seed, now: new Date(msOfDay(day) + DAY_MS - KST_OFFSET_MS - 1000), scale: 1 })) {
        const id = `${seed}:${a.articleId}`;
        byId.set(id, { id, topic: a.topic, titleKr: a.titleKr, bodyKr: a.bodyKr, titleEn: a.titleEn, bodyEn: a.bodyEn, tone: null });
      }
    }
    const macro = macroHistory(seed, LAST_DAY + 2);
    const topics = new Set([...byId.values()].map((a) => a.topic as NewsTopic));
    for (const topic of topics) {
      for (let day = LAST_DAY - DAYS + 1; day <= LAST_DAY; day++) {
        let articles;
        try {
          articles = articlesOfDay(seed, topic, day, macro);
        } catch {
          break; // This topic's stories need the markets: no tone for it.
        }
        for (const a of articles) {
          const known = byId.get(`${seed}:${a.articleId}`);
          if (known) known.tone = a.tone;
        }
      }
    }
  }
  return [...byId.values()];
}

let ALL: DemoArticle[] = [];
let TOPICS: string[] = [];
beforeAll(() => {
  ALL = demoCorpus();
  TOPICS = [...new Set(ALL.map((a) => a.topic))].sort();
});

const pairsOf = (a: DemoArticle): [string, string, string][] => [
  [`${a.id} title`, a.titleKr, a.titleEn],
  [`${a.id} body`, a.bodyKr, a.bodyEn],
];
/** Up to `n` articles of each topic, so every check sees every topic. */
const perTopic = (n: number): DemoArticle[] => TOPICS.flatMap((t) => ALL.filter((a) => a.topic === t).slice(0, n));

describe('the demo corpus', () => {
  it(`holds every topic the world publishes over ${DAYS} KST days and ${SEEDS.length} seeds`, () => {
    expect(TOPICS).toEqual(expect.arrayContaining(['kpop', 'semiconductor']));
    for (const topic of TOPICS) expect(ALL.filter((a) => a.topic === topic).length, topic).toBeGreaterThan(DAYS * SEEDS.length * 7);
    const dates = new Set(ALL.map((a) => a.id.split('-').at(-2)));
    expect(dates.size).toBe(DAYS);
    expect(dates.has(isoDateOfDay(LAST_DAY).replaceAll('-', ''))).toBe(true);
  });
});

describe('checkNumbers on the demo world', () => {
  it('passes every article of every topic with its reference English', () => {
    const failures: Record<string, string[]> = {};
    const summary: string[] = [];
    for (const topic of TOPICS) {
      const articles = ALL.filter((a) => a.topic === topic);
      let passed = 0;
      for (const a of articles) {
        let ok = true;
        for (const [id, korean, english] of pairsOf(a)) {
          const result = checkNumbers(korean, english);
          if (!result.ok) {
            ok = false;
            (failures[topic] ??= []).push(`${id}: missing ${result.missing.join(', ')}\n  ${korean}\n  ${english}`);
          }
        }
        if (ok) passed++;
      }
      summary.push(`${topic} ${passed}/${articles.length}`);
    }
    console.info(`checkNumbers on the demo world: ${summary.join(', ')}`);
    expect(failures).toEqual({});
  });

  it('checks numbers in most articles of every topic (the pass is not vacuous)', () => {
    for (const topic of TOPICS) {
      const articles = ALL.filter((a) => a.topic === topic);
      const checked = articles.filter((a) => checkNumbers(a.bodyKr, a.bodyEn).checked > 0).length;
      expect(checked / articles.length, topic).toBeGreaterThan(0.5);
    }
  });

  // Every figure of the reference English changed by one must fail: nothing passes by accident.
  // Not a figure glued to letters other than a unit or an ordinal suffix (0x Protocol is a name).
  const FIGURE = /(?<![A-Za-z0-9.,])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\d,]*\.?\d)(?=(?:st|nd|rd|th|bn|mn|tn|nm|[mbk])\b|[^A-Za-z]|$)/g;
  const bump = (figure: string, fraction: string | undefined): string => {
    const value = Number(figure.replaceAll(',', '')) + 1;
    return (figure.includes(',') ? value.toLocaleString('en-US') : String(value)) + (fraction ?? '');
  };

  it('fails every translation with one figure changed', () => {
    const survivors: string[] = [];
    let mutants = 0;
    for (const a of perTopic(1500)) {
      for (const [id, korean, english] of pairsOf(a)) {
        for (const target of new Set([...english.matchAll(FIGURE)].map((m) => m[0]))) {
          const mutated = english.replace(FIGURE, (whole, figure: string, fraction: string | undefined) =>
            whole === target ? bump(figure, fraction) : whole,
          );
          if (mutated === english) continue;
          mutants++;
          if (checkNumbers(korean, mutated).ok) survivors.push(`${id}: ${target}\n  ${korean}\n  ${mutated}`);
        }
      }
    }
    expect(mutants).toBeGreaterThan(3000);
    expect(survivors).toEqual([]);
  });

  it('fails every translation with a scale word, month, quarter or percent sign changed', () => {
    const swaps: [RegExp, string][] = [
      [/\bbillion\b/, 'million'],
      [/\btrillion\b/, 'billion'],
      [/\bmillion\b/, 'billion'],
      [/\bNovember\b/, 'October'],
      [/\bOctober\b/, 'September'],
      [/\b(\d+)(st|nd|rd|th) quarter\b/, 'fifth quarter'],
      [/%/g, ' points'],
    ];
    const survivors: string[] = [];
    let mutants = 0;
    for (const a of ALL) {
      for (const [id, korean, english] of pairsOf(a)) {
        for (const [pattern, replacement] of swaps) {
          if (!english.match(pattern)) continue;
          mutants++;
          const mutated = english.replace(pattern, replacement);
          if (checkNumbers(korean, mutated).ok) survivors.push(`${id}: ${mutated}`);
        }
      }
    }
    expect(mutants).toBeGreaterThan(1000);
    expect(survivors).toEqual([]);
  });

  it('fails every translation with a sentence holding a figure of its own dropped', () => {
    let dropped = 0;
    const survivors: string[] = [];
    for (const a of perTopic(1500)) {
      const sentences = a.bodyEn.split(/(?<=\.)\s+/);
      if (sentences.length < 2) continue;
      const index = sentences.findIndex((s) => /\d/.test(s));
      if (index < 0) continue;
      const rest = sentences.filter((_, i) => i !== index);
      // Only when the dropped sentence has a figure no other sentence repeats.
      const own = (sentences[index]!.match(/\d+(?:[.,:]\d+)*/g) ?? []).filter((n) => !rest.some((s) => s.includes(n)));
      if (own.length === 0) continue;
      dropped++;
      if (checkNumbers(a.bodyKr, rest.join(' ')).ok) survivors.push(`${a.id}: ${rest.join(' ')}`);
    }
    expect(dropped).toBeGreaterThan(1000);
    expect(survivors).toEqual([]);
  });

  it('checks 1000 articles (title and body) in well under a second', () => {
    const sample = perTopic(400).slice(0, 1000);
    expect(sample.length).toBe(1000);
    const started = performance.now();
    for (const a of sample) {
      checkNumbers(a.titleKr, a.titleEn);
      checkNumbers(a.bodyKr, a.bodyEn);
    }
    const elapsed = performance.now() - started;
    console.info(`checkNumbers: 1000 demo articles (2000 checks) in ${elapsed.toFixed(0)} ms`);
    expect(elapsed).toBeLessThan(1000);
  });
});

describe('lexicons on the demo world', () => {
  it("agree with the template's tone on every positive and negative article", () => {
    const toned = ALL.filter((a) => a.tone === 'positive' || a.tone === 'negative');
    expect(toned.length).toBeGreaterThan(3000);
    const wrong = toned.filter((a) => {
      const score = sentimentOf(`${a.titleKr} ${a.bodyKr}`).score;
      return a.tone === 'positive' ? !(score !== null && score > 0) : !(score !== null && score < 0);
    });
    expect(wrong.map((a) => `${a.tone}: ${a.titleKr}`)).toEqual([]);
  });

  it('find English keywords in nearly every article', () => {
    for (const topic of TOPICS) {
      const articles = ALL.filter((a) => a.topic === topic);
      const without = articles.filter((a) => keywordsOf(`${a.titleKr} ${a.bodyKr}`).length === 0);
      expect(without.length / articles.length, topic).toBeLessThan(0.05);
    }
  });

  it('name only entities the reference English names too', () => {
    const missed = new Set<string>();
    for (const a of ALL) {
      const english = `${a.titleEn} ${a.bodyEn}`.toLowerCase();
      for (const e of entitiesOf(`${a.titleKr} ${a.bodyKr}`))
        if (!english.includes(e.en.toLowerCase())) missed.add(`${e.en}: ${a.titleKr} / ${a.titleEn}`);
    }
    expect([...missed]).toEqual([]);
    const kpop = ALL.filter((a) => a.topic === 'kpop');
    expect(kpop.filter((a) => !entitiesOf(`${a.titleKr} ${a.bodyKr}`).some((e) => e.kind === 'kpop')).map((a) => a.titleKr)).toEqual([]);
  });

  it('assign every article its own topic, with the feed hint and without', () => {
    const wrong: string[] = [];
    for (const a of ALL) {
      for (const hint of [a.topic as 'kpop' | 'semiconductor' | 'crypto', null]) {
        const topic = assignTopic(a.titleKr, a.bodyKr, hint);
        if (topic !== a.topic) wrong.push(`${a.topic} (hint ${hint}) → ${topic}: ${a.titleKr}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('rate the K-pop feed high or medium, never low: music news high, business and variety medium', () => {
    const kpop = ALL.filter((a) => a.topic === 'kpop');
    const rated = kpop.map((a) => ({ a, relevance: kpopRelevance(a.titleKr, a.bodyKr) }));
    expect(rated.filter((r) => r.relevance === 'low').map((r) => r.a.titleKr)).toEqual([]);
    for (const { a, relevance } of rated) {
      if (/컴백|월드투어|빌보드|앨범/.test(a.titleKr)) expect(relevance, a.titleKr).toBe('high');
      if (/주가|영업이익|예능|전속계약/.test(a.titleKr)) expect(relevance, a.titleKr).toBe('medium');
    }
    expect(rated.filter((r) => r.relevance === 'high').length).toBeGreaterThan(kpop.length / 2);
  });

  it('run over 1000 articles in well under a second', () => {
    const sample = perTopic(400).slice(0, 1000);
    const started = performance.now();
    for (const a of sample) {
      const text = `${a.titleKr} ${a.bodyKr}`;
      sentimentOf(text);
      keywordsOf(text);
      entitiesOf(text);
      assignTopic(a.titleKr, a.bodyKr, null);
      kpopRelevance(a.titleKr, a.bodyKr);
      englishAdvice(`${a.titleEn}. ${a.bodyEn}`);
    }
    const elapsed = performance.now() - started;
    console.info(`sentiment, keywords, entities, topic, relevance and advice: 1000 demo articles in ${elapsed.toFixed(0)} ms`);
    expect(elapsed).toBeLessThan(1000);
  });

  it('find no trading advice in any reference translation', () => {
    const flagged = ALL.map((a) => ({ id: a.id, advice: englishAdvice(`${a.titleEn}. ${a.bodyEn}`) })).filter((r) => r.advice !== null);
    expect(flagged).toEqual([]);
  });
});
