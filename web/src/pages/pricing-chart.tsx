/**
 * The pricing history step chart (uPlot: a maintained canvas chart library of ~50 KB with stepped paths, loaded only
 * on a competitor's page). A click on a step opens the event that recorded it; the table beside it has the same data
 * and links for keyboards and screen readers.
 */
import { useEffect, useRef } from "react";
import { useNavigate } from "react-router";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { Schemas } from "../api.js";
import { SERIES_COLORS as COLORS } from "../format.js";

export default function PricingChart({ history }: { history: Schemas["PricingHistory"] }) {
  const box = useRef<HTMLDivElement>(null);
  const navigate = useNavigate();
  useEffect(() => {
    const element = box.current;
    if (!element || history.series.length === 0) return;
    const seconds = (iso: string) => Math.floor(new Date(iso).getTime() / 1000);
    const xs = [...new Set(history.series.flatMap((s) => s.points.map((p) => seconds(p.observed_at))))];
    xs.push(Math.floor(Date.now() / 1000));
    xs.sort((a, b) => a - b);
    const eventAt: (string | null)[][] = [];
    const ys = history.series.map((series) => {
      const events: (string | null)[] = [];
      let current: number | null = null;
      let next = 0;
      const values = xs.map((x) => {
        let event: string | null = null;
        while (next < series.points.length && seconds(series.points[next]!.observed_at) <= x) {
          const point = series.points[next]!;
          current = point.listed ? (point.promo_amount ?? point.amount) : null;
          event = point.event_id;
          next += 1;
        }
        events.push(event);
        return current;
      });
      eventAt.push(events);
      return values;
    });
    const stepped = uPlot.paths.stepped!({ align: 1 });
    const plot = new uPlot(
      {
        width: Math.max(320, element.clientWidth),
        height: 280,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true } },
        axes: [{}, { values: (_u, ticks) => ticks.map((t) => `${t}`) }],
        series: [
          {},
          ...history.series.map((s, i) => ({
            label: s.name,
            stroke: COLORS[i % COLORS.length],
            width: 2,
            paths: stepped,
            points: { show: true, size: 6 },
            spanGaps: false,
          })),
        ],
      },
      [xs, ...ys] as uPlot.AlignedData,
      element,
    );
    const open = () => {
      const idx = plot.cursor.idx;
      if (idx === null || idx === undefined) return;
      for (const events of eventAt) {
        const id = events[idx];
        if (id) return navigate(`/events/${id}`);
      }
    };
    plot.over.addEventListener("click", open);
    return () => {
      plot.over.removeEventListener("click", open);
      plot.destroy();
    };
  }, [history, navigate]);
  return <div ref={box} className="chart" />;
}
