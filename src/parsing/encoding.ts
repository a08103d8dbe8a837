// Bytes to text the way a careful browser would: a byte-order mark first, then the charset the
// server or the page declares (Content-Type header, <meta charset>, <meta http-equiv>, the XML
// declaration), and without one, UTF-8 when the bytes are UTF-8, else the legacy encoding usual
// for the site's country. Node's TextDecoder (full ICU) knows the WHATWG encodings: windows-1252,
// iso-8859-x, shift_jis, euc-jp, gbk/gb18030, big5, euc-kr, koi8-r, windows-1251, ...
//
// Two declarations are known to lie often, and the bytes overrule them:
// - a legacy charset (a server's default header, a copied template) on bytes that are valid UTF-8
//   with non-ASCII characters: no legacy text forms valid multi-byte UTF-8 at length by chance;
// - UTF-8 on bytes that are mostly not UTF-8 (more broken sequences than valid ones).

const META_SCAN_BYTES = 64 * 1024;

// Node 20's TextDecoder reads windows-1252 (and the labels that mean it: iso-8859-1, latin1,
// us-ascii) as ISO-8859-1, so bytes 0x80-0x9f become invisible control characters instead of
// „ “ ” – — € …; they are mapped here, by the WHATWG index.
const WINDOWS_1252_HIGH = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function decodeAs(encoding: string, bytes: Buffer): string {
  const text = new TextDecoder(encoding).decode(bytes);
  if (encoding !== 'windows-1252') return text;
  return text.replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80]);
}

export function decode(bytes: Buffer, contentType: string, url = ''): string {
  const bom = sniffBom(bytes);
  if (bom) return new TextDecoder(bom).decode(bytes); // the decoder drops the mark itself
  const fromHeader = encodingOf(/charset=["']?([\w.:-]+)/i.exec(contentType)?.[1]);
  // A page cannot declare itself UTF-16 in its own ASCII bytes: the HTML standard reads UTF-8.
  const fromPage = fromHeader ? undefined : utf16AsUtf8(encodingOf(declaredInPage(bytes)));
  const declared = fromHeader ?? fromPage;
  if (declared && declared !== 'utf-8' && !declared.startsWith('utf-16')) {
    return utf8Evidence(bytes) === 'utf-8' ? utf8(bytes) : decodeAs(declared, bytes);
  }
  if (declared?.startsWith('utf-16')) return decodeAs(declared, bytes);
  const evidence = utf8Evidence(bytes);
  if (evidence === 'legacy') return decodeAs(legacyEncodingFor(url), bytes);
  return utf8(bytes);
}

function utf8(bytes: Buffer): string {
  return new TextDecoder('utf-8').decode(bytes);
}

function sniffBom(bytes: Buffer): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** The WHATWG name of an encoding label ("latin1" → "windows-1252"), or undefined if unknown. */
export function encodingOf(label: string | undefined): string | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return undefined;
  }
}

function utf16AsUtf8(encoding: string | undefined): string | undefined {
  return encoding?.startsWith('utf-16') ? 'utf-8' : encoding;
}

/** <meta charset>, <meta http-equiv="Content-Type" content="…; charset=…"> or <?xml encoding>. */
function declaredInPage(bytes: Buffer): string | undefined {
  const head = bytes.subarray(0, META_SCAN_BYTES).toString('latin1');
  for (const meta of head.matchAll(/<meta\b[^>]*>/gi)) {
    const charset = /\bcharset\s*=\s*["']?\s*([\w.:-]+)/i.exec(meta[0])?.[1];
    if (charset && encodingOf(charset)) return charset;
  }
  return /^\s*<\?xml[^>]+encoding\s*=\s*["']([\w.:-]+)/i.exec(head)?.[1];
}

/**
 * What the bytes say: 'utf-8' when they hold valid multi-byte UTF-8 sequences and (almost) no
 * broken ones, 'mostly-utf-8' when valid ones outnumber broken ones three to one (a UTF-8 page
 * with a pasted legacy fragment), 'legacy' otherwise, 'ascii' when no byte is above 0x7f.
 */
export function utf8Evidence(bytes: Buffer): 'utf-8' | 'mostly-utf-8' | 'legacy' | 'ascii' {
  let valid = 0;
  let broken = 0;
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    const length = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    let ok = length > 0 && i + length <= bytes.length;
    for (let k = 1; ok && k < length; k++) ok = (bytes[i + k] & 0xc0) === 0x80;
    if (ok) {
      valid++;
      i += length;
    } else {
      broken++;
      i++;
    }
  }
  if (valid === 0 && broken === 0) return 'ascii';
  if (broken <= Math.max(2, valid * 0.01)) return valid > 0 ? 'utf-8' : 'legacy';
  return valid > broken * 3 ? 'mostly-utf-8' : 'legacy';
}

// The encoding browsers fall back to for an undeclared legacy page, by the site's country.
const LEGACY_BY_TLD: [RegExp, string][] = [
  [/^(jp)$/, 'shift_jis'],
  [/^(cn)$/, 'gbk'],
  [/^(tw|hk|mo)$/, 'big5'],
  [/^(kr)$/, 'euc-kr'],
  [/^(ru|ua|by|bg|rs|mk|kz|kg|tj|mn|su)$/, 'windows-1251'],
  [/^(pl|cz|sk|hu|hr|si|ro|ba|al)$/, 'windows-1250'],
  [/^(gr|cy)$/, 'windows-1253'],
  [/^(tr|az)$/, 'windows-1254'],
  [/^(il)$/, 'windows-1255'],
  [/^(sa|ae|eg|iq|ir|jo|kw|lb|ly|ma|om|qa|sy|tn|ye|dz|bh|sd|pk|af)$/, 'windows-1256'],
  [/^(lt|lv|ee)$/, 'windows-1257'],
  [/^(vn)$/, 'windows-1258'],
  [/^(th)$/, 'windows-874'],
];

export function legacyEncodingFor(url: string): string {
  let tld = '';
  try {
    tld = new URL(url).hostname.split('.').pop() ?? '';
  } catch {
    tld = '';
  }
  return LEGACY_BY_TLD.find(([pattern]) => pattern.test(tld))?.[1] ?? 'windows-1252';
}
