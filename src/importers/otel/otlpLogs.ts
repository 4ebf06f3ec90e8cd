/**
 * OTLP JSON logs (ExportLogsServiceRequest: resourceLogs -> scopeLogs ->
 * logRecords) as events of the span each names: the official GenAI
 * instrumentations write message content there (`gen_ai.user.message`,
 * `gen_ai.choice`, ... named by `eventName` or the `event.name` attribute,
 * the message in `body`). Pure.
 */
import { z } from 'zod';
import { parseWith } from '../../model';
import { anyValue, type Attrs } from './otlpSpans';

const LogsSchema = z.looseObject({
  resourceLogs: z.array(
    z.looseObject({
      scopeLogs: z
        .array(
          z.looseObject({
            logRecords: z
              .array(
                z.looseObject({
                  timeUnixNano: z.union([z.string(), z.number()]).optional(),
                  observedTimeUnixNano: z.union([z.string(), z.number()]).optional(),
                  traceId: z.string().optional(),
                  spanId: z.string().optional(),
                  eventName: z.string().optional(),
                  body: z.unknown().optional(),
                  attributes: z.array(z.looseObject({ key: z.string(), value: z.unknown().optional() })).optional(),
                }),
              )
              .optional(),
          }),
        )
        .optional(),
    }),
  ),
});

export interface LogEvent {
  traceId: string;
  spanId: string;
  name: string;
  time?: bigint;
  attrs: Attrs;
}

const nanos = (v: string | number | undefined) =>
  v === undefined ? undefined : BigInt(typeof v === 'number' ? Math.trunc(v) : v);

/** The log records of one export request that name a span and an event. */
export function logEvents(value: unknown, where: string): LogEvent[] {
  const req = parseWith(LogsSchema, value, where);
  const out: LogEvent[] = [];
  for (const rl of req.resourceLogs) {
    for (const sl of rl.scopeLogs ?? []) {
      for (const r of sl.logRecords ?? []) {
        const attrs: Attrs = {};
        for (const kv of r.attributes ?? []) attrs[kv.key] = anyValue(kv.value as never);
        const name = r.eventName ?? (typeof attrs['event.name'] === 'string' ? attrs['event.name'] : undefined);
        if (!r.traceId || !r.spanId || !name) continue;
        const body = anyValue(r.body as never);
        const bodyAttrs =
          body && typeof body === 'object' && !Array.isArray(body) ? (body as Attrs) : { content: body };
        const time = nanos(r.timeUnixNano ?? r.observedTimeUnixNano);
        out.push({
          traceId: r.traceId,
          spanId: r.spanId,
          name,
          ...(time !== undefined ? { time } : {}),
          attrs: { ...attrs, ...bodyAttrs },
        });
      }
    }
  }
  return out;
}
