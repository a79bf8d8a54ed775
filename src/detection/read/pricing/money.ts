/**
 * Price strings: "$49/mo", "€1.299,00 per year", "2 999,00 Kč", "CHF 1'049,95", "$0.0004 per request" → amount,
 * currency and billing period. A misread price becomes a false "price cut", so the rule is: an exact amount or none.
 *
 * - Numbers are read in every grouping real pages use (comma, dot, space, no-break space, apostrophe) with a decimal
 *   point or comma, and kept exact: as many decimals as the page shows (34.992001, 0.0004), no rounding.
 * - A number whose reading depends on a locale it does not show is not read: "1.299" with one dot and three digits is
 *   a thousand in Europe and 1.299 elsewhere (read as a thousand unless the integer part is 0 or the currency has three
 *   decimals, the only places three decimals are usual), "1 2345", "1,2.3" and the like are no price at all.
 * - A string with several amounts gives the one it states as the price: a converted amount in brackets, a "was"/"statt"
 *   price before the current one and a "from" floor are understood; a range ("$10–$20") gives no one price (statedPrices
 *   reads both its ends).
 * - Currencies: ISO 4217 codes on either side (the code list is the `currency-codes` package's), symbols and the local
 *   abbreviations shop and SaaS pages write (Kč, zł, руб, lei, Rp, Ft, Fr., US$, R$, kr…).
 */
import * as currencyCodes from "currency-codes";
import type { BillingPeriod } from "../../types.js";
import { collapse } from "../../parse/html.js";

// ---------------------------------------------------------------------------------------------------------------
// Currencies

/**
 * Written forms → ISO code (null: a currency, but which one the form does not say: "kr" is SEK, NOK, DKK or ISK).
 * Matched case-sensitively, except the forms in CASELESS.
 */
const CURRENCY_FORMS: [string, string | null][] = [
  ["US$", "USD"],
  ["USD$", "USD"],
  ["AU$", "AUD"],
  ["A$", "AUD"],
  ["CA$", "CAD"],
  ["CAN$", "CAD"],
  ["C$", "CAD"],
  ["NZ$", "NZD"],
  ["MX$", "MXN"],
  ["HK$", "HKD"],
  ["NT$", "TWD"],
  ["S$", "SGD"],
  ["R$", "BRL"],
  ["$", "USD"],
  ["€", "EUR"],
  ["£", "GBP"],
  ["₤", "GBP"],
  ["¥", "JPY"],
  ["￥", "JPY"],
  ["৳", "BDT"],
  ["₲", "PYG"],
  ["₡", "CRC"],
  ["₭", "LAK"],
  ["₮", "MNT"],
  ["₾", "GEL"],
  ["₼", "AZN"],
  ["֏", "AMD"],
  ["₵", "GHS"],
  ["円", "JPY"],
  ["元", "CNY"],
  ["₹", "INR"],
  ["Rs.", "INR"],
  ["Rs", "INR"],
  ["₩", "KRW"],
  ["원", "KRW"],
  ["₺", "TRY"],
  ["TL", "TRY"],
  ["₪", "ILS"],
  ["₱", "PHP"],
  ["₫", "VND"],
  ["₴", "UAH"],
  ["грн", "UAH"],
  ["₽", "RUB"],
  ["руб.", "RUB"],
  ["руб", "RUB"],
  ["р.", "RUB"],
  // Cyrillic Er, as shops write the rouble sign where the font lacks ₽.
  ["Р", "RUB"],
  ["р", "RUB"],
  ["₸", "KZT"],
  ["₦", "NGN"],
  ["฿", "THB"],
  ["zł", "PLN"],
  ["zl", "PLN"],
  ["Kč", "CZK"],
  ["Ft", "HUF"],
  ["lei", "RON"],
  ["Lei", "RON"],
  ["LEI", "RON"],
  ["Rp.", "IDR"],
  ["Rp", "IDR"],
  ["RM", "MYR"],
  ["лв", "BGN"],
  ["SFr.", "CHF"],
  ["Fr.", "CHF"],
  ["KD", "KWD"],
  ["рублей", "RUB"],
  ["рубля", "RUB"],
  ["euro", "EUR"],
  ["euros", "EUR"],
  ["Rupiah", "IDR"],
  ["rupiah", "IDR"],
  ["rupees", "INR"],
  ["Rupees", "INR"],
  ["yen", "JPY"],
  ["ringgit", "MYR"],
  ["baht", "THB"],
  // Written in words after the amount ("1 compute credit can be bought for 1 US dollar").
  ["US dollars", "USD"],
  ["US dollar", "USD"],
  ["dollars", "USD"],
  ["dollar", "USD"],
  ["Euro", "EUR"],
  ["Zł", "PLN"],
  ["đ", "VND"],
  ["Lek", "ALL"],
  ["kn", "HRK"],
  ["ден", "MKD"],
  ["ლ", "GEL"],
  ["BZ$", "BZD"],
  ["RD$", "DOP"],
  ["J$", "JMD"],
  ["TT$", "TTD"],
  ["GH₵", "GHS"],
  ["S/.", "PEN"],
  ["B/.", "PAB"],
  ["KSh", "KES"],
  ["TSh", "TZS"],
  ["USh", "UGX"],
  ["Fdj", "DJF"],
  ["FBu", "BIF"],
  ["E£", "EGP"],
  ["جنيه", "EGP"],
  ["บาท", "THB"],
  ["yen", "JPY"],
  ["Dinara", "RSD"],
  // Arabic abbreviations, written after the amount ("99 ر.س / شهر").
  ["ر.س", "SAR"],
  ["د.إ", "AED"],
  ["ج.م", "EGP"],
  ["د.ك", "KWD"],
  ["ر.ق", "QAR"],
  ["د.ب", "BHD"],
  ["ر.ع", "OMR"],
  ["د.م", "MAD"],
  // Currencies whose form names several: the amount is read, the currency stays unknown.
  ["CFA", null],
  ["FCFA", null],
  ["Br", null],
  ["ƒ", null],
  ["تومان", null],
  ["ریال", null],
  ["ريال", null],
  ["﷼", null],
  ["درهم", null],
  ["kr.", null],
  ["kr", null],
  ["Kr", null],
];
/** Forms that pages also write in lower or mixed case ("140,00 pln", "49 eur"). */
const CASELESS = ["USD", "EUR", "GBP", "CHF", "PLN", "CZK", "SEK", "NOK", "DKK", "CAD", "AUD", "RUB", "HUF", "RON"];
/** ISO codes that are also English words: read as a currency only in upper case and never alone before a number. */
const WORD_CODES = new Set(["ALL", "TOP", "CUP", "SOS", "PEN", "BOB", "MOP", "MAD", "GEL", "CAD"]);

