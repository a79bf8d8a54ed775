/**
 * Pricing plans from the structured data a page publishes: JSON-LD, microdata (converted to the same node shape by
 * microdata.ts) and, when neither has an offer, the OpenGraph / Facebook product price tags. Plans from any of
 * them carry `origin: "jsonld"`, which means "structured data" (PricingPlan.origin in src/detection/types.ts).
 *
 * Read as real sites publish it: offers on any type (Product, SoftwareApplication, Service, FinancialProduct,
 * Course, Event, WebPage…), AggregateOffer with or without nested offers, OfferCatalog, `@graph`, `@id`
 * references, keys in any case, priceSpecification arrays and UnitPriceSpecification periods. A wrong number is
 * worse than none (it becomes a false price change), so every ambiguity gives a plan without an amount: a price
 * range, several amounts in one value, offers of one plan that disagree, a zero price on an offer that is sold
 * out. The price is the one paid now: a spec typed StrikethroughPrice / ListPrice / SRP or valid only for members is
 * not it.
 */
import type { CheerioAPI } from "cheerio";
import type { BillingPeriod, PricingPlan } from "../../types.js";
import { allElements, collapse, elementsNamed, textContent } from "../../parse/html.js";
import {
  addDocument,
  asArray,
  hasType,
  isObject,
  prop,
  readJsonLd,
  resolveRef,
  textOf,
  type JsonLd,
  type JsonObject,
} from "../jsonld.js";
import { readMicrodata } from "../microdata.js";
import { currencyCode as writtenCurrency, numberTokens, parseAmount, parsePrice } from "./money.js";
import { makePlan } from "./plan.js";

// ---------------------------------------------------------------------------------------------------------------
// Reading

/**
 * JSON-LD blocks, microdata items and the product price meta tags of a page, read before anything is removed from
 * the tree (microdata `<meta>`/`<link>` in the body would not survive the boilerplate pass). Each syntax is read on
 * its own: a page whose microdata trips the reader keeps its JSON-LD.
 */
export function readStructuredData($: CheerioAPI): JsonLd {
  let ld: JsonLd = { nodes: [], byId: new Map() };
  try {
    ld = readJsonLd($);
  } catch {
    // Unreadable JSON-LD: the microdata and meta tags below may still carry the prices.
  }
  try {
    const root = $.root().get(0);
    const visited = new Set<object>();
    // Most pages have no microdata: the element list (walked once already) says so without a walk of the whole tree.
    const hasItems = allElements($).some((el) => el.attribs.itemscope !== undefined);
    if (root && hasItems) for (const item of readMicrodata(root)) addDocument(ld, item, visited);
  } catch {
    // Unreadable microdata: the JSON-LD read above stands.
  }
  try {
    ld.meta = readProductMeta($);
  } catch {
    ld.meta = [];
  }
  return ld;
}

const META_NAME_RE = /^(?:og|product):(?:price|sale_price):(?:amount|currency)$|^og:title$/;

