/**
 * CSS colours, as the preview's colour transforms need them (docs/decisions/0047-forced-dark-approximation.md):
 * parse the syntaxes emails use (hex, rgb/rgba, hsl/hsla, the named colours, the legacy
 * attribute form of `bgcolor="ffffff"`), convert to HSL and back, and write the result.
 */

export interface Rgba {
  /** 0–255 */
  r: number;
  g: number;
  b: number;
  /** 0–1 */
  a: number;
}

export interface Hsl {
  /** 0–360 */
  h: number;
  /** 0–1 */
  s: number;
  l: number;
}

// The 148 named colours of CSS Color 4, as name:rrggbb.
const NAMED_SOURCE =
  'aliceblue:f0f8ff antiquewhite:faebd7 aqua:00ffff aquamarine:7fffd4 azure:f0ffff beige:f5f5dc ' +
  'bisque:ffe4c4 black:000000 blanchedalmond:ffebcd blue:0000ff blueviolet:8a2be2 brown:a52a2a ' +
  'burlywood:deb887 cadetblue:5f9ea0 chartreuse:7fff00 chocolate:d2691e coral:ff7f50 ' +
  'cornflowerblue:6495ed cornsilk:fff8dc crimson:dc143c cyan:00ffff darkblue:00008b ' +
  'darkcyan:008b8b darkgoldenrod:b8860b darkgray:a9a9a9 darkgreen:006400 darkgrey:a9a9a9 ' +
  'darkkhaki:bdb76b darkmagenta:8b008b darkolivegreen:556b2f darkorange:ff8c00 darkorchid:9932cc ' +
  'darkred:8b0000 darksalmon:e9967a darkseagreen:8fbc8f darkslateblue:483d8b darkslategray:2f4f4f ' +
  'darkslategrey:2f4f4f darkturquoise:00ced1 darkviolet:9400d3 deeppink:ff1493 deepskyblue:00bfff ' +
  'dimgray:696969 dimgrey:696969 dodgerblue:1e90ff firebrick:b22222 floralwhite:fffaf0 ' +
  'forestgreen:228b22 fuchsia:ff00ff gainsboro:dcdcdc ghostwhite:f8f8ff gold:ffd700 ' +
  'goldenrod:daa520 gray:808080 green:008000 greenyellow:adff2f grey:808080 honeydew:f0fff0 ' +
  'hotpink:ff69b4 indianred:cd5c5c indigo:4b0082 ivory:fffff0 khaki:f0e68c lavender:e6e6fa ' +
  'lavenderblush:fff0f5 lawngreen:7cfc00 lemonchiffon:fffacd lightblue:add8e6 lightcoral:f08080 ' +
  'lightcyan:e0ffff lightgoldenrodyellow:fafad2 lightgray:d3d3d3 lightgreen:90ee90 ' +
  'lightgrey:d3d3d3 lightpink:ffb6c1 lightsalmon:ffa07a lightseagreen:20b2aa lightskyblue:87cefa ' +
  'lightslategray:778899 lightslategrey:778899 lightsteelblue:b0c4de lightyellow:ffffe0 ' +
  'lime:00ff00 limegreen:32cd32 linen:faf0e6 magenta:ff00ff maroon:800000 mediumaquamarine:66cdaa ' +
  'mediumblue:0000cd mediumorchid:ba55d3 mediumpurple:9370db mediumseagreen:3cb371 ' +
  'mediumslateblue:7b68ee mediumspringgreen:00fa9a mediumturquoise:48d1cc mediumvioletred:c71585 ' +
  'midnightblue:191970 mintcream:f5fffa mistyrose:ffe4e1 moccasin:ffe4b5 navajowhite:ffdead ' +
  'navy:000080 oldlace:fdf5e6 olive:808000 olivedrab:6b8e23 orange:ffa500 orangered:ff4500 ' +
  'orchid:da70d6 palegoldenrod:eee8aa palegreen:98fb98 paleturquoise:afeeee palevioletred:db7093 ' +
  'papayawhip:ffefd5 peachpuff:ffdab9 peru:cd853f pink:ffc0cb plum:dda0dd powderblue:b0e0e6 ' +
  'purple:800080 rebeccapurple:663399 red:ff0000 rosybrown:bc8f8f royalblue:4169e1 ' +
  'saddlebrown:8b4513 salmon:fa8072 sandybrown:f4a460 seagreen:2e8b57 seashell:fff5ee ' +
  'sienna:a0522d silver:c0c0c0 skyblue:87ceeb slateblue:6a5acd slategray:708090 slategrey:708090 ' +
  'snow:fffafa springgreen:00ff7f steelblue:4682b4 tan:d2b48c teal:008080 thistle:d8bfd8 ' +
  'tomato:ff6347 turquoise:40e0d0 violet:ee82ee wheat:f5deb3 white:ffffff whitesmoke:f5f5f5 ' +
  'yellow:ffff00 yellowgreen:9acd32 ';

let named: Map<string, string> | undefined;
function namedHex(name: string): string | undefined {
  named ??= new Map(
    NAMED_SOURCE.trim()
      .split(' ')
      .map((pair) => pair.split(':') as [string, string]),
  );
  return named.get(name);
}