const ISO_CODES: string[] = currencyCodes.codes();
const ISO_SET = new Set(ISO_CODES);
const FORM_CODES = new Map(CURRENCY_FORMS);
/** The currencies with three decimals (KWD, BHD, OMR…), where "423.923" is a price, not a thousand. */
const THREE_DECIMALS = new Set(ISO_CODES.filter((code) => currencyCodes.code(code)?.digits === 3));

/** Every written form a currency is read from: the table's, the ISO codes, and the caseless codes as pages write them. */
const ALL_FORMS = new Set([
  ...CURRENCY_FORMS.map(([form]) => form),
  ...ISO_CODES,
  ...CASELESS.map((code) => code.toLowerCase()),
  ...CASELESS.map((code) => code[0] + code.slice(1).toLowerCase()),
]);
const LONGEST_FORM = Math.max(...[...ALL_FORMS].map((form) => form.length));
const isLetter = (char: string | undefined): boolean => char !== undefined && /\p{L}/u.test(char);
const FORM_START = /^[\p{L}\p{Sc}]$/u;
const FORM_END = /^[\p{L}\p{Sc}.]$/u;

/** A currency written next to a number, and how many characters it takes there (spaces and a colon included). */
interface WrittenCurrency {
  form: string;
  length: number;
}

/**
 * The currency right before the number at `at`: "$49", "US$:12.99", "EUR 49". The longest form that ends where the
 * number's prefix ends wins ("US$" over "$"); a form of letters must stand alone ("kr" not the end of "Mark").
 * Looked up in a set over the few characters before the number: a regex alternation of every form cost a quarter of
 * a page's extraction on the hostile corpus.
 */
function currencyBefore(text: string, at: number): WrittenCurrency | null {
  const gap = /\s?:?\s?$/.exec(text.slice(Math.max(0, at - 3), at))![0].length;
  const end = at - gap;
  // Every form ends in a letter, a currency sign or a dot: most numbers ("2026-01-02") stop here.
  if (!FORM_END.test(text[end - 1] ?? "")) return null;
  for (let length = Math.min(LONGEST_FORM, end); length >= 1; length--) {
    const form = text.slice(end - length, end);
    if (!ALL_FORMS.has(form)) continue;
    if (isLetter(form[0]) && isLetter(text[end - length - 1])) continue;
    if (isLetter(form.at(-1)) && isLetter(text[end])) continue;
    return { form, length: length + gap };
  }
  return null;
}

/** The currency right after a number ending at `end`: "49 €", "2 999,00 Kč", "3 100р."; the longest form wins. */
function currencyAfter(text: string, end: number): WrittenCurrency | null {
  const gap = text[end] === " " ? 1 : 0;
  const start = end + gap;
  if (!FORM_START.test(text[start] ?? "")) return null;
  for (let length = Math.min(LONGEST_FORM, text.length - start); length >= 1; length--) {
    const form = text.slice(start, start + length);
    if (!ALL_FORMS.has(form)) continue;
    if (isLetter(form.at(-1)) && isLetter(text[start + length])) continue;
    return { form, length: length + gap };
  }
  return null;
}

