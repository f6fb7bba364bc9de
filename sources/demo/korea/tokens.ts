/**
 * The demo world's KRW token universe: real tickers with the Korean names the exchanges show.
 * `exchanges` is each token's home listing; the listing calendar (listings.ts) adds and
 * removes listings around it over time, so the table stays meaningful at any date.
 */

/** The exchanges whose market lists, flags and candles the demo keeps (the listing calendar's). */
export type KoreaExchange = 'upbit' | 'bithumb';
export const KOREA_EXCHANGES: readonly KoreaExchange[] = ['upbit', 'bithumb'];

/** Coinone and Korbit: the demo gives their prices only, as the live source does. */
export type KoreaPriceOnlyExchange = 'coinone' | 'korbit';
export const KOREA_PRICE_ONLY_EXCHANGES: readonly KoreaPriceOnlyExchange[] = ['coinone', 'korbit'];
export type KoreaPriceExchange = KoreaExchange | KoreaPriceOnlyExchange;

/**
 * Whether a price-only exchange quotes a token listed on Upbit or Bithumb: Coinone the 90 most
 * traded and the core tokens, Korbit the 45 most traded and the core tokens (both list fewer
 * markets than Upbit and Bithumb).
 */
export function pricedOn(exchange: KoreaPriceOnlyExchange, token: KoreaToken): boolean {
  return token.core || token.popularity < (exchange === 'coinone' ? 90 : 45);
}

export type GlobalVenue = 'binance' | 'okx';

export interface KoreaToken {
  symbol: string;
  koreanName: string;
  englishName: string;
  /** Rough USD price level the simulated price wanders around. */
  priceUsd: number;
  /** Home listing: where the token trades unless a listing event says otherwise. */
  exchanges: readonly KoreaExchange[];
  /** Where a global USD(T) reference price exists; null for Korean-only tokens. */
  globalVenue: GlobalVenue | null;
  /** Index in the table = rank by Korean trading interest (0 = most traded). */
  popularity: number;
  /** Majors and stablecoins: never delisted, never warned by the calendars. */
  core: boolean;
  stablecoin: boolean;
}

import { DIVERGENCE_SYMBOLS } from '../../../catalog/symbols.ts';
export { DIVERGENCE_SYMBOLS, type DivergenceSymbol } from '../../../catalog/symbols.ts';

type Home = 'UB' | 'U' | 'B' | '-';
type Venue = 'binance' | 'okx' | '-';
type TokenLine = readonly [symbol: string, korean: string, english: string, usd: number, home: Home, venue: Venue];

