// HTML character references, as the decoder reads them: `&#NN;`, `&#xHH;`, and the names escapers write for the
// characters of a token.

/** One character reference at the start of a text: its decimal, its hex, or its name. */
export const ENTITY = /^&(?:#(\d{1,7})|#[xX]([0-9A-Fa-f]{1,6})|([A-Za-z]{2,12}));/;

export function entityCodePoint(match: RegExpExecArray): number | undefined {
  const [, decimal, hex, name] = match;
  const cp =
    decimal !== undefined
      ? Number.parseInt(decimal, 10)
      : hex !== undefined
        ? Number.parseInt(hex, 16)
        : NAMED_ENTITIES[name ?? ""];
  return cp !== undefined && cp <= 0x10ffff ? cp : undefined;
}

/** The HTML named character references for printable ASCII, which is what escapers write for a token. */
const NAMED_ENTITIES: Readonly<Record<string, number>> = {
  amp: 0x26,
  AMP: 0x26,
  lt: 0x3c,
  LT: 0x3c,
  gt: 0x3e,
  GT: 0x3e,
  quot: 0x22,
  QUOT: 0x22,
  apos: 0x27,
  excl: 0x21,
  num: 0x23,
  dollar: 0x24,
  percnt: 0x25,
  lpar: 0x28,
  rpar: 0x29,
  ast: 0x2a,
  midast: 0x2a,
  plus: 0x2b,
  comma: 0x2c,
  period: 0x2e,
  sol: 0x2f,
  colon: 0x3a,
  semi: 0x3b,
  equals: 0x3d,
  quest: 0x3f,
  commat: 0x40,
  lsqb: 0x5b,
  lbrack: 0x5b,
  bsol: 0x5c,
  rsqb: 0x5d,
  rbrack: 0x5d,
  Hat: 0x5e,
  lowbar: 0x5f,
  UnderBar: 0x5f,
  grave: 0x60,
  lcub: 0x7b,
  lbrace: 0x7b,
  verbar: 0x7c,
  vert: 0x7c,
  VerticalLine: 0x7c,
  rcub: 0x7d,
  rbrace: 0x7d,
  tilde: 0x7e,
  nbsp: 0xa0,
};
