/**
 * Korean news outlets by web host: the Korean and English name of the publisher an article URL
 * points at (Naver search results give only the URL, `originallink`). Unknown hosts are named by
 * the host itself in both languages.
 */

export interface Publisher {
  kr: string;
  en: string;
}

const PUBLISHERS: Record<string, Publisher> = {
  'yna.co.kr': { kr: '연합뉴스', en: 'Yonhap News Agency' },
  'yonhapnewstv.co.kr': { kr: '연합뉴스TV', en: 'Yonhap News TV' },
  'etnews.com': { kr: '전자신문', en: 'Electronic Times News' },
  'thelec.kr': { kr: '디일렉', en: 'The Elec' },
  'kipost.net': { kr: 'KIPOST', en: 'KIPOST' },
  'zdnet.co.kr': { kr: '지디넷코리아', en: 'ZDNet Korea' },
  'hankyung.com': { kr: '한국경제', en: 'The Korea Economic Daily' },
  'mk.co.kr': { kr: '매일경제', en: 'Maeil Business Newspaper' },
  'sedaily.com': { kr: '서울경제', en: 'Seoul Economic Daily' },
  'edaily.co.kr': { kr: '이데일리', en: 'eDaily' },
  'mt.co.kr': { kr: '머니투데이', en: 'Money Today' },
  'starnewskorea.com': { kr: '스타뉴스', en: 'Star News' },
  'news1.kr': { kr: '뉴스1', en: 'News1 Korea' },
  'newsis.com': { kr: '뉴시스', en: 'Newsis' },
  'chosun.com': { kr: '조선일보', en: 'The Chosun Ilbo' },
  'joongang.co.kr': { kr: '중앙일보', en: 'JoongAng Ilbo' },
  'donga.com': { kr: '동아일보', en: 'The Dong-A Ilbo' },
  'hani.co.kr': { kr: '한겨레', en: 'The Hankyoreh' },
  'khan.co.kr': { kr: '경향신문', en: 'The Kyunghyang Shinmun' },
  'heraldcorp.com': { kr: '헤럴드경제', en: 'Herald Corporation' },
  'asiae.co.kr': { kr: '아시아경제', en: 'The Asia Business Daily' },
  'fnnews.com': { kr: '파이낸셜뉴스', en: 'The Financial News' },
  'bloter.net': { kr: '블로터', en: 'Bloter' },
  'aitimes.com': { kr: 'AI타임스', en: 'AI Times' },
  'ytn.co.kr': { kr: 'YTN', en: 'YTN' },
  'kbs.co.kr': { kr: 'KBS', en: 'KBS' },
  'imbc.com': { kr: 'MBC', en: 'MBC' },
  'sbs.co.kr': { kr: 'SBS', en: 'SBS' },
  'mbn.co.kr': { kr: 'MBN', en: 'MBN' },
  'osen.co.kr': { kr: 'OSEN', en: 'OSEN' },
  'xportsnews.com': { kr: '엑스포츠뉴스', en: 'Xports News' },
  'newsen.com': { kr: '뉴스엔', en: 'Newsen' },
  'sportsseoul.com': { kr: '스포츠서울', en: 'Sports Seoul' },
  'dispatch.co.kr': { kr: '디스패치', en: 'Dispatch' },
  'tenasia.co.kr': { kr: '텐아시아', en: 'TenAsia' },
  'blockmedia.co.kr': { kr: '블록미디어', en: 'Blockmedia' },
  'coindeskkorea.com': { kr: '코인데스크코리아', en: 'CoinDesk Korea' },
  'decenter.kr': { kr: '디센터', en: 'Decenter' },
  'tokenpost.kr': { kr: '토큰포스트', en: 'TokenPost' },
  'news.naver.com': { kr: '네이버 뉴스', en: 'Naver News' },
};

/** The outlet names (both languages) that titles carry as a suffix, e.g. "… - 연합뉴스". */
export const PUBLISHER_NAMES: readonly string[] = [...new Set(Object.values(PUBLISHERS).flatMap((p) => [p.kr, p.en]))];

/** The publisher of an article URL: exact host or a parent domain (m.yna.co.kr → yna.co.kr). */
export function publisherOf(url: string): Publisher {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return { kr: url, en: url };
  }
  for (let h = host; h.includes('.'); h = h.slice(h.indexOf('.') + 1)) {
    const known = PUBLISHERS[h];
    if (known) return known;
  }
  return { kr: host, en: host };
}