// Ordered by Korean trading interest. '-' home = not listed in Korea yet: a candidate for new listings.
const TOKEN_LINES: readonly TokenLine[] = [
  ['BTC', '비트코인', 'Bitcoin', 65000, 'UB', 'binance'],
  ['XRP', '리플', 'XRP', 2.2, 'UB', 'binance'],
  ['ETH', '이더리움', 'Ethereum', 2500, 'UB', 'binance'],
  ['USDT', '테더', 'Tether', 1, 'UB', '-'],
  ['SOL', '솔라나', 'Solana', 150, 'UB', 'binance'],
  ['DOGE', '도지코인', 'Dogecoin', 0.18, 'UB', 'binance'],
  ['ADA', '에이다', 'Cardano', 0.6, 'UB', 'binance'],
  ['SUI', '수이', 'Sui', 3.2, 'UB', 'binance'],
  ['TRX', '트론', 'TRON', 0.28, 'UB', 'binance'],
  ['LINK', '체인링크', 'Chainlink', 15, 'UB', 'binance'],
  ['USDC', '유에스디코인', 'USD Coin', 1, 'U', 'binance'],
  ['HBAR', '헤데라', 'Hedera', 0.2, 'UB', 'binance'],
  ['AVAX', '아발란체', 'Avalanche', 22, 'UB', 'binance'],
  ['SHIB', '시바이누', 'Shiba Inu', 0.000013, 'UB', 'binance'],
  ['BCH', '비트코인캐시', 'Bitcoin Cash', 450, 'UB', 'binance'],
  ['ETC', '이더리움클래식', 'Ethereum Classic', 19, 'UB', 'binance'],
  ['DOT', '폴카닷', 'Polkadot', 4, 'UB', 'binance'],
  ['LTC', '라이트코인', 'Litecoin', 90, 'UB', 'binance'],
  ['NEAR', '니어프로토콜', 'NEAR Protocol', 2.8, 'UB', 'binance'],
  ['ONDO', '온도파이낸스', 'Ondo Finance', 0.9, 'UB', 'binance'],
  ['ENA', '에테나', 'Ethena', 0.45, 'UB', 'binance'],
  ['UNI', '유니스왑', 'Uniswap', 8, 'UB', 'binance'],
  ['APT', '앱토스', 'Aptos', 5, 'UB', 'binance'],
  ['XLM', '스텔라루멘', 'Stellar', 0.32, 'UB', 'binance'],
  ['PEPE', '페페', 'Pepe', 0.00001, 'UB', 'binance'],
  ['TRUMP', '오피셜트럼프', 'Official Trump', 9, 'UB', 'binance'],
  ['ATOM', '코스모스', 'Cosmos', 4.5, 'UB', 'binance'],
  ['ARB', '아비트럼', 'Arbitrum', 0.4, 'UB', 'binance'],
  ['OP', '옵티미즘', 'Optimism', 0.75, 'UB', 'binance'],
  ['WLD', '월드코인', 'Worldcoin', 1.1, 'UB', 'binance'],
  ['SEI', '세이', 'Sei', 0.28, 'UB', 'binance'],
  ['AAVE', '에이브', 'Aave', 260, 'UB', 'binance'],
  ['ALGO', '알고랜드', 'Algorand', 0.22, 'UB', 'binance'],
  ['MATIC', '폴리곤', 'Polygon', 0.4, 'UB', 'binance'],
  ['FTM', '팬텀', 'Fantom', 0.55, 'UB', 'binance'],
  ['BONK', '봉크', 'Bonk', 0.00002, 'UB', 'binance'],
  ['EOS', '이오스', 'EOS', 0.6, 'UB', 'binance'],
  ['TIA', '셀레스티아', 'Celestia', 2.5, 'UB', 'binance'],
  ['INJ', '인젝티브', 'Injective', 11, 'UB', 'binance'],
  ['STX', '스택스', 'Stacks', 0.75, 'UB', 'binance'],
  ['IMX', '이뮤터블엑스', 'Immutable', 0.55, 'UB', 'binance'],
  ['SAND', '샌드박스', 'The Sandbox', 0.3, 'UB', 'binance'],
  ['MANA', '디센트럴랜드', 'Decentraland', 0.3, 'UB', 'binance'],
  ['AXS', '엑시인피니티', 'Axie Infinity', 2.6, 'UB', 'binance'],
  ['ENS', '이더리움네임서비스', 'Ethereum Name Service', 21, 'UB', 'binance'],
  ['GRT', '더그래프', 'The Graph', 0.11, 'UB', 'binance'],
  ['CHZ', '칠리즈', 'Chiliz', 0.045, 'UB', 'binance'],
  ['VET', '비체인', 'VeChain', 0.026, 'UB', 'binance'],
  ['THETA', '쎄타토큰', 'Theta Token', 0.9, 'UB', 'binance'],
  ['XTZ', '테조스', 'Tezos', 0.7, 'UB', 'binance'],
  ['EGLD', '멀티버스엑스', 'MultiversX', 18, 'UB', 'binance'],
  ['FLOW', '플로우', 'Flow', 0.45, 'UB', 'binance'],
  ['ICX', '아이콘', 'ICON', 0.12, 'UB', 'binance'],
  ['ONT', '온톨로지', 'Ontology', 0.2, 'UB', 'binance'],
  ['ZIL', '질리카', 'Zilliqa', 0.013, 'UB', 'binance'],
  ['QTUM', '퀀텀', 'Qtum', 2.4, 'UB', 'binance'],
  ['NEO', '네오', 'NEO', 6, 'UB', 'binance'],
  ['IOST', '아이오에스티', 'IOST', 0.004, 'UB', 'binance'],
  ['ANKR', '앵커', 'Ankr', 0.02, 'UB', 'binance'],
  ['STORJ', '스토리지', 'Storj', 0.3, 'UB', 'binance'],
  ['SC', '시아코인', 'Siacoin', 0.004, 'UB', 'binance'],
  ['BAT', '베이직어텐션토큰', 'Basic Attention Token', 0.15, 'UB', 'binance'],
  ['ZRX', '제로엑스', '0x Protocol', 0.25, 'UB', 'binance'],
  ['KNC', '카이버네트워크', 'Kyber Network', 0.35, 'UB', 'binance'],
  ['STEEM', '스팀', 'Steem', 0.15, 'UB', 'binance'],
  ['IOTA', '아이오타', 'IOTA', 0.2, 'UB', 'binance'],
  ['XEC', '이캐시', 'eCash', 0.00002, 'UB', 'binance'],
  ['GLM', '골렘', 'Golem', 0.26, 'UB', 'binance'],
  ['ELF', '엘프', 'aelf', 0.3, 'UB', 'binance'],
  ['T', '쓰레스홀드', 'Threshold', 0.016, 'UB', 'binance'],
  ['GMT', '스테픈', 'STEPN', 0.06, 'UB', 'binance'],
  ['JST', '저스트', 'JUST', 0.032, 'UB', 'binance'],
  ['ASTR', '아스타', 'Astar', 0.03, 'UB', 'binance'],
  ['BLUR', '블러', 'Blur', 0.1, 'UB', 'binance'],
  ['SSV', '에스에스브이네트워크', 'ssv.network', 8, 'UB', 'binance'],
  ['ID', '스페이스아이디', 'SPACE ID', 0.2, 'UB', 'binance'],
  ['MASK', '마스크네트워크', 'Mask Network', 1.2, 'UB', 'binance'],
  ['PYTH', '피스네트워크', 'Pyth Network', 0.14, 'UB', 'binance'],
  ['JUP', '주피터', 'Jupiter', 0.5, 'UB', 'binance'],
  ['ZRO', '레이어제로', 'LayerZero', 2.4, 'UB', 'binance'],
  ['ZK', '지케이싱크', 'ZKsync', 0.06, 'UB', 'binance'],
  ['W', '웜홀', 'Wormhole', 0.09, 'UB', 'binance'],
  ['ETHFI', '이더파이', 'ether.fi', 1.1, 'UB', 'binance'],
  ['STRK', '스타크넷', 'Starknet', 0.14, 'UB', 'binance'],
  ['BIGTIME', '빅타임', 'Big Time', 0.06, 'UB', 'binance'],
  ['MINA', '미나', 'Mina', 0.3, 'UB', 'binance'],
  ['ALT', '알트레이어', 'AltLayer', 0.03, 'UB', 'binance'],
  ['AKT', '아카시네트워크', 'Akash Network', 1.5, 'UB', 'binance'],
  ['ARKM', '아캄', 'Arkham', 0.5, 'UB', 'binance'],
  ['CELO', '셀로', 'Celo', 0.4, 'UB', 'binance'],
  ['COMP', '컴파운드', 'Compound', 45, 'UB', 'binance'],
  ['CRV', '커브', 'Curve DAO Token', 0.7, 'UB', 'binance'],
  ['G', '그래비티', 'Gravity', 0.012, 'UB', 'binance'],
  ['KAVA', '카바', 'Kava', 0.4, 'UB', 'binance'],
  ['KAIA', '카이아', 'Kaia', 0.13, 'UB', 'binance'],
  ['MOVE', '무브먼트', 'Movement', 0.15, 'UB', 'binance'],
  ['PENDLE', '펜들', 'Pendle', 4, 'UB', 'binance'],
  ['PENGU', '펏지펭귄', 'Pudgy Penguins', 0.02, 'UB', 'binance'],
  ['RENDER', '렌더토큰', 'Render', 4, 'UB', 'binance'],
  ['RVN', '레이븐코인', 'Ravencoin', 0.015, 'UB', 'binance'],
  ['STG', '스타게이트파이낸스', 'Stargate Finance', 0.3, 'UB', 'binance'],
  ['VANA', '바나', 'Vana', 6, 'UB', 'binance'],
  ['VIRTUAL', '버추얼프로토콜', 'Virtuals Protocol', 1.4, 'UB', 'binance'],
  ['1INCH', '1인치네트워크', '1inch', 0.25, 'UB', 'binance'],
  ['API3', '에이피아이쓰리', 'API3', 1, 'UB', 'binance'],
  ['AUCTION', '바운스토큰', 'Bounce Token', 10, 'UB', 'binance'],
  ['CKB', '너보스', 'Nervos Network', 0.006, 'UB', 'binance'],
  ['GLMR', '문빔', 'Moonbeam', 0.09, 'UB', 'binance'],
  ['JASMY', '재스미코인', 'JasmyCoin', 0.016, 'UB', 'binance'],
  ['LPT', '라이브피어', 'Livepeer', 6, 'UB', 'binance'],
  ['OM', '만트라', 'MANTRA', 0.3, 'UB', 'binance'],
  ['POLYX', '폴리매쉬', 'Polymesh', 0.2, 'UB', 'binance'],
  ['PUNDIX', '펀디엑스', 'Pundi X', 0.3, 'UB', 'binance'],
  ['SNX', '신세틱스', 'Synthetix', 0.8, 'UB', 'binance'],
  ['AXL', '엑셀라', 'Axelar', 0.35, 'UB', 'binance'],
  ['YGG', '일드길드게임즈', 'Yield Guild Games', 0.15, 'UB', 'binance'],
  ['BERA', '베라체인', 'Berachain', 2.2, 'UB', 'binance'],
  ['IP', '스토리', 'Story', 5, 'UB', 'binance'],
  ['S', '소닉', 'Sonic', 0.5, 'UB', 'binance'],
  ['RAY', '레이디움', 'Raydium', 2.5, 'UB', 'binance'],
  ['CARV', '카브', 'CARV', 0.3, 'UB', 'binance'],
  ['MOCA', '모카네트워크', 'Moca Network', 0.08, 'UB', 'binance'],
  ['HOOK', '훅트', 'Hooked Protocol', 0.2, 'UB', 'binance'],
  ['AGLD', '어드벤처골드', 'Adventure Gold', 0.8, 'UB', 'binance'],
  ['AUDIO', '오디우스', 'Audius', 0.1, 'UB', 'binance'],
  ['BAND', '밴드프로토콜', 'Band Protocol', 0.7, 'UB', 'binance'],
  ['CELR', '셀러네트워크', 'Celer Network', 0.008, 'UB', 'binance'],
  ['COTI', '코티', 'COTI', 0.06, 'UB', 'binance'],
  ['CTSI', '카르테시', 'Cartesi', 0.08, 'UB', 'binance'],
  ['DYDX', '디와이디엑스', 'dYdX', 0.6, 'UB', 'binance'],
  ['FET', '페치', 'Fetch.ai', 0.7, 'UB', 'binance'],
  ['FIL', '파일코인', 'Filecoin', 2.5, 'UB', 'binance'],
  ['FLOKI', '플로키', 'FLOKI', 0.00008, 'UB', 'binance'],
  ['GMX', '지엠엑스', 'GMX', 15, 'UB', 'binance'],
  ['HIGH', '하이스트리트', 'Highstreet', 0.4, 'UB', 'binance'],
  ['ICP', '인터넷컴퓨터', 'Internet Computer', 5, 'UB', 'binance'],
  ['LDO', '리도다오', 'Lido DAO', 1, 'UB', 'binance'],
  ['LRC', '루프링', 'Loopring', 0.1, 'UB', 'binance'],
  ['MAGIC', '매직', 'Magic', 0.15, 'UB', 'binance'],
  ['OGN', '오리진프로토콜', 'Origin Protocol', 0.06, 'UB', 'binance'],
  ['PEOPLE', '피플', 'ConstitutionDAO', 0.02, 'UB', 'binance'],
  ['RSR', '리저브라이트', 'Reserve Rights', 0.008, 'UB', 'binance'],
  ['SKL', '스케일', 'SKALE', 0.02, 'UB', 'binance'],
  ['XVS', '비너스', 'Venus', 5, 'UB', 'binance'],
  ['YFI', '연파이낸스', 'yearn.finance', 5500, 'UB', 'binance'],
  ['ZEN', '호라이즌', 'Horizen', 10, 'UB', 'binance'],
  ['CYBER', '사이버', 'Cyber', 1.2, 'UB', 'binance'],
  ['CAKE', '팬케이크스왑', 'PancakeSwap', 2.3, 'UB', 'binance'],
  ['ENJ', '엔진코인', 'Enjin Coin', 0.08, 'UB', 'binance'],
  ['OMNI', '옴니네트워크', 'Omni Network', 2.5, 'UB', 'binance'],
  ['TFUEL', '쎄타퓨엘', 'Theta Fuel', 0.05, 'UB', 'binance'],
  ['ZETA', '제타체인', 'ZetaChain', 0.3, 'UB', 'binance'],
  ['ORCA', '오르카', 'Orca', 2, 'UB', 'binance'],
  ['AERGO', '아르고', 'Aergo', 0.1, 'UB', 'binance'],
  ['MNT', '맨틀', 'Mantle', 0.8, 'UB', 'okx'],
  ['BSV', '비트코인에스브이', 'Bitcoin SV', 40, 'UB', 'okx'],
  ['CSPR', '캐스퍼', 'Casper', 0.01, 'UB', 'okx'],
  ['BORA', '보라', 'BORA', 0.08, 'UB', 'okx'],
  ['CTC', '크레딧코인', 'Creditcoin', 0.5, 'UB', 'okx'],
  ['MED', '메디블록', 'MediBloc', 0.007, 'UB', '-'],
  ['MBL', '무비블록', 'MovieBloc', 0.002, 'UB', '-'],
  ['META', '메타디움', 'Metadium', 0.02, 'UB', '-'],
  ['MVL', '엠블', 'MVL', 0.003, 'UB', '-'],
  // Upbit only.
  ['DEEP', '딥북', 'DeepBook', 0.15, 'U', 'binance'],
  ['WAL', '월러스', 'Walrus', 0.4, 'U', 'binance'],
  ['ME', '매직에덴', 'Magic Eden', 1, 'U', 'binance'],
  ['LAYER', '솔레이어', 'Solayer', 0.8, 'U', 'binance'],
  ['KAITO', '카이토', 'KAITO', 1.1, 'U', 'binance'],
  ['ANIME', '애니메코인', 'Animecoin', 0.02, 'U', 'binance'],
  ['SOPH', '소폰', 'Sophon', 0.05, 'U', 'binance'],
  ['MEW', '캣인어독스월드', 'cat in a dogs world', 0.003, 'U', 'binance'],
  ['VTHO', '비토르토큰', 'VeThor Token', 0.002, 'U', 'binance'],
  ['ATH', '에이셔', 'Aethir', 0.04, 'U', 'okx'],
  ['UXLINK', '유엑스링크', 'UXLINK', 0.3, 'U', 'okx'],
  ['HUNT', '헌트', 'Hunt', 0.25, 'U', '-'],
  ['AQT', '알파쿼크', 'Alpha Quark Token', 0.8, 'U', '-'],
  ['SBD', '스팀달러', 'Steem Dollars', 1, 'U', '-'],
  ['GRS', '그로스톨코인', 'Groestlcoin', 0.3, 'U', 'okx'],
  ['TT', '썬더코어', 'ThunderCore', 0.003, 'U', 'okx'],
  ['TOKAMAK', '토카막네트워크', 'Tokamak Network', 1.2, 'U', '-'],
  // Bithumb only.
  ['SUSHI', '스시스왑', 'SushiSwap', 0.7, 'B', 'binance'],
  ['UMA', '우마', 'UMA', 2, 'B', 'binance'],
  ['ACH', '알케미페이', 'Alchemy Pay', 0.02, 'B', 'binance'],
  ['JTO', '지토', 'Jito', 2, 'B', 'binance'],
  ['MKR', '메이커', 'Maker', 1500, 'B', 'binance'],
  ['WIF', '도그위프햇', 'dogwifhat', 0.8, 'B', 'binance'],
  ['FLR', '플레어', 'Flare', 0.02, 'B', 'okx'],
  ['NOT', '낫코인', 'Notcoin', 0.003, 'B', 'binance'],
  ['QNT', '퀀트', 'Quant', 90, 'B', 'binance'],
  ['RUNE', '토르체인', 'THORChain', 1.5, 'B', 'binance'],
  ['CFX', '콘플럭스', 'Conflux', 0.08, 'B', 'binance'],
  ['ROSE', '오아시스네트워크', 'Oasis Network', 0.03, 'B', 'binance'],
  ['KSM', '쿠사마', 'Kusama', 18, 'B', 'binance'],
  ['GALA', '갈라', 'Gala', 0.015, 'B', 'binance'],
  ['APE', '에이프코인', 'ApeCoin', 0.6, 'B', 'binance'],
  ['ALICE', '마이네이버앨리스', 'My Neighbor Alice', 0.5, 'B', 'binance'],
  ['C98', '코인98', 'Coin98', 0.06, 'B', 'binance'],
  ['FXS', '프랙스쉐어', 'Frax Share', 2, 'B', 'binance'],
  ['LQTY', '리퀴티', 'Liquity', 1, 'B', 'binance'],
  ['TRB', '텔러', 'Tellor', 40, 'B', 'binance'],
  ['WEMIX', '위믹스', 'WEMIX', 0.7, 'B', 'okx'],
  ['BFC', '바이프로스트', 'Bifrost', 0.04, 'B', '-'],
  ['FNCY', '핀시', 'FNCY', 0.005, 'B', '-'],
  ['CRTS', '크라토스', 'Cratos', 0.0003, 'B', '-'],
  ['EL', '엘리시아', 'ELYSIA', 0.004, 'B', '-'],
  ['NPT', '네오핀', 'Neopin', 0.05, 'B', '-'],
  ['BOA', '보아', 'BOSagora', 0.02, 'B', '-'],
  // Not listed in Korea at home: candidates for new listings.
  ['BNB', '비앤비', 'BNB', 650, '-', 'binance'],
  ['TAO', '비트텐서', 'Bittensor', 400, '-', 'binance'],
  ['TON', '톤코인', 'Toncoin', 3, '-', 'binance'],
  ['HYPE', '하이퍼리퀴드', 'Hyperliquid', 30, '-', 'okx'],
  ['INIT', '이니시아', 'Initia', 0.6, '-', 'binance'],
  ['KMNO', '카미노', 'Kamino', 0.06, '-', 'binance'],
  ['NIL', '닐리언', 'Nillion', 0.3, '-', 'binance'],
  ['RED', '레드스톤', 'RedStone', 0.4, '-', 'binance'],
  ['SYRUP', '메이플파이낸스', 'Maple Finance', 0.4, '-', 'binance'],
  ['SAHARA', '사하라에이아이', 'Sahara AI', 0.08, '-', 'binance'],
  ['LINEA', '리네아', 'Linea', 0.03, '-', 'binance'],
  ['PLUME', '플룸', 'Plume', 0.1, '-', 'binance'],
  ['WCT', '월렛커넥트', 'WalletConnect Token', 0.3, '-', 'binance'],
];

