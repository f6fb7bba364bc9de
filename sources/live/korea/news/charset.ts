/**
 * Feed bytes to text. Older Korean outlets still serve EUC-KR (CP949). The charset comes from the
 * HTTP Content-Type, else the XML declaration's encoding, else UTF-8 (the XML default); a byte
 * order mark overrides both, as XML requires. Node's full ICU decodes EUC-KR with TextDecoder.
 */
import { TextDecoder } from 'node:util';

/** Labels outlets use that the WHATWG Encoding Standard does not know under that name. */
const ALIASES: Record<string, string> = { cp949: 'euc-kr', ms949: 'euc-kr', uhc: 'euc-kr', 'x-windows-949': 'euc-kr' };

export function charsetOfContentType(contentType: string | null): string | null {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return m ? m[1]!.toLowerCase() : null;
}

export function charsetOfXmlDeclaration(bytes: Uint8Array): string | null {
  // The declaration is ASCII in every ASCII-compatible encoding; it must come first.
  const head = Buffer.from(bytes.subarray(0, 256)).toString('latin1');
  const m = /^\s*<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(head);
  return m ? m[1]!.toLowerCase() : null;
}

function bomCharset(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return null;
}

function decoderFor(label: string): TextDecoder | null {
  try {
    return new TextDecoder(ALIASES[label] ?? label);
  } catch {
    return null;
  }
}

export interface DecodedFeed {
  text: string;
  /** The encoding used, e.g. 'utf-8', 'euc-kr'. */
  charset: string;
  /** Set when a declared charset was unknown and UTF-8 was used instead. */
  note: string | null;
}

export function decodeFeedBytes(bytes: Uint8Array, contentType: string | null): DecodedFeed {
  const declared = bomCharset(bytes) ?? charsetOfContentType(contentType) ?? charsetOfXmlDeclaration(bytes) ?? 'utf-8';
  const decoder = decoderFor(declared);
  if (decoder) return { text: decoder.decode(bytes), charset: decoder.encoding, note: null };
  return { text: new TextDecoder('utf-8').decode(bytes), charset: 'utf-8', note: `unknown charset "${declared}", read as UTF-8` };
}