/** The product price tags (`<meta property="product:price:amount">` or `name=`), og:title and the page title. */
export function readProductMeta($: CheerioAPI): [string, string][] {
  const out: [string, string][] = [];
  for (const el of elementsNamed($, "meta")) {
    const name = (el.attribs.property ?? el.attribs.name ?? "").trim().toLowerCase();
    if (META_NAME_RE.test(name)) out.push([name, collapse(el.attribs.content)]);
  }
  const title = elementsNamed($, "title")[0];
  if (title) out.push(["title", collapse(textContent(title))]);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Amounts, currencies, periods

/**
 * An amount as published: a JSON number is kept exactly (0.0004 stays 0.0004); a string is read with the shared
 * price-string parser's number rules (money.ts: "119.99", "26,00 €", "$509.990", and "1.299" as a thousand, as a
 * German shop means it), and every number in it must be the same amount: "109€109€109" (three widgets repeating one
 * price) is 109, "10,75 € 11,95 €" (a sale and a list price in one attribute) is none. A negative amount is none.
 */
export function amountOf(value: unknown, currency: string | null = null): number | null {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : null;
  if (Array.isArray(value)) return value.length === 1 ? amountOf(value[0], currency) : null;
  if (isObject(value)) return amountOf(prop(value, "@value"), currency);
  if (typeof value !== "string") return null;
  const text = collapse(value);
  if (/^free$/i.test(text)) return 0;
  if (/(?:^|[^\d])-\s?\d/.test(text)) return null;
  const tokens = numberTokens(text);
  if (tokens.length === 0) return null;
  let amount: number | null = null;
  for (const token of tokens) {
    const parsed = parseAmount(token, currency);
    if (parsed === null || (amount !== null && parsed !== amount)) return null;
    amount = parsed;
  }
  return amount;
}

/** Withdrawn codes still published for the current currency (Yandex Market's RUR). */
const CODE_ALIASES: Record<string, string> = { RUR: "RUB" };

/**
 * priceCurrency: an ISO 4217 code in any case ("gbp", "pln": priceCurrency is defined as a code, so case says
 * nothing), or a written form ("€", "US$") as money.ts knows them; anything else, or an unknown code, is none.
 */
export function currencyCode(value: unknown): string | null {
  const text = textOf(value);
  if (!text) return null;
  if (/^[A-Za-z]{3}$/.test(text)) {
    const code = text.toUpperCase();
    return writtenCurrency(CODE_ALIASES[code] ?? code);
  }
  return writtenCurrency(text);
}

/** The currency written with a price string ("$35", "EUR 19.99") when no priceCurrency says it. */
function currencyInText(value: unknown): string | null {
  return typeof value === "string" && /\D/.test(value) ? (parsePrice(value)?.currency ?? null) : null;
}

/** Words for a period in unitText / unitCode (UN/CEFACT MON and ANN), in the languages pricing pages use. */
const MONTH_RE =
  /(?<!\p{L})(?:mo|mon|mth|months?|monthly|mes|meses|mês|mese|mensual|mensal|mensuel|mois|monat|monate|monatlich|maand|månad|måned|miesiąc)(?!\p{L})/iu;
const YEAR_RE =
  /(?<!\p{L})(?:yr|yrs|years?|yearly|annual|annually|annum|ann|año|años|anual|ano|anos|anno|annuale|annuel|année|jahr|jahre|jährlich|jaar|år|rok)(?!\p{L})/iu;
const ONE_TIME_RE = /(?<!\p{L})(?:one[-\s]?time|lifetime|once)(?!\p{L})/iu;

function periodFromText(value: unknown): BillingPeriod | null {
  const text = textOf(value);
  if (!text) return null;
  const found = (
    [
      ["month", MONTH_RE],
      ["year", YEAR_RE],
      ["one_time", ONE_TIME_RE],
    ] as const
  ).filter(([, re]) => re.test(text));
  // "Billed yearly, per month" names two periods: which one the price is for is not said.
  return found.length === 1 ? found[0]![0] : null;
}

/** `count` units of `period`: 1 month is a month, 12 months a year, 3 months no period we track. */
function scaled(period: BillingPeriod | null, count: unknown): BillingPeriod | null {
  if (period === null || period === "one_time") return period;
  const n = count === undefined || count === null || count === "" ? 1 : Number(count);
  if (n === 1) return period;
  return period === "month" && n === 12 ? "year" : null;
}

/** The unit a price is for: referenceQuantity ({1 MON}, {1 "user"}: a seat, not a period), unitCode, unitText. */
function unitPeriod(spec: JsonObject): BillingPeriod | null {
  const reference = resolveUnit(prop(spec, "referenceQuantity"));
  return reference ?? periodFromText(prop(spec, "unitCode")) ?? periodFromText(prop(spec, "unitText"));
}

function resolveUnit(value: unknown): BillingPeriod | null {
  if (!isObject(value)) return null;
  const period = periodFromText(prop(value, "unitCode")) ?? periodFromText(prop(value, "unitText"));
  return scaled(period, prop(value, "value"));
}

/** billingDuration: "P1M" / "P1Y" / "P12M", a number of the spec's unitCode, or a QuantitativeValue. */
function durationPeriod(value: unknown, unitCode: unknown): BillingPeriod | null {
  if (Array.isArray(value)) return value.length === 1 ? durationPeriod(value[0], unitCode) : null;
  if (isObject(value)) return resolveUnit(value);
  if (typeof value === "number") return scaled(periodFromText(unitCode), value);
  if (typeof value !== "string") return null;
  const iso = /^P(\d+)([MY])$/i.exec(value.trim());
  if (iso) return scaled(iso[2]!.toUpperCase() === "Y" ? "year" : "month", iso[1]);
  if (/^\d+$/.test(value.trim())) return scaled(periodFromText(unitCode), value.trim());
  return periodFromText(value);
}

/**
 * The period a price is for. The unit first: "$124 per month, billed for a year" (unitCode MON, billingDuration
 * P1Y) is a monthly price; billingDuration only when no unit says it.
 */
function periodOf(spec: JsonObject): BillingPeriod | null {
  return unitPeriod(spec) ?? durationPeriod(prop(spec, "billingDuration"), prop(spec, "unitCode"));
}

/** Where billing follows the unit (or only one is said): the price billed per period, not a commitment's rate. */
function billedPerPeriod(spec: JsonObject): boolean {
  const unit = unitPeriod(spec);
  const billing = durationPeriod(prop(spec, "billingDuration"), prop(spec, "unitCode"));
  return unit === null || billing === null || unit === billing;
}

/** A price range: one amount when only the low end is given or both ends agree, else none. */
function rangeAmount(low: unknown, high: unknown, currency: string | null): number | null {
  const lowAmount = amountOf(low, currency);
  if (high === undefined || high === null || high === "") return lowAmount;
  const highAmount = amountOf(high, currency);
  return lowAmount !== null && lowAmount === highAmount ? lowAmount : null;
}

/** The amount a node states itself: `price`, else the lowPrice/highPrice (or minPrice/maxPrice) range. */
function ownAmount(node: JsonObject, currency: string | null): number | null {
  const price = prop(node, "price");
  if (price !== undefined && price !== null && price !== "") return amountOf(price, currency);
  const low = prop(node, "lowPrice") ?? prop(node, "minPrice");
  const high = prop(node, "highPrice") ?? prop(node, "maxPrice");
  if (low === undefined || low === null || low === "") return null;
  return rangeAmount(low, high, currency);
}

function hasPriceField(node: JsonObject): boolean {
  return ["price", "lowPrice", "highPrice", "minPrice", "maxPrice"].some((key) => {
    const value = prop(node, key);
    return value !== undefined && value !== null && value !== "";
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Offers

/** Price types that are the price paid (schema.org PriceTypeEnumeration); any other is a reference price. */
const PAID_PRICE_TYPES = ["SalePrice", "MinimumAdvertisedPrice"];
/** Price components that are the price itself; an activation fee or a down payment is not. */
const PAID_COMPONENTS = ["Subscription"];

/** A spec for the price paid now, by anyone: not a strikethrough/list price, a member price or an extra charge. */
function isPaidSpec(spec: JsonObject): boolean {
  if (hasType(spec, "DeliveryChargeSpecification", "PaymentChargeSpecification")) return false;
  const priceType = textOf(prop(spec, "priceType"));
  if (priceType && !PAID_PRICE_TYPES.includes(priceType.replace(/^.*[/#:]/, ""))) return false;
  const component = textOf(prop(spec, "priceComponentType"));
  if (component && !PAID_COMPONENTS.includes(component.replace(/^.*[/#:]/, ""))) return false;
  return prop(spec, "validForMemberTier") === undefined;
}

interface Price {
  amount: number | null;
  currency: string | null;
  period: BillingPeriod | null;
}

const priceKey = (price: Price): string => `${price.amount}|${price.currency}|${price.period}`;

/** The first of each different price, in one pass (a page may give one plan thousands of offers). */
function distinctPrices<T extends Price>(prices: T[]): T[] {
  const seen = new Set<string>();
  return prices.filter((price) => {
    const key = priceKey(price);
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

/**
 * The paid specs' price. Several that agree are one price; a monthly and a yearly option are the first listed; two
 * amounts for one period ("$149/month billed monthly", "$124/month billed yearly") are the one billed per period;
 * anything else is ambiguous. Null when no paid spec has an amount.
 */
function specPrice(specs: JsonObject[]): { price: Price; spec: JsonObject } | "ambiguous" | null {
  const priced = specs
    .filter((spec) => hasPriceField(spec))
    .map((spec) => {
      const currency = currencyCode(prop(spec, "priceCurrency"));
      return { spec, price: { amount: ownAmount(spec, currency), currency, period: periodOf(spec) } };
    })
    .filter(({ price }) => price.amount !== null);
  if (priced.length === 0) return null;
  const pick = (list: typeof priced): (typeof priced)[number] | null => {
    if (list.length === 0) return null;
    const distinct = distinctPrices(list.map(({ price }) => price));
    if (distinct.length === 1) return list[0]!;
    const periods = distinct.map((price) => price.period);
    if (periods.every((p) => p !== null) && new Set(periods).size === distinct.length) return list[0]!;
    return null;
  };
  return pick(priced) ?? pick(priced.filter(({ spec }) => billedPerPeriod(spec))) ?? "ambiguous";
}

/** "Out of stock" with a zero price is a placeholder, not a free product (a real shop page, getit.co.il). */
const UNAVAILABLE_RE = /(?:OutOfStock|SoldOut|Discontinued)$/i;

/** Types whose offers are plans even without a price of their own ("Enterprise: contact sales"). */
const PRODUCT_LIKE = [
  "Product",
  "ProductGroup",
  "ProductModel",
  "IndividualProduct",
  "SomeProducts",
  "Vehicle",
  "Car",
  "SoftwareApplication",
  "WebApplication",
  "MobileApplication",
  "VideoGame",
  "WebAPI",
  "Service",
  "FinancialProduct",
  "BankAccount",
  "CreditCard",
  "PaymentCard",
  "LoanOrCredit",
  "InvestmentOrDeposit",
  "BroadcastService",
  "CableOrSatelliteService",
  "GovernmentService",
  "TaxiService",
  "Course",
];

/** Private-use characters: icon-font glyphs (usedvictoria.com's heart icon inside an itemprop="name"), never text. */
const ICON_GLYPHS_RE = /[\ue000-\uf8ff]/g;

/** A structured-data plan (origin "jsonld"), its name without icon-font glyphs. */
function structuredPlan(name: string, price: Price): PricingPlan {
  return makePlan(name.replace(ICON_GLYPHS_RE, " "), price, "jsonld", []);
}

interface OfferContext {
  offer: JsonObject;
  holder: JsonObject | null;
  /** The priceCurrency of the AggregateOffer an offer is nested in, for offers that leave it out. */
  currency: string | null;
}

function planFromOffer(ld: JsonLd, { offer, holder, currency: inherited }: OfferContext): PricingPlan | null {
  const specs = asArray(prop(offer, "priceSpecification"))
    .map((s) => resolveRef(ld, s))
    .filter(isObject);
  const paid = specs.filter(isPaidSpec);
  const fromSpecs = specPrice(paid);
  const itemOffered = resolveRef(ld, asArray(prop(offer, "itemOffered"))[0]);
  const ownName = textOf(prop(offer, "name")) ?? (isObject(itemOffered) ? textOf(prop(itemOffered, "name")) : null);
  const holderName = holder ? textOf(prop(holder, "name")) : null;
  const spec = fromSpecs !== null && fromSpecs !== "ambiguous" ? fromSpecs.spec : null;
  const fullName = ownName ?? holderName ?? (spec ? textOf(prop(spec, "name")) : null);
  if (!fullName) return null;

  const priced = hasPriceField(offer) || specs.some(hasPriceField);
  // An offer without any price is a plan whose price the page does not give ("Enterprise: contact sales") only when
  // it names itself under a holder, or belongs to a product; an Event's "Buy tickets" link or an Offer on its own
  // that only says "reserve" is none.
  if (!priced && (!holder || (!ownName && !hasType(holder, ...PRODUCT_LIKE)))) return null;

  const rawPrice = prop(offer, "price") ?? prop(offer, "lowPrice");
  const currency =
    currencyCode(prop(offer, "priceCurrency")) ??
    (spec ? currencyCode(prop(spec, "priceCurrency")) : null) ??
    inherited ??
    currencyInText(rawPrice) ??
    (spec ? currencyInText(prop(spec, "price")) : null);
  // The offer's own price decides when it states one (Google's rule for the active price); else the paid specs.
  let amount: number | null;
  if (hasPriceField(offer)) amount = ownAmount(offer, currency);
  else amount = fromSpecs !== null && fromSpecs !== "ambiguous" ? fromSpecs.price.amount : null;
  if (amount === 0 && UNAVAILABLE_RE.test(textOf(prop(offer, "availability")) ?? "")) amount = null;

  // The period: the chosen spec's, else one all paid specs agree on (a spec that only says "P1M" next to the
  // offer's price), else the offer's own (billingDuration published on the Offer itself).
  const specPeriods = [...new Set(paid.map(periodOf).filter((p) => p !== null))];
  const period =
    (spec ? periodOf(spec) : null) ?? (specPeriods.length === 1 ? specPeriods[0]! : null) ?? periodOf(offer);
  // "Premium (Annual)" and "Premium (Monthly)": one plan's two billing options, named for their cycle.
  const cycle = billingInName(fullName);
  if (cycle && (period === null || period === cycle.period))
    return structuredPlan(cycle.name, { amount, currency, period: cycle.period });
  return structuredPlan(fullName, { amount, currency, period });
}

/** A billing cycle written after an offer's name: "Premium (Annual)", "Pro – Monthly", "Team yearly". */
const BILLING_IN_NAME_RE =
  /^(.*?\S)\s*(?:\(\s*(annual|annually|yearly|monthly)\s*\)|[-–—:]\s*(annual|annually|yearly|monthly)|\s(annual|annually|yearly|monthly))\s*$/i;

function billingInName(name: string): { name: string; period: "month" | "year" } | null {
  const found = BILLING_IN_NAME_RE.exec(name.trim());
  if (!found) return null;
  const word = (found[2] ?? found[3] ?? found[4]!).toLowerCase();
  return { name: found[1]!, period: word === "monthly" ? "month" : "year" };
}

/** Whether a node publishes offers of its own. */
function holdsOffers(node: JsonObject): boolean {
  return prop(node, "offers") !== undefined || prop(node, "hasOfferCatalog") !== undefined;
}

/**
 * A holder's offers: `offers` (Offer, AggregateOffer with nested offers, arrays, `@id` references) and
 * `hasOfferCatalog` (OfferCatalog and its ListItems). A node met there that holds offers itself (a Service listed in
 * a catalog) is left to be read as a holder. An AggregateOffer without nested offers beside concrete offers only
 * summarises them (monsterpetsupplies.co.uk: "from £5.29 – £9.56" next to both packs): it is dropped.
 */
function offersOf(ld: JsonLd, holder: JsonObject, expanded: Set<JsonObject>): OfferContext[] {
  const out: OfferContext[] = [];
  const stack: [unknown, string | null][] = [
    ...asArray(prop(holder, "offers")),
    ...asArray(prop(holder, "hasOfferCatalog")),
  ]
    .reverse()
    .map((value) => [value, null]);
  let guard = 0;
  while (stack.length > 0 && guard++ < 1000) {
    const [raw, currency] = stack.pop()!;
    const value = resolveRef(ld, raw);
    if (!isObject(value) || value === holder) continue;
    const nested = [...asArray(prop(value, "offers")), ...asArray(prop(value, "itemListElement"))];
    // An AggregateOffer, or an Offer without a price of its own (eBay nests the priced Offer in another), stands
    // for the offers nested in it.
    const wrapper =
      nested.length > 0 && (hasType(value, "AggregateOffer") || (hasType(value, "Offer") && !hasPriceField(value)));
    if (hasType(value, "OfferCatalog") || wrapper) {
      expanded.add(value);
      const inherited = currencyCode(prop(value, "priceCurrency")) ?? currency;
      for (let i = nested.length - 1; i >= 0; i -= 1) stack.push([nested[i], inherited]);
      continue;
    }
    if (hasType(value, "ListItem") && prop(value, "item") !== undefined) {
      stack.push([prop(value, "item"), currency]);
      continue;
    }
    if (!hasType(value, "Offer", "AggregateOffer") && holdsOffers(value)) continue;
    out.push({ offer: value, holder, currency });
  }
  const isSummary = (context: OfferContext): boolean => hasType(context.offer, "AggregateOffer");
  return out.some((context) => !isSummary(context)) ? out.filter((context) => !isSummary(context)) : out;
}

/**
 * One plan per key. Offers of one plan that agree are one plan; a monthly and a yearly option are the first listed;
 * offers without a price add nothing to priced ones; offers that disagree (sizes at different prices, a list and a
 * sale offer) leave the plan without an amount rather than pick one.
 */
function mergeByKey(plans: PricingPlan[]): PricingPlan[] {
  const groups = new Map<string, PricingPlan[]>();
  for (const plan of plans) {
    const group = groups.get(plan.key);
    if (group) group.push(plan);
    else groups.set(plan.key, [plan]);
  }
  return [...groups.values()].map((group) => {
    const priced = group.filter((plan) => plan.amount !== null);
    if (priced.length === 0) return group[0]!;
    const distinct = distinctPrices(priced);
    if (distinct.length === 1) return priced[0]!;
    // One option per period ("Premium (Annual)" $39/year, "Premium (Monthly)" $4/month): the plan shows them all.
    const periods = distinct.map((plan) => plan.period);
    if (periods.every((p) => p !== null) && new Set(periods).size === distinct.length) {
      const prices = distinct.map((plan) => ({
        amount: plan.amount,
        currency: plan.currency,
        period: plan.period,
        billing: null,
      }));
      return { ...priced[0]!, prices };
    }
    return structuredPlan(group[0]!.name, { amount: null, currency: null, period: null });
  });
}

/** Plans from JSON-LD and microdata nodes: every holder's offers, then offers published on their own. */
export function pricingFromNodes(ld: JsonLd): PricingPlan[] {
  const plans: PricingPlan[] = [];
  const seen = new Set<JsonObject>();
  const expanded = new Set<JsonObject>();
  for (const node of ld.nodes) {
    if (!holdsOffers(node)) continue;
    for (const context of offersOf(ld, node, expanded)) {
      if (seen.has(context.offer)) continue;
      seen.add(context.offer);
      const plan = planFromOffer(ld, context);
      if (plan) plans.push(plan);
    }
  }
  // An Offer outside any holder names itself or what it offers (`itemOffered`).
  for (const node of ld.nodes) {
    if (seen.has(node) || expanded.has(node) || !hasType(node, "Offer", "AggregateOffer")) continue;
    seen.add(node);
    const plan = planFromOffer(ld, { offer: node, holder: null, currency: null });
    if (plan) plans.push(plan);
  }
  return mergeByKey(plans);
}

/**
 * The plan of the product price meta tags, named after og:title or the page title: the sale price when one is
 * given (the price paid now), else the price. Tags that disagree give a plan without an amount.
 */
export function pricingFromMeta(meta: [string, string][]): PricingPlan[] {
  const values = (...names: string[]): string[] =>
    meta.filter(([name, content]) => names.includes(name) && content !== "").map(([, content]) => content);
  const name = values("og:title")[0] ?? values("title")[0];
  const sale = values("product:sale_price:amount");
  const raw = sale.length > 0 ? sale : values("product:price:amount", "og:price:amount");
  if (!name || raw.length === 0) return [];
  const currencies = (sale.length > 0 ? values("product:sale_price:currency") : [])
    .concat(values("product:price:currency", "og:price:currency"))
    .map(currencyCode)
    .filter((code) => code !== null);
  const currency = currencies[0] ?? null;
  const amounts = [...new Set(raw.map((value) => amountOf(value, currency)))];
  const amount = amounts.length === 1 ? amounts[0]! : null;
  return [structuredPlan(name, { amount, currency, period: null })];
}

/**
 * All structured-data plans of a page (readStructuredData's result): JSON-LD and microdata offers, or, only when
 * those have none, the product price meta tags.
 */
export function pricingFromStructuredData(ld: JsonLd): PricingPlan[] {
  const plans = pricingFromNodes(ld);
  return plans.length > 0 ? plans : pricingFromMeta(ld.meta ?? []);
}