const CORE_SYMBOLS: ReadonlySet<string> = new Set<string>([
  ...DIVERGENCE_SYMBOLS,
  'USDT',
  'USDC',
  'XLM',
  'TRUMP',
  'PEPE',
  'ONDO',
  'ENA',
  'WLD',
  'SEI',
  'AAVE',
  'BONK',
]);

const STABLECOINS: ReadonlySet<string> = new Set(['USDT', 'USDC']);

function homeExchanges(home: Home): readonly KoreaExchange[] {
  if (home === 'UB') return ['upbit', 'bithumb'];
  if (home === 'U') return ['upbit'];
  if (home === 'B') return ['bithumb'];
  return [];
}

export const KOREA_TOKENS: readonly KoreaToken[] = TOKEN_LINES.map(
  ([symbol, koreanName, englishName, priceUsd, home, venue], popularity) => ({
    symbol,
    koreanName,
    englishName,
    priceUsd,
    exchanges: homeExchanges(home),
    globalVenue: venue === '-' ? null : venue,
    popularity,
    core: CORE_SYMBOLS.has(symbol),
    stablecoin: STABLECOINS.has(symbol),
  }),
);

export const KOREA_TOKEN_BY_SYMBOL: ReadonlyMap<string, KoreaToken> = new Map(KOREA_TOKENS.map((token) => [token.symbol, token]));

export function isHomeListed(token: KoreaToken, exchange: KoreaExchange): boolean {
  return token.exchanges.includes(exchange);
}
