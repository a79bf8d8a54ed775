/** Display helpers: labels for the contract's enumerations, dates, money. Everything returns plain text. */
import type { Schemas } from "./api.js";

export const TYPE_LABEL: Record<Schemas["EventType"], string> = {
  pricing_change: "Pricing",
  product_change: "Product",
  hiring_change: "Hiring",
  narrative_change: "Narrative",
};
export const EVENT_TYPES = Object.keys(TYPE_LABEL) as Schemas["EventType"][];
export const SEVERITIES: Schemas["Severity"][] = ["low", "medium", "high", "critical"];
export const SOURCE_TYPES: Schemas["SourceType"][] = [
  "homepage",
  "pricing",
  "careers",
  "blog",
  "changelog",
  "docs",
  "press",
  "rss",
  "social",
  "news",
  "reviews",
  "other",
];

export const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export function dateTime(value: string | null | undefined): string {
  if (!value) return "never";
  return new Date(value).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function day(value: string): string {
  return new Date(value).toLocaleDateString(undefined, { dateStyle: "medium" });
}

export function percent(value: number): string {
  return `${Math.round(value * 100)}%`;
}

const SYMBOL: Record<string, string> = { USD: "$", EUR: "€", GBP: "£", JPY: "¥" };

export function money(amount: number | null | undefined, currency: string | null | undefined): string {
  if (amount === null || amount === undefined) return "no price shown";
  const symbol = currency ? SYMBOL[currency] : "$";
  const number = amount.toLocaleString(undefined, { maximumFractionDigits: amount < 1 ? 6 : 2 });
  return symbol ? `${symbol}${number}` : `${currency} ${number}`;
}

export function perPeriod(period: string | null | undefined): string {
  return period === "month" ? "/month" : period === "year" ? "/year" : period === "one_time" ? " once" : "";
}

export function frequency(minutes: number): string {
  if (minutes % 1440 === 0) return minutes === 1440 ? "daily" : `every ${minutes / 1440} days`;
  if (minutes % 60 === 0) return minutes === 60 ? "hourly" : `every ${minutes / 60} hours`;
  return `every ${minutes} minutes`;
}

/** The pricing chart's series colours, in order (app.css gives the legend's swatches the same ones). */
export const SERIES_COLORS = ["#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#db2777", "#0891b2", "#4b5563"];