function fromHex(hex: string): Rgba | null {
  if (!/^[0-9a-f]+$/i.test(hex)) return null;
  const digits = hex.length === 3 || hex.length === 4 ? [...hex].map((d) => d + d).join('') : hex;
  if (digits.length !== 6 && digits.length !== 8) return null;
  const byte = (i: number) => parseInt(digits.slice(i, i + 2), 16);
  return { r: byte(0), g: byte(2), b: byte(4), a: digits.length === 8 ? byte(6) / 255 : 1 };
}

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

/** A number or percentage; `full` is what 100% means (255 for a channel, 1 for alpha). */
function amount(text: string, full: number): number | null {
  const m = /^(-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)(%?)$/i.exec(text);
  if (!m) return null;
  const n = Number(m[1]);
  return m[2] ? (n / 100) * full : n;
}

function hue(text: string): number | null {
  const m = /^(-?(?:\d+\.?\d*|\.\d+))(deg|grad|rad|turn)?$/i.exec(text);
  if (!m) return null;
  const n = Number(m[1]);
  const unit = (m[2] ?? 'deg').toLowerCase();
  const deg =
    unit === 'grad' ? n * 0.9 : unit === 'rad' ? (n * 180) / Math.PI : unit === 'turn' ? n * 360 : n;
  return ((deg % 360) + 360) % 360;
}

/** The arguments of rgb()/hsl() in either syntax: `1, 2, 3, .5` or `1 2 3 / 50%`. */
function args(inner: string): string[] | null {
  const parts = inner.includes(',')
    ? inner.split(',').map((p) => p.trim())
    : inner
        .replace('/', ' / ')
        .trim()
        .split(/\s+/)
        .filter((p) => p !== '/');
  return parts.length === 3 || parts.length === 4 ? parts : null;
}

/** A CSS colour value, or null for anything else (keywords such as currentcolor, var(), …). */
export function parseColor(text: string): Rgba | null {
  const value = text.trim().toLowerCase();
  if (value === 'transparent') return { r: 0, g: 0, b: 0, a: 0 };
  if (value.startsWith('#')) return fromHex(value.slice(1));
  const fn = /^(rgba?|hsla?)\(([^()]*)\)$/.exec(value);
  if (fn) {
    const parts = args(fn[2]!);
    if (!parts) return null;
    const alpha = parts[3] === undefined ? 1 : amount(parts[3], 1);
    if (alpha === null) return null;
    if (fn[1]!.startsWith('rgb')) {
      const [r, g, b] = parts.slice(0, 3).map((p) => amount(p, 255));
      if (r == null || g == null || b == null) return null;
      return {
        r: clamp(Math.round(r), 0, 255),
        g: clamp(Math.round(g), 0, 255),
        b: clamp(Math.round(b), 0, 255),
        a: clamp(alpha, 0, 1),
      };
    }
    const h = hue(parts[0]!);
    const s = amount(parts[1]!.endsWith('%') ? parts[1]! : `${parts[1]}%`, 1);
    const l = amount(parts[2]!.endsWith('%') ? parts[2]! : `${parts[2]}%`, 1);
    if (h === null || s === null || l === null) return null;
    return { ...fromHsl({ h, s: clamp(s, 0, 1), l: clamp(l, 0, 1) }), a: clamp(alpha, 0, 1) };
  }
  const hex = namedHex(value);
  return hex ? fromHex(hex) : null;
}

/**
 * A colour from a presentational attribute (`bgcolor`, `<font color>`, `<body text>`): a name,
 * `#rgb`/`#rrggbb`, or the same digits without the `#`, which browsers also accept.
 */
export function parseLegacyColor(text: string): Rgba | null {
  const value = text.trim().toLowerCase();
  if (!value || value === 'transparent') return null;
  const hex = namedHex(value);
  if (hex) return fromHex(hex);
  const digits = value.startsWith('#') ? value.slice(1) : value;
  return digits.length === 3 || digits.length === 6 ? fromHex(digits) : null;
}

const hex2 = (n: number) => Math.round(n).toString(16).padStart(2, '0');

/** `#rrggbb` when opaque, else `rgba(r, g, b, a)`. */
export function formatColor({ r, g, b, a }: Rgba): string {
  if (a >= 1) return `#${hex2(r)}${hex2(g)}${hex2(b)}`;
  return `rgba(${Math.round(r)}, ${Math.round(g)}, ${Math.round(b)}, ${Number(a.toFixed(3))})`;
}

export function toHsl({ r, g, b }: Rgba): Hsl {
  const [rr, gg, bb] = [r / 255, g / 255, b / 255];
  const max = Math.max(rr, gg, bb);
  const min = Math.min(rr, gg, bb);
  const l = (max + min) / 2;
  const d = max - min;
  if (d === 0) return { h: 0, s: 0, l };
  const s = d / (1 - Math.abs(2 * l - 1));
  const h = max === rr ? ((gg - bb) / d) % 6 : max === gg ? (bb - rr) / d + 2 : (rr - gg) / d + 4;
  return { h: (h * 60 + 360) % 360, s, l };
}

export function fromHsl({ h, s, l }: Hsl): Omit<Rgba, 'a'> {
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const x = c * (1 - Math.abs(((h / 60) % 2) - 1));
  const m = l - c / 2;
  const [r, g, b] =
    h < 60
      ? [c, x, 0]
      : h < 120
        ? [x, c, 0]
        : h < 180
          ? [0, c, x]
          : h < 240
            ? [0, x, c]
            : h < 300
              ? [x, 0, c]
              : [c, 0, x];
  return { r: Math.round((r + m) * 255), g: Math.round((g + m) * 255), b: Math.round((b + m) * 255) };
}