/** The ISO code of a written currency ("€" → EUR, "pln" → PLN), null when unknown or when the form does not say. */
export function currencyCode(form: string | null | undefined): string | null {
  if (!form) return null;
  const text = form.trim();
  if (FORM_CODES.has(text)) return FORM_CODES.get(text)!;
  const upper = text.toUpperCase();
  if (ISO_SET.has(text) || (CASELESS.includes(upper) && ISO_SET.has(upper))) return upper;
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Numbers

/**
 * A run of digits and separators. A space or apostrophe groups only when exactly three digits follow ("2 999,00",
 * "1'049"), so "$49 100 users" stays 49; a dot or comma may be either.
 */
const NUMBER_RE =
  /(?<![\d.,])\d+(?:(?:[.,]|[ '’ʼ](?=\d{3}(?!\d))|[.,] (?=\d{2}(?![\d.,])))\d+)*|(?<=[$€£¥₹]\s?)\.\d{1,4}(?![\d.,])/g;

/** The number tokens of a text as the price parser cuts them (offers.ts reads structured values with it). */
export function numberTokens(text: string): string[] {
  return text.match(NUMBER_RE) ?? [];
}

/** What a number token reads as: an exact decimal ("1299.00", "0.0004"), or why it cannot be read. */
type NumberReading = { decimal: string } | { ambiguous: string } | { invalid: true };

/**
 * Reads one number token. `currency` (an ISO code, when known) only decides "423.923 KD" (three decimals).
 * Decimal: the last dot or comma when the other one groups, or when it is the only one and not followed by exactly
 * three digits. Every other separator groups, and groups are three digits (or the Indian 2-2-3 with rupees).
 */
export function readNumber(raw: string, currency: string | null = null): NumberReading {
  // "$119. 95", "118, 99 TL": a decimal mark with a stray space (amountsIn accepts it only where the price ends).
  const token = raw.replace(/([.,]) (?=\d{2}$)/, "$1");
  const separators = [...token.matchAll(/[^\d]/g)].map((m) => ({ char: m[0], index: m.index! }));
  if (separators.length === 0) return { decimal: stripZeros(token) };
  const pointLike = separators.filter((s) => s.char === "." || s.char === ",");
  const kinds = new Set(pointLike.map((s) => s.char));
  let decimalAt: number | null = null;
  const last = pointLike[pointLike.length - 1];
  if (kinds.size === 2) {
    // "1.299,00", "123,456.789": the last one is the decimal mark, once, and the other groups.
    if (pointLike.filter((s) => s.char === last!.char).length !== 1) return { invalid: true };
    decimalAt = last!.index;
  } else if (kinds.size === 1 && pointLike.length === 1) {
    const digitsAfter = token.length - last!.index - 1;
    const integer = token.slice(0, last!.index).replace(/[^\d]/g, "");
    const spaced = separators.length > 1; // grouped by spaces or apostrophes too: "2 999,00"
    if (digitsAfter !== 3) decimalAt = last!.index;
    else if (spaced) return { ambiguous: `"${token}" could be read with three decimals or as grouped thousands` };
    else if (/^0+$/.test(integer) || (currency !== null && THREE_DECIMALS.has(currency))) decimalAt = last!.index;
    else if (integer.length > 3) decimalAt = last!.index; // "1234.567" groups nothing: three decimals
    // Otherwise a thousands separator: "1,299", "1.299 €", "$844,900".
  }
  // Several of one kind ("1.144.000", "8.000.000"): all grouping.
  const integerPart = decimalAt === null ? token : token.slice(0, decimalAt);
  const fraction = decimalAt === null ? "" : token.slice(decimalAt + 1);
  if (/[^\d]/.test(fraction)) return { invalid: true };
  const groups = integerPart.split(/[^\d]/);
  if (groups.length > 1 && !validGroups(groups, currency)) return { invalid: true };
  const integer = groups.join("");
  return { decimal: stripZeros(fraction ? `${integer}.${fraction}` : integer) };
}

/** Thousands groups of three after a first group of one to three digits, or lakh groups (1,00,000) for rupees. */
function validGroups(groups: string[], currency: string | null): boolean {
  const [first, ...rest] = groups;
  if (!first || first.length > 3) return false;
  if (rest.every((group) => group.length === 3)) return true;
  const indian = currency === "INR" && rest.length >= 2 && rest.at(-1)!.length === 3;
  return indian && first.length <= 2 && rest.slice(0, -1).every((group) => group.length === 2);
}

function stripZeros(decimal: string): string {
  const [integer, fraction] = decimal.split(".");
  const whole = integer!.replace(/^0+(?=\d)/, "");
  return fraction === undefined ? whole : `${whole}.${fraction}`;
}

/** Beyond 15 significant digits a JSON number cannot keep the amount exactly, so there is none. */
function exactNumber(decimal: string): number | null {
  if (decimal.replace(".", "").replace(/^0+/, "").replace(/0+$/, "").length > 15) return null;
  const value = Number(decimal);
  return Number.isFinite(value) ? value : null;
}

/** Parses 1,299.00 / 1.299,00 / 1'299 / 2 999,00 into an exact amount in major units; null when not one number. */
export function parseAmount(raw: string, currency: string | null = null): number | null {
  const text = collapse(raw);
  if (!/^\d(?:[\d.,'’ʼ ]*\d)?$/.test(text)) return null;
  const reading = readNumber(text, currency);
  return "decimal" in reading ? exactNumber(reading.decimal) : null;
}

// ---------------------------------------------------------------------------------------------------------------
// Periods

const MONTH_RE =
  /\/\s*(?:[a-z]+\s*\/\s*)?(?:mo|mon|mth|month|monat|mois|mes|mês|mese|maand|mån|måned|månad|mnd|mies|měs|bulan|bln)\b|\/\s*(?:月|か月|ヶ月)|每月|\bper\s+(?:[a-z-]+\s+){0,3}?(?:mo|month)\b|\ba\s+month\b|\bmonthly\b|\bmonth\b|\bmo\.|\b(?:pro|im)\s+monat\b|\bmonatlich\b|\bpar\s+mois\b|\b(?:al|por|ao)\s+m[eê]s\b|\bper\s+bulan\b|\bper\s+m[åa]ned\b|\bal\s+mese\b|\bper\s+maand\b|\bmiesięcznie\b|(?:^|\s)p\s*\/\s*m\b|\/\s*мес|\sв\s+месяц|\sежемесячно/i;
const YEAR_RE =
  /\/\s*(?:[a-z]+\s*\/\s*)?(?:yr|year|annum|jahr|an|año|ano|anno|jaar|år|rok|tahun|thn)\b|\/\s*年|每年|\bper\s+(?:[a-z-]+\s+){0,3}?(?:yr|year|annum)\b|\ba\s+year\b|\b(?:annually|yearly|annual)\b|\byear\b(?!\s+of\s+(?:upgrades?|updates?|support|maintenance)\b)|\b(?:pro|im)\s+jahr\b|\bjährlich\b|\bpar\s+an\b|\b(?:al|por)\s+año\b|\b(?:ao|por)\s+ano\b|\bper\s+tahun\b|\bper\s+år\b|\ball'anno\b|\bper\s+jaar\b|\brocznie\b|(?:^|\s)p\s*\/\s*j\b|\/\s*год|\sв\s+год|\sежегодно/i;
/**
 * Periods in languages whose words \b cannot bound (it knows only ASCII letters): Korean, Turkish, Danish, Finnish,
 * Vietnamese, Ukrainian, Hungarian, Romanian, Arabic, Greek, Hebrew, Thai, Hindi, Czech, Slovak, Croatian and Serbian,
 * the Baltic languages; Swiss German "/Mt."; British "pm", "pcm" and "pa" right after the amount. A short form ("/ay",
 * "/kk", "/md.") only after a slash.
 */
const MONTH_WORDS_RE =
  /^\s?(?:pm|p\.m\.|pcm)(?![\p{L}\p{N}])|\/\s*(?:mt|mtl)\.?(?![\p{L}\p{N}])|\/\s*(?:월|개월|ay|md\.?|mdr\.?|kk|kuukausi|tháng|міс(?:яць)?|hó(?:nap)?|lun[aă]|شهر|μήνα|เดือน|माह|महीना|mesiac|mj(?:esec)?|mėn\.?|mēn\.?|kuu)(?![\p{L}\p{N}])|(?:\bpr\.\s?|\bpe\s+|(?<![\p{L}])на\s+|(?<![\p{L}])في\s+(?:ال)?)(?:md\.?|måned|lună|luna|місяць|شهر)(?![\p{L}\p{N}])|매월|(?<![\p{L}])(?:aylık|havonta|kuukaudessa|hàng\s+tháng|щомісяця|شهري(?:ا|\u064b|\u0651)*|לחודש|μηνιαίως|měsíčně|mesačne|mesečno|mjesečno|mensual(?:es|mente)?|mensal(?:mente)?|mensile|mensuel(?:le)?)(?![\p{L}\p{N}])/iu;
const YEAR_WORDS_RE =
  /^\s?(?:pa|p\.a\.)(?![\p{L}\p{N}])|\/\s*(?:년|연|yıl|vuosi|năm|рік|év|سنة|عام|έτος|χρόνο|ปี|वर्ष|साल|god\.?|metai|gads|aasta)(?![\p{L}\p{N}])|(?:\bpr\.\s?|\bpe\s+|(?<![\p{L}])на\s+|(?<![\p{L}])في\s+(?:ال)?)(?:år|an|рік|سنة)(?![\p{L}\p{N}])|(?<![\p{L}])(?:연간|yıllık|vuodessa|hàng\s+năm|щороку|évente|سنوي(?:ا|\u064b|\u0651)*|לשנה|ετησίως|ročně|ročne|godišnje|anual(?:es|mente)?|annuel(?:le)?|annuale)(?![\p{L}\p{N}])/iu;
/**
 * A period that is neither a month nor a year, which no BillingPeriod states: "/ half year (6 months)", "semi-annually",
 * "for 2 years", "per hour" (a unit of use or of work: "£50 per hour" of training). Where it comes first the period is
 * unknown, never the year or month its words contain.
 */
const OTHER_PERIOD_RE =
  /\bper\s+(?:hour|hr|day|week)\b|\/\s*(?:hour|hr|h|day|week|wk)\b|\bhalf[-\s]?(?:a\s+)?years?\b|\bsemi[-\s]?annual(?:ly)?\b|\bbi[-\s]?(?:annual(?:ly)?|ennial(?:ly)?)\b|\b(?:[2-9]|two|three|four|five)[-\s]+(?:years?|yrs?)\b|\bhalbjährlich\b|\bsemestral\b/i;
const ONE_TIME_RE = /\bone[-\s]?time\b|\bpay\s+once\b|\bonce\b|\blifetime\b|\bone[-\s]?off\b|\beinmalig\b/i;

const BILLED_YEARLY_RE =
  /\b(?:billed|paid|charged|invoiced|payable)\s+(?:annually|yearly|per\s+year|every\s+year|once\s+a\s+year|each\s+year|upfront\s+(?:for\s+)?(?:the\s+)?year)\b|\b(?:annual|yearly)\s+(?:billing|plan|subscription|payment|commitment|contract)\b|\bper\s+year\b.*\bbilled\b|\bon\s+(?:annual|yearly)\s+(?:plans?|billing|subscriptions?)\b|\bjährliche[rn]?\s+(?:Zahlung|Abrechnung)|\bjährlich\s+(?:abgerechnet|bezahlt)|\bfacturé\s+annuellement\b/i;
const BILLED_MONTHLY_RE =
  /\b(?:billed|paid|charged|invoiced|payable)\s+(?:monthly|per\s+month|every\s+month|month[-\s]to[-\s]month)\b|\bmonthly\s+(?:billing|plan|subscription|payment)\b|\bon\s+monthly\s+(?:plans?|billing|subscriptions?)\b|\bmonatliche[rn]?\s+(?:Zahlung|Abrechnung)|\bmonatlich\s+(?:abgerechnet|bezahlt)|\bfacturé\s+mensuellement\b/i;

/** How a price is billed when its text says so ("$8/month billed annually" is billed per year), else null. */
export function detectBilling(text: string): "month" | "year" | null {
  const yearly = BILLED_YEARLY_RE.exec(text);
  const monthly = BILLED_MONTHLY_RE.exec(text);
  if (yearly && monthly) return yearly.index <= monthly.index ? "year" : "month";
  return yearly ? "year" : monthly ? "month" : null;
}

/** The billing period stated right after a price: the earliest of month / year / one-time wording wins. */
export function detectPeriod(after: string): BillingPeriod | null {
  const said = periodSaid(after);
  return said === "other" ? null : said;
}

/** As detectPeriod, but "other" where the text says a period no BillingPeriod states ("per hour", "/ half year"). */
export function periodSaid(after: string): BillingPeriod | "other" | null {
  let best: { period: BillingPeriod | "other"; index: number } | null = null;
  for (const [period, re] of [
    ["month", MONTH_RE],
    ["month", MONTH_WORDS_RE],
    ["year", YEAR_RE],
    ["year", YEAR_WORDS_RE],
    ["one_time", ONE_TIME_RE],
    ["other", OTHER_PERIOD_RE],
  ] as const) {
    const m = re.exec(after);
    if (m && (!best || m.index < best.index)) best = { period, index: m.index };
  }
  return best?.period ?? null;
}

// ---------------------------------------------------------------------------------------------------------------
// Prices in text

/** "$40M Series B", "$2.5bn valuation", "$10k": amounts with a magnitude are money, not a price. */
const MAGNITUDE_AFTER = /^\s?(?:[kKmMbB]|bn|mn|million|billion|thousand|mio|mrd|rb|ribu|jt|juta)(?![\p{L}\p{N}])/u;
/** Thousands and millions a price may be written in, with a currency and a period: "50K", Indonesian "99rb", "1,5 jt". */
const THOUSANDS_RE = /^\s?(?:[kK]|rb|ribu)$/;
const MILLIONS_RE = /^\s?(?:jt|juta)$/;

/** "2.5" (of "$2.5k") in thousands, as a decimal string: "2500"; in millions ("1,5 jt"), "1500000". */
function inThousands(token: string, digits = 3): string {
  const [whole, fraction = ""] = token.split(/[.,]/);
  return `${whole}${fraction.padEnd(digits, "0")}`;
}
/** Between two amounts, an arrow from one to the other: "$14.99 -> $7.99", "€20 → €15". */
const ARROW_BETWEEN = /^\s*(?:-+>|→|⟶|=>|⇒|➔|➜|➝)\s*$/;
/** Between two amounts, a range: "$10 – $20", "10 to 20 €", "49 bis 99 €". */
const RANGE_BETWEEN = /^\s*(?:[-–—~]|to|bis|à|au|hasta|a|do|tot|until)\s*$/i;
/**
 * Before an amount, a bound: "lower than", "more than", "over", "under", "above", "below", "exceeding"; also with the
 * common misspelling "then" ("More then €10,000 per month? Contact us").
 */
const THRESHOLD_BEFORE =
  /\b(?:(?:lower|less|more|greater|higher|fewer)\s+th[ae]n|over|under|above|below|exceeding|exceeds?|beyond)\s*$/i;
/** Before an amount, the list price beside a promotion: "Was $120", "statt 249 €", "Regular price $99". */
const LIST_PRICE_BEFORE =
  /\b(?:was|statt|instead\s+of|regular(?:ly)?(?:\s+price)?|reg\.|orig(?:inal(?:ly)?|\.)?|list\s+price|before|avant|antes|prima)\s*:?\s*$/i;

interface Amount {
  /** Where the amount (with its currency) starts and ends in the text. */
  start: number;
  end: number;
  /** How the number reads; computed only for the amount a price is taken from (most numbers on a page are not). */
  reading: () => NumberReading;
  currency: string | null;
  /** A currency was written next to the number (null code: a currency, but not which). */
  hasCurrency: boolean;
}

/** What may follow where a price ends: nothing, or punctuation ("/mo", "*", ")"). */
const ENDS_HERE = /^\s*(?:$|[^\p{L}\p{N}\s])/u;

const MAX_AMOUNTS = 64;

/** Every number in `text` with the currency written next to it, if any. */
/** A comma or point then a dash after a digit, where no decimals follow: "20,-", "49.–". */
const WHOLE_DASH_RE = /(\d)([.,])[-–—](?![\d-–—])/g;

function amountsIn(stated: string): Amount[] {
  // "20,- EUR", "Fr. 49.–": a whole amount in the German, Czech and Swiss way, read as "20,0": the same length, so
  // every position in the text still points where it did.
  const text = stated.replace(WHOLE_DASH_RE, (_, digit: string, mark: string) => `${digit}${mark}0`);
  const out: Amount[] = [];
  for (const m of text.matchAll(NUMBER_RE)) {
    // A price is stated among the first numbers of its text; a page-long run of numbers is not read to its end.
    if (out.length === MAX_AMOUNTS) break;
    let token = m[0];
    const at = m.index!;
    // "$.10": cents written without their zero, read as "0.10"; `shift` keeps positions in the text as written.
    const shift = token.startsWith(".") ? 1 : 0;
    if (shift) token = `0${token}`;
    let after = text.slice(at - shift + token.length, at - shift + token.length + 16);
    const written = currencyBefore(text, at);
    // A code that is also a word ("ALL 3 plans") counts only after the number.
    const beforeForm = written && !WORD_CODES.has(written.form) ? written : null;
    let afterForm = currencyAfter(text, at - shift + token.length);
    // No price has forty digits and separators; a run that long is not read (nor split up: it is no price).
    let ambiguous: string | null = token.length > 40 ? "a number too long to be a price" : null;
    // Grouping spaces are trusted only where the number plainly ends ("120 000 000", "9 800 Kč", "1 139,00").
    // After a currency, "$49 100 users" is 49 for 100 users; without one, "6 300 X" is not read either way.
    if (/\d [\d]{3}/.test(token) && !afterForm && !/[.,]\d+$/.test(token) && !ENDS_HERE.test(after)) {
      if (beforeForm) {
        token = token.slice(0, token.indexOf(" "));
        after = text.slice(at - shift + token.length, at - shift + token.length + 16);
        afterForm = currencyAfter(text, at - shift + token.length);
      } else ambiguous = `"${token}" may be one number or two`;
    }
    // "1 2345 €": a digit group right before that does not group with this one; which number is meant is unclear.
    if (!beforeForm && /\d[ '’ʼ]$/.test(text.slice(0, at)))
      ambiguous = `"${text.slice(Math.max(0, at - 4), at)}${token}" is not one number`;
    // "$119. 95" is a price only where it ends: "Plans 10, 20 and 30" is not 10.20.
    if (/[.,] \d{2}$/.test(token) && !afterForm && !ENDS_HERE.test(after)) ambiguous = `"${token}" is a list`;
    // "$40M Series B" is money, not a price; "$20k per annum" is a price in thousands (a period says so).
    let thousands: 3 | 6 | null = null;
    const magnitude = MAGNITUDE_AFTER.exec(after);
    if (magnitude) {
      const rest = text.slice(
        at - shift + token.length + magnitude[0].length,
        at - shift + token.length + magnitude[0].length + 40,
      );
      // "50K Rupiah Per Tahun": the currency may follow the thousands, as it follows an amount.
      const wordAfter = beforeForm ? null : currencyAfter(text, at - shift + token.length + magnitude[0].length);
      const digits = THOUSANDS_RE.test(magnitude[0]) ? 3 : MILLIONS_RE.test(magnitude[0]) ? 6 : null;
      if (
        !(beforeForm || wordAfter) ||
        digits === null ||
        !/^\d+(?:[.,]\d{1,2})?$/.test(token) ||
        detectPeriod(wordAfter ? rest.slice(wordAfter.length) : rest) === null
      )
        continue;
      thousands = digits;
      afterForm = wordAfter;
    }
    let end = at - shift + token.length + (magnitude ? magnitude[0].length : 0);
    if (!beforeForm && afterForm) {
      end += afterForm.length;
      // "35€ 99", "1250€ 60": the cents after the sign.
      const cents = /^\s?(\d{2})(?![\d.,])/.exec(text.slice(end));
      if (cents && !/[.,]/.test(token) && ENDS_HERE.test(text.slice(end + cents[0].length))) {
        token = `${token}.${cents[1]}`;
        end += cents[0].length;
      }
    }
    // "1.5 cents per search", "50¢": an amount in cents, read in dollars as "$" is.
    const cents = !beforeForm && !afterForm ? CENTS_AFTER.exec(text.slice(end)) : null;
    if (cents) end += cents[0].length;
    // "$49+": a threshold ("orders over"), or a floor with no price stated.
    // "$25,000+/month" in a plan's price place is a starting price: the period after the "+" says it is billed.
    if (/^\+/.test(text.slice(end)) && !/^\+\s*(?:\/|per\s)\s*(?:mo|month|yr|year)\b/i.test(text.slice(end)))
      ambiguous = `"${text.slice(at, end + 1)}" is a threshold`;
    // "MRR lower than $5,000", "orders over $49", "for less than $1 a day": a bound, not a price.
    const start = beforeForm ? at - beforeForm.length : at;
    if (THRESHOLD_BEFORE.test(text.slice(Math.max(0, start - 24), start)))
      ambiguous = `"${text.slice(start, end)}" is a threshold`;
    const form = beforeForm?.form ?? afterForm?.form ?? null;
    const currency = cents
      ? "USD"
      : form === "$"
        ? (codeBeside(text, start, end, DOLLAR_CODES) ?? "USD")
        : form === "¥" || form === "￥"
          ? (codeBeside(text, start, end, YEN_CODES) ?? "JPY")
          : currencyCode(form);
    out.push({
      start: beforeForm ? at - beforeForm.length : at,
      end,
      reading: ambiguous
        ? () => ({ ambiguous })
        : thousands
          ? () => ({ decimal: inThousands(token, thousands) })
          : cents
            ? () => inHundredths(readNumber(token, null))
            : () => readNumber(token, currency),
      currency,
      hasCurrency: form !== null || cents !== null,
    });
  }
  return out;
}

/** The dollars a code names beside a "$" ("$49 AUD/mo", "CAD $49", "49 $ CAD / mois"). */
const DOLLAR_CODES = new Map(["USD", "AUD", "CAD", "NZD", "SGD", "HKD", "MXN", "TWD"].map((code) => [code, code]));
/** The yuan and the yen share "¥": a code beside it says which ("CNY ¥19.90 / month", "¥99 RMB"). */
const YEN_CODES = new Map([
  ["CNY", "CNY"],
  ["RMB", "CNY"],
  ["JPY", "JPY"],
]);

/** The currency a sign shared by several is in when a code is written right after it or right before it, else null. */
function codeBeside(text: string, start: number, end: number, codes: ReadonlyMap<string, string>): string | null {
  const after = /^\s?([A-Z]{3})(?![A-Za-z])/.exec(text.slice(end, end + 5));
  if (after && codes.has(after[1]!)) return codes.get(after[1]!)!;
  const before = /(?<![A-Za-z])([A-Z]{3})\s?$/.exec(text.slice(Math.max(0, start - 5), start));
  if (before && codes.has(before[1]!)) return codes.get(before[1]!)!;
  return null;
}

/** A name that is only a currency's code ("CNY", "HKD" leading a line of prices in that currency): no offer's name. */
export function isCurrencyCode(text: string): boolean {
  return ISO_SET.has(text.trim()) && !WORD_CODES.has(text.trim());
}

/** Right after an amount, cents: "1.5 cents", "50¢". */
const CENTS_AFTER = /^\s?(?:cents?\b|¢)/;

/** A reading in cents as one in major units, exactly: "1.5" → "0.015", "250" → "2.50". */
function inHundredths(reading: NumberReading): NumberReading {
  if (!("decimal" in reading)) return reading;
  const [integer, fraction = ""] = reading.decimal.split(".");
  const digits = integer!.padStart(3, "0");
  return { decimal: `${digits.slice(0, -2).replace(/^0+(?=\d)/, "")}.${digits.slice(-2)}${fraction}` };
}

export interface ParsedPrice {
  /** Exact, in major units (49.99, 0.0004); null for "Contact sales". */
  amount: number | null;
  currency: string | null;
  period: BillingPeriod | null;
  isFree: boolean;
}

const FREE_RE =
  /^(?:(?:it'?s\s+|100%\s+)?free(?:\s+(?:forever|plan|for ever|for life|to start|to use))?|forever free|always free|no cost|gratis|kostenlos|gratuit)[.!]?$/i;
const CONTACT_RE =
  /\b(?:contact\s+(?:us|sales|our\s+sales\s+team|our\s+team)|talk\s+to\s+(?:us|sales|an?\s+expert)|let'?s\s+talk|get\s+(?:a\s+)?(?:quote|in\s+touch)|request\s+(?:a\s+)?(?:quote|pricing|demo)|custom(?:\s+(?:pricing|quote|plan|price))?|book\s+a\s+(?:demo|call)|price\s+on\s+request)\b/i;

/**
 * The price `text` states, or null when it states none or states it ambiguously. "Free" → amount 0; "Contact sales"
 * / "Custom" → amount null. `bareNumber` also accepts a number without currency when it is nearly all the text says
 * (an element classed as a price: `<span class="amount">49</span>`).
 */
function readPrice(text: string, options: { bareNumber?: boolean } = {}): ParsedPrice | null {
  const source = collapse(text);
  if (!source) return null;
  // Most of a page has no digit: skip the number reading for it.
  const amounts = /\d/.test(source) ? amountsIn(source) : [];
  const priced = statedPrice(source, amounts);
  if (priced === "ambiguous") return null;
  if (priced) return priceAt(source, priced, amounts);
  // A bare number counts only when it is nearly all the element says ("49", "49 / mo"), not "Up to 5 users".
  if (options.bareNumber && source.length <= 24 && amounts.length === 1 && plainNumber(source, amounts[0]!)) {
    return priceAt(source, amounts[0]!, amounts);
  }
  if (source.length <= 40 && FREE_RE.test(source)) return { amount: 0, currency: null, period: null, isFree: true };
  if (source.length <= 40 && CONTACT_RE.test(source))
    return { amount: null, currency: null, period: null, isFree: false };
  return null;
}

/**
 * Every price a text states, in order: one for most texts, two for "$10/year or $1/month" or "$29 monthly, $290
 * yearly", each with the period written after it. Read as parsePrice reads a text: a conversion in brackets and a
 * former price ("Was $59, now $49") are not prices of their own; a range ("$10 – $20") gives both its ends.
 */
function readStatedPrices(text: string): StatedPrice[] {
  const source = collapse(text);
  if (!/\d/.test(source)) return [];
  const amounts = amountsIn(source);
  const stated = statedPrice(source, amounts);
  if (stated === null) return [];
  // A range ("$10 – $20 per month", "2 - 3 $ / Month", "From 26 to 50 €") states both its ends: which one a customer
  // pays is not said, but either end moving is a change of price, so both are read, the low end first.
  if (stated === "ambiguous") return rangePrices(source, amounts);
  // An amount in brackets beside one outside is a conversion; when every price is in brackets, each after its own
  // name ("a Standard ($29/month) or Premium ($199/month) package"), they are the prices.
  const withCurrency = amounts.filter((a) => a.hasCurrency);
  const outside = withCurrency.filter((a) => !insideBrackets(source, a.start));
  const priced = outside.length > 0 ? outside : withCurrency;
  const former = priced.some((a) => LIST_PRICE_BEFORE.test(source.slice(Math.max(0, a.start - 24), a.start)));
  const at = (amount: Amount): StatedPrice | null => {
    const price = priceAt(source, amount, amounts);
    return price && { ...price, start: amount.start, end: amount.end };
  };
  if (priced.length <= 1 || former) {
    const one = at(stated);
    return one ? [one] : [];
  }
  // "$14.99 -> $7.99 … use promotion code X": the price and what a promotion brings it down to. The price is the
  // first, billed as the words after the second say ("for lifetime use"); the promotion is no price of the offer's.
  const [first, second] = priced;
  if (ARROW_BETWEEN.test(source.slice(first!.end, second!.start))) {
    const list = at(first!);
    const promo = at(second!);
    if (list && promo && list.amount !== null && promo.amount !== null && promo.amount < list.amount)
      return [{ ...list, period: list.period ?? promo.period }];
  }
  const out: StatedPrice[] = [];
  for (let k = 0; k < priced.length; k++) {
    const amount = priced[k]!;
    const next = priced[k + 1];
    if (next && RANGE_BETWEEN.test(source.slice(amount.end, next.start))) return rangePrices(source, amounts);
    const price = at(amount);
    if (price) out.push(price);
  }
  return out;
}

/**
 * The two ends of the first range in `text` whose ends are both money: a currency written on one end at least, the
 * low end before the high one. None when the "range" runs downward ("2023 – $10" is a year and a price).
 */
function rangePrices(text: string, all: Amount[]): StatedPrice[] {
  for (let i = 0; i + 1 < all.length; i++) {
    const low = all[i]!;
    const high = all[i + 1]!;
    if (!(low.hasCurrency || high.hasCurrency) || !RANGE_BETWEEN.test(text.slice(low.end, high.start))) continue;
    const currency = high.hasCurrency ? high.currency : low.currency;
    const ends = [low, high].map((amount) => priceAt(text, { ...amount, currency }, all));
    const [from, to] = ends;
    if (!from || !to || from.amount === null || to.amount === null || from.amount >= to.amount) return [];
    // The period is written once, after the high end ("$10 – $20 per month").
    return [
      { ...from, period: to.period, start: low.start, end: low.end },
      { ...to, start: high.start, end: high.end },
    ];
  }
  return [];
}

/** A price stated in a text, with where its amount starts and ends in the collapsed text. */
export interface StatedPrice extends ParsedPrice {
  start: number;
  end: number;
}

const MONTH_NAME_RE =
  /\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t|tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b/i;

/**
 * A number without currency is a price only when nothing but a period or punctuation follows it ("49", "49 / mo",
 * "49 per month"), not a unit ("16.00 ft", "5 users", "20%") or a date ("July, 2004").
 */
function plainNumber(text: string, amount: Amount): boolean {
  const after = text.slice(amount.end).trim();
  if (/^%/.test(after) || MONTH_NAME_RE.test(text)) return false;
  return (
    after === "" ||
    /^[^\p{L}\p{N}%]/u.test(after) ||
    (detectPeriod(after) !== null && /^(?:per|a|monthly|annually|yearly|pro|par|al)\b/i.test(after))
  );
}

/**
 * Of the amounts in a text, the one it states as the price: the first with a currency, except that an amount in
 * brackets beside one outside is a conversion ("AED 8000 (USD 2179)"), and a former price is the list price ("Was
 * $124.95 Now $99": a promotion is not a change of the plan's price). "ambiguous" when that amount is one end of a
 * range ("$10 – $20", "From 26 to 50 €").
 */
function statedPrice(text: string, all: Amount[]): Amount | "ambiguous" | null {
  const priced = all.filter((a) => a.hasCurrency);
  if (priced.length === 0) return null;
  const outside = priced.filter((a) => !insideBrackets(text, a.start));
  const listed = outside.find((a) => LIST_PRICE_BEFORE.test(text.slice(Math.max(0, a.start - 24), a.start)));
  const chosen = listed ?? outside[0] ?? priced[0]!;
  const i = all.indexOf(chosen);
  const previous = all[i - 1];
  const next = all[i + 1];
  if (previous && RANGE_BETWEEN.test(text.slice(previous.end, chosen.start))) return "ambiguous";
  if (next && RANGE_BETWEEN.test(text.slice(chosen.end, next.start))) return "ambiguous";
  return chosen;
}

/** Within 80 characters after an unclosed "(" or "[" (bounded: a page-long text is not scanned per amount). */
function insideBrackets(text: string, index: number): boolean {
  const window = text.slice(Math.max(0, index - 80), index);
  return (
    Math.max(window.lastIndexOf("("), window.lastIndexOf("[")) >
    Math.max(window.lastIndexOf(")"), window.lastIndexOf("]"))
  );
}

function priceAt(text: string, amount: Amount, all: Amount[]): ParsedPrice | null {
  const reading = amount.reading();
  if (!("decimal" in reading)) return null;
  const value = exactNumber(reading.decimal);
  if (value === null) return null;
  // The period is in the words after the price, up to the next amount.
  const next = all.find((a) => a.start >= amount.end);
  const after = text.slice(amount.end, next ? next.start : undefined).slice(0, 60);
  const period = detectPeriod(after) ?? periodBefore(text.slice(Math.max(0, amount.start - 6), amount.start));
  return { amount: value, currency: amount.currency, period, isFree: value === 0 };
}

/** A period written before the amount, as Japanese and Chinese do ("月額980円", "年額 ¥9,800", "每月 ¥99"). */
function periodBefore(before: string): BillingPeriod | null {
  if (/(?:月額|月々|毎月|每月|月付|月费)\s*$/.test(before)) return "month";
  if (/(?:年額|每年|年付|年费)\s*$/.test(before)) return "year";
  return null;
}

/**
 * A unit of use right after an amount ("$0.0004 per request", "$5/GB", "$0.10 per 1,000 calls"): the price is a usage
 * meter, not a plan. Seats, users and periods are not units of use ("$10 per user per month" is a plan's price).
 */
const USAGE_UNIT_RE =
  /^\s*(?:\/|per|an?|each|for\s+every)\s*(?:\d[\d,.]*\s*(?:[kKmMbB]|thousand|million)?\s*)?(gb|gib|tb|mb|gb-months?|hours?|hrs?|minutes?|mins?|seconds?|requests?|req|calls?|api\s+calls?|events?|messages?|emails?|sms|texts?|credits?|tokens?|runs?|builds?|executions?|invocations?|quer(?:y|ies)|records?|rows?|contacts?|tasks?|transactions?|documents?|gpus?|vcpus?|cpus?|sessions?|pageviews?|impressions?|verifications?|lookups?|devices?)\b/i;

/** The unit of use the stated price of `text` is per ("request", "gb"), or null for a plan's price. */
function readUsageUnit(text: string): string | null {
  const source = collapse(text);
  if (!/\d/.test(source)) return null;
  const stated = statedPrice(source, amountsIn(source));
  if (stated === null || stated === "ambiguous") return null;
  const unit = USAGE_UNIT_RE.exec(source.slice(stated.end, stated.end + 48));
  return unit ? unit[1]!.toLowerCase() : null;
}

/** Where the first currency amount starts in `text`, or null. */
function readFirstPriceIndex(text: string): number | null {
  if (!/\d/.test(text)) return null;
  return amountsIn(text).find((a) => a.hasCurrency)?.start ?? null;
}

// ---------------------------------------------------------------------------------------------------------------
// Memoised entry points

/**
 * A page repeats its price texts ("$49/mo" on every card, a column of "Unlimited"), and the readers ask about the same
 * text from several places: each question is answered once per text. The results are pure functions of the text, so
 * the cache changes no answer; it is cleared when it grows past CACHE_LIMIT entries, which bounds its memory.
 */
const CACHE_LIMIT = 20_000;

function memo<R>(read: (text: string) => R): (text: string) => R {
  const cache = new Map<string, R>();
  return (text) => {
    const known = cache.get(text);
    if (known !== undefined || cache.has(text)) return known as R;
    const result = read(text);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    // Callers may not change what they get: statedPrices' arrays and objects are shared.
    cache.set(text, result);
    return result;
  };
}

const priceOf = memo((text) => readPrice(text));
const bareOf = memo((text) => readPrice(text, { bareNumber: true }));

/**
 * The price `text` states, or null when it states none or states it ambiguously. "Free" → amount 0; "Contact sales"
 * / "Custom" → amount null. `bareNumber` also accepts a number without currency when it is nearly all the text says
 * (an element classed as a price: `<span class="amount">49</span>`).
 */
export function parsePrice(text: string, options: { bareNumber?: boolean } = {}): ParsedPrice | null {
  return options.bareNumber ? bareOf(text) : priceOf(text);
}

/**
 * Every price a text states, in order: one for most texts, two for "$10/year or $1/month" or "$29 monthly, $290
 * yearly", each with the period written after it (see readStatedPrices). The array is shared: do not change it.
 */
export const statedPrices: (text: string) => readonly StatedPrice[] = memo(readStatedPrices);

/** The unit of use the stated price of `text` is per ("request", "gb"), or null for a plan's price. */
export const usageUnit: (text: string) => string | null = memo(readUsageUnit);

/** Where the first currency amount starts in `text`, or null. */
export const firstPriceIndex: (text: string) => number | null = memo(readFirstPriceIndex);
